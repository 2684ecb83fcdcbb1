#!/bin/sh
# tests/bench/search.sh: what the adaptive search saves, on the shipped
# landscape (tests/data/landscape.csv, 112 layouts x 3 repetitions), per
# collective, each figure beside its target:
#  - cost: launches adaptive used (its default budget, 15% of the grid) /
#    the grid's (every layout `repetitions` times, decided by the same rule,
#    no racing: --budget 100%) (target <= 0.15);
#  - regret per decision (collective, size), from the JSON's decisions[]:
#    the best 3-launch mean of any configuration (layout, algorithm,
#    assignment) of that decision minus the 3-launch mean of the chosen
#    one, the worst over the collective's sizes, for adaptive and for grid
#    (target: adaptive's <= the grid's);
#  - the verdicts each reached (best / tie / undecided).
# The table holds 3 launches per layout: a contender asked for a 4th gets a
# failed launch (counted in launches, not asked again).
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SS=$ROOT/bin/sweetspot
CSV=$ROOT/tests/data/landscape.csv
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# One decision per line: collective bytes verdict layout algorithm assignment.
decisions() {
	sed 's/"best":\[.*//' "$1" | sed 's/{"collective":/\n&/g' |
	sed -n 's/^{"collective":"\([^"]*\)","bytes":\([0-9]*\),"verdict":"\([a-z]*\)","choice":{"layout":"\([^"]*\)",.*"algorithm":"\([^"]*\)","assignment":"\([^"]*\)","n".*"leader".*/\1 \2 \3 \4 \5 \6/p'
}

# Mean oe_measured of every configuration over its repetitions.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ k = $c["collective"] " " $c["bytes"] " " $c["layout"] " " $c["algorithm"] " " $c["assignment"];
	  s[k] += $c["oe_measured"]; n[k]++ }
	END { for (k in s) printf "%s %.4f\n", k, s[k] / n[k] }' "$CSV" >"$TMP/means"

# regret DECISIONS: the worst regret over the decisions listed.
regret() {
	awk 'FILENAME == ARGV[1] { d = $1 " " $2; m[d " " $3 " " $4 " " $5] = $6;
		if (!(d in top) || $6 > top[d]) top[d] = $6; next }
	{ d = $1 " " $2; r = top[d] - m[d " " $4 " " $5 " " $6]; if (r > w) w = r }
	END { printf "%.2f", w + 0 }' "$TMP/means" "$1"
}

# verdicts DECISIONS: "b/t/u" counts.
verdicts() {
	awk '{ n[$3]++ } END { printf "%d/%d/%d", n["best"], n["tie"], n["undecided"] }' "$1"
}

printf '%-10s %8s %6s %6s %13s %11s %13s %s\n' collective adaptive grid ratio \
	"regret ad/gr" "b/t/u ad" "b/t/u grid" verdict
for coll in bcast gather allgather; do
	sed -e "s/^\([[:space:]]*collectives = \).*/\1[ \"$coll\" ];/" -e '/^[[:space:]]*algorithms = /d' \
		"$ROOT/tests/data/landscape.cfg" >"$TMP/$coll.cfg"
	"$SS" search "$TMP/$coll.cfg" --replay "$CSV" --strategy grid --budget 100% --json \
		>"$TMP/grid.json" 2>/dev/null
	"$SS" search "$TMP/$coll.cfg" --replay "$CSV" --json >"$TMP/ad.json" 2>/dev/null
	g=$(grep -o '"launches":[0-9]*' "$TMP/grid.json" | head -1 | cut -d: -f2)
	a=$(grep -o '"launches":[0-9]*' "$TMP/ad.json" | head -1 | cut -d: -f2)
	decisions "$TMP/grid.json" >"$TMP/g.dec"
	decisions "$TMP/ad.json" >"$TMP/a.dec"
	ra=$(regret "$TMP/a.dec")
	rg=$(regret "$TMP/g.dec")
	ratio=$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.3f", a / g }')
	verdict=$(awk -v r="$ratio" -v x="$ra" -v y="$rg" 'BEGIN { print (r <= 0.1501 && x <= y) ? "ok" : "MISSED" }')
	printf '%-10s %8s %6s %6s %13s %11s %13s %s\n' "$coll" "$a" "$g" "$ratio" "$ra/$rg" \
		"$(verdicts "$TMP/a.dec")" "$(verdicts "$TMP/g.dec")" "$verdict"
done
echo "targets: ratio <= 0.15, worst regret (adaptive) <= the grid's"
exit 0
