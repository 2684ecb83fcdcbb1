#!/bin/sh
# tests/cli/export-obeyed.t: under the exported rules, Open MPI runs every
# algorithm exactly as `baseline` forced it, for every algorithm of every
# collective exported (bcast, gather, allgather, reduce, allreduce,
# alltoall, scan, exscan, barrier). For
# each algorithm in turn the test writes kernel records in which that one
# is the fastest (so nothing depends on which wins on this machine), exports
# the rules from them, and runs a one-collective MPI program under pml
# monitoring twice: under the rules, and with the algorithm forced as
# baseline forces it (OMPI_MCA_coll_tuned_<coll>_algorithm=N, Open MPI's
# own parameters). The per-rank traffic must be the same. On 6 ranks the
# chain bcast's fan-out shows: the old rule `0 2 0 0` (fan-out 0) moves
# other bytes than chain as forced, and the test checks that too. Beyond
# the communicator size measured the file leaves the choice to Open MPI.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc >/dev/null || skip_all "mpicc is not installed"
command -v ompi_info >/dev/null || skip_all "ompi_info is not installed"
INFO=$(ompi_info --param coll tuned --level 9 --parsable)
count() { echo "$INFO" | sed -n "s/^mca:coll:tuned:param:coll_tuned_$1_algorithm_count:value://p"; }
name() { echo "$INFO" | sed -n "s/^mca:coll:tuned:param:coll_tuned_$1_algorithm:enumerator:value:$2://p"; }
COLLS="bcast gather allgather reduce allreduce alltoall scan exscan barrier"
n=0
for c in $COLLS; do n=$((n + $(count "$c") - 1)); done
plan $((n + 5))

cat >"$TMP/coll.c" <<'CEOF'
/* One collective (argv[1]) of argv[2] bytes per rank from root 0: bytes,
 * or ints summed for the reductions. Nothing else. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), size;
	char *s, *r;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	s = calloc(n, 1);
	r = calloc((size_t)n * size * 2, 1);
	memset(s, 1, n);
	if (!strcmp(argv[1], "bcast"))
		MPI_Bcast(s, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "gather"))
		MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "allgather"))
		MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "alltoall"))
		MPI_Alltoall(r, n, MPI_BYTE, r + (size_t)n * size, n, MPI_BYTE, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "barrier"))
		MPI_Barrier(MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "scan"))
		MPI_Scan(s, r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "exscan"))
		MPI_Exscan(s, r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (!strcmp(argv[1], "reduce"))
		MPI_Reduce(s, r, n / 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	else
		MPI_Allreduce(s, r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	free(s);
	free(r);
	return 0;
}
CEOF
mpicc -o "$TMP/coll" "$TMP/coll.c" || skip_all "mpicc cannot build an MPI program"

BYTES=65536
# traffic NAME NP COLL MPIRUN-ARGS...: the sorted per-rank traffic (kind,
# from, to, bytes, messages) of one call, to NAME. Internal (I) and
# external (E) alike: the program sends nothing of its own, and Open MPI
# 4.1's linear alltoall posts persistent requests, which pml monitoring
# counts as external.
traffic() {
	name=$1 np=$2 coll=$3; shift 3
	rm -f "$TMP"/mon.*
	mpirun_local -np "$np" --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$TMP/coll" "$coll" $BYTES 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof 2>/dev/null | awk -F'\t' '$1 == "I" || $1 == "E" { print $1, $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ] || { tail -5 "$TMP/mpi.err" | sed 's/^/# /'; false; }
}

# records NP COLL BEST: kernel records of every algorithm of COLL on NP
# ranks at BYTES, BEST the fastest (1 us, the others 50 + id us).
records() {
	np=$1 coll=$2 best=$3 a=1
	while [ "$a" -lt "$(count "$coll")" ]; do
		us=$((50 + a)); [ "$a" = "$best" ] && us=1
		printf '{"schema":1,"mode":"mpi","iterations":3,"warmup":1,"ranks":%s,"hosts":%s,"workers":0,"nodes":1,"ppn":%s,"transport":"mpi","device":"","collective":"%s","algorithm":"tuned:%s","bytes":%s,"total_us":%s,"total_us_median":%s,"valid":true,"rank_hosts":[]}\n' \
			"$np" "$np" "$np" "$coll" "$a" $BYTES "$us" "$us"
		a=$((a + 1))
	done >"$TMP/rec.jsonl"
}

# obeyed NP COLL ALG: the rules exported from records where ALG wins make
# Open MPI move the bytes ALG moves when forced.
obeyed() {
	np=$1 coll=$2 alg=$3
	records "$np" "$coll" "$alg"
	sweetspot export --format ompi-rules --records "$TMP/rec.jsonl" -o "$TMP/rules" --force 2>>"$TMP/exp.err" &&
	traffic rules.t "$np" "$coll" --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_dynamic_rules_filename "$TMP/rules" &&
	traffic forced.t "$np" "$coll" --mca coll_tuned_use_dynamic_rules 1 \
		--mca "coll_tuned_${coll}_algorithm" "$alg" &&
	{ cmp -s "$TMP/rules.t" "$TMP/forced.t" || { diff "$TMP/rules.t" "$TMP/forced.t" | head -6 | sed 's/^/# /'; false; }; }
}

for coll in $COLLS; do
	alg=1
	while [ "$alg" -lt "$(count "$coll")" ]; do
		nm=$(name "$coll" "$alg")
		# two_proc runs on two ranks only.
		np=6; [ "$nm" = two_proc ] && np=2
		ok "$coll $nm ($alg) on $np ranks: the rules' traffic is the forced traffic" obeyed $np "$coll" "$alg"
		alg=$((alg + 1))
	done
done

# The fan-out matters: chain's rule without it is another tree.
records 6 bcast 2
sweetspot export --format ompi-rules --records "$TMP/rec.jsonl" -o "$TMP/rules" --force 2>>"$TMP/exp.err"
like "$TMP/rules" '^0 2 4 0 ' "chain's rule carries Open MPI's chain fan-out (4)"
printf '1\n7\n1\n6\n1\n0 2 0 0\n' >"$TMP/fanout0"
traffic forced.t 6 bcast --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 2
traffic old.t 6 bcast --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$TMP/fanout0"
ok "a chain rule with fan-out 0 moves other bytes than chain as measured" \
	sh -c "! cmp -s '$TMP/old.t' '$TMP/forced.t'"

# Beyond the size measured (6), Open MPI's own decision: 8 ranks under the
# rules move what 8 ranks move with nothing set.
like "$TMP/rules" '^7 +# communicator size: 7 and up, beyond the sizes measured' \
	"the file says sizes above 6 are left to Open MPI"
traffic rules8.t 8 bcast --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$TMP/rules"
traffic default8.t 8 bcast
traffic chain8.t 8 bcast --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 2
ok "8 ranks under the rules: Open MPI's own choice" cmp -s "$TMP/rules8.t" "$TMP/default8.t"
ok "... which is not chain (the check can tell)" sh -c "! cmp -s '$TMP/rules8.t' '$TMP/chain8.t'"
done_testing
