#!/bin/sh
# tests/bench/schedules.sh: OE against workers for each schedule among the
# workers (issue 14): tests/bench/schedules.cfg, bcast direct/knomial,
# allgather allin/ring, allreduce assigned/knomial/ring (and slice: its
# busbw / p2p_bw of the same launch is printed too) at 1M and 4M, 4
# host ranks and 1..3 workers, swept by `sweetspot run` (4 launches per
# layout, racing to 6 where undecided) on this machine over the rma
# transport, then in the Soft-RoCE guest over verbs (rxe0; at 256K with
# 3 iterations there: rxe under TCG moves a few tens of MB/s). For each it
# prints every configuration's median OE with its min..max over launches,
# and `sweetspot recommend`'s verdict per collective and size: the best
# schedule and worker count, the configurations not significantly
# different (docs/statistics.md: Gupta's subset on the pooled noise, or
# Mann-Whitney under Holm where its checks fail) and the p-value: the
# only grounds on which one schedule is called better than another here.
# SCHEDULES_GUEST=0 skips the guest (20-40 minutes under TCG);
# SCHEDULES_OUT=DIR keeps the databases and specs there (local.db,
# guest/verbs.db), and `schedules.sh --report DIR` prints them again.
set -u
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SS=$ROOT/bin/sweetspot
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT=${SCHEDULES_OUT:-$TMP}
mkdir -p "$OUT" || exit 1
RXE=$ROOT/tests/testbed/rxe

# report DB SPEC LABEL: the table and the verdicts of the latest run.
report() {
	echo "== $3: median OE % [min..max] over launches (n), per collective, size, schedule, workers"
	# Run 1: each database holds the one sweep (the guest's spec was at
	# /out/verbs.cfg there, so it is named by run, not by spec path).
	"$SS" results --db "$1" --run 1 --csv >"$TMP/res.csv" || return 1
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["collective"] " " $c["bytes"] " " $c["algorithm"] " w" $c["workers"]
		  v[k] = v[k] " " $c["oe_measured"] }
		END { for (k in v) print k v[k] }' "$TMP/res.csv" | sort -k1,1 -k2,2n -k3,3 -k4,4 |
	while read -r coll bytes alg w vals; do
		echo "$vals" | tr ' ' '\n' | sort -g | awk -v k="$coll $bytes $alg $w" '
			{ x[NR] = $1 } END { printf "  %-34s %6.1f [%5.1f..%5.1f] (%d)\n", k,
				(NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2, x[1], x[NR], NR }'
	done
	echo "== $3: allreduce busbw / p2p_bw of the same launch, median [min..max] (n)"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["collective"] == "allreduce" && $c["p2p_bw"] > 0 {
			k = $c["algorithm"] " " $c["bytes"] " w" $c["workers"]; v[k] = v[k] " " $c["busbw"] / $c["p2p_bw"] }
		END { for (k in v) print k v[k] }' "$TMP/res.csv" | sort |
	while read -r alg bytes w vals; do
		echo "$vals" | tr ' ' '\n' | sort -g | awk -v k="$alg $bytes $w" '
			{ x[NR] = $1 } END { printf "  %-26s %5.2f [%4.2f..%4.2f] (%d)\n", k,
				(NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2, x[1], x[NR], NR }'
	done
	echo "== $3: sweetspot recommend"
	"$SS" recommend "$2" --db "$1" --run 1 --files "$TMP/files" 2>&1 | grep -v -E '^ *(command|files|run |cd |mpirun)'
}

if [ "${1:-}" = --report ]; then
	report "$2/local.db" "$2/local.cfg" "this machine, rma"
	[ -e "$2/guest/verbs.db" ] &&
		report "$2/guest/verbs.db" "$2/guest/verbs.cfg" "Soft-RoCE guest (TCG, 2 vCPUs), verbs over rxe0"
	exit 0
fi
if [ "${SCHEDULES_LOCAL:-1}" != 0 ]; then
	cp "$ROOT/tests/bench/schedules.cfg" "$OUT/local.cfg"
	sed -i "s|\"../../bin/sweetspot-kernel\"|\"$ROOT/bin/sweetspot-kernel\"|" "$OUT/local.cfg"
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		"$SS" run "$OUT/local.cfg" --db "$OUT/local.db" >"$TMP/local.out" 2>&1 ||
		{ echo "schedules: the local sweep failed:" >&2; tail -20 "$TMP/local.out" >&2; exit 1; }
	report "$OUT/local.db" "$OUT/local.cfg" "this machine, rma"
fi

[ "${SCHEDULES_GUEST:-1}" = 0 ] && exit 0
"$RXE/boot.sh" "$OUT/guest" 3000 "$RXE/guest-schedules.sh" "SWEETSPOT_ROOT=$ROOT" 2>"$TMP/boot.err"
rc=$?
if [ $rc -eq 77 ]; then
	echo "schedules: guest skipped: $(tail -1 "$TMP/boot.err")"
	exit 0
fi
if [ $rc -ne 0 ] || [ "$(cat "$OUT/guest/status" 2>/dev/null)" != 0 ]; then
	echo "schedules: the guest's sweep failed (boot.sh exit $rc):" >&2
	cat "$TMP/boot.err" "$OUT/guest/stderr" >&2 2>/dev/null
	exit 1
fi
report "$OUT/guest/verbs.db" "$OUT/guest/verbs.cfg" "Soft-RoCE guest (TCG, 2 vCPUs), verbs over rxe0"
