#!/bin/sh
# tests/cli/completion.t: tuner/sweetspot.bash, sourced in bash, completes
# commands, each command's options (read from its --help), *.cfg specs,
# --db *.db, export's --format values and search's --strategy values.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v bash >/dev/null || skip_all "bash is not installed"
plan 14
cd "$TMP" || exit 1
mkdir specs
touch a.cfg b.cfg notes.txt r.db specs/c.cfg

# complete WORD...: what the completion offers for the last word (the
# line is the words, the cursor in the last), sorted, on one line.
complete() {
	bash -c '
		. "$1/tuner/sweetspot.bash"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_sweetspot
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ \$//"
	' sh "$ROOT" "$@"
}

is "$(complete sweetspot pl)" "plan plot" "commands by prefix"
is "$(complete sweetspot i)" "init" "init is a command"
is "$(complete sweetspot help su)" "submit" "help COMMAND completes commands"
is "$(complete sweetspot run --d)" "--db --dry-run" "run's options, from its --help"
is "$(complete sweetspot init --)" "--force --help --local --output" "init's options"
is "$(complete sweetspot plan '')" "a.cfg b.cfg specs/" "SPEC: *.cfg files and folders"
is "$(complete sweetspot plan specs/)" "specs/c.cfg" "into a folder"
is "$(complete sweetspot results --db '')" "r.db specs/" "--db: *.db files"
is "$(complete sweetspot export --format ompi)" "ompi-json ompi-rules" "--format values"
formats=$(complete sweetspot export --format '')
case $formats in
*env*mca-params*mpmd*profile*ucc*) pass "every format: $formats" ;;
*) fail "every format"; diag "got: $formats" ;;
esac
is "$(complete sweetspot search a.cfg --strategy '')" "adaptive grid model" "--strategy values"
is "$(complete sweetspot generate a.cfg --launcher m)" "mpirun mpirun_rsh" "--launcher values"
is "$(complete sweetspot rep)" "report" "report is a command"
is "$(complete sweetspot report --)" "--db --help --output --run" "report's options"

done_testing
