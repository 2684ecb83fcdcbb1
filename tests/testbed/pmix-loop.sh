#!/bin/sh
# tests/testbed/pmix-loop.sh: counts srun --mpi=pmix launches that hang, on
# the Slurm mini-cluster (slurm-cluster.sh), with the argv launch/argv.c
# builds. Not part of `make check`: it takes minutes. Every launch is the
# layout of slurm-launch.t (4 host ranks on n1,n2, 2 workers on n1-bf,n2-bf)
# inside one allocation of all eight nodes, so that the step's nodes are
# not the first ones of the allocation (the case Slurm's mpi/pmix plugin
# gets wrong: tests/testbed/slurm-pmix-bug.md). No launch is retried; a
# launch that reaches its time limit counts as a hang.
#
#   pmix-loop.sh [-n NORMAL] [-d DIRECT] [-t TIMEOUT] [--no-nodelist]
#
# NORMAL launches (default 200) as they are, then DIRECT (default 50) with
# direct modex forced in the ranks (OMPI_MCA_pmix_base_async_modex=1
# OMPI_MCA_pmix_base_collect_data=0), each with a TIMEOUT s limit (60).
# --no-nodelist drops the builder's fix, to see the hang. Prints one line
# per launch and the counts; exits 1 if any launch failed or hung.
# Needs root and a build (make).
set -eu

ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
NORMAL=200
DIRECT=50
TIMEOUT=60
NOFIX=
while [ $# -gt 0 ]; do
	case $1 in
	-n) NORMAL=$2; shift 2 ;;
	-d) DIRECT=$2; shift 2 ;;
	-t) TIMEOUT=$2; shift 2 ;;
	--no-nodelist) NOFIX=--no-nodelist; shift ;;
	*) echo "usage: pmix-loop.sh [-n N] [-d N] [-t S] [--no-nodelist]" >&2; exit 2 ;;
	esac
done

TMP=$(mktemp -d /tmp/pmix-loop.XXXXXX)
CLUSTER=$TMP/cluster
cleanup() {
	sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER" >/dev/null 2>&1 || true
	[ -n "${SWEETSPOT_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mpicc -O1 -o "$TMP/hello" "$ROOT/tests/testbed/mpi-hello.c"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-I"$ROOT/common" -I"$ROOT/launch" -o "$TMP/launch-drive" \
	"$ROOT/tests/testbed/launch-drive.c" "$ROOT/build/libsweetspot.a" \
	-lconfig -lsqlite3 -ljansson -lm
sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"

LAY=$TMP/lay
mkdir -p "$LAY"
printf 'n1\nn1\nn2\nn2\nn1-bf\nn2-bf\n' >"$LAY/slurm.hostfile"
printf '0-3 %s host\n4-5 %s worker\n' "$TMP/hello" "$TMP/hello" >"$LAY/multi-prog.conf"

# The loop runs inside the allocation: one line per launch,
# "KIND I ok|hang|fail WALL".
cat >"$TMP/loop.sh" <<'EOF'
#!/bin/sh
# loop.sh DRIVE LAY TIMEOUT NORMAL DIRECT NOFIX OUT
drive=$1 lay=$2 t=$3 normal=$4 direct=$5 nofix=$6 out=$7
one() {
	kind=$1 i=$2
	shift 2
	rm -f "$out/run.log"
	# shellcheck disable=SC2086
	"$drive" srun "$lay" "$t" "$out/run.log" $nofix "$@" >"$out/drive.out" 2>&1
	st=$(sed -n 's/^status=\([-0-9]*\) timed_out=\([01]\) wall=\([0-9.]*\).*/\1 \2 \3/p' "$out/drive.out")
	set -- $st
	if [ "${2:-0}" = 1 ]; then
		r=hang
		cp "$out/run.log" "$out/hang-$kind-$i.log"
	elif [ "${1:-x}" = 0 ] && [ "$(grep -c 'size 6 .* rma ok' "$out/run.log")" = 6 ]; then
		r=ok
	else
		r=fail
		cp "$out/run.log" "$out/fail-$kind-$i.log"
	fi
	echo "$kind $i $r ${3:-?}"
}
i=1
while [ $i -le "$normal" ]; do one normal $i; i=$((i + 1)); done
i=1
while [ $i -le "$direct" ]; do
	one direct $i OMPI_MCA_pmix_base_async_modex=1 OMPI_MCA_pmix_base_collect_data=0
	i=$((i + 1))
done
EOF
start=$(date +%s)
salloc -Q -N 8 --exclusive -t 600 sh "$TMP/loop.sh" "$TMP/launch-drive" "$LAY" "$TIMEOUT" "$NORMAL" \
	"$DIRECT" "$NOFIX" "$TMP" | tee "$TMP/results"
for kind in normal direct; do
	for r in ok hang fail; do
		printf '%s %s: %s\n' "$kind" "$r" "$(grep -c "^$kind [0-9]* $r " "$TMP/results" || true)"
	done
done
echo "wall: $(($(date +%s) - start)) s"
for f in "$TMP"/hang-* "$TMP"/fail-*; do
	[ -r "$f" ] && { echo "--- $f"; tail -n 5 "$f"; }
done
! grep -Eq ' (hang|fail) ' "$TMP/results"
