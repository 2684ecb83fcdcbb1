#!/bin/sh
# tests/cli/export-rules-sizes.t: the exported rules use Open MPI's message
# sizes. For gather and allgather Open MPI compares the bytes per rank
# times the communicator size with a rule's size, so a decision "1K per
# rank: bruck, 64K per rank: ring" on 4 ranks must switch at 256K, not
# 64K: at 32K per rank (128K in all) Open MPI must still run bruck. A
# profile (sweetspot's own format, written by hand here) holds the
# decisions; real Open MPI programs show, through pml monitoring, which
# algorithm each size got.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc >/dev/null || skip_all "mpicc is not installed"
plan 10

cat >"$TMP/profile.cfg" <<'PEOF'
version = 1;
source = "hand-written";
run = 0L;
mpi = (
  { collective = "allgather"; ranks = 4; bytes = 1024L; algorithm = 2; avg_us = 10.0; algorithms = 2; },
  { collective = "allgather"; ranks = 4; bytes = 65536L; algorithm = 4; avg_us = 90.0; algorithms = 2; },
  { collective = "gather"; ranks = 4; bytes = 1024L; algorithm = 2; avg_us = 8.0; algorithms = 2; },
  { collective = "gather"; ranks = 4; bytes = 65536L; algorithm = 1; avg_us = 70.0; algorithms = 2; }
);
PEOF
exits_with 0 "rules from the profile" sweetspot export --format ompi-rules --profile "$TMP/profile.cfg" \
	--ompi-version 4.1.4 -o "$TMP/rules"
sed 's/#.*//; /^[[:space:]]*$/d' "$TMP/rules" | tr -s ' \t' ' ' | sed 's/ $//' | tr '\n' '|' >"$TMP/rules.num"
is "$(cat "$TMP/rules.num")" "2|0|3|1|1|0 0 0 0|4|2|0 2 4 0|262144 4 4 0|5|1|0 0 0 0|9|3|1|1|0 0 0 0|4|2|0 2 4 0|262144 1 4 0|5|1|0 0 0 0|" \
	"allgather (0) then gather (9), switching at 64K x 4 ranks; other sizes Open MPI's"

cat >"$TMP/coll.c" <<'CEOF'
/* One MPI_Allgather or MPI_Gather (argv[1]) of argv[2] bytes per rank. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), size;
	char *s, *r;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	s = malloc(n);
	r = malloc((size_t)n * size);
	memset(s, 3, n);
	if (!strcmp(argv[1], "allgather"))
		MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
	else
		MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	free(s);
	free(r);
	return 0;
}
CEOF
mpicc -o "$TMP/coll" "$TMP/coll.c" || skip_all "mpicc cannot build an MPI program"

# traffic NAME COLL BYTES MCA...: the sorted per-rank internal traffic.
traffic() {
	name=$1 coll=$2 bytes=$3; shift 3
	rm -f "$TMP"/mon.*
	mpirun_local -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$TMP/coll" "$coll" "$bytes" 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof | awk -F'\t' '$1 == "I" { print $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ] || { tail -5 "$TMP/mpi.err" | sed 's/^/# /'; false; }
}
RULES="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename $TMP/rules"
# same COLL BYTES ALG: traffic under the rules equals ALG forced (and ALG's
# traffic differs from the other algorithm of the test, OTHER).
same() {
	coll=$1 bytes=$2 alg=$3 other=$4
	# shellcheck disable=SC2086
	traffic r.t "$coll" "$bytes" $RULES &&
	traffic a.t "$coll" "$bytes" --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_${coll}_algorithm "$alg" &&
	traffic o.t "$coll" "$bytes" --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_${coll}_algorithm "$other" &&
	cmp -s "$TMP/r.t" "$TMP/a.t" && ! cmp -s "$TMP/a.t" "$TMP/o.t"
}
ok "allgather, 1K per rank: bruck" same allgather 1024 2 4
ok "allgather, 32K per rank (128K in all): still bruck" same allgather 32768 2 4
ok "allgather, 64K per rank (256K in all): ring" same allgather 65536 4 2
ok "gather, 1K per rank: binomial" same gather 1024 2 1
ok "gather, 32K per rank (128K in all): still binomial" same gather 32768 2 1
ok "gather, 64K per rank: basic linear" same gather 65536 1 2
exits_with 0 "the JSON rules switch at the same size" sweetspot export --format ompi-json --profile "$TMP/profile.cfg"
like "$TMP/out" '"msg_size_min": 262144' "msg_size_min 256K"
done_testing
