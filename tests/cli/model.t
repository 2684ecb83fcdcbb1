#!/bin/sh
# tests/cli/model.t: `sweetspot model SPEC` on a tiny spec (4 host ranks and
# 1 or 2 onload workers on this machine, bcast and gather at 3 sizes):
# calibration by real launches, then every plan point predicted with the
# shape of a measured one, --check against a measured run, a 64-node
# machine, an allgather by classes of equivalent ranks against the
# simulation of every rank, and bad input refused with exit status 2.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 65
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$TMP/m.cfg
DB=$TMP/m.db
cat >"$SPEC" <<CFG
system = {
	name = "model-test"; nodes = "localhost"; ppn = 4;
	onload = { cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	launcher = "mpirun"; launcher_args = [ "--oversubscribe" ];
};
sweep = {
	collectives = [ "bcast", "gather" ]; algorithms = [ "direct" ];
	assignments = [ "block" ]; sizes = "4K:16K";
	wpn = [ 1, 2 ]; workers = [ 1, 2 ]; placement = [ "onload" ];
	iterations = 5; warmup = 1; repetitions = 1; time_limit = 60; transport = "rma";
};
CFG
exits_with 0 "the plan" sweetspot plan "$SPEC" --json
npts=$(grep -o '"points": *[0-9]*' "$TMP/out" | tail -1 | grep -o '[0-9]*$')
diag "plan points: $npts"

exits_with 0 "predict (calibrating first)" sweetspot model "$SPEC" --db "$DB" --csv
cp "$TMP/err" "$TMP/cal.err"
like "$TMP/cal.err" '^# model parameters: fit resid' "the parameters are reported"
is "$(grep -c ',true$' "$TMP/out")" "$npts" "every plan point is predicted once"
like "$TMP/cal.err" "^# model: $npts points" "the count agrees"

exits_with 0 "predict again, as JSON, from the stored parameters" sweetspot model "$SPEC" --db "$DB" --json
ok "no launch the second time" sh -c "! grep -q 'launches' '$TMP/err'"
is "$(grep -c '"predicted": true' "$TMP/out")" "$npts" "each record says predicted"
for k in layout collective bytes workers ref_us comm_us total_us oe_measured oe_paper time_sd_rel; do
	grep -q "\"$k\":" "$TMP/out" || miss="$miss $k"
done
is "${miss:-none}" "none" "the records have the keys of a measured point"

# --refit: the same launches fitted again, nothing launched; the fit is
# deterministic, so today's model gives the parameters the calibration gave.
exits_with 0 "--refit" sweetspot model "$SPEC" --db "$DB" --refit --csv
ok "--refit launches nothing" sh -c "! grep -q 'launches' '$TMP/err'"
is "$(grep '^# model parameters' "$TMP/err")" "$(grep '^# model parameters' "$TMP/cal.err")" \
	"--refit of the same launches: the same parameters"
exits_with 2 "--refit with --recalibrate" sweetspot model "$SPEC" --db "$DB" --refit --recalibrate
exits_with 1 "--refit without a calibration" sweetspot model "$SPEC" --db "$TMP/none.db" --refit
like "$TMP/err" "no calibration of .* to fit again: run 'sweetspot model" "and says what to run"

exits_with 0 "a sweep to check against" sweetspot run "$SPEC" --db "$DB"
exits_with 0 "--check --json" sweetspot model "$SPEC" --db "$DB" --check --json
sed 's/^/# /' "$TMP/out" | grep -E 'rel_err_median|sweet_spot_matches' | head -6
like "$TMP/out" "\"points\": $npts" "--check compares every point of the run"
# Each point side by side, and the errors are those of the pairs shown.
ok "--check lists each point measured and predicted, and its errors are theirs" python3 -c '
import json, sys, statistics as st
c = json.load(open(sys.argv[1])); n = int(sys.argv[2]); x = c["compared"]
keys = ("measured_total_us", "predicted_total_us", "measured_comm_us", "predicted_comm_us")
assert len(x) == n and all(all(e[k] > 0 for k in keys) for e in x), "points"
err = [abs(e["predicted_total_us"] - e["measured_total_us"]) / e["measured_total_us"] for e in x]
a = [e for e in c["collectives"] if e["collective"] == "all"][0]
assert abs(st.median(err) - a["total_rel_err_median"]) < 1e-9 and abs(max(err) - a["total_rel_err_max"]) < 1e-9, "errors"
' "$TMP/out" "$npts"

# Measured and predicted on one figure (the model's stored parameters).
if command -v gnuplot >/dev/null; then
	exits_with 0 "plot --model" sweetspot plot --db "$DB" "$SPEC" --model -o "$TMP/figs"
	ok "a model figure per collective, measured and predicted columns filled" python3 -c '
import sys
for c in ("bcast", "gather"):
    rows = [l.split() for l in open(sys.argv[1] + "/model-%s-direct-block.dat" % c)]
    head = rows[0][1:]
    m, p = head.index("oe@4K") + 1, head.index("oe@model-4K") + 1
    assert len(rows) == 3 and all(r[m] != "?" and r[p] != "?" for r in rows[1:]), rows
' "$TMP/figs"
	ok "and drawn" test -s "$TMP/figs/model-bcast-direct-block.png" -a -s "$TMP/figs/model-gather-direct-block.svg"
else
	for k in 1 2 3; do skip "gnuplot is not installed"; done
fi
exits_with 2 "plot --model without SPEC" sweetspot plot --db "$DB" --model -o "$TMP/figs2"
cp "$SPEC" "$TMP/none.cfg"
exits_with 1 "plot --model of a spec never modelled" sweetspot plot --db "$DB" "$TMP/none.cfg" --model -o "$TMP/figs2"
like "$TMP/err" "no model parameters for .*none.cfg: run 'sweetspot model" "and says what to run"

exits_with 0 "--nodes 64 --json" sweetspot model "$SPEC" --db "$DB" --nodes 64 --json
ok "every record is of a 64-node machine" sh -c \
	"[ \$(grep -c '\"nodes\": 64' '$TMP/out') -gt 0 ] && ! grep '\"nodes\":' '$TMP/out' | grep -qv '\"nodes\": 64'"

# A point's own axes: gather pipelined at 2 chunks x 2 windows is 4 points,
# each predicted with its chunk and window and checked apart.
sed -e 's/collectives = \[ "bcast", "gather" \];/collectives = [ "gather" ]; chunks = [ "4K", "8K" ]; windows = [ 1, 2 ];/' \
    -e 's/sizes = "4K:16K";/sizes = "16K";/' -e 's/wpn = \[ 1, 2 \]; workers = \[ 1, 2 \];/wpn = [ 1 ]; workers = [ 1 ];/' \
	"$SPEC" >"$TMP/p.cfg"
exits_with 0 "a pipelined spec predicted" sweetspot model "$TMP/p.cfg" --db "$DB" --json
ok "4 points, each with its chunk and window, predicted apart" python3 -c '
import json, sys
x = json.load(open(sys.argv[1]))
k = sorted((e["chunk"], e["window"]) for e in x)
assert k == [(4096, 1), (4096, 2), (8192, 1), (8192, 2)], k
c = {(e["chunk"], e["window"]): e["comm_us"] for e in x}
assert c[(4096, 1)] != c[(8192, 2)], c
' "$TMP/out"
exits_with 0 "and measured" sweetspot run "$TMP/p.cfg" --db "$DB"
exits_with 0 "--check keeps the 4 points apart" sweetspot model "$TMP/p.cfg" --db "$DB" --check --json
like "$TMP/out" '"points": 4,' "--check compares 4 points"

# Classes of equivalent ranks: an allgather allin on 16 nodes (regular:
# every node's schedules are node 0's, one node on) is simulated by node
# 0's ranks, and gives the times of the simulation of every rank.
sed -e 's/collectives = \[ "bcast", "gather" \];/collectives = [ "allgather" ];/' \
    -e 's/algorithms = \[ "direct" \];/algorithms = [ "allin" ];/' "$SPEC" >"$TMP/ag.cfg"
exits_with 0 "an allgather on 16 nodes" sweetspot model "$TMP/ag.cfg" --db "$DB" --nodes 16 --wpn 2 --json
cp "$TMP/out" "$TMP/classes.json"
exits_with 0 "and again simulating every rank" sweetspot model "$TMP/ag.cfg" --db "$DB" --nodes 16 --wpn 2 --json --full-sim
ok "by classes, the times of the full simulation, to the last digit" python3 -c '
import json, sys
a, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(a) == len(f) == 3, (len(a), len(f))
for x, y in zip(a, f):
    assert (x["ref_simulation"], x["comm_simulation"]) == ("classes", "classes"), x
    assert (y["ref_simulation"], y["comm_simulation"]) == ("full", "full"), y
    for k in ("ref_us", "comm_us", "total_us", "oe_measured", "oe_paper"):
        assert abs(x[k] - y[k]) <= 1e-12 * abs(y[k]), (k, x[k], y[k])
' "$TMP/classes.json" "$TMP/out"
exits_with 2 "--full-sim with --check" sweetspot model "$SPEC" --db "$DB" --check --full-sim

# --fit-run: the parameters fitted on the spec's sweep (run 2 of this
# database; its calibration is run 1, p.cfg's calibration and sweep runs 3
# and 4), nothing launched; a run that is not the spec's or not there is
# refused.
exits_with 0 "--fit-run of the sweep, --check" sweetspot model "$SPEC" --db "$DB" --fit-run 2 --check --json
ok "--fit-run launches nothing" sh -c "! grep -q 'launches' '$TMP/err'"
like "$TMP/err" "^# model parameters: fit resid .* over [0-9]+ points" "and says what it fitted"
cp "$TMP/err" "$TMP/fit.err"
exits_with 0 "the sweep's points" sweetspot results --db "$DB" --run 2 --csv
is "$(sed -n 's/.* over \([0-9]*\) points.*/\1/p' "$TMP/fit.err")" \
	"$(awk -F, 'NR > 1 && $13 == 1' "$TMP/out" | wc -l | tr -d ' ')" "... on every valid point of the sweep"
exits_with 1 "--fit-run of a run not there" sweetspot model "$SPEC" --db "$DB" --fit-run 99
like "$TMP/err" "holds no run 99" "says so"
exits_with 1 "--fit-run of another spec's run" sweetspot model "$SPEC" --db "$DB" --fit-run 4
like "$TMP/err" "run 4 is a run of .*p.cfg, not of" "says whose it is"
exits_with 2 "--fit-run 0" sweetspot model "$SPEC" --db "$DB" --fit-run 0
exits_with 2 "--fit-run with --refit" sweetspot model "$SPEC" --db "$DB" --fit-run 2 --refit

# --check --against: a second sweep is the latest; run 2 is still there to
# compare with, run 1 (the calibration) and 4 (p.cfg's) are not measured
# runs of SPEC.
exits_with 0 "a second sweep" sweetspot run "$SPEC" --db "$DB" --fresh
latest=$(sqlite3 "$DB" "SELECT max(id) FROM runs WHERE spec_path = (SELECT spec_path FROM runs WHERE id = 2)")
ok "... a new run of SPEC ($latest)" test "$latest" -gt 2
exits_with 0 "--check compares with the latest" sweetspot model "$SPEC" --db "$DB" --fit-run 2 --check --json
is "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' "$TMP/out")" "$latest" "... run $latest, not 2"
exits_with 0 "--check --against 2" sweetspot model "$SPEC" --db "$DB" --fit-run 2 --check --against 2 --json
cp "$TMP/out" "$TMP/against2.json"
is "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' "$TMP/out")" 2 "... run 2"
exits_with 0 "run 2's valid points" sweetspot results --db "$DB" --run 2 --json
ok "... its measured times are run 2's" python3 -c '
import json, statistics as st, sys
c, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = {}
for x in r:
    if x.get("valid") and x.get("mode", "offload") == "offload":
        m.setdefault((x["layout"], x["collective"], x["bytes"]), []).append(x["total_us"])
assert c["compared"]
for x in c["compared"]:
    k = (x["layout"], x["collective"], x["bytes"])
    assert abs(x["measured_total_us"] - st.median(m[k])) <= 1e-3 * st.median(m[k]), (k, x)
' "$TMP/against2.json" "$TMP/out"
exits_with 1 "--against the calibration run" sweetspot model "$SPEC" --db "$DB" --check --against 1
like "$TMP/err" "run 1 is a run of .*m.cfg:model, not a measured run of" "says whose it is"
exits_with 1 "--against another spec's run" sweetspot model "$SPEC" --db "$DB" --check --against 4
exits_with 1 "--against a run not there" sweetspot model "$SPEC" --db "$DB" --check --against 99
like "$TMP/err" "holds no run 99" "says so"
exits_with 2 "--against without --check" sweetspot model "$SPEC" --db "$DB" --against 2
exits_with 2 "--against 0" sweetspot model "$SPEC" --db "$DB" --check --against 0

exits_with 2 "an unknown option" sweetspot model "$SPEC" --db "$DB" --frobnicate
exits_with 2 "--nodes 0" sweetspot model "$SPEC" --db "$DB" --nodes 0
exits_with 2 "--dry-run without --smpi" sweetspot model "$SPEC" --db "$DB" --dry-run
done_testing
