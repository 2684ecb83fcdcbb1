#!/bin/sh
# tests/cli/run-local.t: `sweetspot run` for real on this machine (mpirun,
# onload workers, the real kernel): the database holds exactly the plan's
# points; running again resumes and measures nothing twice; --fresh and a
# changed spec start new runs; a corrupted byte is stored as invalid and is
# never a result; a hanging kernel is killed at its time limit, recorded as
# timed out, and the sweep goes on; progress on a terminal and off it.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"
plan 54

# A small sweep: 2 layouts x 2 repetitions, 2 points each.
spec() {
	cat <<EOF
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
	assignments = [ "block", "cyclic" ];
	sizes = "4K";
	wpn = [ 1 ]; workers = [ 1 ];
	nodes = [ 1 ];
	placement = [ "onload" ];
	iterations = 3; warmup = 1; repetitions = ${REPS:-2};
	time_limit = ${LIMIT:-60};
	retries = ${RETRIES:-0};
	transport = "rma";
};
EOF
}
# Counts rows of a query on the database.
q() { sqlite3 "$DB" "$1"; }

DB=$TMP/results/sweetspot.db
REPS=2 spec >"$TMP/a.cfg"
sweetspot plan "$TMP/a.cfg" --json >"$TMP/plan.json"
want_points=$(sed -n 's/.*"measurements":\([0-9]*\).*/\1/p' "$TMP/plan.json")
want_launches=$(sed -n 's/.*"launches":\([0-9]*\).*/\1/p' "$TMP/plan.json")
diag "plan: $want_launches launches, $want_points measurements"

exits_with 0 "dry run" sweetspot run "$TMP/a.cfg" --db "$DB" --dry-run
# The folder a new run would use, quoted: "<run>" is not yet a number.
like "$TMP/out" "^cd '.*/results/runs/<run>/n1-ppn2-w1-wpn1-onload-r1' && mpirun .* --hostfile '.*/results/runs/<run>/n1-ppn2-w1-wpn1-onload-r1/hostfile' " "prints the launch, shell-quoted"
ok "dry run touched nothing" test ! -e "$TMP/results"

exits_with 0 "a sweep" sweetspot run "$TMP/a.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM points')" "$want_points" "every planned point stored"
is "$(q 'SELECT count(*) FROM launches WHERE ok')" "$want_launches" "every launch ok"
is "$(q "SELECT status FROM runs")" "done" "run done"
like "$TMP/err" "^\[$want_launches/$want_launches\] " "plain progress lines off a terminal"
ok "launch folder kept with log and records" \
	test -s "$TMP/results/runs/1/n1-ppn2-w1-wpn1-onload-r2/points.jsonl" -a \
	-f "$TMP/results/runs/1/n1-ppn2-w1-wpn1-onload-r2/log" -a \
	-f "$TMP/results/runs/1/n1-ppn2-w1-wpn1-onload-r2/appfile"
ok "the Open MPI version was recorded" test -n "$(q 'SELECT ompi_version FROM runs')"
# The executed command, once: the launch row's argv is the log's first line.
L=$TMP/results/runs/1/n1-ppn2-w1-wpn1-onload-r2
is "$(head -1 "$L/log")" "# command: $(q "SELECT argv FROM launches WHERE repetition = 2")" \
	"the log opens with the command the launch row holds"
like "$L/log" "^# command: mpirun .* --app '?$L/appfile'?\$" "that command is the one run there"
exits_with 0 "a dry run of the run to continue" sweetspot run "$TMP/a.cfg" --db "$DB" --dry-run

like "$TMP/out" "^cd '?$TMP/results/runs/1/n1-ppn2-w1-wpn1-onload-r1'? && mpirun " "shows run 1's folder"
exits_with 0 "results" sweetspot results --db "$DB" --csv
is "$(head -1 "$TMP/out")" \
	"layout,collective,algorithm,assignment,bytes,workers,wpn,placement,repetition,oe_measured,oe_paper,total_us,valid,dtype,op,chunk,window,radix,algbw,busbw,p2p_bw,calibrated" \
	"results columns"
is "$(tail -n +2 "$TMP/out" | wc -l | tr -d ' ')" "$want_points" "one row per point and repetition"

exits_with 0 "running again" sweetspot run "$TMP/a.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM launches')" "$want_launches" "resumed: nothing launched again"
is "$(q 'SELECT count(*) FROM runs')" "1" "same run"

exits_with 0 "--fresh" sweetspot run "$TMP/a.cfg" --db "$DB" --fresh
is "$(q 'SELECT count(*) FROM runs')" "2" "--fresh started run 2"

REPS=1 spec >"$TMP/a.cfg"
exits_with 0 "changed spec" sweetspot run "$TMP/a.cfg" --db "$DB"
like "$TMP/err" "changed since run 2.*starting a new run" "says the spec changed"
is "$(q 'SELECT count(*) FROM points WHERE run = 3')" "$((want_points / 2))" "the new run measured the new plan"

# A corrupted byte: the point is stored as invalid, never as a result.
REPS=1 spec >"$TMP/f.cfg"
SWEETSPOT_FAULT=flip-byte sweetspot run "$TMP/f.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err"
is "$?" "1" "flip-byte: run exits 1"
ok "flip-byte: invalid points recorded" \
	test "$(q 'SELECT count(*) FROM points WHERE run = 4 AND NOT valid')" -ge 1
sweetspot results --db "$DB" --run 4 --csv >"$TMP/valid.csv"
ok "not among the results" sh -c "! awk -F, 'NR > 1 && \$13 == 0 { bad = 1 } END { exit !bad }' '$TMP/valid.csv'"
sweetspot results --db "$DB" --run 4 --csv --all >"$TMP/all.csv"
ok "--all shows them, valid = 0" awk -F, 'NR > 1 && $13 == 0 { found = 1 } END { exit !found }' "$TMP/all.csv"

# A hang: killed at the time limit, recorded, and the sweep goes on.
REPS=2 LIMIT=3 spec >"$TMP/h.cfg"
SWEETSPOT_FAULT=hang sweetspot run "$TMP/h.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err"
is "$?" "1" "hang: run exits 1"
is "$(q 'SELECT count(*) FROM launches WHERE run = 5 AND timed_out')" "2" \
	"both launches recorded as timed out (the sweep went on)"
like "$TMP/err" "timed out" "the reason is shown"

# A launcher that fails says why: its own words, from its log.
sed 's|host_bin = .*|host_bin = "'"$TMP"'/no-such-kernel";|' "$TMP/f.cfg" >"$TMP/nokernel.cfg"
exits_with 1 "a kernel that is not there: the launch fails" \
	sweetspot run "$TMP/nokernel.cfg" --db "$TMP/nokernel.db"
like "$TMP/err" "mpirun exited with status [0-9]+: .*could not access .*or execute an executable" \
	"the reason shown is mpirun's own, from its log"
is "$(sqlite3 "$TMP/nokernel.db" "SELECT count(*) FROM launches WHERE reason LIKE '%Executable: $TMP/no-such-kernel%'")" 1 \
	"and stored with the launch"

# retries: a failed launch is attempted again, the failed attempt's folder
# kept beside; the launch log holds both attempts, the points only the last.
REPS=1 RETRIES=1 spec >"$TMP/r.cfg"
SWEETSPOT_FAULT=flip-byte sweetspot run "$TMP/r.cfg" --db "$TMP/retry.db" >"$TMP/out" 2>"$TMP/err"
is "$?" "1" "retries: a fault that stays still fails the run"
like "$TMP/err" "r1 failed .*; attempt 2 of 2" "the second attempt is announced"
ok "the first attempt's folder is kept" test -d "$(ls -d "$TMP"/runs/retry-1/*-r1.attempt1 2>/dev/null | head -1)"
is "$(sqlite3 "$TMP/retry.db" 'SELECT count(*) || "/" || count(DISTINCT layout) FROM launches')" "2/1" "both attempts in the launch log"
is "$(sqlite3 "$TMP/retry.db" 'SELECT count(*) FROM points')" "2" "the layout's 2 points stored once"
# ... but a hang is never retried: it is a fault to see, and another attempt
# would cost another whole time limit.
REPS=1 RETRIES=1 LIMIT=3 spec >"$TMP/rh.cfg"
SWEETSPOT_FAULT=hang sweetspot run "$TMP/rh.cfg" --db "$TMP/rhang.db" >"$TMP/out" 2>"$TMP/err"
is "$(sqlite3 "$TMP/rhang.db" 'SELECT count(*) || "/" || sum(timed_out) FROM launches')" "1/1" \
	"a launch killed at its time limit gets no second attempt"

# SIGTERM: the launch under way is stopped and not recorded; what was
# finished stays, and the run continues from there next time.
REPS=3 spec >"$TMP/s.cfg"
DB=$TMP/term.db
sweetspot run "$TMP/s.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err" &
pid=$!
a_launch() { [ "$(q 'SELECT count(*) FROM launches' 2>/dev/null || echo 0)" -ge 1 ]; }
wait_until 60 a_launch
kill -TERM "$pid"
wait "$pid"
is "$?" "130" "SIGTERM: run stops with status 130"
like "$TMP/err" "interrupted; run 1 keeps" "says how to continue"
n=$(q 'SELECT count(*) FROM launches')
ok "no interrupted launch recorded, all recorded ones ok" \
	test "$n" -ge 1 -a "$(q 'SELECT count(*) FROM launches WHERE NOT ok')" -eq 0
exits_with 0 "running again finishes the sweep" sweetspot run "$TMP/s.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM points')" "$(sweetspot plan "$TMP/s.cfg" --json | sed -n 's/.*"measurements":\([0-9]*\).*/\1/p')" \
	"exactly the plan's points"

# Progress on a terminal: one line updated in place.
REPS=1 spec >"$TMP/t.cfg"
script -qec "sweetspot run '$TMP/t.cfg' --db '$TMP/tty.db'" /dev/null >"$TMP/tty.out" 2>&1
ok "terminal progress updates one line" grep -qF "$(printf '\r\033[K')[1/1 layouts, 1/1 launches] 2 points" "$TMP/tty.out"

# Adaptive repetitions: with max_repetitions above repetitions, run races:
# launches only where a decision is undecided, never past the maximum; a
# spec without it gets exactly its plan (above).
sed -e 's/^\([[:space:]]*repetitions = \).*/\1 2;\n\tmax_repetitions = 3;/' \
	-e "s|host_bin = .*|host_bin = \"$BIN/sweetspot-kernel\";|" "$ROOT/tests/data/search-local.cfg" >"$TMP/race.cfg"
exits_with 0 "run with max_repetitions races" sweetspot run "$TMP/race.cfg" --db "$TMP/race.db"
like "$TMP/out" "^racing: [0-9]+ launches in all \(the grid's 4\), 0 failed; verdicts: " "says what racing did"
per=$(sqlite3 "$TMP/race.db" 'SELECT layout, count(DISTINCT repetition) FROM launches GROUP BY layout')
ok "every layout has 2 or 3 launches ($(echo $per | tr '\n' ' '))" \
	sh -c '! echo "$1" | awk -F"|" "\$2 < 2 || \$2 > 3 { bad = 1 } END { exit !bad }"' sh "$per"
n=$(sqlite3 "$TMP/race.db" 'SELECT count(*) FROM launches')
ok "no launch twice, at most 2 x 3" test "$n" -ge 4 -a "$n" -le 6
# Progress past the plan says it is racing (no "[5/4]", no ETA it cannot know).
grep '^\[' "$TMP/err" >"$TMP/prog"
ok "progress: $(wc -l <"$TMP/prog") lines, one per launch" test "$(wc -l <"$TMP/prog")" -eq "$n"
ok "progress never counts past the plan's 4 launches" \
	sh -c '! grep -Eq "^\[([5-9]|[1-9][0-9]+)/4\]" "$1"' sh "$TMP/prog"
ok "each launch past the 4th is counted as racing" \
	test "$(grep -c '^\[4/4 +[0-9]* racing\] .* (elapsed [0-9hms]*)$' "$TMP/prog")" -eq $((n - 4))

done_testing
