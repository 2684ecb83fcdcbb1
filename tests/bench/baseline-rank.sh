#!/bin/sh
# tests/bench/baseline-rank.sh: does `sweetspot baseline` rank Open MPI's
# algorithms as the project's own collective loop (sweetspot-loop, what
# `verify` runs by default) does? 4 ranks of Open MPI on this machine;
# bcast and allreduce (BASELINE_RANK_COLLS) at 4K, 64K and 1M
# (BASELINE_RANK_SIZES); every coll/tuned algorithm the baseline forces
# (ompi_info's ids but 0, which is Open MPI's own choice; allgather's
# two_proc only on 2 ranks).
#
# Side by side in one run, R rounds (BASELINE_RANK_R, default 8, at least
# 5): each round is one `sweetspot baseline` of the spec with repetitions 1
# (a spec of its own per round, so a new run whose launch order the round's
# spec seeds) and one launch of sweetspot-loop per algorithm with the same
# forcing environment as the baseline's launch (taken from its --dry-run),
# the loop's launches in an order drawn from the seed (BASELINE_RANK_SEED)
# and the round, and whether the baseline or the loop goes first drawn too.
# A launch's figure: the baseline's stored total_us_median (`results
# --json`), the loop's median_us; both the median over batches of the
# ranks' mean time per call.
#
# Per collective and size, every pair of algorithms (A the lower id, B the
# higher) is decided for each measure with `sweetspot verify`'s statistics
# (tests/bench/rank-pairs.c: B/A by Hodges-Lehmann of the logs with its 95%
# CI, Mann-Whitney, Holm over the pairs of that size): B faster, A faster,
# same (the CI within 1 +- delta, 0.01), or undecided. A pair DISAGREES
# when one measure is significant in a direction and the other's 95% CI of
# B/A excludes every ratio that would be a difference in that direction
# (low end above 0.99 when B was faster; high end below 1.01 when A was);
# it agrees when it does not disagree and at least one measure is
# significant; it is undecided by both otherwise. Target: 0 disagree.
# With 36 pairs of bcast a size, Holm asks p < 0.05/36 of the smallest: the
# exact Mann-Whitney p of R against R launches reaches that from R = 7 on.
#
# Figures (load average 5-10 on 2 cores): docs/benchmarks.md; 8 rounds
# take about 11 minutes.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
S="$ROOT/bin/sweetspot"
PAIRS="$ROOT/build/tests/rank-pairs"
R=${BASELINE_RANK_R:-8}
SEED=${BASELINE_RANK_SEED:-25}
COLLS=${BASELINE_RANK_COLLS:-bcast,allreduce}
SIZES=${BASELINE_RANK_SIZES:-4K,64K,1M}
case $R in '' | *[!0-9]*) echo "baseline-rank: BASELINE_RANK_R '$R' is not a number" >&2; exit 2 ;; esac
[ "$R" -ge 5 ] || { echo "baseline-rank: BASELINE_RANK_R is $R, 5 at least" >&2; exit 2; }
[ -x "$PAIRS" ] || { echo "baseline-rank: $PAIRS is not built (make $PAIRS)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
START=$(date +%s)

. "$ROOT/tests/lib/local-spec.sh"
# The spec of round $1 (its first line makes each round's spec another).
spec() {
	local_spec "$ROOT" "$COLLS" "$SIZES" 1 "baseline-rank.sh round $1 seed $SEED"
}

# The algorithms the baseline forces, as "coll id" lines, and each one's
# forcing environment (its dry-run command's OMPI_MCA_ words) in env-COLL-ID.
spec 0 >"$TMP/dry.cfg"
"$S" baseline "$TMP/dry.cfg" --db "$TMP/dry.db" --dry-run >"$TMP/dry.out"
sed -n 's/.*\/mpi-\([a-z]*\)-alg\([0-9]*\)-r1.*/\1 \2/p' "$TMP/dry.out" >"$TMP/algs"
[ -s "$TMP/algs" ] || { echo "baseline-rank: the baseline forces no algorithm" >&2; exit 1; }
while read -r coll id; do
	grep "/mpi-$coll-alg$id-r1'" "$TMP/dry.out" | tr ' ' '\n' | grep '^OMPI_MCA_.*=' >"$TMP/env-$coll-$id"
done <"$TMP/algs"
BYTES=$(sed -n 's/.* -m \([0-9,]*\) .*/\1/p' "$TMP/dry.out" | head -1)

# One loop launch: collective $1, algorithm $2, its rows to stdout as data.
loop() {
	set -- "$1" "$2" $(cat "$TMP/env-$1-$2")
	coll=$1 id=$2
	shift 2
	xs=""
	for v in "$@"; do xs="$xs -x ${v%%=*}"; done
	# shellcheck disable=SC2086
	env "$@" mpirun --oversubscribe --allow-run-as-root $xs --host localhost:4 -np 4 \
		"$ROOT/bin/sweetspot-loop" -c "$coll" -m "$BYTES" -i 10 -x 2 </dev/null >"$TMP/loop.out" 2>&1 || {
		echo "baseline-rank: sweetspot-loop $coll algorithm $id failed:" >&2
		tail -5 "$TMP/loop.out" >&2
		exit 1
	}
	awk -v c="$coll" -v id="$id" '$1 == c && $2 ~ /^[0-9]+$/ && NF == 6 { print $1, "loop", $2, id, $4 }' "$TMP/loop.out"
}

baseline() {
	spec "$1" >"$TMP/round.cfg"
	"$S" baseline "$TMP/round.cfg" --db "$TMP/s.db" >"$TMP/baseline.out" 2>"$TMP/baseline.err" || {
		echo "baseline-rank: round $1's baseline failed:" >&2
		tail -5 "$TMP/baseline.err" >&2
		exit 1
	}
	"$S" results --json --db "$TMP/s.db" |
		jq -r '.[] | select(.algorithm | startswith("tuned:")) |
			"\(.collective) baseline \(.bytes) \(.algorithm | ltrimstr("tuned:")) \(.total_us_median)"'
}

: >"$TMP/data"
r=1
while [ "$r" -le "$R" ]; do
	# This round's draw: the loop's order, and which measure goes first.
	awk -v seed="$SEED" -v r="$r" 'BEGIN { srand(seed * 1000 + r) } { print rand(), $0 }' "$TMP/algs" |
		sort -k1,1g | cut -d' ' -f2- >"$TMP/order"
	first=$(awk -v seed="$SEED" -v r="$r" 'BEGIN { srand(seed * 1000 + r + 500); print rand() < 0.5 ? "loop" : "baseline" }')
	[ "$first" = baseline ] && baseline "$r" >>"$TMP/data"
	while read -r coll id; do loop "$coll" "$id" >>"$TMP/data"; done <"$TMP/order"
	[ "$first" = loop ] && baseline "$r" >>"$TMP/data"
	r=$((r + 1))
done

echo "baseline-rank: $R rounds, 4 ranks, $(wc -l <"$TMP/algs") algorithms of $COLLS at $SIZES, seed $SEED, $(($(date +%s) - START)) s"
for coll in $(echo "$COLLS" | tr ',' ' '); do
	grep "^$coll " "$TMP/data" | cut -d' ' -f2- >"$TMP/data-$coll" || continue
	echo "== $coll: baseline (A, B: algorithm ids) and the loop"
	"$PAIRS" baseline loop "$TMP/data-$coll" >"$TMP/pairs-$coll"
	cat "$TMP/pairs-$coll"
done
cat "$TMP"/pairs-* | awk '/^pairs:/ { a += $2; d += $4; u += $6 }
END { printf "all: %d pairs agree, %d disagree, %d undecided by both (target: 0 disagree)\n", a, d, u }'
