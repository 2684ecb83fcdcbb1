#!/bin/sh
# tests/cli/submit-stream.t: `sweetspot submit` says where the job's output
# goes and how to follow it; with --wait it follows the job: its state
# changes (squeue, then scontrol once it left the queue), the [k/N] launch
# lines as its output file gains them, and its end, whose exit status is
# ours. Slurm here is a fake sbatch, squeue and scontrol on the PATH that
# step through a job's life one query at a time (no timing involved). The
# job runs the search by default (`sweetspot search`, its budget passed
# on), `sweetspot run` with --strategy grid; the search's decision lines
# are streamed as they land; a bad --budget or --strategy writes nothing.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 41
F=$TMP/fake
S=$TMP/state
mkdir "$F" "$S"
export S SWEETSPOT_POLL_S=0.01

cat >"$F/sbatch" <<'SH'
#!/bin/sh
for a; do script=$a; done
echo "$*" >"$S/sbatch.args"
sed -n 's/^#SBATCH --output=//p' "$script" | sed 's/%j/777/' >"$S/output"
echo 777
SH
# Each call is one step: PENDING; RUNNING (a launch line appears);
# RUNNING (the second, and the run's summary); then gone from the queue.
cat >"$F/squeue" <<'SH'
#!/bin/sh
echo "$*" >>"$S/squeue.args"
n=$(($(cat "$S/n" 2>/dev/null || echo 0) + 1)); echo $n >"$S/n"
out=$(cat "$S/output")
case $n in
1) [ -z "${FAKE_INT:-}" ] || kill -INT "$PPID"; echo PENDING ;;
2) echo RUNNING; printf 'sweetspot: run 1 of x.cfg: 2 launches, 36 points\n[1/2] n1-ppn4-w1-wpn1-onload r1: ok, 18 points in 7.3s (elapsed 7s, ETA 7s)\n' >>"$out" ;;
3) echo RUNNING; printf '[2/2] n1-ppn4-w2-wpn2-onload r1: ok, 18 points in 7.1s (elapsed 14s, ETA 0s)\nsearch: reached after 2 launches: bcast 4K: 1 worker (1 WPN, onload) direct/block, best (p=0.01), median OE 80.0\nrun 1: 2 of 2 launches, 0 failed; 36 points stored, 0 invalid\n' >>"$out" ;;
esac
exit 0
SH
cat >"$F/scancel" <<'SH'
#!/bin/sh
echo "$*" >>"$S/scancel.args"
SH
cat >"$F/scontrol" <<'SH'
#!/bin/sh
echo "$*" >>"$S/scontrol.args"
printf 'JobId=777 JobName=sweetspot-local\n   JobState=%s Reason=None Dependency=(null)\n   ExitCode=%s\n' \
	"${FAKE_STATE:-COMPLETED}" "${FAKE_EXIT:-0:0}"
SH
chmod +x "$F"/*
export PATH="$F:$PATH"
sed "s|\"../bin/sweetspot-kernel\"|\"$BIN/sweetspot-kernel\"|" "$ROOT/profiles/local.cfg" >"$TMP/local.cfg"

exits_with 0 "submit without --wait" sweetspot submit "$TMP/local.cfg" --db "$TMP/s.db"
like "$TMP/out" "^submitted job 777 \(chunk 1 of 1\)" "the job id"
like "$TMP/out" "^  output: $TMP/jobs/local-777.out$" "where its output goes"
like "$TMP/out" "^  follow it: tail -f $TMP/jobs/local-777.out$" "how to follow it"
ok "no squeue without --wait" test ! -e "$S/squeue.args"
like "$S/sbatch.args" "^--parsable " "sbatch --parsable"
ok "and not sbatch --wait" sh -c "! grep -q -- --wait '$S/sbatch.args'"
script=$(sed -n 's/.* //p' "$S/sbatch.args")
like "$script" "sweetspot search $TMP/local.cfg --db .* --wait-lock$" "the job runs the search"
ok "  ... in one job: no --max-launches" sh -c "! grep -q -- --max-launches '$script'"

exits_with 0 "submit --budget 3 --chunks 2" sweetspot submit "$TMP/local.cfg" --db "$TMP/b.db" --budget 3 --chunks 2
script=$(sed -n 's/^submitted job 777 (chunk 1 of 2): //p' "$TMP/out")
like "$script" " --budget 3 " "the budget passed on to the jobs' search"
like "$script" " --max-launches 2\$" "the first job stops after its share of the budget"
script=$(sed -n 's/^submitted job 777 (chunk 2 of 2, after 777): //p' "$TMP/out")
ok "the last job takes what is left" sh -c "! grep -q -- --max-launches '$script'"

exits_with 0 "submit --strategy grid" sweetspot submit "$TMP/local.cfg" --db "$TMP/g.db" --strategy grid
script=$(sed -n 's/.* //p' "$S/sbatch.args")
like "$script" "sweetspot run $TMP/local.cfg --db" "the job runs the grid (sweetspot run)"

exits_with 2 "a bad --budget" sweetspot submit "$TMP/local.cfg" --db "$TMP/x.db" --budget 0
like "$TMP/err" "--budget" "  ... named"
ok "  ... nothing written" test ! -e "$TMP/x.db"
exits_with 2 "--budget with --strategy grid" sweetspot submit "$TMP/local.cfg" --db "$TMP/x.db" --strategy grid --budget 5
exits_with 2 "an unknown --strategy" sweetspot submit "$TMP/local.cfg" --db "$TMP/x.db" --strategy random
ok "  ... nothing written" test ! -e "$TMP/x.db"

exits_with 0 "submit --wait follows the job to its end" sweetspot submit "$TMP/local.cfg" --db "$TMP/w.db" --wait
grep -v '^  output' "$TMP/out" | grep -v '^submitted' | grep -v '^note' >"$TMP/stream"
is "$(sed -n 1p "$TMP/stream")" "following job 777: $TMP/jobs/local-777.out" "the output file's path first"
is "$(sed -n 2p "$TMP/stream")" "job 777: PENDING" "then its state"
is "$(sed -n 3p "$TMP/stream")" "job 777: RUNNING" "its change"
like "$TMP/stream" "^\[1/2\] n1-ppn4-w1-wpn1-onload r1: ok.*ETA 7s\)$" "the first launch line, with its ETA"
like "$TMP/stream" "^\[2/2\] n1-ppn4-w2-wpn2-onload r1: ok" "the second"
like "$TMP/stream" "^search: reached after 2 launches: bcast 4K: .*best" "a decision as the search reached it"
ok "each line once" test "$(grep -c '^\[' "$TMP/stream")" -eq 2
ok "the other lines of the output are not echoed" sh -c "! grep -q '^sweetspot: run 1 of' '$TMP/stream'"
like "$TMP/stream" "^job 777 ended: COMPLETED, exit status 0$" "and its end"
is "$(awk '/^\[1\/2\]/ { a = NR } /^\[2\/2\]/ { b = NR } /ended/ { c = NR } END { print (a < b && b < c) }' "$TMP/stream")" 1 "in order"
is "$(wc -l <"$S/squeue.args" | tr -d ' ')" 4 "squeue asked once per step, not in a busy loop"
is "$(sed -n 1p "$S/squeue.args")" "-h -j 777 -o %T" "squeue's arguments"
is "$(sed -n 1p "$S/scontrol.args")" "show job 777" "scontrol once it left the queue"
if command -v sqlite3 >/dev/null; then
	is "$(sqlite3 "$TMP/w.db" 'SELECT exit_status FROM jobs')" 0 "the exit status recorded"
else
	skip "no sqlite3"
fi

rm -f "$S/n"
FAKE_STATE=FAILED FAKE_EXIT=3:0 exits_with 1 "a failed job fails submit --wait" \
	sweetspot submit "$TMP/local.cfg" --db "$TMP/f.db" --wait
like "$TMP/out" "^job 777 ended: FAILED, exit status 3$" "its state and exit status said"

# Ctrl-C while following: the job is cancelled, nothing left running.
rm -f "$S/n"
FAKE_INT=1 exits_with 130 "SIGINT during --wait" sweetspot submit "$TMP/local.cfg" --db "$TMP/i.db" --wait
like "$TMP/err" "interrupted: job 777 cancelled \(scancel\)" "  ... says the job was cancelled"
is "$(cat "$S/scancel.args")" "777" "  ... scancel of the job followed"
done_testing
