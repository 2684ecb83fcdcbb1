#!/bin/sh
# tests/cli/verify-spec.t: the spec's verify group under real mpirun: the
# command (a path relative to the spec's folder), the export, the metric,
# higher, the launcher and the repetitions come from the spec when the
# command line leaves them out, and the command line wins; every bad value
# is a file:line error, exit status 2, nothing stored.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc >/dev/null || skip_all "mpicc is not installed"
mkdir -p "$TMP/s/bin"
mpicc -o "$TMP/s/bin/prog" "$ROOT/tests/data/verify-prog.c" || skip_all "mpicc cannot build an MPI program"
plan 39
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
RULESVAR=OMPI_MCA_coll_tuned_dynamic_rules_filename
printf '1\n7\n1\n4\n1\n0 1 0 0\n' >"$TMP/s/tuned.rules"
DB=$TMP/v.db

# The spec of tests/data/verify-local.cfg with a verify group ($1: its body).
spec() {
	sed "s|\"\\.\\./\\.\\./bin/|\"$ROOT/bin/|" "$ROOT/tests/data/verify-local.cfg"
	printf 'verify = {\n%s\n};\n' "$1"
}
spec "	command = [ \"bin/prog\", \"$RULESVAR\", \"40\", \"10\" ];
	export = \"tuned.rules\";
	metric = \"^size ([0-9]+): ([0-9.]+) us\";
	repetitions = 6; max_repetitions = 7;" >"$TMP/s/v.cfg"

exits_with 0 "dry run: all from the spec" sweetspot verify "$TMP/s/v.cfg" --db "$DB" --dry-run
like "$TMP/out" "verify-A-r1' && mpirun .* -np 4 $TMP/s/bin/prog $RULESVAR 40 10\$" "the command, its path from the spec's folder"
like "$TMP/out" "verify-B-r1' && OMPI_MCA_coll_tuned_use_dynamic_rules=1 $RULESVAR=$TMP/s/tuned.rules mpirun " \
	"the export, from the spec's folder"
exits_with 0 "verify from the spec" sweetspot verify "$TMP/s/v.cfg" --db "$DB"
like "$TMP/out" '^1024 +40 \[40, 40\] +10 \[10, 10\] +0\.250 \[0\.250, 0\.250\] .* faster$' "the spec's metric: size 1024, B/A 0.25"
like "$TMP/out" '^verify run [0-9]+: 6 pairs;' "the group's repetitions (6), not the sweep's (5)"

# The command line wins.
exits_with 0 "--higher and another command" sweetspot verify "$TMP/s/v.cfg" --db "$DB" --higher -- "$TMP/s/bin/prog" $RULESVAR 20 40
is "$(grep -c ' faster$' "$TMP/out")" 2 "the command line's program: B's figures larger, both faster"
# figures: the ones named, in that order; --figures over the spec's.
spec "	command = [ \"bin/prog\", \"$RULESVAR\", \"40\", \"10\" ];
	export = \"tuned.rules\"; metric = \"^size ([0-9]+): ([0-9.]+) us\";
	figures = [ \"4096\" ];" >"$TMP/s/f.cfg"
exits_with 0 "the spec's figures" sweetspot verify "$TMP/s/f.cfg" --db "$DB"
is "$(grep -c '^[0-9]* .* faster$' "$TMP/out") $(grep -c '^4096 ' "$TMP/out")" "1 1" "only 4096 decided"
exits_with 0 "--figures over them" sweetspot verify "$TMP/s/f.cfg" --db "$DB" --figures 4096,1024
is "$(grep '^[0-9]* .* faster$' "$TMP/out" | cut -d' ' -f1 | tr '\n' ' ')" "4096 1024 " "both, in the order named"
exits_with 2 "a figure the output does not give" sweetspot verify "$TMP/s/f.cfg" --db "$DB" --figures 2048
like "$TMP/err" "figure '2048' is not in verify-[AB] r1's output" "... says which"
spec "	export = \"tuned.rules\"; higher = true; launcher = \"hydra\";" >"$TMP/s/h.cfg"
exits_with 0 "higher and launcher from the spec" sweetspot verify "$TMP/s/h.cfg" --db "$DB" --dry-run -- "$TMP/s/bin/prog" X 0 0
like "$TMP/out" "verify-A-r1' && .*mpiexec.hydra " "the group's launcher"
exits_with 0 "--launcher wins" sweetspot verify "$TMP/s/h.cfg" --db "$DB" --dry-run --launcher mpirun -- "$TMP/s/bin/prog" X 0 0
like "$TMP/out" "verify-A-r1' && mpirun " "mpirun"
spec "	command = [ \"bin/prog\", \"$RULESVAR\", \"40\", \"10\" ];" >"$TMP/s/n.cfg"
exits_with 2 "no export anywhere" sweetspot verify "$TMP/s/n.cfg" --db "$TMP/bad.db"
like "$TMP/err" "export FILE is needed \(or 'export' in the spec's verify group\)" "... says where it may go"

# Bad values: file:line, exit 2, nothing stored.
bad() { # $1 the group's body, $2 the line the error names, $3 the message
	spec "$1" >"$TMP/s/bad.cfg"
	exits_with 2 "bad: $3" sweetspot verify "$TMP/s/bad.cfg" --db "$TMP/bad.db"
	like "$TMP/err" "^sweetspot: $TMP/s/bad.cfg:$2: .*$3" "... at line $2"
}
L=$(($(grep -c '' "$ROOT/tests/data/verify-local.cfg") + 2))
bad '	export = "tuned.rules"; metric = "size [0-9]+";' $L "has no \( \) group"
bad '	export = "tuned.rules"; metric = "size ([0-9]+";' $L "'verify.metric'"
bad '	export = "tuned.rules"; higher = "yes";' $L "'verify.higher' must be true or false"
bad '	export = "tuned.rules"; launcher = "mprun";' $L "unknown launcher 'mprun'; did you mean 'mpirun'"
bad '	export = "tuned.rules"; comand = [ "x" ];' $L "unknown setting 'verify.comand'"
bad '	export = "tuned.rules"; figures = [ "1024,4096" ];' $L "'verify.figures' item 1: '1024,4096' is no figure name"
bad '	export = "tuned.rules"; repetitions = 4; max_repetitions = 3;' $L "'verify.max_repetitions' is 3, fewer than the repetitions \(4\)"
bad '	export = "missing.rules";' $L "'verify.export': $TMP/s/missing.rules: No such file"
bad '	export = "tuned.rules"; command = [ "bin/nope" ];' $L "'verify.command': $TMP/s/bin/nope: command not found"
ok "nothing stored" [ ! -e "$TMP/bad.db" ]
done_testing
