#!/bin/sh
# tests/cli/export-formats.t: every export format from a real run (mpirun
# on this machine, onload workers) and a real Open MPI algorithm sweep:
# env and mca-params point at the rules file; the profile reads back to
# the same decisions (env from the profile equals env from the database);
# ompi-json and ucc carry the same choice; mpmd's files launch the
# recommended layout with mpirun for real. Nothing is written on refusal.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

KERNEL=$BIN/sweetspot-kernel
[ -x "$KERNEL" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 26
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
SPEC=$ROOT/tests/data/search-local.cfg
DB=$TMP/s.db

exits_with 0 "a small real sweep" sweetspot run "$SPEC" --db "$DB"

exits_with 0 "env" sweetspot export --format env --db "$DB" -o "$TMP/sweetspot.env"
like "$TMP/sweetspot.env" "^export SWEETSPOT_BCAST_WORKERS=[12]$" "env: the recommended worker count"
like "$TMP/sweetspot.env" "^export SWEETSPOT_BCAST_LAYOUT=n1-ppn4-w[12]-wpn[12]-onload$" "env: the layout"
ok "env: a shell reads it" sh -c ". '$TMP/sweetspot.env' && test -n \"\$SWEETSPOT_BCAST_BANDS\""

exits_with 2 "mca-params without an Open MPI sweep" sweetspot export --format mca-params --db "$DB" -o "$TMP/mca.conf"
like "$TMP/err" "no Open MPI algorithm measurement" "says what is missing"
ok "nothing written" [ ! -e "$TMP/mca.conf" ]

exits_with 0 "profile" sweetspot export --format profile --db "$DB" -o "$TMP/profile.cfg"
like "$TMP/profile.cfg" '^offload = \($' "profile: the offload decisions"
exits_with 0 "env from the profile" sweetspot export --format env --profile "$TMP/profile.cfg" -o "$TMP/again.env"
ok "the profile round trip gives the same env" cmp -s "$TMP/sweetspot.env" "$TMP/again.env"
exits_with 0 "a profile of the profile" sweetspot export --format profile --profile "$TMP/profile.cfg" -o "$TMP/profile2.cfg"
ok "and the same profile" cmp -s "$TMP/profile.cfg" "$TMP/profile2.cfg"

# An Open MPI algorithm sweep: binomial (6) and knomial (7), 4 ranks.
: >"$TMP/mpi.jsonl"
for alg in 6 7; do
	OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_bcast_algorithm=$alg \
	mpirun_local -np 4 -x OMPI_MCA_coll_tuned_use_dynamic_rules -x OMPI_MCA_coll_tuned_bcast_algorithm \
		"$KERNEL" --mode mpi -c bcast -m 4K -i 3 -x 1 >>"$TMP/mpi.jsonl" 2>/dev/null
done
exits_with 0 "mca-params from the sweep" sweetspot export --format mca-params --records "$TMP/mpi.jsonl" \
	--rules "$TMP/rules.conf" -o "$TMP/mca.conf"
like "$TMP/mca.conf" "^coll_tuned_dynamic_rules_filename = $TMP/rules.conf$" "mca-params: the rules file, absolute"
like "$TMP/mca.conf" "^coll_tuned_use_dynamic_rules = 1$" "mca-params: dynamic rules on"
exits_with 0 "ucc" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o "$TMP/ucc.env"
like "$TMP/ucc.env" '^UCC_TL_UCP_TUNE=bcast:0-inf:\[4-inf\]:@knomial$' "ucc: binomial and knomial are UCC's knomial"
exits_with 0 "ompi-json" sweetspot export --format ompi-json --records "$TMP/mpi.jsonl" -o "$TMP/rules.json"
like "$TMP/rules.json" '"rule_file_version": 3' "ompi-json: version 3"
like "$TMP/rules.json" '"alg": "(binomial|knomial)"' "ompi-json: the algorithm by name"

exits_with 0 "mpmd" sweetspot export --format mpmd --db "$DB" -o "$TMP/mpmd" "$SPEC"
ok "mpmd: hostfile, appfile, mpirun_rsh config, srun files" \
	test -s "$TMP/mpmd/hostfile" -a -s "$TMP/mpmd/appfile" -a -s "$TMP/mpmd/config" -a \
	-s "$TMP/mpmd/multi-prog.conf" -a -s "$TMP/mpmd/slurm.hostfile" -a -s "$TMP/mpmd/hostfile.mvapich"
w=$(sed -n 's/^export SWEETSPOT_BCAST_WORKERS=//p' "$TMP/sweetspot.env")
ranks=$(wc -l <"$TMP/mpmd/slurm.hostfile" | tr -d ' ')
is "$ranks" $((4 + w)) "mpmd: 4 hosts and the recommended $w workers"
(cd "$TMP/mpmd" && mpirun_local --hostfile hostfile --app appfile) >"$TMP/mpmd.out" 2>"$TMP/mpmd.err"
like "$TMP/mpmd.out" "\"workers\":$w," "mpirun runs the recommended layout from the exported files"
done_testing
