#!/bin/sh
# tests/bench/model.sh: the model's figures, printed beside their targets in
# one run: the local grid measured twice (profiles/local.cfg, 6 launches
# each, and racing), how far the two runs differ (the floor), the
# model calibrated from its own 3 launches, --check against the grid
# (median / max relative error of the offloaded time total_us, sweet spots
# equal), and the time to predict a 1,024-node sweep. Prints, asserts nothing.
# MODEL_DB=FILE keeps the two measured runs and the model's calibration in
# FILE, or reuses them if FILE exists, the model fitted again on the same
# calibration launches (`model --refit`): to compare two versions of the
# model on the same measurements;
# MODEL_SMPI=0 skips the comparison with SimGrid SMPI (some 10 minutes).
set -eu
ROOT=${SWEETSPOT_ROOT:-$(pwd)}
SS=$ROOT/bin/sweetspot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=$T/model.db
if [ -n "${MODEL_DB:-}" ] && [ -s "$MODEL_DB" ]; then
	cp "$MODEL_DB" "$DB"
	echo "the grid's two runs: reused from $MODEL_DB"
	if "$SS" model "$ROOT/profiles/local.cfg" --db "$DB" --refit >/dev/null 2>&1; then
		echo "the model: fitted again (--refit) on the calibration launches kept there"
	fi
else
	"$SS" run "$ROOT/profiles/local.cfg" --db "$DB" >/dev/null 2>&1
	# The floor: the same grid measured twice. A perfect model of one run
	# scores against the other what run 1 scores against run 2 here.
	"$SS" run "$ROOT/profiles/local.cfg" --db "$DB" --fresh >/dev/null 2>&1
	[ -z "${MODEL_DB:-}" ] || cp "$DB" "$MODEL_DB"
fi
"$SS" results --db "$DB" --run 1 --json >"$T/r1.json" 2>/dev/null
"$SS" results --db "$DB" --run 2 --json >"$T/r2.json" 2>/dev/null
python3 - "$T/r1.json" "$T/r2.json" <<'P'
import json, sys, statistics as st
def load(path):
    pts = {}
    for x in json.load(open(path)):
        if x.get("valid") and x.get("mode", "offload") == "offload":
            k = (x["layout"], x["collective"], x["algorithm"], x["assignment"], x["bytes"])
            pts.setdefault(k, []).append((x["total_us"], x["oe_measured"]))
    return {k: (st.median(t for t, _ in v), st.median(o for _, o in v)) for k, v in pts.items()}
def spots(m):
    best = {}
    for (lay, c, a, s, b), (_, oe) in m.items():
        if (c, b) not in best or oe > best[(c, b)][1]:
            best[(c, b)] = (lay, oe)
    return {k: v[0] for k, v in best.items()}
a, b = load(sys.argv[1]), load(sys.argv[2])
common = sorted(set(a) & set(b))
err = sorted(abs(a[k][0] - b[k][0]) / b[k][0] for k in common)
sa, sb = spots(a), spots(b)
same = sum(1 for k in sb if sa.get(k) == sb[k])
back = sorted(abs(a[k][0] - b[k][0]) / a[k][0] for k in common)
print("measured vs measured (the grid twice, %d points): total_us difference median %5.1f%% (relative to run 1: %5.1f%%), max %6.1f%%; sweet spot equal in %d of %d: the floor of the model's figures below"
      % (len(common), 100 * st.median(err), 100 * st.median(back), 100 * err[-1], same, len(sb)))
P
# Item 4 of issue 24 as restated: the model fitted on run 1 of the grid
# (no calibration launch) predicts run 2 at least as well as run 1 does;
# and the other way round (--check --against). Each on a copy: --fit-run
# stores the parameters it fitted.
for way in 1 2; do
	cp "$DB" "$T/fit.db"
	if "$SS" model "$ROOT/profiles/local.cfg" --db "$T/fit.db" --fit-run $way --check --against $((3 - way)) --json >"$T/fit$way.json" 2>"$T/fit.err"; then
		python3 - "$T/fit$way.json" $way "$T/r1.json" "$T/r2.json" <<'P'
import json, random, sys, statistics as st
c = json.load(open(sys.argv[1]))
way = int(sys.argv[2])
a = [e for e in c["collectives"] if e["collective"] == "all"][0]
print("model fitted on run %s, against run %s: total_us error median %5.1f%%, max %6.1f%%; sweet spot equal in %d of %d (target: the floor's above)"
      % (way, 3 - way, 100 * a["total_rel_err_median"], 100 * a["total_rel_err_max"], c["sweet_spot_matches"], c["sweet_spot_groups"]))
# Paired with the floor point by point: the model's error and run `way`'s
# against the same medians of the other run; the difference of the two
# medians with a 95% bootstrap interval over the points (10,000
# resamples, seeded): above 0 beyond the spread is a model worse than the
# floor; an interval holding 0 cannot tell them apart.
def medians(path):
    pts = {}
    for x in json.load(open(path)):
        if x.get("valid") and x.get("mode", "offload") == "offload":
            k = (x["layout"], x["collective"], x["algorithm"], x["assignment"], x["bytes"])
            pts.setdefault(k, []).append(x["total_us"])
    return {k: st.median(v) for k, v in pts.items()}
runs = {1: medians(sys.argv[3]), 2: medians(sys.argv[4])}
em, ef = [], []
for x in c["compared"]:
    k = (x["layout"], x["collective"], x["algorithm"], x["assignment"], x["bytes"])
    if k in runs[1] and k in runs[2]:
        t = runs[3 - way][k]
        em.append(abs(x["predicted_total_us"] - t) / t)
        ef.append(abs(runs[way][k] - t) / t)
if len(em) >= 2:
    rng, n, ds = random.Random(1), len(em), []
    for _ in range(10000):
        i = [rng.randrange(n) for _ in range(n)]
        ds.append(st.median(em[j] for j in i) - st.median(ef[j] for j in i))
    ds.sort()
    d = st.median(em) - st.median(ef)
    print("  paired with run %d on the same %d points: median error %5.1f%% against %5.1f%%, difference %+.1f points, 95%% bootstrap interval [%+.1f, %+.1f]%s; the model nearer on %d of %d"
          % (way, n, 100 * st.median(em), 100 * st.median(ef), 100 * d, 100 * ds[249], 100 * ds[9750],
             " (worse beyond the spread)" if ds[249] > 0 else " (better beyond the spread)" if ds[9750] < 0 else "",
             sum(p < q for p, q in zip(em, ef)), n))
P
	else
		echo "model fitted on run $way: failed ($(tail -1 "$T/fit.err"))"
	fi
done
"$SS" model "$ROOT/profiles/local.cfg" --db "$DB" --check --json >"$T/check.json" 2>"$T/check.err"
[ -z "${MODEL_DB:-}" ] || cp "$DB" "$MODEL_DB"
grep '^# model parameters' "$T/check.err" || true
python3 - "$T/check.json" <<'P'
import json, sys
c = json.load(open(sys.argv[1]))
for e in c["collectives"]:
    print("model vs measured %-9s: total_us error median %5.1f%% (target <= 5%%), max %6.1f%% (target <= 10%%); oe error median %.1f, max %.1f points"
          % (e["collective"], 100 * e["total_rel_err_median"], 100 * e["total_rel_err_max"],
             e["oe_err_points_median"], e["oe_err_points_max"]))
print("sweet spot predicted = measured: %d of %d (collective, size) (target: all)" % (c["sweet_spot_matches"], c["sweet_spot_groups"]))
print("calibration launches: 3 (target <= 5); grid launches: 6")
P
# Per (collective, size): each layout's best OE in run 1, in run 2 and as
# the model predicts it (the sweet spot is the best of them; the model's
# ties go to fewer workers): whether a miss is a near-tie the runs
# themselves disagree on, or the model preferring a layout neither run does.
python3 - "$T/r1.json" "$T/r2.json" "$T/check.json" <<'P'
import json, sys, statistics as st
def by_layout(items, oe):
    best = {}
    for x in items:
        g = (x["collective"], x["bytes"])
        best.setdefault(g, {})
        best[g][x["layout"]] = max(best[g].get(x["layout"], -1), oe(x))
    return best
def runs(path):
    pts = {}
    for x in json.load(open(path)):
        if x.get("valid") and x.get("mode", "offload") == "offload":
            k = (x["layout"], x["collective"], x["algorithm"], x["assignment"], x["bytes"])
            pts.setdefault(k, []).append(x["oe_measured"])
    return by_layout([{"layout": k[0], "collective": k[1], "bytes": k[4], "oe": st.median(v)}
                      for k, v in pts.items()], lambda x: x["oe"])
def short(lay):
    return "-".join(p for p in lay.split("-") if p[0] == "w")
def workers(lay):
    return [int(p[1:]) for p in lay.split("-") if p[0] == "w" and p[1:].isdigit()][0]
def pick(d):
    return sorted(d.items(), key=lambda kv: (-kv[1], workers(kv[0])))[0][0]
def each(d):
    return ", ".join("%s %.1f" % (short(k), v) for k, v in sorted(d.items()))
r1, r2 = runs(sys.argv[1]), runs(sys.argv[2])
m = by_layout(json.load(open(sys.argv[3]))["compared"], lambda x: x["predicted_oe"])
print("per (collective, size): each layout's best OE (run 1 | run 2 | model) -> the best layout of each")
for g in sorted(r2):
    if g not in r1 or g not in m:
        continue
    a, b, c = pick(r1[g]), pick(r2[g]), pick(m[g])
    print("  %-9s %6d B: %s | %s | %s -> %s, %s, %s%s"
          % (g[0], g[1], each(r1[g]), each(r2[g]), each(m[g]), short(a), short(b), short(c),
             "" if c == b else "  model misses run 2"))
P
# A 1,024-node sweep: bcast and gather at 8 host ranks per node, WPN 8.
sed -e 's/collectives = \[ "bcast", "gather", "allgather" \];/collectives = [ "bcast", "gather" ];/' \
    -e 's/algorithms = \[ "direct", "allin" \];/algorithms = [ "direct" ];/' \
    -e "s|\"../bin/sweetspot-kernel\"|\"$ROOT/bin/sweetspot-kernel\"|" "$ROOT/profiles/local.cfg" >"$T/bg.cfg"
"$SS" model "$T/bg.cfg" --db "$DB" --nodes 4 >/dev/null 2>&1
"$SS" model "$T/bg.cfg" --db "$DB" --nodes 1024 --ppn 8 --wpn 8 --json 2>"$T/big.err" >/dev/null
sed -n 's/^# model: \(.*\)/1,024 nodes x 8 PPN x 8 WPN (bcast, gather; 12 points): \1 (target < 1 s)/p' "$T/big.err"
# Model vs SimGrid SMPI (the real kernel, bin/smpi/, on the model's
# platform): bcast at 32 nodes x 7 PPN + 32 workers (256 ranks) and 128
# nodes x 7 PPN + 128 workers (1,024 ranks), one launch each.
if [ "${MODEL_SMPI:-1}" = 0 ]; then
	echo "model vs SMPI at 256 and 1,024 ranks: skipped (MODEL_SMPI=0)"
elif [ -x "$ROOT/bin/smpi/sweetspot-kernel" ] && command -v smpirun >/dev/null; then
	# One size and the spec's limit raised: a 256-rank launch of three
	# sizes did not finish in the local spec's 60 s; the 1,024-rank one
	# takes some 9 minutes here.
	sed -e 's/collectives = \[ "bcast", "gather" \];/collectives = [ "bcast" ];/' \
	    -e 's/sizes = "4K:16K";/sizes = "16K";/' -e 's/time_limit = 60;/time_limit = 1800;/' "$T/bg.cfg" >"$T/sm.cfg"
	for n in 32 128; do
		db=$T/smpi-$n.db
		cp "$DB" "$db"
		s0=$(date +%s)
		"$SS" model "$T/sm.cfg" --db "$db" --smpi --nodes $n --ppn 7 --wpn 1 >/dev/null 2>"$T/sm.err" || { tail -3 "$T/sm.err"; continue; }
		s1=$(date +%s)
		"$SS" model "$T/sm.cfg" --db "$db" --check --smpi --json >"$T/sm.json" 2>/dev/null
		python3 - "$T/sm.json" $((n * 8)) $((s1 - s0)) <<'P'
import json, sys
c = json.load(open(sys.argv[1]))
e = [x for x in c["collectives"] if x["collective"] == "all"][0]
print("model vs SMPI at %s ranks (bcast, %d points, SMPI %s s): total_us error median %5.1f%%, max %6.1f%% (target within 10%%); comm_us median %5.1f%%, max %6.1f%%"
      % (sys.argv[2], e["points"], sys.argv[3], 100 * e["total_rel_err_median"], 100 * e["total_rel_err_max"],
         100 * e["comm_rel_err_median"], 100 * e["comm_rel_err_max"]))
P
	done
else
	echo "model vs SMPI at 256 and 1,024 ranks: not measured (make smpi; smpirun)"
fi
# Model-guided search on this machine's widest grid (1..3 onload workers,
# the local profile's collectives and sizes, 3 launches per layout): its
# launches, calibration included, against the grid's, and whether it
# chose what recommend chose from the whole grid measured beside it.
sed -e 's/cores = 2;/cores = 3;/' -e 's/wpn = \[ 1, 2 \];/wpn = [ 3 ];/' \
    -e 's/workers = \[ 1, 2 \];/workers = [ 1, 2, 3 ];/' -e 's/max_repetitions = 6;/max_repetitions = 3;/' \
    -e "s|\"../bin/sweetspot-kernel\"|\"$ROOT/bin/sweetspot-kernel\"|" "$ROOT/profiles/local.cfg" >"$T/w3.cfg"
"$SS" run "$T/w3.cfg" --db "$T/grid3.db" >/dev/null 2>&1
"$SS" recommend "$T/w3.cfg" --db "$T/grid3.db" --json >"$T/rec3.json" 2>/dev/null
"$SS" search "$T/w3.cfg" --strategy model --db "$T/ms3.db" --json >"$T/ms3.json" 2>/dev/null
python3 - "$T/ms3.json" "$T/rec3.json" <<'P'
import json, sys
m = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
grid = {}
for b in r.get("recommendations", []):
    for s in b.get("sizes", []):
        grid[(b["collective"], s["bytes"])] = b.get("layout")
same = sum(1 for d in m["decisions"]
           if grid.get((d["collective"], d["bytes"])) == (d.get("choice") or {}).get("layout"))
print("model-guided search, 3 layouts: %d launches (%d calibrating) / grid %d = %.2f; same choice as recommend on the full grid in %d of %d (collective, size)"
      % (m["total_launches"], m["calibration_launches"], m["grid_launches"],
         m["total_launches"] / m["grid_launches"], same, len(m["decisions"])))
P
