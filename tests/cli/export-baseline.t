#!/bin/sh
# tests/cli/export-baseline.t: `sweetspot baseline` measures Open MPI's own
# bcast algorithms (each forced in its own launch, and Open MPI's choice)
# into the database; export then writes the rules from the database, and
# Open MPI running a one-bcast program under them moves exactly the bytes
# that the chosen algorithm moves when forced (or, for "default", Open
# MPI's own choice).
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "sweetspot-kernel is not built"
command -v mpicc >/dev/null || skip_all "mpicc is not installed"
plan 27
# rule_alg FILE COLL-ID COMM-SIZE BYTES: the algorithm a classic rules file
# gives, read as Open MPI 4.1 reads it: the last communicator-size block at
# or below COMM-SIZE, in it the last rule at or below BYTES.
rule_alg() {
	sed 's/#.*//' "$1" | awk -v id="$2" -v cs="$3" -v b="$4" '
		NF == 0 || $1 == "rule-file-version-2" { next }
		{ L[++n] = $0 }
		END {
			i = 1; nc = L[i++] + 0
			for (c = 0; c < nc; c++) {
				cid = L[i++] + 0; ncs = L[i++] + 0
				for (k = 0; k < ncs; k++) {
					size = L[i++] + 0; nm = L[i++] + 0
					for (m = 0; m < nm; m++) {
						split(L[i++], r, " ")
						if (cid == id && size <= cs && r[1] + 0 <= b) best = r[2]
					}
				}
			}
			print best
		}'
}
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/baseline-local.cfg
DB=$TMP/b/s.db

exits_with 0 "dry run" sweetspot baseline "$SPEC" --db "$DB" --algorithms 6,8 --dry-run
like "$TMP/out" "OMPI_MCA_coll_tuned_bcast_algorithm=8 OMPI_MCA_coll_tuned_bcast_algorithm_segmentsize=[0-9]+ .*_chain_fanout=[0-9]+ .* mpirun .* --mode mpi -c bcast -m 4096,65536" \
	"each algorithm forced in its launch, its parameters set explicitly"
ok "the dry run wrote nothing" [ ! -e "$DB" ]
exits_with 0 "baseline: default, 6 and 8" sweetspot baseline "$SPEC" --db "$DB" --algorithms 6,8
like "$TMP/out" "^baseline run [0-9]+: 3 launches, 0 failed$" "three launches"
# A database named relative to the current folder (the default is
# results/sweetspot.db): the kernels, started in their launch folders, still
# write where sweetspot reads.
mkdir -p "$TMP/cwd"
exits_with 0 "baseline with a relative --db" sh -c "cd '$TMP/cwd' && sweetspot baseline '$SPEC' --db rel/s.db --algorithms 6"
like "$TMP/out" "^baseline run [0-9]+: 2 launches, 0 failed$" "... every launch stored"
# Repetitions go round by round, every algorithm once per round (in a
# seeded random order), never one algorithm's repetitions in a row.
sed 's/repetitions = 1;/repetitions = 2;/; s|"\.\./\.\./bin/|"'"$ROOT"'/bin/|' "$SPEC" >"$TMP/reps.cfg"
exits_with 0 "baseline of 2 repetitions" sweetspot baseline "$TMP/reps.cfg" --db "$TMP/reps.db" --algorithms 6
is "$(sed -n 's/^\[[0-9]*\/4\] mpi-bcast-\([a-z0-9]*\) r\([12]\): ok.*/\2/p' "$TMP/err" | tr -d '\n')" 1122 \
	"both algorithms' first repetitions before either's second"
exits_with 0 "again: nothing measured twice" sweetspot baseline "$SPEC" --db "$DB" --algorithms 6,8
ok "no launch the second time" sh -c "! grep -q ' r1: ' '$TMP/err'"
exits_with 0 "ompi-rules from the database" sweetspot export --format ompi-rules --db "$DB" -o "$TMP/rules" "$SPEC"
alg=$(rule_alg "$TMP/rules" 7 4 65536)
ok "64K goes to a measured choice ($alg)" sh -c "case '$alg' in 0|6|8) exit 0;; esac; exit 1"
like "$TMP/rules" "^# \\($DB run 1\\)\\.$" "the rules' header names the baseline run"
exits_with 0 "recommend on a baseline alone" sweetspot recommend "$SPEC" --db "$DB"
ok "... decides from it: no search started" sh -c "! grep -q 'searching first' '$TMP/err'"
like "$TMP/out" "^  bcast +4 ranks +64K: (default \(0\)|binomial \(6\)|scatter_allgather \(8\)), median [0-9.]+ us" "the Open MPI baseline in the recommendation"
exits_with 0 "ompi-json from the database" sweetspot export --format ompi-json --db "$DB" "$SPEC"
like "$TMP/out" '"rule_file_version": 3' "JSON rules"

cat >"$TMP/bcast.c" <<'CEOF'
/* One MPI_Bcast of argv[1] bytes from rank 0, nothing else. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	char *buf = malloc(n);

	MPI_Init(&argc, &argv);
	memset(buf, 7, n);
	MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	free(buf);
	return 0;
}
CEOF
mpicc -o "$TMP/bcast" "$TMP/bcast.c" || skip_all "mpicc cannot build an MPI program"
traffic() {
	name=$1; shift
	rm -f "$TMP"/mon.*
	mpirun_local -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$TMP/bcast" 65536 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof | awk -F'\t' '$1 == "I" { print $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ]
}
ok "traffic under the rules" traffic rules.t --mca coll_tuned_use_dynamic_rules 1 \
	--mca coll_tuned_dynamic_rules_filename "$TMP/rules"
if [ "$alg" = 0 ]; then
	ok "traffic of Open MPI's own choice" traffic want.t
else
	ok "traffic with $alg forced" traffic want.t --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_bcast_algorithm "$alg"
fi
ok "the same" cmp -s "$TMP/rules.t" "$TMP/want.t"
# A baseline run recorded after the sweep holds no offloaded point: plot,
# given no spec, draws the latest sweep rather than failing on the baseline.
exits_with 0 "a sweep" sweetspot run "$SPEC" --db "$TMP/p/s.db"
exits_with 0 "then a baseline" sweetspot baseline "$SPEC" --db "$TMP/p/s.db" --algorithms 6
exits_with 0 "plot draws the sweep, not the later baseline" sweetspot plot --db "$TMP/p/s.db" -o "$TMP/fig"
exits_with 0 "rules beside a sweep" sweetspot export --format ompi-rules --db "$TMP/p/s.db" -o "$TMP/rules2" "$SPEC"
like "$TMP/rules2" "^# \\($TMP/p/s.db run 2\\)\\.$" "the header names the baseline run (2), not the sweep's (1)"
done_testing
