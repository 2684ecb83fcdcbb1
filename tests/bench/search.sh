#!/bin/sh
# tests/bench/search.sh: what the adaptive search saves, on the shipped
# landscape (tests/data/landscape.csv, 112 layouts x 3 repetitions), per
# collective: launches used by adaptive / launches of grid (target <= 0.25)
# and the regret, grid's best oe_measured minus the mean oe_measured of
# the layout adaptive picked, over the worst group (target <= 1 point).
# Both searches run side by side in this one invocation.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SS=$ROOT/bin/sweetspot
CSV=$ROOT/tests/data/landscape.csv
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# One best per line: collective algorithm assignment bytes workers wpn oe.
bests() {
	tr '{' '\n' <"$1" | grep '"collective"' |
	sed 's/.*"collective":"\([^"]*\)","algorithm":"\([^"]*\)","assignment":"\([^"]*\)","bytes":\([0-9]*\),"workers":\([0-9]*\),"wpn":\([0-9]*\).*"oe_measured":\([0-9.]*\).*/\1 \2 \3 \4 \5 \6 \7/'
}

# Mean oe_measured of every (group, layout) over its repetitions.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ k = $c["collective"] " " $c["algorithm"] " " $c["assignment"] " " $c["bytes"] " " $c["workers"] " " $c["wpn"];
	  s[k] += $c["oe_measured"]; n[k]++ }
	END { for (k in s) printf "%s %.4f\n", k, s[k] / n[k] }' "$CSV" >"$TMP/means"

printf '%-10s %9s %6s %7s %12s %s\n' collective adaptive grid ratio "regret(pts)" verdict
for coll in bcast gather allgather; do
	sed -e "s/^\([[:space:]]*collectives = \).*/\1[ \"$coll\" ];/" -e '/^[[:space:]]*algorithms = /d' \
		"$ROOT/tests/data/landscape.cfg" >"$TMP/$coll.cfg"
	"$SS" search "$TMP/$coll.cfg" --replay "$CSV" --strategy grid --json >"$TMP/grid.json"
	"$SS" search "$TMP/$coll.cfg" --replay "$CSV" --json >"$TMP/ad.json"
	g=$(grep -o '"launches":[0-9]*' "$TMP/grid.json" | cut -d: -f2)
	a=$(grep -o '"launches":[0-9]*' "$TMP/ad.json" | cut -d: -f2)
	bests "$TMP/grid.json" >"$TMP/g.best"
	bests "$TMP/ad.json" >"$TMP/a.best"
	regret=$(awk 'FILENAME == ARGV[1] { m[$1" "$2" "$3" "$4" "$5" "$6] = $7; next }
		FILENAME == ARGV[2] { g[$1" "$2" "$3" "$4] = $7; next }
		{ r = g[$1" "$2" "$3" "$4] - m[$1" "$2" "$3" "$4" "$5" "$6]; if (r > w) w = r }
		END { printf "%.2f", w + 0 }' "$TMP/means" "$TMP/g.best" "$TMP/a.best")
	ratio=$(awk -v a="$a" -v g="$g" 'BEGIN { printf "%.3f", a / g }')
	verdict=$(awk -v r="$ratio" -v x="$regret" 'BEGIN { print (r <= 0.25 && x <= 1.0) ? "ok" : "MISSED" }')

	printf '%-10s %9s %6s %7s %12s %s\n' "$coll" "$a" "$g" "$ratio" "$regret" "$verdict"
done
echo "targets: ratio <= 0.25, regret <= 1 point"
exit 0
