#!/bin/sh
# tests/cli/search-real.t: `sweetspot search` without --replay launches for
# real through the sweep engine, in its own process (mpirun on this
# machine), stores every launch in the database as `sweetspot run` would,
# and a second search over the same database measures nothing again: it
# reads what is there. A search stopped by --max-launches (as each job of
# `submit --chunks` is) exits 0, and the next one resumes it: together
# within one search's budget, each launch once.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 19
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/search-local.cfg
DB=$TMP/r/s.db

exits_with 0 "adaptive search, launching for real" sweetspot search "$SPEC" --db "$DB" --json
cp "$TMP/out" "$TMP/s1.json"
cp "$TMP/err" "$TMP/s1.err"
like "$TMP/s1.json" '"grid_launches":4' "the grid would be 2 layouts x 2 repetitions"
n1=$(grep -o '"launches":[0-9]*' "$TMP/s1.json" | head -1 | cut -d: -f2)
ok "at least the 2 coarse launches ($n1)" [ "$n1" -ge 2 ]
like "$TMP/s1.json" '"best":\[\{"collective":"bcast","algorithm":"direct","assignment":"block","bytes":4096,"workers":[12],"wpn":[12],"placement":"onload"' \
	"a best layout for bcast 4K"
exits_with 0 "the launches are in the database" sweetspot results --db "$DB" --csv
is "$(grep -c ',bcast,' "$TMP/out")" "$n1" "one stored point per launch"
runs=$(find "$TMP/r" -name 'n1-ppn4-*-r*' -type d | wc -l | tr -d ' ')
is "$runs" "$n1" "each launch has its folder, as sweetspot run makes them"
like "$TMP/s1.err" '^sweetspot: run 1 of .*: 4 launches' "the search's launches are run 1 of the spec"

# The same spec by a relative path: runs are found by the spec's real path.
exits_with 0 "the same search again" sh -c "cd '$ROOT' && sweetspot search tests/data/search-local.cfg --db '$DB' --json"
is "$(find "$TMP/r" -name 'n1-ppn4-*-r*' -type d | wc -l | tr -d ' ')" "$runs" "nothing measured twice"

# Paused after one launch, then resumed: the same launches as in one go.
DB=$TMP/p/s.db
exits_with 0 "a search paused by --max-launches 1" sweetspot search "$SPEC" --db "$DB" --max-launches 1 --budget 3
like "$TMP/out" "^search: paused after 1 new launches" "  ... says so"
like "$TMP/err" "^search: a budget of 3 launches, 75% of the grid's 4" "  ... its budget said"
like "$TMP/err" "^\[1/3\] n1-ppn4-" "  ... the progress counts the budget, not the grid"
is "$(find "$TMP/p" -name 'n1-ppn4-*-r*' -type d | wc -l | tr -d ' ')" 1 "  ... after one launch"
exits_with 0 "the next search resumes it" sweetspot search "$SPEC" --db "$DB" --json --budget 3
n2=$(grep -o '"launches":[0-9]*' "$TMP/out" | head -1 | cut -d: -f2)
b=$(grep -o '"budget":[0-9]*' "$TMP/out" | head -1 | cut -d: -f2)
ok "  ... the whole within one search's budget ($n2 of $b)" [ "$n2" -ge 2 -a "$n2" -le "$b" ]
is "$(find "$TMP/p" -name 'n1-ppn4-*-r*' -type d | wc -l | tr -d ' ')" "$n2" "  ... each launch once"
exits_with 2 "a layout that is not in the plan" sweetspot run "$SPEC" --db "$DB" --only n9-ppn4-w1-wpn1-onload:1
done_testing
