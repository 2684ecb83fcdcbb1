#!/bin/sh
# tests/cli/run-lock.t: one writer per run. Two `sweetspot run` of one spec
# started together, on a new database and on an existing one: one measures,
# the other refuses at once (exit 1) naming the holder (pid, host, command,
# since when), and no launch is measured twice. With --wait-lock the second
# waits, then continues the run and measures nothing again. A lock dies with
# its process (kill -9). The kernel is held at a gate (a file the test
# creates) so that the first run is surely mid-launch while the second
# starts: every wait below is for a condition, never for time.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"
plan 18

GATE=$TMP/go
export GATE
# The kernel as the launcher starts it, once the gate is open; its pid
# (kept by exec) listed so that the test can wait for every one to end.
{
	echo '#!/bin/sh'
	echo "echo \$\$ >>'$TMP/kernel.pids'"
	echo 'while [ ! -e "$GATE" ]; do sleep 0.05; done'
	echo "exec '$BIN/sweetspot-kernel' \"\$@\""
} >"$TMP/gated-kernel"
chmod +x "$TMP/gated-kernel"
cat >"$TMP/a.cfg" <<EOF
system = {
	name = "t"; nodes = "localhost"; ppn = 2;
	onload = { cores = 2; };
	host_bin = "$TMP/gated-kernel";
	launcher = "mpirun";
	launcher_args = [ "--oversubscribe", "--mca", "btl_tcp_if_include", "lo",
			  "--mca", "oob_tcp_if_include", "lo", "-x", "GATE" ];
};
sweep = {
	collectives = [ "bcast" ]; algorithms = [ "direct" ];
	assignments = [ "block", "cyclic" ]; sizes = "4K";
	wpn = [ 1 ]; workers = [ 1 ]; nodes = [ 1 ]; placement = [ "onload" ];
	iterations = 3; warmup = 1; repetitions = 2; time_limit = 120;
	transport = "rma";
};
EOF
q() { sqlite3 "$DB" "$1"; }
alive() { kill -0 "$1" 2>/dev/null; }
one_ended() { ! alive "$p1" || ! alive "$p2"; }
kernels_gone() {
	for k in $(cat "$TMP/kernel.pids" 2>/dev/null); do alive "$k" && return 1; done
	return 0
}
lock_described() { for f in "$DB".a-*.lock; do test -s "$f" && return 0; done; return 1; }
statuses() { echo "$1 $2" | tr ' ' '\n' | sort | tr '\n' ' '; }

# together NAME [OPTION]: two runs of a.cfg into $DB at once; the gate opens
# once one of them has ended (the one refused); s1 and s2 are their exit
# statuses, $TMP/NAME.err their messages.
together() {
	rm -f "$GATE"
	sweetspot run "$TMP/a.cfg" --db "$DB" $2 >/dev/null 2>"$TMP/$1.err1" & p1=$!
	sweetspot run "$TMP/a.cfg" --db "$DB" $2 >/dev/null 2>"$TMP/$1.err2" & p2=$!
	wait_until 120 one_ended
	touch "$GATE"
	wait "$p1"; s1=$?
	wait "$p2"; s2=$?
	cat "$TMP/$1.err1" "$TMP/$1.err2" >"$TMP/$1.err"
}

launches=$(sweetspot plan "$TMP/a.cfg" --json | sed -n 's/.*"launches":\([0-9]*\).*/\1/p')

DB=$TMP/new/s.db
together new
is "$(statuses $s1 $s2)" "0 1 " "new database: one measured, one refused"
like "$TMP/new.err" "s.db: this run is in use by pid [0-9]+ on [^ ]+: .*sweetspot run .*a.cfg --db .*s.db \(since [0-9T:-]+Z\)" \
	"the refusal names the holder: pid, host, command, since when"
like "$TMP/new.err" "--wait-lock" "and says how to wait instead"
ok "the schema was made once (no 'already exists')" sh -c "! grep -q 'already exists' '$TMP/new.err'"
is "$(q 'SELECT count(*) FROM runs')" 1 "one run"
is "$(q "SELECT count(*) || '/' || count(DISTINCT layout || repetition) FROM launches")" "$launches/$launches" \
	"every launch once, none measured beside the other"
is "$(q 'PRAGMA integrity_check')" ok "the database is sound"

# An existing database, a new run of the spec in it (--fresh on both).
together old --fresh
is "$(statuses $s1 $s2)" "0 1 " "existing database: one measured, one refused"
like "$TMP/old.err" "this run is in use by pid" "the refusal names the holder"
is "$(q 'SELECT count(*) FROM runs')" 2 "one new run, not two"
is "$(q 'SELECT count(*) FROM launches WHERE run = 2')" "$launches" "its launches once each"

# --wait-lock: the second waits for the first, then continues its run.
DB=$TMP/wait.db
rm -f "$GATE"
sweetspot run "$TMP/a.cfg" --db "$DB" >/dev/null 2>"$TMP/w.err1" & p1=$!
wait_until 120 lock_described
sweetspot run "$TMP/a.cfg" --db "$DB" --wait-lock >/dev/null 2>"$TMP/w.err2" & p2=$!
wait_until 120 grep -q "waiting for the run's lock" "$TMP/w.err2"
like "$TMP/w.err2" "waiting for the run's lock .*held by pid $p1 on " "--wait-lock: says whom it waits for"
ok "and waits" alive "$p2"
touch "$GATE"
wait "$p1"; s1=$?
wait "$p2"; s2=$?
is "$s1 $s2" "0 0" "both end well"
like "$TMP/w.err2" "continuing run 1 of" "the second continued the first one's run"
is "$(q 'SELECT count(*) FROM launches')" "$launches" "and measured nothing again"

# kill -9 of the holder mid-launch: the lock goes with it.
DB=$TMP/kill.db
rm -f "$GATE" "$TMP/kernel.pids"
sweetspot run "$TMP/a.cfg" --db "$DB" >/dev/null 2>&1 & p1=$!
wait_until 120 test -s "$TMP/kernel.pids"
kill -9 "$p1"
wait "$p1" 2>/dev/null
# Its launcher and kernels outlive it: let them end before the next run
# uses the same launch folder.
touch "$GATE"
wait_until 120 kernels_gone
exits_with 0 "after kill -9 of the holder, the next run is not refused" \
	sweetspot run "$TMP/a.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM launches WHERE ok')" "$launches" "and measures the sweep"
done_testing
