#!/bin/sh
# tests/cli/export-baseline-reduce.t: `sweetspot baseline` measures
# MPI_Reduce and MPI_Allreduce with Open MPI's tuned algorithms forced (ids
# from ompi_info), export writes reduce (11) and allreduce (2) rules from
# the database, and Open MPI running one allreduce and one reduce under
# them moves the bytes the chosen algorithm moves when forced as baseline
# forced it. It needs the kernel's --mode mpi for the reductions and a
# spec that lists them: until both exist, it says which is missing and
# skips.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

KERNEL=$BIN/sweetspot-kernel
[ -x "$KERNEL" ] || skip_all "sweetspot-kernel is not built"
command -v mpicc >/dev/null || skip_all "mpicc is not installed"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
why=$(mpirun_local -np 2 "$KERNEL" --mode mpi -c allreduce -m 4K -i 1 -x 0 2>&1 >/dev/null) ||
	skip_all "the kernel's --mode mpi refuses allreduce: $(echo "$why" | head -1)"
sed -e 's/collectives = .*/collectives = ["reduce", "allreduce"];/' \
	-e "s|host_bin = .*|host_bin = \"$KERNEL\";|" "$ROOT/tests/data/baseline-local.cfg" >"$TMP/r.cfg"
sweetspot plan "$TMP/r.cfg" >/dev/null 2>"$TMP/plan.err" ||
	skip_all "the spec does not take reduce and allreduce yet: $(head -1 "$TMP/plan.err")"
plan 8

exits_with 0 "baseline: reduce and allreduce, algorithms 4 and 5" \
	sweetspot baseline "$TMP/r.cfg" --db "$TMP/s.db" --algorithms 4,5
exits_with 0 "ompi-rules from the database" sweetspot export --format ompi-rules --db "$TMP/s.db" \
	-o "$TMP/rules" "$TMP/r.cfg"
like "$TMP/rules" '^2 +# collective id: allreduce' "allreduce rules (2)"
like "$TMP/rules" '^11 +# collective id: reduce' "reduce rules (11)"

cat >"$TMP/red.c" <<'CEOF'
/* One MPI_Allreduce or MPI_Reduce (argv[1]) of argv[2] bytes of ints. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	int n = atoi(argv[2]) / 4;
	int *s = calloc(n, sizeof(int)), *r = calloc(n, sizeof(int));

	MPI_Init(&argc, &argv);
	if (!strcmp(argv[1], "allreduce"))
		MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else
		MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
CEOF
mpicc -o "$TMP/red" "$TMP/red.c" || skip_all "mpicc cannot build an MPI program"
traffic() {
	name=$1 coll=$2; shift 2
	rm -f "$TMP"/mon.*
	mpirun_local -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$TMP/red" "$coll" 65536 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof | awk -F'\t' '$1 == "I" { print $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ]
}
# The algorithm the rules give 64K on 4 ranks (the last rule at or below).
alg_of() {
	awk -v id="$1" '/# collective id: / { c = $1 } /# communicator size: 4, measured/ { in4 = (c == id); next }
		/# communicator size/ { in4 = 0 } in4 && /^[0-9]+ [0-9]+ / && $1 <= 65536 { a = $2 } END { print a }' "$TMP/rules"
}
for coll in allreduce reduce; do
	id=2; [ $coll = reduce ] && id=11
	alg=$(alg_of $id)
	ok "$coll: traffic under the rules" traffic rules.t $coll --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_dynamic_rules_filename "$TMP/rules"
	if [ "$alg" = 0 ]; then traffic want.t $coll
	else traffic want.t $coll --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_${coll}_algorithm "$alg"; fi
	ok "$coll: the same as ${alg:-(no rule found)} forced" \
		sh -c '[ -n "$1" ] && cmp -s "$2" "$3"' sh "$alg" "$TMP/rules.t" "$TMP/want.t"
done
done_testing
