#!/bin/sh
# tests/cli/init.t: `sweetspot init` writes a spec that `sweetspot plan`
# takes as it is: on this machine (onload, mpirun), and inside a Slurm
# allocation seen through fake SLURM_* variables and a fake sinfo (nodes,
# CPUs, DPUs named node + "-bf", in the cluster or in the allocation). An
# allocation with fewer CPUs than a sweep wants (salloc -N 2 gives 1 per
# node) is said, with how to ask for more, and the spec fits what was
# seen. It never replaces a file without --force.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 38
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_CPUS_ON_NODE SLURM_JOB_CPUS_PER_NODE
cd "$TMP" || exit 1

exits_with 0 "init on this machine" sweetspot init
like "$TMP/out" "^wrote sweetspot.cfg" "it says where the spec went"
like sweetspot.cfg "^[[:space:]]*placement = \[ \"onload\" \];" "workers on onload cores"
like sweetspot.cfg "^[[:space:]]*launcher = \"mpirun\";" "launched with mpirun"
like sweetspot.cfg "host_bin = \"$BIN/sweetspot-kernel\";" "the kernel beside sweetspot"
exits_with 0 "plan takes it as it is" sweetspot plan sweetspot.cfg
like "$TMP/out" "onload" "and plans onload layouts"

echo "mine" >keep.cfg
exits_with 2 "an existing file is not replaced" sweetspot init -o keep.cfg
is "$(cat keep.cfg)" "mine" "it is untouched"
like "$TMP/err" "keep.cfg exists; give --force" "the message says how"
exits_with 0 "--force replaces it" sweetspot init -o keep.cfg --force
exits_with 2 "an operand is bad usage" sweetspot init extra

# A Slurm allocation of two 16-CPU nodes; sinfo knows their DPUs.
mkdir fake
cat >fake/sinfo <<'SH'
#!/bin/sh
[ "$*" = "-h -N -o %N %c" ] || { echo "fake sinfo: unexpected arguments: $*" >&2; exit 1; }
printf 'n01 16\nn02 16\nn03 16\nn01-bf 8\nn02-bf 8\nn03-bf 8\nn010 16\n'
SH
chmod +x fake/sinfo
export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='n[01-02]' SLURM_JOB_CPUS_PER_NODE='16(x2)'
PATH=$TMP/fake:$PATH exits_with 0 "init inside an allocation" sweetspot init -o job.cfg
like job.cfg "^[[:space:]]*nodes = \"n\[01-02\]\";" "the allocation's nodes"
like job.cfg "^[[:space:]]*ppn = 14;" "16 CPUs: 14 host ranks, 2 onload cores"
like job.cfg "dpu = \{ suffix = \"-bf\"; cores = 8; \};" "the DPUs sinfo lists, with their cores"
like job.cfg "^[[:space:]]*launcher = \"srun\";" "launched with srun"
like job.cfg "^[[:space:]]*placement = \[ \"dpu\", \"onload\" \];" "both placements"
exits_with 0 "plan takes it as it is" sweetspot plan job.cfg
like "$TMP/out" "n2-ppn14-w16-wpn8-dpu" "8 workers per DPU on both nodes"

# DPUs inside the allocation; sinfo fails (it must not be needed).
printf '#!/bin/sh\necho "sinfo: down" >&2\nexit 1\n' >fake/sinfo
SLURM_JOB_NODELIST='a[1-3],a[1-3]-dpu' SLURM_CPUS_ON_NODE=8 PATH=$TMP/fake:$PATH \
	exits_with 0 "DPUs in the allocation" sweetspot init -o alloc.cfg
like alloc.cfg "^[[:space:]]*nodes = \"a\[1-3\]\";" "the DPUs are not host nodes"
like alloc.cfg "suffix = \"-dpu\"" "their suffix"
exits_with 0 "plan takes it as it is" sweetspot plan alloc.cfg

# Too few CPUs: 1 per node (salloc -N 2's default), no DPU anywhere.
SLURM_JOB_NODELIST='n[1-2]' SLURM_JOB_CPUS_PER_NODE='1(x2)' PATH=$TMP/fake:$PATH \
	exits_with 0 "1 CPU per node" sweetspot init -o one.cfg
like "$TMP/err" "job 4242 has 1 CPU per node \(SLURM_JOB_CPUS_PER_NODE=1\(x2\)\), fewer than a sweep wants" "it says so"
like "$TMP/err" "salloc -N 2 --exclusive" "and how to ask: whole nodes"
like "$TMP/err" "salloc -N 2 --ntasks-per-node=N" "tasks per node"
like "$TMP/err" "salloc -N 2 -c N" "CPUs per task"
like one.cfg "^[[:space:]]*ppn = 1;" "one host rank per node"
like one.cfg "launcher_args = \[ \"--overcommit\" \];" "the overcommit said in the spec"
exits_with 0 "plan takes it" sweetspot plan one.cfg
# 2 CPUs: one host rank and one worker core fit.
SLURM_JOB_NODELIST='n[1-2]' SLURM_JOB_CPUS_PER_NODE='2(x2)' PATH=$TMP/fake:$PATH \
	exits_with 0 "2 CPUs per node" sweetspot init -o two.cfg
like "$TMP/err" "two.cfg fits the 2 CPUs seen" "said, and it fits"
ok "no overcommit" sh -c "! grep -q overcommit two.cfg"
# 1 CPU with DPUs: the CPU to a host rank, the workers on the DPUs.
SLURM_JOB_NODELIST='a[1-2],a[1-2]-dpu' SLURM_JOB_CPUS_PER_NODE='1(x4)' PATH=$TMP/fake:$PATH \
	exits_with 0 "1 CPU per node, with DPUs" sweetspot init -o dpu1.cfg
like dpu1.cfg "^[[:space:]]*placement = \[ \"dpu\" \];" "workers on the DPUs only"
ok "no onload cores" sh -c "! grep -q 'onload = ' dpu1.cfg"

done_testing
