#!/bin/sh
# tests/cli/search-replay.t: `sweetspot search --replay` on the shipped
# landscape: the grid measures every launch, adaptive far fewer and agrees
# with it; the JSON has one best per collective x algorithm x assignment x
# size; bad tables, strategies and budgets are refused with exit 2.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

SPEC=$ROOT/tests/data/landscape.cfg
CSV=$ROOT/tests/data/landscape.csv
plan 31

# json_num KEY FILE: the first number after "KEY": in a one-line JSON file.
json_num() { grep -o "\"$1\":[0-9.]*" "$2" | head -1 | cut -d: -f2; }

exits_with 0 "grid search over the replay" sweetspot search "$SPEC" --replay "$CSV" --strategy grid --json
cp "$TMP/out" "$TMP/grid.json"
# Grid measures every launch, then races the configurations still in
# contention: the table holds 3 repetitions, so each contender's layout is
# asked for a 4th once, which fails (counted) and is not asked for again.
n=$(json_num launches "$TMP/grid.json")
ok "grid uses every launch (112 layouts x 3), then races ($n)" [ "$n" -ge 336 ] && [ "$n" -le 400 ]
is "$(json_num grid_launches "$TMP/grid.json")" 336 "grid_launches is layouts x repetitions"
is "$(sed 's/.*"best":\[//' "$TMP/grid.json" | grep -o '"collective"' | wc -l | tr -d ' ')" 24 \
	"one best per collective, algorithm, assignment and size"
is "$(sed 's/"best":\[.*//' "$TMP/grid.json" | grep -o '"collective"' | wc -l | tr -d ' ')" 9 \
	"one decision per collective and size"

exits_with 0 "adaptive search over the replay" sweetspot search "$SPEC" --replay "$CSV" --json
cp "$TMP/out" "$TMP/ad.json"
n=$(json_num launches "$TMP/ad.json")
# Under a third when one launch was trusted with an invented spread; now
# contenders are repeated (and ask for the 4th launch the table lacks).
ok "adaptive uses at most 15% of grid's launches by default ($n)" [ "$n" -le 50 ]
like "$TMP/ad.json" '"budget":50,' "the default budget: 15% of 336, rounded down"
like "$TMP/ad.json" '"noise":\{"model":"(pooled|rank)","check":"[a-z ]+","sd_log":[0-9.]+,"df":[0-9]+\}' \
	"each decision says its noise model, check, pooled sd and df"
like "$TMP/ad.json" '"surrogate":\{"points":[0-9]+,"loo_rms":[0-9.]+,"fit_good":(true|false),"prior":"constant"\}' \
	"and the surrogate's fit (a replay has no model: the constant prior)"
like "$TMP/ad.json" '"strategy":"adaptive"' "strategy reported"
like "$TMP/ad.json" '"best":\[\{"collective":"bcast","algorithm":"direct","assignment":"block","bytes":262144,"workers":[0-9]+,"wpn":[0-9]+,"placement":"dpu","layout":"[^"]+","oe_measured":[0-9.]+,"spread":[0-9.]+' \
	"best entries carry every field"
# The 1-WPN knee: block bcast of 256K peaks at 8 workers on 8 DPUs in both.
like "$TMP/grid.json" '"bcast","algorithm":"direct","assignment":"block","bytes":262144,"workers":8,"wpn":1' "grid: the knee at 1 WPN"
like "$TMP/ad.json" '"bcast","algorithm":"direct","assignment":"block","bytes":262144,"workers":8,"wpn":1' "adaptive: the same knee"

exits_with 0 "people's table" sweetspot search "$SPEC" --replay "$CSV"
like "$TMP/out" '^adaptive search: [0-9]+ launches of 336 for the full grid' "launches reported for people"
like "$TMP/out" '^    noise: pooled over the configurations, [0-9.]+% per launch' "people read the pooled noise"

exits_with 0 "a budget" sweetspot search "$SPEC" --replay "$CSV" --budget 10 --json
like "$TMP/out" '"launches":10,.*"budget_exhausted":true' "the budget caps the launches"
exits_with 0 "a budget in percent" sweetspot search "$SPEC" --replay "$CSV" --budget 10% --json
like "$TMP/out" '"launches":33,"grid_launches":336,"budget":33,' "10% of 336 is 33 launches"
exits_with 2 "a budget above 100%" sweetspot search "$SPEC" --replay "$CSV" --budget 150%
like "$TMP/err" "--budget: '150%' is not a percentage" "says why"
sed 's/^\([[:space:]]*repetitions = .*\)$/\1\n\tbudget = "abc";/' "$SPEC" >"$TMP/budget.cfg"
exits_with 2 "a bad budget in the spec" sweetspot search "$TMP/budget.cfg" --replay "$CSV"
like "$TMP/err" "budget.cfg:[0-9]+: 'sweep.budget': 'abc' is neither" "file:line says why"

# Bad input.
exits_with 2 "unknown strategy" sweetspot search "$SPEC" --replay "$CSV" --strategy random
like "$TMP/err" "unknown strategy 'random'" "says which strategy"
sed 's/,oe_measured,/,oe,/' "$CSV" | head -20 >"$TMP/nocol.csv"
exits_with 2 "a missing column" sweetspot search "$SPEC" --replay "$TMP/nocol.csv"
like "$TMP/err" "nocol.csv:1: missing column 'oe_measured'" "file:line names the column"
{ head -5 "$CSV"; head -6 "$CSV" | tail -1 | sed 's/,1$/,1/; s/,\([0-9.]*\),\([0-9.]*\),1$/,9x.5,\2,1/'; } >"$TMP/badnum.csv"
exits_with 2 "a bad number" sweetspot search "$SPEC" --replay "$TMP/badnum.csv"
like "$TMP/err" "badnum.csv:6: bad oe_measured '9x.5'" "file:line names the value"
done_testing
