#!/bin/sh
# tests/testbed/slurm-init.t: `sweetspot init` inside real Slurm
# allocations (slurm-cluster.sh, two host nodes and their DPUs, 8 CPUs
# each). `salloc -N 2` gives 1 CPU per node: init says so and how to ask
# for more (--exclusive, -c N, --ntasks-per-node), and writes a spec that
# fits what it saw; the spec without DPUs (sinfo hidden) overcommits the
# one CPU on purpose, and runs for real with srun, where the same layout
# without --overcommit is refused. `salloc --exclusive` and `-c 2` give
# what they promise, and init then fits them without a word. Run it under
# flock /tmp/sweetspot-heavy.lock (the cluster is brought up and down).
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/lib/slurm.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"

plan 22
cd "$TMP" || exit 1

exits_with 0 "the cluster comes up" env SWEETSPOT_SLURM_NODES=2 sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"

# in_alloc SALLOC-ARGS -- COMMAND...: the command inside a new allocation
# of the host nodes (its environment is the allocation's).
in_alloc() {
	a=
	while [ "$1" != -- ]; do a="$a $1"; shift; done
	shift
	# shellcheck disable=SC2086
	timeout 600 salloc -Q -N 2 -C host $a "$@"
}

# salloc -N 2: 1 CPU per node. sinfo shows the DPUs (n1-bf, n2-bf).
exits_with 0 "init in 'salloc -N 2'" in_alloc -- sweetspot init -o dpu.cfg
like "$TMP/err" "has 1 CPU per node \(SLURM_JOB_CPUS_PER_NODE=1\(x2\)\), fewer than a sweep wants" "it says so"
like "$TMP/err" "salloc -N 2 --exclusive" "how to ask: whole nodes"
like "$TMP/err" "salloc -N 2 --ntasks-per-node=N" "ranks per node"
like "$TMP/err" "salloc -N 2 -c N" "CPUs per task"
like dpu.cfg "^[[:space:]]*ppn = 1;" "the one CPU to a host rank"
like dpu.cfg "^[[:space:]]*placement = \[ \"dpu\" \];" "the workers on the DPUs"
exits_with 0 "plan takes it" sweetspot plan dpu.cfg

# Without DPUs (a sinfo that fails): nothing fits 1 CPU; the smallest
# layout, 2 ranks per CPU, said and asked of srun with --overcommit.
mkdir fake
printf '#!/bin/sh\nexit 1\n' >fake/sinfo
chmod +x fake/sinfo
exits_with 0 "init without DPUs" in_alloc -- env PATH="$TMP/fake:$PATH" sweetspot init -o one.cfg
like "$TMP/err" "one.cfg: no layout fits 1 CPU" "it says what the spec does"
like one.cfg "launcher_args = \[ \"--overcommit\" \];" "--overcommit, in the spec"
# Small enough to run here: one collective, size and assignment, 5 iterations.
small() {
	sed -e 's/^\(\s*collectives = \).*/\1[ "bcast" ];/' -e 's/^\(\s*assignments = \).*/\1[ "block" ];/' \
	    -e 's/^\(\s*sizes = \).*/\1[ "4K" ];/' -e 's/^\(\s*iterations = \).*/\1 5;/' \
	    -e 's/^\(\s*warmup = \).*/\1 1;/' -e 's/^\(\s*repetitions = \).*/\1 1;/' \
	    -e 's/^\(\s*time_limit = \).*/\1 120;/' -e 's/^\(\s*transport = \).*/\1"rma";/' "$1"
}
small one.cfg >one-small.cfg
exits_with 0 "it runs for real with srun" in_alloc -- sweetspot run one-small.cfg --db one.db
is "$(grep -c '^\[[12]/2\] n2-ppn1-w[12]-wpn1-onload r1: ok, 1 points' "$TMP/err")" 2 "both layouts ran, a record each"
grep -v overcommit one-small.cfg >one-nover.cfg
in_alloc -- sweetspot run one-nover.cfg --db nover.db >"$TMP/out" 2>"$TMP/err"
like "$TMP/err" "srun: error: Unable to create step .* More processors requested than permitted" \
	"the same without --overcommit is refused by srun"

# What the advice asks for, given: whole nodes; 2 CPUs per task.
exits_with 0 "init in 'salloc -N 2 --exclusive'" in_alloc --exclusive -- sweetspot init -o whole.cfg
ok "nothing to say" sh -c "! grep -q 'fewer than a sweep wants' '$TMP/err'"
like whole.cfg "^[[:space:]]*ppn = 6;" "8 CPUs: 6 host ranks, 2 onload cores"
exits_with 0 "init in 'salloc -N 2 -c 2'" in_alloc -c 2 -- env PATH="$TMP/fake:$PATH" sweetspot init -o two.cfg
like two.cfg "^[[:space:]]*onload = \{ cores = 1; \};" "2 CPUs: 1 host rank and 1 worker core"
ok "no overcommit" sh -c "! grep -q overcommit two.cfg"

exits_with 0 "the cluster goes down" sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER"
done_testing
