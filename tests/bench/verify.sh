#!/bin/sh
# tests/bench/verify.sh: do the exported rules pay on this machine? 4 ranks
# of Open MPI: `sweetspot baseline` of bcast, reduce, allgather and
# allreduce over 1K..4M (every coll/tuned algorithm forced in its own
# launch, 3 repetitions, interleaved), `export --format ompi-rules`, then
# `sweetspot verify` of the rules on the project's collective loop
# (sweetspot-loop): without (A) and with (B) the rules, 5 pairs at least,
# up to 10 while undecided, a figure per collective and size (the median
# time per call), Holm over the 52 figures, and the proof that B ran the
# rules (pml monitoring). Target: at no size is B significantly slower than
# A (the issue counted 3 of 28 with the old baseline, measured with IMB).
# Prints the sizes where B is faster with B/A and its 95% CI, every
# verdict's count, and the proof's. On a loaded machine the baseline alone
# takes hours (93 launches of 13 sizes): VERIFY_BENCH_SIZES (default 1K:4M)
# and VERIFY_BENCH_COLLS (default the four) make a smaller one, which says
# so in its first line.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

. "$ROOT/tests/lib/local-spec.sh"
local_spec "$ROOT" "${VERIFY_BENCH_COLLS:-bcast,reduce,allgather,allreduce}" "${VERIFY_BENCH_SIZES:-1K:4M}" 3 >"$TMP/spec.cfg"
S="$ROOT/bin/sweetspot"
"$S" baseline "$TMP/spec.cfg" --db "$TMP/s.db" >"$TMP/baseline.out" 2>"$TMP/baseline.err" || {
	tail -5 "$TMP/baseline.err" >&2; exit 1; }
"$S" export --format ompi-rules --db "$TMP/s.db" -o "$TMP/rules" "$TMP/spec.cfg" 2>"$TMP/export.err"
# The spec's repetitions are verify's least pairs: 5 for it.
sed 's/repetitions = 3;/repetitions = 5;/' "$TMP/spec.cfg" >"$TMP/verify.cfg"
"$S" verify "$TMP/verify.cfg" --export "$TMP/rules" --db "$TMP/s.db" >"$TMP/verify.out" 2>"$TMP/verify.err" || {
	tail -5 "$TMP/verify.err" >&2; exit 1; }
echo "collectives ${VERIFY_BENCH_COLLS:-bcast,reduce,allgather,allreduce}, sizes ${VERIFY_BENCH_SIZES:-1K:4M}"
echo "verify: $(sed -n 's/^verify run [0-9]*: \([0-9]*\) pairs.*/\1/p' "$TMP/verify.out") pairs of launches, 4 ranks, Open MPI's rules from $(grep -c ' r[0-9]*: ok' "$TMP/baseline.err") baseline launches"
awk '$1 ~ /^(bcast|gather|reduce|allgather|allreduce)$/ && $2 ~ /^[0-9]+$/ {
	v = $0; sub(/.*  /, "", v); sub(/ \(.*/, "", v); n[v]++; all++
	if (v == "faster") {
		r = $0; sub(/^[^]]*\][^]]*\] +/, "", r); split(r, q, " ")
		printf "  faster: %-9s %8s  B/A %s %s %s\n", $1, $2, q[1], q[2], q[3]
	}
}
END {
	for (k in n) printf "  %-20s %d of %d figures\n", k, n[k], all
	printf "B significantly slower than A: %d of %d figures (target: 0)\n", n["slower"] + 0, all
}' "$TMP/verify.out"
grep -c ': the same traffic: applied$' "$TMP/verify.out" | sed 's/^/proof: applied at /; s/$/ collective x size points/'
grep ': NOT APPLIED$' "$TMP/verify.out" | sed 's/^/proof: /' || true
