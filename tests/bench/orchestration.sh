#!/bin/sh
# tests/bench/orchestration.sh: what sweetspot itself costs around the
# kernel launches of a sweep. Runs profiles/local.cfg (a local sweep of at
# least 20 points) into a scratch database and compares the sweep's wall
# time with the time spent inside launches (the launches' wall times as the
# database recorded them). Overhead = (sweep wall - inside launches) / sweep
# wall; target <= 3%. Both times and the ratio come from this one run.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$ROOT/bin
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

SPEC=$ROOT/profiles/local.cfg
points=$("$BIN/sweetspot" plan "$SPEC" --json | sed -n 's/.*"measurements":\([0-9]*\).*/\1/p')
if [ "$points" -lt 20 ]; then
	echo "orchestration: $SPEC plans $points points, fewer than 20" >&2
	exit 1
fi
t0=$(date +%s.%N)
"$BIN/sweetspot" run "$SPEC" --db "$TMP/bench.db" >/dev/null 2>"$TMP/err" || {
	cat "$TMP/err" >&2
	exit 1
}
t1=$(date +%s.%N)
inside=$(sqlite3 "$TMP/bench.db" 'SELECT sum(wall_s) FROM launches')
launches=$(sqlite3 "$TMP/bench.db" 'SELECT count(*) FROM launches')
stored=$(sqlite3 "$TMP/bench.db" 'SELECT count(*) FROM points')
awk -v t0="$t0" -v t1="$t1" -v in_="$inside" -v n="$launches" -v p="$stored" 'BEGIN {
	wall = t1 - t0
	ratio = (wall - in_) / wall
	printf "orchestration: %d points in %d launches\n", p, n
	printf "orchestration: sweep wall %.3f s, inside launches %.3f s, outside %.3f s\n", wall, in_, wall - in_
	printf "orchestration: overhead ratio %.4f (%.2f%%), target <= 3%%: %s\n", ratio, 100 * ratio, ratio <= 0.03 ? "met" : "NOT met"
}'
