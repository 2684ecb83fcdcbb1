#!/bin/sh
# tests/bench/alltoall.sh: the offloaded alltoall against Open MPI's own.
# 1 MiB per pair, 4 host ranks: sweetspot-kernel -c alltoall (direct, block
# assignment, the default chunk and window) with 1, 2 and 4 workers on the
# rma transport, and MPI_Alltoall on the same 4 host ranks (--mode mpi)
# under Open MPI's own choice and each coll/tuned algorithm forced (ids as
# ompi_info lists them; two_proc needs 2 ranks). Three rounds, each
# launching every configuration once, interleaved, so that a slow moment
# of the machine falls on all of them alike. Per launch: the median over
# iterations of the max-over-ranks time (total_us_median). Printed side by
# side per worker count: the offloaded total and Open MPI's best alltoall
# (the configuration with the lowest median over the rounds), their ratio
# round by round, and the offload efficiency (oe_measured), each as median and min..max
# over the three launches. Then the workers' pairwise schedule (-a
# pairwise, 2 and 4 workers) in the same rounds, against direct on as many
# workers, round by round. On 2 shared cores the 4 + W ranks oversubscribe
# the machine: the times are this machine's, the ratio is the figure.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
HOSTS=4
SIZE=1M
ITERS=10
WARM=2
ROUNDS=3

run() {
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
		timeout 300 mpirun --oversubscribe --bind-to none "$@" 2>/dev/null
}
algs=$(ompi_info --param coll tuned --level 9 --parsable |
	sed -n 's/^mca:coll:tuned:param:coll_tuned_alltoall_algorithm:enumerator:value:\([0-9]*\):\(.*\)/\1 \2/p' |
	awk '$1 > 0 && $2 != "two_proc" { print $1 }')
[ -n "$algs" ] || { echo "alltoall: ompi_info lists no coll/tuned alltoall algorithm" >&2; exit 1; }
for round in $(seq $ROUNDS); do
	for w in 1 2 4; do
		run -np $((HOSTS + w)) "$ROOT/bin/sweetspot-kernel" -t rma -c alltoall -A block -w "$w" \
			-m $SIZE -i $ITERS -x $WARM |
			sed -n 's/.*"total_us_median":\([0-9.]*\),.*"oe_measured":\([0-9.]*\),.*"valid":true.*/\1 \2/p' \
			>>"$TMP/w$w"
	done
	for w in 2 4; do
		run -np $((HOSTS + w)) "$ROOT/bin/sweetspot-kernel" -t rma -c alltoall -a pairwise -A block \
			-w "$w" -m $SIZE -i $ITERS -x $WARM |
			sed -n 's/.*"total_us_median":\([0-9.]*\),.*"oe_measured":\([0-9.]*\),.*"valid":true.*/\1 \2/p' \
			>>"$TMP/p$w"
	done
	for a in 0 $algs; do
		if [ "$a" = 0 ]; then
			run -np $HOSTS "$ROOT/bin/sweetspot-kernel" --mode mpi -c alltoall -m $SIZE -i $ITERS -x $WARM
		else
			run -np $HOSTS --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_alltoall_algorithm "$a" \
				"$ROOT/bin/sweetspot-kernel" --mode mpi -c alltoall -m $SIZE -i $ITERS -x $WARM
		fi | sed -n 's/.*"total_us_median":\([0-9.]*\),.*"valid":true.*/\1/p' >>"$TMP/mpi$a"
	done
done
for f in "$TMP"/w* "$TMP"/p* "$TMP"/mpi*; do
	if [ "$(wc -l <"$f")" -ne $ROUNDS ]; then
		echo "alltoall: $(basename "$f"): not $ROUNDS valid records" >&2
		exit 1
	fi
done
# stat FILE COLUMN: "median min max"
stat() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'
}
best=
for a in 0 $algs; do
	if [ -z "$best" ] || awk -v x="$(stat "$TMP/mpi$a" 1 | cut -d' ' -f1)" \
		-v y="$(stat "$TMP/mpi$best" 1 | cut -d' ' -f1)" 'BEGIN { exit !(x < y) }'; then
		best=$a
	fi
done
name=$( [ "$best" = 0 ] && echo "Open MPI's own choice" || ompi_info --param coll tuned --level 9 --parsable |
	sed -n "s/^mca:coll:tuned:param:coll_tuned_alltoall_algorithm:enumerator:value:$best:\\(.*\\)/\\1 ($best)/p")
set -- $(stat "$TMP/mpi$best" 1)
printf 'alltoall %s per pair, %d host ranks; Open MPI best: %s, median %.0f us (min..max %.0f..%.0f) over %d launches\n' \
	$SIZE $HOSTS "$name" "$1" "$2" "$3" $ROUNDS
printf '%-8s %28s %28s %26s\n' workers "offloaded total us (min..max)" "offloaded / Open MPI best (min..max)" "oe_measured % (min..max)"
for w in 1 2 4; do
	# The ratio round by round: each round's launches ran side by side.
	awk '{ print $1 }' "$TMP/w$w" | paste - "$TMP/mpi$best" | awk '{ print $1 / $2 }' >"$TMP/ratio$w"
	set -- $(stat "$TMP/w$w" 1) $(stat "$TMP/ratio$w" 1) $(stat "$TMP/w$w" 2)
	printf '%-8d %10.0f (%6.0f..%6.0f) %14.2f (%5.2f..%5.2f) %12.1f (%5.1f..%5.1f)\n' "$w" "$1" "$2" "$3" \
		"$4" "$5" "$6" "$7" "$8" "$9"
done
printf '%-8s %28s %28s %26s\n' workers "pairwise total us (min..max)" "pairwise / direct (min..max)" "oe_measured % (min..max)"
for w in 2 4; do
	awk '{ print $1 }' "$TMP/p$w" | paste - "$TMP/w$w" | awk '{ print $1 / $2 }' >"$TMP/pratio$w"
	set -- $(stat "$TMP/p$w" 1) $(stat "$TMP/pratio$w" 1) $(stat "$TMP/p$w" 2)
	printf '%-8d %10.0f (%6.0f..%6.0f) %14.2f (%5.2f..%5.2f) %12.1f (%5.1f..%5.1f)\n' "$w" "$1" "$2" "$3" \
		"$4" "$5" "$6" "$7" "$8" "$9"
done
