#!/bin/sh
# tests/cli/run-diskfull.t: the database's file system fills up during a
# sweep (a tmpfs of 256 KiB, mounted here, the launch folders kept on the
# big disk through a symlink so that SQLite itself meets ENOSPC): `run`
# stops with exit status 1 (not 2: nothing was wrong with the input), the
# database passes PRAGMA integrity_check, every launch reported done is in
# it, SQLite's own words are shown and not "cannot rollback"; with room
# again the same command continues and finishes the plan, nothing twice.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"
[ "$(id -u)" -eq 0 ] || skip_all "mounting a small tmpfs needs root"
SMALL=$TMP/small
mkdir "$SMALL"
mount -t tmpfs -o size=256k tmpfs "$SMALL" || skip_all "cannot mount a tmpfs here"
cleanup() {
	umount "$SMALL" 2>/dev/null
	[ -n "${SWEETSPOT_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
plan 11

# One layout, many repetitions: the WAL grows by every launch's pages
# (it is checkpointed only at 4 MB), so 256 KiB fill within the sweep.
cat >"$TMP/a.cfg" <<EOF
system = {
	name = "t"; nodes = "localhost"; ppn = 2;
	onload = { cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	launcher = "mpirun";
	launcher_args = [ "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
			  "--mca", "oob_tcp_if_include", "lo" ];
};
sweep = {
	collectives = [ "bcast" ]; algorithms = [ "direct" ];
	assignments = [ "block", "cyclic" ]; sizes = [ "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K" ];
	wpn = [ 1 ]; workers = [ 1 ]; nodes = [ 1 ]; placement = [ "onload" ];
	iterations = 2; warmup = 0; repetitions = 16; time_limit = 60;
	transport = "rma";
};
EOF
DB=$SMALL/s.db
mkdir "$TMP/runs"
ln -s "$TMP/runs" "$SMALL/runs"
q() { sqlite3 "$DB" "$1"; }
launches=$(sweetspot plan "$TMP/a.cfg" --json | sed -n 's/.*"launches":\([0-9]*\).*/\1/p')
points=$(sweetspot plan "$TMP/a.cfg" --json | sed -n 's/.*"measurements":\([0-9]*\).*/\1/p')

exits_with 1 "the disk fills during the sweep: exit status 1" sweetspot run "$TMP/a.cfg" --db "$DB"
like "$TMP/err" "(database or disk is full|No space left on device)" "the cause is said"
ok "no 'cannot rollback'" sh -c "! grep -q 'cannot rollback' '$TMP/err'"
like "$TMP/err" "run the same command again to continue" "and what to do"
is "$(q 'PRAGMA integrity_check')" ok "the database is intact"
done_ok=$(grep -c '^\[[0-9]*/[0-9]*\] .*: ok, ' "$TMP/err")
stored=$(q 'SELECT count(*) FROM launches WHERE ok')
diag "$done_ok launches reported done, $stored stored, of $launches"
ok "the sweep had not finished" test "$stored" -lt "$launches"
is "$stored" "$done_ok" "every launch reported done is stored"

# Room again: the same command continues where it stopped.
mount -o remount,size=16m "$SMALL"
exits_with 0 "with room again, the same command finishes the sweep" sweetspot run "$TMP/a.cfg" --db "$DB"
like "$TMP/err" "continuing run 1" "continuing the run"
is "$(q 'SELECT count(*) FROM points')" "$points" "exactly the plan's points"
is "$(q 'SELECT count(*) FROM launches')" "$launches" "no launch twice"
done_testing
