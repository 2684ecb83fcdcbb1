#!/bin/sh
# tests/cli/export-ompi-rules.t: Open MPI really obeys the rules sweetspot
# exports. An algorithm sweep the way ompi-collectives-tuning does it (the
# kernel's --mode mpi, one coll/tuned bcast algorithm forced per launch)
# feeds `sweetspot export --format ompi-rules`; then an MPI program runs
# under the exported file with pml monitoring on, and its per-rank traffic
# must equal the traffic with the exported algorithm forced, and differ
# from Open MPI's own choice. That program is a one-bcast program compiled
# here, so that no other traffic (the kernel's barriers and time
# reductions vary with timing) blurs the comparison. Binomial (6) and scatter-allgather (8) are swept:
# at 4 ranks and 64K both move bytes differently from Open MPI's default
# (root sends to every rank), so whichever wins, the check can tell.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

KERNEL=$BIN/sweetspot-kernel
[ -x "$KERNEL" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
command -v mpicc >/dev/null || skip_all "mpicc is not installed"
plan 14
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

# kernel SIZES MPIRUN-ARGS...: the kernel in mpi mode on 4 ranks.
kernel() {
	sizes=$1; shift
	mpirun_local -np 4 "$@" "$KERNEL" --mode mpi -c bcast -m "$sizes" -i 3 -x 1 2>>"$TMP/mpi.err"
}

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

# traffic NAME MCA...: one 64K bcast under pml monitoring; the sorted
# per-rank internal traffic (from, to, bytes, messages) to NAME.
traffic() {
	name=$1; shift
	rm -f "$TMP"/mon.*
	mpirun_local -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
		--mca pml_monitoring_filename "$TMP/mon" "$@" "$TMP/bcast" 65536 2>>"$TMP/mpi.err"
	cat "$TMP"/mon.*.prof | awk -F'\t' '$1 == "I" { print $2, $3, $4, $5 }' | sort >"$TMP/$name"
	[ -s "$TMP/$name" ] || { tail -5 "$TMP/mpi.err" | sed 's/^/# /'; false; }
}

: >"$TMP/sweep.jsonl"
for alg in 6 8; do
	OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_bcast_algorithm=$alg \
		kernel 4K,64K -x OMPI_MCA_coll_tuned_use_dynamic_rules \
		-x OMPI_MCA_coll_tuned_bcast_algorithm >>"$TMP/sweep.jsonl"
done
is "$(grep -c '"mode":"mpi"' "$TMP/sweep.jsonl")" 4 "the sweep measured 2 algorithms x 2 sizes"

exits_with 0 "export for the installed Open MPI" sweetspot export --format ompi-rules \
	--records "$TMP/sweep.jsonl" -o "$TMP/rules"
ok "no rule-file-version-2 header for Open MPI 4.1 (it would ignore the file)" \
	sh -c "! grep -q '^rule-file-version-2' '$TMP/rules'"
# The numbers without comments: collectives, id, comm sizes, size, rules, rules...
sed 's/#.*//; /^[[:space:]]*$/d' "$TMP/rules" | tr -s ' \t' ' ' | sed 's/ $//' >"$TMP/rules.num"
is "$(sed -n 2p "$TMP/rules.num")" 7 "bcast's collective id"
like "$TMP/rules" '^4 +# communicator size: 4, measured' "communicator size 4, measured"
like "$TMP/rules.num" '^0 [68] [0-9]+ [0-9]+$' "the first rule is for size 0, 4 columns"
# The algorithm the file gives 64K on 4 ranks.
alg=$(rule_alg "$TMP/rules" 7 4 65536)
ok "64K goes to a swept algorithm ($alg)" sh -c "case '$alg' in 6|8) exit 0;; esac; exit 1"

ok "traffic under the exported rules" traffic rules.traffic \
	--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$TMP/rules"
ok "traffic with algorithm $alg forced" traffic forced.traffic \
	--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm "$alg"
ok "traffic with Open MPI's own choice" traffic default.traffic
if cmp -s "$TMP/rules.traffic" "$TMP/forced.traffic"; then pass "Open MPI obeyed the rules: same traffic as $alg forced"
else fail "Open MPI obeyed the rules"; diff "$TMP/rules.traffic" "$TMP/forced.traffic" | sed 's/^/# /'; fi
ok "and that traffic is not Open MPI's default" sh -c "! cmp -s '$TMP/rules.traffic' '$TMP/default.traffic'"

# The newer format is written on request, and is what 4.1.4 ignores.
exits_with 0 "export for Open MPI 5.0.7" sweetspot export --format ompi-rules \
	--records "$TMP/sweep.jsonl" --ompi-version 5.0.7 -o "$TMP/rules5"
like "$TMP/rules5" '^rule-file-version-2$' "5.0.7 gets the rule-file-version-2 form"
done_testing
