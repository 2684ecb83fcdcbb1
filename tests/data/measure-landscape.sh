#!/bin/sh
# tests/data/measure-landscape.sh SPEC LAUNCHES DB OUT.csv [SEED]: measures
# every layout of SPEC's plan LAUNCHES times for a replay table (what
# tests/data/landscape-measured.csv is): in LAUNCHES rounds, each round every
# layout once in an order drawn from SEED (default 1) and the round, so that
# a drifting or loaded machine spreads over the layouts instead of landing
# on the ones measured last. Each launch is `sweetspot run --only ID:REP` of
# a copy of SPEC with repetitions = LAUNCHES (beside SPEC, for its relative
# paths; removed at the end), stored in DB; then `sweetspot results --csv`
# of that run goes to OUT.csv. Failed launches are recorded and counted.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SS=$ROOT/bin/sweetspot
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
	echo "usage: measure-landscape.sh SPEC LAUNCHES DB OUT.csv [SEED]" >&2
	exit 2
fi
SPEC=$1 N=$2 DB=$3 OUT=$4 SEED=${5:-1}
case $N$SEED in
*[!0-9]*)
	echo "measure-landscape.sh: LAUNCHES and SEED are counts ('$N', '$SEED')" >&2
	exit 2
	;;
esac
[ "$N" -ge 1 ] || { echo "measure-landscape.sh: LAUNCHES must be 1 or more" >&2; exit 2; }
COPY=$(mktemp "$(dirname "$SPEC")/.measure-XXXXXX")
trap 'rm -f "$COPY"' EXIT
sed "s/^\([[:space:]]*repetitions[[:space:]]*=[[:space:]]*\)[0-9]*;/\1$N;/" "$SPEC" >"$COPY"
ids=$("$SS" plan "$COPY" --json | python3 -c 'import json, sys
for l in json.load(sys.stdin)["layouts"]: print(l["id"])')
failed=0 rep=1
while [ "$rep" -le "$N" ]; do
	for id in $(printf '%s\n' $ids | awk -v s=$((SEED * 100003 + rep)) \
		'BEGIN { srand(s) } { printf "%.12f\t%s\n", rand(), $0 }' | sort -n | cut -f2); do
		"$SS" run "$COPY" --db "$DB" --only "$id:$rep" >/dev/null 2>&1 || failed=$((failed + 1))
	done
	echo "round $rep of $N done ($(date -u +%H:%M:%S); $failed failed launches so far)" >&2
	rep=$((rep + 1))
done
"$SS" results --db "$DB" --csv >"$OUT"
echo "$OUT: $(($(wc -l <"$OUT") - 1)) rows; $failed launches failed" >&2
