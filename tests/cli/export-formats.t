#!/bin/sh
# tests/cli/export-formats.t: every export format from a real run (mpirun
# on this machine, onload workers) and a real Open MPI algorithm sweep:
# env and mca-params point at the rules file; the profile reads back to
# the same decisions (env from the profile equals env from the database);
# ompi-json and ucc carry the same choice; mpmd's files launch the
# recommended layout with mpirun for real, and its printed command, run as
# printed, runs the recommended configuration alone (one collective,
# algorithm and assignment, the band's sizes). Nothing is written on refusal.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

KERNEL=$BIN/sweetspot-kernel
[ -x "$KERNEL" ] || skip_all "sweetspot-kernel is not built"
command -v mpirun >/dev/null || skip_all "mpirun is not installed"
plan 49
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
exits_with 2 "mca-params refuses a default rules file that does not exist" sweetspot export \
	--format mca-params --records "$TMP/mpi.jsonl" -o "$TMP/mca.conf"
like "$TMP/err" "rules file .*ompi-rules.conf does not exist" "says so"
exits_with 0 "ompi-rules and mca-params in one call" sweetspot export --format ompi-rules,mca-params \
	--records "$TMP/mpi.jsonl" -o "$TMP/both.conf"
like "$TMP/both.conf.mca-params" "^coll_tuned_dynamic_rules_filename = $TMP/both.conf$" "they agree: mca-params loads the rules written beside"
exits_with 0 "mca-params from the sweep" sweetspot export --format mca-params --records "$TMP/mpi.jsonl" \
	--rules "$TMP/rules.conf" -o "$TMP/mca.conf"
like "$TMP/mca.conf" "^coll_tuned_dynamic_rules_filename = $TMP/rules.conf$" "mca-params: the rules file, absolute"
like "$TMP/mca.conf" "^coll_tuned_use_dynamic_rules = 1$" "mca-params: dynamic rules on"
exits_with 0 "ucc" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o "$TMP/ucc.env"
like "$TMP/ucc.env" '^UCC_TL_UCP_TUNE=bcast:0-inf:host:\[4\]:@knomial$' "ucc: binomial or knomial is UCC's knomial, host memory, the team size measured"
like "$TMP/ucc.env" '^UCC_TL_UCP_BCAST_KN_RADIX=[24]$' "ucc: with the radix that makes it the same tree"
# -o never replaces what is there without --force, and never a symlink,
# a folder or a device even with it.
cp "$TMP/ucc.env" "$TMP/ucc.before"
exits_with 2 "-o onto an existing file without --force" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o "$TMP/ucc.env"
like "$TMP/err" "--force" "says how to replace it"
ok "the file is as it was" cmp -s "$TMP/ucc.env" "$TMP/ucc.before"
exits_with 0 "--force replaces a regular file" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o "$TMP/ucc.env" --force
echo "mine" >"$TMP/target"
ln -s "$TMP/target" "$TMP/link"
exits_with 2 "a symlink, even with --force" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o "$TMP/link" --force
ok "the link and what it points at are untouched" test -L "$TMP/link" -a "$(cat "$TMP/target")" = mine
exits_with 2 "a device, even with --force" sweetspot export --format ucc --records "$TMP/mpi.jsonl" -o /dev/null --force
exits_with 0 "ompi-json" sweetspot export --format ompi-json --records "$TMP/mpi.jsonl" -o "$TMP/rules.json"
like "$TMP/rules.json" '"rule_file_version": 3' "ompi-json: version 3"
like "$TMP/rules.json" '"alg": "(binomial|knomial)"' "ompi-json: the algorithm by name"

exits_with 0 "mpmd" sweetspot export --format mpmd --db "$DB" -o "$TMP/mpmd" "$SPEC"
root=
[ "$(id -u)" -eq 0 ] && root=" --allow-run-as-root"
like "$TMP/err" "^  mpirun --oversubscribe$root --timeout [0-9]+ --hostfile $TMP/mpmd/hostfile --app $TMP/mpmd/appfile\$" \
	"mpmd: the recipe is the spec launcher's line (as root with --allow-run-as-root)"
grep -F "$(sed -n 's/^  //p' "$TMP/err" | sed 's/ --allow-run-as-root//')" "$TMP/mpmd/commands" >/dev/null
is "$?" 0 "mpmd: the same line as in the folder's commands"
ok "mpmd: hostfile, appfile, mpirun_rsh config, srun files" \
	test -s "$TMP/mpmd/hostfile" -a -s "$TMP/mpmd/appfile" -a -s "$TMP/mpmd/config" -a \
	-s "$TMP/mpmd/multi-prog.conf" -a -s "$TMP/mpmd/slurm.hostfile" -a -s "$TMP/mpmd/hostfile.mvapich"
w=$(sed -n 's/^export SWEETSPOT_BCAST_WORKERS=//p' "$TMP/sweetspot.env")
ranks=$(wc -l <"$TMP/mpmd/slurm.hostfile" | tr -d ' ')
is "$ranks" $((4 + w)) "mpmd: 4 hosts and the recommended $w workers"
(cd "$TMP/mpmd" && mpirun_local --hostfile hostfile --app appfile) >"$TMP/mpmd.out" 2>"$TMP/mpmd.err"
like "$TMP/mpmd.out" "\"workers\":$w," "mpirun runs the recommended layout from the exported files"

# The recipe runs the recommended configuration alone: from a sweep of two
# collectives, algorithms, assignments and sizes, the printed command
# (run as printed, without the test's run-as-root variables, from the
# folder it names) gives records of one collective, algorithm and
# assignment, at exactly the band's sizes.
sed "s|\"../../bin/sweetspot-kernel\"|\"$KERNEL\"|; s|\"bcast\" \]|\"bcast\", \"allreduce\" ]|;
	s|\"block\" \]|\"block\", \"cyclic\" ]|; s|\"4K\" \]|\"4K\", \"16K\" ]|; s|wpn = \[ 1, 2 \]|wpn = [ 2 ]|;
	s|^sweep = {|sweep = {\n\talgorithms = [ \"direct\", \"slice\" ];|" "$SPEC" >"$TMP/two.cfg"
exits_with 0 "a sweep of bcast and allreduce at 4K and 16K" sweetspot run "$TMP/two.cfg" --db "$TMP/two.db"
exits_with 0 "mpmd from it" sweetspot export --format mpmd --db "$TMP/two.db" -o "$TMP/rec" "$TMP/two.cfg"
set -- $(sed -n 's/^sweetspot: wrote .* for layout \([^ ]*\) (\([a-z]*\) \([a-z]*\) \([a-z]*\),.*/\1 \2 \3 \4/p' "$TMP/err")
layout=$1 coll=$2 alg=$3 asg=$4
line=$(sed -n 's/^  //p' "$TMP/err")
sweetspot export --format env --db "$TMP/two.db" >"$TMP/two.env" 2>/dev/null
band=$(sed -n "s/^export SWEETSPOT_$(echo "$coll" | tr a-z A-Z)_BANDS='*//p" "$TMP/two.env" | tr -d "'" |
	tr ' ' '\n' | grep ":$alg:$asg:$layout\$" | awk -F'[-:]' '{ print $2 - $1, $1, $2 }' | sort -n | tail -1)
want=$(echo "$band" | awk '{ for (s = 4096; s <= 16384; s *= 4) if (s >= $2 && s <= $3) printf "%s%d", n++ ? "," : "", s }')
(cd "$TMP/rec" && env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM sh -c "$line") >"$TMP/rec.out" 2>"$TMP/rec.err"
is "$?" 0 "the printed command runs as printed"
ok "a recommendation and its band's sizes read back" test -n "$coll" -a -n "$asg" -a -n "$want"
field() { sed -n "s/.*\"$1\":\"*\([^,\"]*\).*/\1/p" "$TMP/rec.out" | sort -un | tr '\n' ' ' | sed 's/ $//'; }
is "$(field collective)" "$coll" "its records: one collective, the recommended $coll"
is "$(field algorithm) $(field assignment)" "$alg $asg" "one algorithm and one assignment, the recommended ones"
is "$(field bytes | tr ' ' ',')" "$want" "exactly the band's sizes ($want)"
is "$(field valid)" "true" "every record valid"
if [ "$coll" = allreduce ]; then
	is "$(field dtype) $(field op)" "int32 sum" "the reduction's dtype and op"
else
	ok "bcast: no reduction arguments" sh -c "grep -q -- ' -c bcast ' '$TMP/rec/appfile' && ! grep -q -- '--dtype' '$TMP/rec/appfile'"
fi
done_testing
