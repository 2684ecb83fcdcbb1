#!/bin/sh
# tests/bench/model-scale.sh: the model at scale (issue 26, item 4), printed
# beside its targets in one run. An allgather allin (block and cyclic, 4K,
# 8K and 16K: 6 points) on N nodes x 8 PPN x 8 WPN, predicted by classes of
# equivalent ranks (node 0's ranks simulated for every node's) at 64, 128,
# 1,024 and 16,384 nodes, and by the simulation of every rank (--full-sim)
# where that runs in reasonable time (64 and 128 nodes: it is O(H^2)
# operations, 67M per phase at 1,024 nodes); 3 rounds, each size once per
# round, interleaved; median (min-max) of the prediction time the command
# reports, peak memory, and whether the two ways give the same times.
# Targets: 1,024 nodes < 1 s, 16,384 nodes < 10 s. Calibrates first (3
# local launches). Prints, asserts nothing.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(pwd)}
SS=$ROOT/bin/sweetspot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=$T/scale.db
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -e 's/collectives = \[ "bcast", "gather", "allgather" \];/collectives = [ "allgather" ];/' \
    -e 's/algorithms = \[ "direct", "allin" \];/algorithms = [ "allin" ];/' \
    -e "s|\"../bin/sweetspot-kernel\"|\"$ROOT/bin/sweetspot-kernel\"|" "$ROOT/profiles/local.cfg" >"$T/ag.cfg"
"$SS" model "$T/ag.cfg" --db "$DB" --nodes 2 >/dev/null 2>"$T/cal.err" || { tail -3 "$T/cal.err"; exit 1; }
: >"$T/times"
for round in 1 2 3; do
	for n in 64 128 1024 16384; do
		for how in classes full; do
			[ "$how" = full ] && [ "$n" -gt 128 ] && continue
			flag=
			[ "$how" = full ] && flag=--full-sim
			/usr/bin/time -f '%M' -o "$T/mem" "$SS" model "$T/ag.cfg" --db "$DB" --nodes "$n" \
				--ppn 8 --wpn 8 --json $flag >"$T/$how-$n.json" 2>"$T/err"
			s=$(sed -n 's/^# model: .* simulated in \([0-9.]*\) s$/\1/p' "$T/err")
			echo "$n $how $round $s $(cat "$T/mem")" >>"$T/times"
		done
	done
done
python3 - "$T" <<'P'
import json, os, statistics as st, sys
d = sys.argv[1]
rows = [l.split() for l in open(os.path.join(d, "times"))]
def fig(n, how):
    t = [float(r[3]) for r in rows if r[0] == str(n) and r[1] == how]
    m = [int(r[4]) / 1024 for r in rows if r[0] == str(n) and r[1] == how]
    if not t:
        return None
    return "%.3f s (%.3f-%.3f), %.0f MiB" % (st.median(t), min(t), max(t), max(m))
def same(n):
    a = json.load(open(os.path.join(d, "classes-%d.json" % n)))
    f = json.load(open(os.path.join(d, "full-%d.json" % n)))
    keys = ("ref_us", "comm_us", "total_us", "oe_measured", "oe_paper")
    ok = len(a) == len(f) and all(abs(x[k] - y[k]) <= 1e-12 * abs(y[k]) for x, y in zip(a, f) for k in keys)
    by = all(x["ref_simulation"] == x["comm_simulation"] == "classes" for x in a)
    return "equal" if ok else "DIFFERENT", "by classes" if by else "NOT by classes"
targets = {1024: "target < 1 s", 16384: "target < 10 s"}
for n in (64, 128, 1024, 16384):
    c, f = fig(n, "classes"), fig(n, "full")
    line = "allgather allin, %5d nodes x 8 PPN x 8 WPN, 6 points, 3 rounds: by classes %s" % (n, c)
    if f:
        eq, by = same(n)
        line += "; every rank simulated %s; times %s (%s)" % (f, eq, by)
    else:
        line += "; every rank: not run (O(H^2) operations)"
    if n in targets:
        line += " (%s)" % targets[n]
    print(line)
P
