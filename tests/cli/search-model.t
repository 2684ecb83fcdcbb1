#!/bin/sh
# tests/cli/search-model.t: `sweetspot search --strategy model` calibrates
# the model (three launches, run SPEC:model), predicts the grid and
# launches only the predicted candidates, `repetitions` times each (here
# no racing beyond: --max-repetitions 2), for real with mpirun on this
# machine; the decisions are reported as the other strategies report them;
# a second search reuses the stored parameters (no calibration launch).
# A replayed table has no machine to calibrate: usage error.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 25
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# search-local.cfg with four layouts (1 to 4 onload workers, as many WPN).
SPEC=$TMP/m.cfg
sed -e "s#\.\./\.\./bin/sweetspot-kernel#$BIN/sweetspot-kernel#" \
    -e 's/workers = \[ 1, 2 \];/workers = [ 1, 2, 3, 4 ];/' \
    -e 's/wpn = \[ 1, 2 \];/wpn = [ 1, 2, 4 ];/' -e 's/cores = 2;/cores = 4;/' \
    "$ROOT/tests/data/search-local.cfg" >"$SPEC"
DB=$TMP/r/s.db
mkdir -p "$TMP/r"
num() { grep -o "\"$1\":[0-9]*" "$2" | head -1 | cut -d: -f2; }
folders() { find "$TMP/r" -name "$1" -type d | wc -l | tr -d ' '; }

exits_with 0 "model search, calibrating and launching for real" \
	sweetspot search "$SPEC" --strategy model --db "$DB" --json --max-repetitions 2
cp "$TMP/out" "$TMP/m1.json"
like "$TMP/m1.json" '^\{"strategy":"model",' "the strategy is named"
like "$TMP/m1.json" '"grid_launches":8,' "the grid would be 4 layouts x 2 repetitions"
like "$TMP/m1.json" '"calibration":"calibrated","calibration_launches":3,' \
	"the calibration's three launches, counted apart"
k=$(grep -o '"candidates":\[[^]]*\]' "$TMP/m1.json" | grep -o '"n1-ppn4-[^"]*"' | wc -l | tr -d ' ')
ok "1 to 4 candidates ($k)" test "$k" -ge 1 -a "$k" -le 4
is "$(num launches "$TMP/m1.json")" "$((2 * k))" "each candidate launched twice, nothing else"
is "$(num total_launches "$TMP/m1.json")" "$((2 * k + 3))" "the total counts the calibration"
if [ "$k" -lt 4 ]; then
	ok "fewer launches than the grid" [ "$((2 * k))" -lt 8 ]
else
	like "$TMP/m1.json" '"every_layout":"the model cannot tell them apart' \
		"every layout a candidate, and why"
fi
is "$(folders 'n1-ppn4-*-r*')" "$((2 * k))" "a launch folder per measuring launch"
is "$(folders 'n1-ppn3-*-r*')" "3" "a launch folder per calibration launch"
like "$TMP/m1.json" '"decisions":\[\{"collective":"bcast","bytes":4096,"verdict":"(best|tie|undecided)","choice":\{"layout":"n1-ppn4-w[1-4]-wpn[1-4]-onload"' \
	"the decision for bcast 4K, as the other strategies give it"
like "$TMP/m1.json" "\"measured\":$k," "decided over the candidates measured"
like "$TMP/m1.json" '"predicted":\[\{"collective":"bcast","bytes":4096,"dtype":null,"op":null,"layout":"n1-ppn4-' \
	"the model's predicted best"

exits_with 0 "the same search again" \
	sweetspot search "$SPEC" --strategy model --db "$DB" --max-repetitions 2
like "$TMP/out" '^model: parameters stored for this spec, no calibration launch$' \
	"the stored calibration is reused"
like "$TMP/out" "^launches: $((2 * k)) measuring \+ 0 calibrating = $((2 * k)) in total, against 8 for the full grid$" \
	"launches against the grid's, in words"
is "$(folders 'n1-ppn3-*-r*')" "3" "no new calibration launch"

# The adaptive search on the same database: the stored parameters give
# the surrogate its prior mean (every layout predicted), and it says so;
# on a database without them the prior is the constant.
exits_with 0 "adaptive search where the model's parameters are stored" \
	sweetspot search "$SPEC" --db "$DB" --json --max-repetitions 2
like "$TMP/out" '"surrogate":\{"points":[0-9]+,"loo_rms":[^,]*,"fit_good":(true|false),"prior":"model"\}' \
	"the surrogate's prior mean is the model's prediction"
exits_with 0 "the same on a database without parameters" \
	sweetspot search "$SPEC" --db "$TMP/r/none.db" --max-repetitions 2
like "$TMP/out" 'surrogate \(assumed: .*prior mean constant\)' "its prior mean is a constant, in words"

# Reductions: a decision group per dtype and op, as recommend decides.
sed -e "s#\.\./\.\./bin/sweetspot-kernel#$BIN/sweetspot-kernel#" \
    -e 's/collectives = \[ "bcast" \];/collectives = [ "allreduce" ]; algorithms = [ "slice" ]; dtypes = [ "int32", "double" ]; ops = [ "sum" ];/' \
    -e 's/repetitions = 2;/repetitions = 1;/' "$ROOT/tests/data/search-local.cfg" >"$TMP/red.cfg"
exits_with 0 "model search over 2 dtypes" \
	sweetspot search "$TMP/red.cfg" --strategy model --db "$TMP/red.db" --json --max-repetitions 1
ok "a prediction and a decision per dtype" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
p = sorted((g["dtype"], g["op"]) for g in j["predicted"])
d = sorted((g["dtype"], g["op"]) for g in j["decisions"])
assert p == d == [("double", "sum"), ("int32", "sum")], (p, d)
' "$TMP/out"

exits_with 2 "--strategy model with --replay" \
	sweetspot search "$SPEC" --strategy model --replay "$ROOT/tests/data/search-local.cfg"
like "$TMP/err" 'strategy model calibrates the model on the machine: a replayed table has none' \
	"and says why"
done_testing
