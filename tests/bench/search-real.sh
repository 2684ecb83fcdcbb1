#!/bin/sh
# tests/bench/search-real.sh [SPEC CSV]: the default search scored as the
# autotuning field scores a strategy, on a landscape measured for real and
# stored with many launches per layout (default: both tables kept here, this
# machine's onload grid, tests/data/landscape-local.cfg with
# tests/data/landscape-measured.csv, and the Slurm testbed's DPU grid,
# tests/data/landscape-slurm.cfg with tests/data/landscape-slurm.csv; any
# spec and any table in the format of `sweetspot search --replay` will do). R seeded replays (SEARCH_REAL_R,
# default 50): replay s draws every layout's launches from its stored ones in
# the order seed s gives (`--replay-seed s`), for three strategies:
#  - the search with its defaults (adaptive, budget 15%): launches / grid;
#  - the grid: every layout `repetitions` launches, same rule, no racing
#    (`--strategy grid --budget 100%`);
#  - random search at the search's launches: floor(launches / repetitions)
#    layouts (at least 1) drawn with seed s, `repetitions` launches each, the
#    grid's rule on them (the table cut to those layouts).
# Truth: per configuration, the mean OE of ALL its stored launches. Per
# decision group (collective, size), a strategy's regret is the best true
# mean of the group's configurations minus its choice's (a group it leaves
# without a choice: the best minus the worst). Printed per strategy over the
# R replays: mean regret (mean over groups) and worst regret (worst group),
# each as mean [min, max] over the replays, and Kernel Tuner's score against
# random search, 1 - regret / random's regret (0 = random, 1 = optimum).
# Then each against the grid's, paired replay by replay (the same seed
# draws the same launches for both): the mean difference with a 95%
# bootstrap interval; a target is met unless the search is above the grid
# beyond that spread. Prints, asserts nothing.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SS=$ROOT/bin/sweetspot
if [ $# -eq 0 ]; then
	sh "$0" "$ROOT/tests/data/landscape-local.cfg" "$ROOT/tests/data/landscape-measured.csv"
	echo
	exec sh "$0" "$ROOT/tests/data/landscape-slurm.cfg" "$ROOT/tests/data/landscape-slurm.csv"
fi
[ $# -eq 2 ] || { echo "usage: search-real.sh [SPEC CSV]" >&2; exit 2; }
SPEC=$1 CSV=$2
R=${SEARCH_REAL_R:-50}
case $R in
'' | *[!0-9]* | 0*)
	echo "search-real.sh: SEARCH_REAL_R: '$R' is not a count of replays (1 or more)" >&2
	exit 2
	;;
esac
for f in "$SPEC" "$CSV"; do
	if [ ! -r "$f" ]; then
		echo "search-real.sh: cannot read $f (usage: search-real.sh [SPEC CSV])" >&2
		exit 2
	fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$SS" plan "$SPEC" --json >"$T/plan.json"
# The helper: `subset PLAN CSV SEED K OUT` writes the table cut to K layouts
# drawn with SEED; `score PLAN CSV DIR R SPEC` prints the figures.
cat >"$T/h.py" <<'P'
import csv, json, random, statistics as st, sys

def layouts(plan):
    return json.load(open(plan))["layouts"]

def lay_key(l):
    return (int(l["workers"]), int(l["wpn"]), l["placement"])

def row_layout(row, by_key):
    l = by_key.get((int(row["workers"]), int(row["wpn"]), row["placement"]))
    if l is None:
        return None
    for k in ("nodes", "ppn"):
        if row.get(k) not in (None, "") and int(row[k]) != int(l[k]):
            return None
    return l

def subset(plan, table, seed, k, out):
    ls = layouts(plan)
    pick = {l["id"] for l in random.Random(int(seed)).sample(ls, min(int(k), len(ls)))}
    by_key = {lay_key(l): l for l in ls}
    with open(table, newline="") as f:
        lines = [x for x in f if not x.startswith("#")]
    rd = csv.DictReader(lines)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=rd.fieldnames)
        w.writeheader()
        for row in rd:
            l = row_layout(row, by_key)
            if l is not None and l["id"] in pick:
                w.writerow(row)

def truth(plan, table):
    ls = layouts(plan)
    by_key = {lay_key(l): l for l in ls}
    configs = set()
    for l in ls:
        for p in l["point_list"]:
            configs.add((p["collective"], int(p["bytes"]), l["id"], p["algorithm"], p["assignment"]))
    sums = {}
    with open(table, newline="") as f:
        for row in csv.DictReader(x for x in f if not x.startswith("#")):
            if row.get("valid", "1") not in ("1", "true"):
                continue
            l = row_layout(row, by_key)
            if l is None:
                continue
            c = (row["collective"], int(row["bytes"]), l["id"], row["algorithm"], row["assignment"])
            if c in configs:
                s = sums.setdefault(c, [0.0, 0])
                s[0] += float(row["oe_measured"])
                s[1] += 1
    return {c: s / n for c, (s, n) in sums.items()}

def regrets(result, mean):
    groups = {}
    for c, m in mean.items():
        groups.setdefault(c[:2], []).append(m)
    out = []
    for d in result["decisions"]:
        g = (d["collective"], int(d["bytes"]))
        if g not in groups:
            continue
        ch = d["choice"]
        m = None
        if ch:
            m = mean.get(g + (ch["layout"], ch["algorithm"], ch["assignment"]))
        out.append(max(groups[g]) - (m if m is not None else min(groups[g])))
    return out

def spread(v, fmt="%.2f"):
    return (fmt + " [" + fmt + ", " + fmt + "]") % (st.mean(v), min(v), max(v))

def score(plan, table, d, r, spec):
    mean = truth(plan, table)
    ngroups = len({c[:2] for c in mean})
    fig = {k: {"mean": [], "worst": []} for k in ("search", "grid", "random")}
    cost, launches, grid, rnd_launches, kt, ties = [], [], None, [], [], 0
    for s in range(1, r + 1):
        res = {k: json.load(open("%s/%s%d.json" % (d, k[0], s))) for k in fig}
        for k in fig:
            g = regrets(res[k], mean)
            fig[k]["mean"].append(st.mean(g) if g else float("nan"))
            fig[k]["worst"].append(max(g) if g else float("nan"))
        grid = res["search"]["grid_launches"]
        launches.append(res["search"]["launches"])
        cost.append(res["search"]["launches"] / grid)
        rnd_launches.append(res["random"]["launches"] - res["random"]["failed_launches"])
        a, b = fig["search"]["mean"][-1], fig["random"]["mean"][-1]
        kt.append(1 - a / b if b > 0 else 0.0 if a > 0 else 1.0)
        ties += b <= 0
    print("landscape: %s x %s: %d configurations with launches in %d decision groups; truth = the mean OE of all their stored launches"
          % (table, spec, len(mean), ngroups))
    print("%d seeded replays, each figure mean [min, max] over them:" % r)
    print("  search (defaults): launches %s of the grid's %d = %s of the grid"
          % (spread(launches, "%.1f"), grid, spread(cost, "%.3f")))
    for k, what in (("search", "search  "), ("grid", "grid    "), ("random", "random  ")):
        print("  %s mean regret %s, worst regret %s OE points" % (what, spread(fig[k]["mean"]), spread(fig[k]["worst"])))
    print("  random: %s launches with data (floor(search's / repetitions) layouts x repetitions)" % spread(rnd_launches, "%.1f"))
    print("  score against random search (Kernel Tuner's: 0 random, 1 optimum): %s, median %.2f%s"
          % (spread(kt), st.median(kt), "; random found the optimum in %d replays (score 1 if the search did too, else 0)" % ties if ties else ""))
    better = sum(1 for a, b in zip(fig["search"]["mean"], fig["grid"]["mean"]) if a <= b + 1e-9)
    dm, lm, hm = paired(fig["search"]["mean"], fig["grid"]["mean"])
    dw, lw, hw = paired(fig["search"]["worst"], fig["grid"]["worst"])
    print("paired with the grid replay by replay (same seed; the mean difference, 95%% bootstrap interval over the replays): mean regret %+.2f [%+.2f, %+.2f], worst regret %+.2f [%+.2f, %+.2f]"
          % (dm, lm, hm, dw, lw, hw))
    print("targets: cost <= 0.15 of the grid: %s (worst replay %.3f); mean regret <= the grid's: %s (%.2f against %.2f; at or below it in %d of %d replays); worst <= the grid's worst: %s (%.2f against %.2f, each replay's worst on average; the largest over the replays %.2f against %.2f)"
          % ("met" if max(cost) <= 0.1501 else "NOT MET", max(cost),
             verdict(lm, hm), st.mean(fig["search"]["mean"]), st.mean(fig["grid"]["mean"]), better, r,
             verdict(lw, hw), st.mean(fig["search"]["worst"]), st.mean(fig["grid"]["worst"]),
             max(fig["search"]["worst"]), max(fig["grid"]["worst"])))

def paired(a, b):
    """The mean of a - b over the replays and its 95% percentile bootstrap
    interval (10,000 resamples of the replays, seeded)."""
    d = [x - y for x, y in zip(a, b)]
    rng, n, ms = random.Random(1), len(d), []
    for _ in range(10000):
        ms.append(st.mean(d[rng.randrange(n)] for _ in range(n)))
    ms.sort()
    return st.mean(d), ms[249], ms[9750]

def verdict(lo, hi):
    # Not above the grid's beyond the replays' spread is the target; the
    # interval says which side, if any, the difference is on.
    return ("NOT MET (above the grid's beyond the spread)" if lo > 0 else
            "met (below the grid's beyond the spread)" if hi < 0 else
            "met (within the spread)")

if sys.argv[1] == "subset":
    subset(*sys.argv[2:7])
else:
    score(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
P
reps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["repetitions"])' "$T/plan.json")
s=1
while [ "$s" -le "$R" ]; do
	"$SS" search "$SPEC" --replay "$CSV" --replay-seed "$s" --json >"$T/s$s.json" 2>"$T/err"
	"$SS" search "$SPEC" --replay "$CSV" --replay-seed "$s" --strategy grid --budget 100% \
		--json >"$T/g$s.json" 2>"$T/err"
	n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["launches"])' "$T/s$s.json")
	k=$((n / reps))
	[ "$k" -ge 1 ] || k=1
	python3 "$T/h.py" subset "$T/plan.json" "$CSV" "$s" "$k" "$T/rnd.csv"
	"$SS" search "$SPEC" --replay "$T/rnd.csv" --replay-seed "$s" --strategy grid --budget 100% \
		--json >"$T/r$s.json" 2>"$T/err"
	s=$((s + 1))
done
python3 "$T/h.py" score "$T/plan.json" "$CSV" "$T" "$R" "$SPEC"
