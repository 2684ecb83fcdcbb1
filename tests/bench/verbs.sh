#!/bin/sh
# tests/bench/verbs.sh: the verbs transport's efficiency, on Soft-RoCE in
# the qemu guest of tests/testbed/rxe/ (one boot). Bytes per second of
# sweetspot-kernel --mode bw -t verbs --burst 16 (rank 0 RDMA-writes 1 MiB
# into rank 1's region, 16 in flight before each wait for completion, as
# perftest keeps its send queue full) divided by
# perftest's ib_write_bw -s 1048576 on the same rxe0 device. Five
# interleaved runs each; the medians are compared. Target: ratio >= 0.9.
# Soft-RoCE under TCG is slow: the absolute figures mean nothing.
set -u
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
RXE=$ROOT/tests/testbed/rxe

"$RXE/boot.sh" "$TMP/guest" 400 "$RXE/guest-bench.sh" "SWEETSPOT_ROOT=$ROOT" 2>"$TMP/boot.err"
rc=$?
if [ $rc -eq 77 ]; then
	echo "verbs: skipped: $(tail -1 "$TMP/boot.err")"
	exit 0
fi
if [ $rc -ne 0 ]; then
	echo "verbs: the guest failed (boot.sh exit $rc):" >&2
	cat "$TMP/boot.err" "$TMP/guest/stderr" >&2 2>/dev/null
	exit 1
fi
sed -n 's/^perftest //p' "$TMP/guest/tap" >"$TMP/perftest"
sed -n 's/^kernel //p' "$TMP/guest/tap" >"$TMP/kernel"
if [ "$(wc -l <"$TMP/perftest")" -ne 5 ] || [ "$(wc -l <"$TMP/kernel")" -ne 5 ]; then
	echo "verbs: expected 5 figures each from perftest and the kernel, got:" >&2
	cat "$TMP/guest/tap" "$TMP/guest/stderr" >&2
	exit 1
fi
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
k=$(median "$TMP/kernel")
p=$(median "$TMP/perftest")
awk -v k="$k" -v p="$p" 'BEGIN {
	printf "kernel verbs RDMA write 1 MiB x16, rxe0:       %8.1f MB/s (median of 5)\n", k / 1e6
	printf "ib_write_bw -s 1048576, rxe0:                 %8.1f MB/s (median of 5)\n", p / 1e6
	printf "ratio kernel/ib_write_bw:                     %8.2f   (target >= 0.90: %s)\n", k / p,
		(k / p >= 0.9) ? "met" : "NOT met"
}'
