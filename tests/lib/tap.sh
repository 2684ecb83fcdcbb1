# tests/lib/tap.sh: TAP for the sh command-line tests. Source it; it also sets
# ROOT (the repository), BIN, and a per-test scratch folder TMP that is removed
# at exit unless SWEETSPOT_KEEP is set.

ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$ROOT/bin
PATH=$BIN:$PATH
export ROOT BIN PATH
. "$ROOT/tests/lib/wait.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-test.XXXXXX")
[ -n "${SWEETSPOT_KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT

tap_n=0
tap_failed=0

plan() { echo "1..$1"; }
# diag: a comment line. Once a test has failed, comments go to stderr too, so
# that a run of prove without -v (CI's) shows why, not only which test failed.
diag() { printf '# %s\n' "$*" | tap_diag_out; }
# tap_diag_out: standard input to stdout, and after a failure to stderr.
tap_diag_out() { if [ "$tap_failed" -gt 0 ]; then cat >&2; else cat; fi; }
pass() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
fail() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # skip $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

# ok DESCRIPTION COMMAND...: passes when the command succeeds.
ok() {
	tap_desc=$1; shift
	if "$@"; then pass "$tap_desc"; else fail "$tap_desc"; fi
}

# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then pass "$3"; else
		fail "$3"; diag "     got: '$1'"; diag "expected: '$2'"; fi
}

# exits_with STATUS DESCRIPTION COMMAND...: runs the command, output to
# $TMP/out and $TMP/err, and checks its exit status.
exits_with() {
	tap_want=$1; tap_desc=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	tap_got=$?
	if [ "$tap_got" = "$tap_want" ]; then pass "$tap_desc"; else
		fail "$tap_desc"; diag "exit $tap_got, expected $tap_want"
		sed 's/^/#   stderr: /' "$TMP/err" | head -20 | tap_diag_out; fi
}

# like FILE REGEX DESCRIPTION: the file has a line matching the ERE.
like() {
	if grep -Eq -- "$2" "$1"; then pass "$3"; else
		fail "$3"; diag "no line of $1 matches /$2/"; sed 's/^/#   | /' "$1" | head -20 | tap_diag_out; fi
}

done_testing() { [ "$tap_failed" -eq 0 ]; exit $?; }

# Open MPI as root on this machine: allowed, oversubscribed, loopback only.
mpirun_local() {
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_rmaps_base_oversubscribe=1 \
	OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
	mpirun "$@"
}
