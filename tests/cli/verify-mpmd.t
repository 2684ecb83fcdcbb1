#!/bin/sh
# tests/cli/verify-mpmd.t: `sweetspot verify` of an MPMD recipe (the folder
# `export --format mpmd` writes) under real mpirun, on two fake nodes
# (tests/testbed/fake-ssh): A runs the program on the spec's host ranks, B
# on the recipe's layout (its hostfile and appfile, the program in every
# context's place); the proof is where each rank ran (sweetspot-loop
# --where) against the recipe's slurm.hostfile. An appfile that lets
# mpirun place the ranks itself (one context with a host list) puts ranks
# elsewhere: every verdict is then "not applied".
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-loop" ] || skip_all "sweetspot-loop is not built"
command -v mpicc >/dev/null || skip_all "mpicc is not installed"
mpicc -o "$TMP/prog" "$ROOT/tests/data/verify-prog.c" || skip_all "mpicc cannot build an MPI program"
trap 'rm -rf "$TMP" /dev/shm/ompi-vmA /dev/shm/ompi-vmB' EXIT
plan 23
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
cat >"$TMP/spec.cfg" <<CFG
system = {
	name = "vm2"; nodes = "vmA,vmB"; ppn = 2; onload = { cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	launcher = "mpirun";
	launcher_args = [ "--oversubscribe", "--mca", "plm_rsh_agent", "$ROOT/tests/testbed/fake-ssh",
			  "--mca", "btl", "self,tcp", "--mca", "osc", "pt2pt" ];
};
sweep = {
	collectives = [ "bcast" ]; assignments = [ "cyclic" ]; sizes = [ "4K" ];
	wpn = [ 1 ]; workers = [ 1, 2 ]; placement = [ "onload" ];
	iterations = 5; warmup = 1; repetitions = 2; max_repetitions = 6; time_limit = 60;
	transport = "rma";
};
CFG
SPEC=$TMP/spec.cfg
DB=$TMP/v.db
METRIC='^size ([0-9]+): ([0-9.]+) us'
exits_with 0 "a sweep on two fake nodes" sweetspot run "$SPEC" --db "$TMP/s.db"
exits_with 0 "its MPMD recipe" sweetspot export --format mpmd --db "$TMP/s.db" -o "$TMP/rec" "$SPEC"
hosts=$(tr '\n' ' ' <"$TMP/rec/slurm.hostfile")
diag "the recipe's hosts: $hosts"

exits_with 0 "dry run" sweetspot verify "$SPEC" --export "$TMP/rec" --db "$DB" --dry-run -- "$TMP/prog" SWEETSPOT_RECIPE 40 10
like "$TMP/out" "verify-A-r1' && mpirun .* --host vmA:2,vmB:2 -np 4 $TMP/prog SWEETSPOT_RECIPE 40 10\$" "A: the spec's host ranks"
like "$TMP/out" "verify-B-r1' && SWEETSPOT_RECIPE=$TMP/rec mpirun .* --hostfile '[^']*/verify-B-r1/hostfile' --app '[^']*/verify-B-r1/appfile'\$" \
	"B: the recipe's files, copied into its launch folder"

# verify-prog counts as B where SWEETSPOT_RECIPE is set: exact figures.
exits_with 0 "verify the recipe" sweetspot verify "$SPEC" --export "$TMP/rec" --db "$DB" --metric "$METRIC" -- "$TMP/prog" SWEETSPOT_RECIPE 40 10
like "$TMP/out" '^1024 +40 \[40, 40\] +10 \[10, 10\] +0\.250 \[0\.250, 0\.250\] .* faster$' "B/A 0.25, faster"
like "$TMP/out" "^verify run [0-9]+: [0-9]+ pairs; A without, B with $TMP/rec \(MPMD recipe\)" "the settings: an MPMD recipe"
like "$TMP/out" "^proof: sweetspot-loop --where on the recipe's layout, .*: every rank on its host: applied\$" "proof: applied"
want=$(awk '{ printf "%s%s", n++ ? " " : "", $1 }' "$TMP/rec/slurm.hostfile")
got=$(sed -n 's/^  rank [0-9]* *\([^ ]*\) .*/\1/p' "$TMP/out" | tr '\n' ' ' | sed 's/ $//')
is "$got" "$want" "every rank on the recipe's host, in rank order"
run1=$(sed -n 's/^verify run \([0-9]*\):.*/\1/p' "$TMP/out")
app=$(sqlite3 "$DB" "SELECT log_path FROM launches WHERE run = $run1 AND layout = 'verify-B' AND repetition = 1" | sed 's|/log$|/appfile|')
is "$(grep -c "^-np [0-9]* --host vm[AB]:[0-9]* $TMP/prog SWEETSPOT_RECIPE 40 10\$" "$app")" \
	"$(grep -c '^-np' "$TMP/rec/appfile")" "B's appfile: the recipe's contexts, the program in each one's place"
is "$(sqlite3 "$DB" "SELECT count(*) FROM launches WHERE run = $run1 AND layout = 'proof-B-layout' AND ok")" 1 "the proof's launch stored"
exits_with 0 "again: resumed" sweetspot verify "$SPEC" --export "$TMP/rec" --db "$DB" --metric "$METRIC" -- "$TMP/prog" SWEETSPOT_RECIPE 40 10
ok "no launch the second time" sh -c "! grep -q ': ok, 0 points' '$TMP/err'"
exits_with 0 "--json" sweetspot verify "$SPEC" --export "$TMP/rec" --db "$DB" --metric "$METRIC" --json -- "$TMP/prog" SWEETSPOT_RECIPE 40 10
like "$TMP/out" "\"recipe\": \"$TMP/rec\"" "--json: the proof names the recipe"

# One context with a host list: mpirun fills vmA's slots first.
cp -r "$TMP/rec" "$TMP/loose"
{
	grep '^#' "$TMP/rec/appfile"
	echo "-np $(grep -c . "$TMP/rec/slurm.hostfile") --host vmA:3,vmB:3 $BIN/sweetspot-kernel"
} >"$TMP/loose/appfile"
exits_with 0 "a recipe mpirun does not follow" sweetspot verify "$SPEC" --export "$TMP/loose" --db "$DB" --metric "$METRIC" -- "$TMP/prog" SWEETSPOT_RECIPE 40 10
like "$TMP/out" "NOT APPLIED: rank [0-9]+ ran on vmA, the recipe puts it on vmB" "proof: a rank off its host, named"
is "$(grep -c ' not applied$' "$TMP/out")" 2 "every figure: not applied, never faster"

# Bad input.
exits_with 2 "a word the recipe's files cannot carry" sweetspot verify "$SPEC" --export "$TMP/rec" --db "$TMP/bad.db" -- "$TMP/prog" "a b"
like "$TMP/err" "'a b': an MPMD recipe's files split lines on blanks" "... says why"
mkdir "$TMP/empty"
exits_with 2 "a folder that is no recipe" sweetspot verify "$SPEC" --export "$TMP/empty" --db "$TMP/bad.db" -- "$TMP/prog" X 0 0
like "$TMP/err" "$TMP/empty: a folder, but not an MPMD recipe" "... says so"
done_testing
