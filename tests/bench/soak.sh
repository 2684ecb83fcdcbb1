#!/bin/sh
# tests/bench/soak.sh: many launches with retries off, on a loaded machine,
# and every failure classified (issue 26, item 5). Two sweeps of the real
# kernel (bcast 4K, rma transport, 1 and 2 workers on the DPUs of 2 nodes
# x 2 PPN): one with mpirun on made-up host names (fake-ssh), one with srun
# on the Slurm testbed (slurm-cluster.sh). LOAD processes (default 2, one
# per core) spin beside them. Each failed launch is put in one class, from
# its reason and its log:
#   hang     killed at the time limit (target: none);
#   runtime  a rank died of SIGSEGV inside Open MPI (its own "Caught signal
#            11"/"Segmentation fault" report, a peer's "failed to TCP
#            connect"): the runtime's bug, not ours;
#   ours     the kernel's own error or a point that failed validation;
#   machine  the machine ran out of something (memory, processes, disk);
#   other    none of those: printed whole, to be looked at.
# Core files of crashed ranks are kept in the output folder (KEEP=DIR, else
# a temporary one) for gdb. LAUNCHES (default 500) per launcher. SWEEPS
# (default "mpirun srun") picks the sweeps ("het" adds a third: srun in a
# heterogeneous allocation, hosts and DPUs as two components, the steps of
# `submit --hetjob`); with KEEP=DIR a sweep that was
# stopped resumes where it stopped (`sweetspot run` resumes its run), so
# the mpirun sweep can run on its own while the testbed is busy.
# Run under `flock /tmp/sweetspot-heavy.lock` when SWEEPS has srun: it
# brings up the testbed.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$ROOT/bin
PATH=$BIN:$PATH
LAUNCHES=${LAUNCHES:-500}
LOAD=${LOAD:-2}
SWEEPS=${SWEEPS:-mpirun srun}
case " $SWEEPS " in *" mpirun "* | *" srun "* | *" het "*) ;; *)
	echo "soak.sh: SWEEPS names no sweep (mpirun, srun, het): $SWEEPS" >&2
	exit 2
	;;
esac
has() { case " $SWEEPS " in *" $1 "*) return 0 ;; esac; return 1; }
OUT=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-soak.XXXXXX")}
mkdir -p "$OUT/cores"
CLUSTER=$OUT/cluster
hogs=""
old_pattern=$(cat /proc/sys/kernel/core_pattern)
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null || true; done
	sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER" >/dev/null 2>&1 || true
	printf '%s\n' "$old_pattern" >/proc/sys/kernel/core_pattern 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
[ "$(id -u)" -eq 0 ] || { echo "soak.sh: the Slurm testbed needs root" >&2; exit 1; }

# Cores of crashed ranks into $OUT/cores (the pattern is restored at exit).
printf '%s\n' "$OUT/cores/core.%e.%p" >/proc/sys/kernel/core_pattern
ulimit -c unlimited

. "$ROOT/tests/lib/dpu-spec.sh"
# 2 layouts a sweep: LAUNCHES / 2 repetitions each.
reps=$((LAUNCHES / 2))

# classify DB: "class reason" per failed launch, from its reason and log.
classify() {
	sqlite3 -separator '|' "$1" "SELECT reason, log_path FROM launches WHERE NOT ok" |
		while IFS='|' read -r reason log; do
			if [ -n "$log" ] && [ -f "$log" ]; then text="$reason $(cat "$log")"; else text=$reason; fi
			case $text in
			*"timed out after"*) class=hang ;;
			*"Caught signal 11"* | *"Segmentation fault"* | *"failed to TCP connect"*) class=runtime ;;
			*"validation failed"* | *"sweetspot-kernel: rank "*) class=ours ;;
			*"Cannot allocate memory"* | *"No space left"* | *"Resource temporarily unavailable"*) class=machine ;;
			*) class=other ;;
			esac
			printf '%s %s\n' "$class" "$reason"
		done
}

# report LAUNCHER DB: one line of the table, and the "other" failures whole.
report() {
	classify "$2" >"$OUT/$1.classes"
	n=$(sqlite3 "$2" "SELECT count(*) FROM launches")
	okn=$(sqlite3 "$2" "SELECT count(*) FROM launches WHERE ok")
	printf '%-7s %8s %6s %5s %8s %5s %8s %6s\n' "$1" "$n" "$okn" \
		"$(grep -c '^hang ' "$OUT/$1.classes" || true)" \
		"$(grep -c '^runtime ' "$OUT/$1.classes" || true)" \
		"$(grep -c '^ours ' "$OUT/$1.classes" || true)" \
		"$(grep -c '^machine ' "$OUT/$1.classes" || true)" \
		"$(grep -c '^other ' "$OUT/$1.classes" || true)"
	grep '^other ' "$OUT/$1.classes" | sed 's/^/    /' || true
}

i=0
while [ "$i" -lt "$LOAD" ]; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done

# Open MPI's settings for emulated nodes of one machine as slurm-run.t's:
# tcp between them, and osc pt2pt (Debian turns it off; osc rdma needs
# shared memory, which separate "nodes" do not share). The srun steps get
# theirs from the testbed's TaskProlog (btl self,tcp; osc ucx).
has mpirun && RETRIES=0 spec "fk[1-2]" mpirun "launcher_args = [ \"--mca\", \"plm_rsh_agent\", \"$ROOT/tests/testbed/fake-ssh\",
	\"--mca\", \"btl\", \"self,tcp\", \"--mca\", \"osc\", \"pt2pt\",
	\"--mca\", \"btl_tcp_if_include\", \"lo\", \"--mca\", \"oob_tcp_if_include\", \"lo\" ];" \
	"$reps" 120 >"$OUT/mpirun.cfg"
has mpirun && { sweetspot run "$OUT/mpirun.cfg" --db "$OUT/mpirun.db" >>"$OUT/mpirun.out" 2>>"$OUT/mpirun.err" || true; }

if has srun || has het; then
	sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER" >/dev/null
	eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
fi
if has srun; then
	RETRIES=0 spec "n[1-2]" srun "" "$reps" 120 >"$OUT/srun.cfg"
	salloc -Q --nodelist=n1,n2,n1-bf,n2-bf --nodes=4 --ntasks-per-node=2 \
		sweetspot run "$OUT/srun.cfg" --db "$OUT/srun.db" >>"$OUT/srun.out" 2>>"$OUT/srun.err" || true
fi
# The heterogeneous allocation submit --hetjob asks for: hosts, then DPUs.
if has het; then
	RETRIES=0 spec "n[1-2]" srun "" "$reps" 120 >"$OUT/het.cfg"
	salloc -Q --nodelist=n1,n2 --nodes=2 --ntasks-per-node=2 : \
		--nodelist=n1-bf,n2-bf --nodes=2 --ntasks-per-node=2 \
		sweetspot run "$OUT/het.cfg" --db "$OUT/het.db" >>"$OUT/het.out" 2>>"$OUT/het.err" || true
fi
echo "soak: $LAUNCHES launches per launcher, retries off, $LOAD spinning processes beside"
printf '%-7s %8s %6s %5s %8s %5s %8s %6s\n' launcher launches ok hang runtime ours machine other
for l in mpirun srun het; do
	[ -f "$OUT/$l.db" ] && report "$l" "$OUT/$l.db"
done
echo "target: 0 hangs; every failure classified (other: 0)"
echo "cores kept: $(ls "$OUT/cores" | wc -l)${KEEP:+ in $OUT/cores}"
