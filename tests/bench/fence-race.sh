#!/bin/sh
# tests/bench/fence-race.sh: the reproducer of the Open MPI crash the soak
# bench found (docs/upstream/openmpi-btl-tcp-init-segv.md), made
# deterministic. One rank of 8 (4 nodes x 2) sleeps DELAY_MS (default 4000)
# inside MPI_Init between the modex fence and the PML's registration of its
# callbacks (fence-race/delay.c, LD_PRELOADed); every rank then sends to
# every other (fence-race/early.c). If MPI_Init's final fence holds every
# rank until the slow one has joined it, the others return when it does;
# if the fence lets them go early, they return seconds before it, and
# their first messages can reach it before its callbacks exist: SIGSEGV.
# N launches (default 8) per case: mpirun (ORTE's PMIx server), srun
# --mpi=pmix with each of Slurm's fences (SLURM_PMIX_FENCE mixed, its
# default; tree; ring), and srun as the testbed is configured (its
# mpi.conf says PMIxCollFence=ring, the workaround).
# Per case: launches whose other ranks returned more than 1 s before the
# slow one ("released early"), that crashed (SIGSEGV), that hung (killed
# at 120 s), and "held" (all returned within 1 s). pml ob1 and btl
# self,tcp, as on the testbed. Needs root (the Slurm testbed) and mpicc;
# run under `flock /tmp/sweetspot-heavy.lock`.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
N=${N:-8}
DELAY_MS=${DELAY_MS:-4000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-fence.XXXXXX")
CLUSTER=$TMP/cluster
cleanup() {
	sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER" >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
[ "$(id -u)" -eq 0 ] || { echo "fence-race.sh: the Slurm testbed needs root" >&2; exit 1; }
command -v mpicc >/dev/null || { echo "fence-race.sh: mpicc is not installed" >&2; exit 1; }

mpicc -O2 -o "$TMP/early" "$ROOT/tests/bench/fence-race/early.c"
cc -O2 -shared -fPIC -o "$TMP/delay.so" "$ROOT/tests/bench/fence-race/delay.c" -ldl
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# classify RC OUTPUT: one word for a launch.
classify() {
	if [ "$1" -eq 124 ]; then
		echo hung
	elif [ "$1" -ne 0 ] || grep -q 'Segmentation fault\|signal 11' "$2"; then
		echo crashed
	else
		# The slow rank's return time against the earliest other's.
		sed -n 's/^returned://p' "$2" | awk '{ late = $6; m = 1e9
			for (i = 1; i <= NF; i++) if (i != 6 && $i < m) m = $i
			print (late - m > 1.0) ? "early" : "held" }'
	fi
}

# run CASE COMMAND...: N launches, one line of the table.
run() {
	c=$1
	shift
	: >"$TMP/$c.classes"
	i=0
	while [ "$i" -lt "$N" ]; do
		rc=0
		timeout 120 "$@" >"$TMP/out" 2>&1 || rc=$?
		classify "$rc" "$TMP/out" >>"$TMP/$c.classes"
		i=$((i + 1))
	done
	printf '%-22s %8s %16s %7s %5s %5s\n' "$c" "$N" \
		"$(grep -c '^early$' "$TMP/$c.classes" || true)" \
		"$(grep -c '^crashed$' "$TMP/$c.classes" || true)" \
		"$(grep -c '^hung$' "$TMP/$c.classes" || true)" \
		"$(grep -c '^held$' "$TMP/$c.classes" || true)"
}

echo "fence-race: $N launches per case, 8 ranks, rank 5 held ${DELAY_MS} ms inside MPI_Init"
printf '%-22s %8s %16s %7s %5s %5s\n' case launches "released early" crashed hung held
run mpirun mpirun --oversubscribe -np 8 -x LD_PRELOAD="$TMP/delay.so" -x DELAY_RANK=5 \
	-x DELAY_MS="$DELAY_MS" "$TMP/early"
sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER" >/dev/null
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
x="ALL,LD_PRELOAD=$TMP/delay.so,DELAY_RANK=5,DELAY_MS=$DELAY_MS"
for f in mixed tree ring; do
	run "srun, fence $f" srun --mpi=pmix -w 'n[1-4]' -N 4 -n 8 \
		--export="$x,SLURM_PMIX_FENCE=$f" "$TMP/early"
done
run "srun, testbed's" env -u SLURM_PMIX_FENCE srun --mpi=pmix -w 'n[1-4]' -N 4 -n 8 \
	--export="$x" "$TMP/early"
echo "released early: the other ranks left MPI_Init > 1 s before the slow one (the race's window)"
