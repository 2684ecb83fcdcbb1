#!/bin/sh
# tests/bench/plan.sh: plan + generate at scale: 10,000 nodes x 8 PPN with
# 8 workers on each of 9,999 DPUs (one layout, 159,992 ranks). Prints the
# wall time and peak memory of each command, measured by GNU time, against
# the targets (under 1 s and under 256 MiB each).
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "plan.sh: GNU time is not installed (package time)" >&2; exit 1; }

cat >"$TMP/big.cfg" <<'CFG'
system = {
	name = "big";
	nodes = "n[00001-10000]";
	ppn = 8;
	dpu = { suffix = "-bf"; cores = 8; };
	host_bin = "/opt/x86/sweetspot-kernel";
	dpu_bin = "/opt/arm/sweetspot-kernel";
};
sweep = {
	collectives = [ "bcast", "gather", "allgather" ];
	assignments = [ "block", "cyclic", "locality" ];
	sizes = "256K:4M";
	wpn = [ 8 ];
	workers = [ 79992 ];
	placement = [ "dpu" ];
};
CFG

# measure LABEL COMMAND...: prints seconds and MiB of peak resident memory.
measure() {
	label=$1; shift
	"$TIME" -f '%e %M' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err" ||
		{ echo "plan.sh: $label failed:" >&2; cat "$TMP/err" >&2; exit 1; }
	read -r secs kib <"$TMP/time"
	mib=$(awk -v k="$kib" 'BEGIN { printf "%.1f", k / 1024 }')
	awk -v l="$label" -v s="$secs" -v m="$mib" 'BEGIN {
		printf "%-10s %6.2f s (%3.0f%% of 1 s)   %7.1f MiB (%3.0f%% of 256 MiB)\n", l, s, s * 100, m, m * 100 / 256 }'
}

echo "10,000 nodes x 8 PPN, 79,992 workers at 8 per DPU: 159,992 ranks, one layout"
measure plan "$ROOT/bin/sweetspot" plan "$TMP/big.cfg"
measure generate "$ROOT/bin/sweetspot" generate "$TMP/big.cfg" -o "$TMP/out.d"
echo "generated: $(du -sh "$TMP/out.d" | cut -f1) in $(find "$TMP/out.d" -type f | wc -l) files;" \
	"slurm.hostfile $(wc -l <"$TMP/out.d/n10000-ppn8-w79992-wpn8-dpu/slurm.hostfile") lines"
