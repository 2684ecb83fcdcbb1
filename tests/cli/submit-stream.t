#!/bin/sh
# tests/cli/submit-stream.t: `sweetspot submit` says where the job's output
# goes and how to follow it; with --wait it follows the job: its state
# changes (squeue, then scontrol once it left the queue), the [k/N] launch
# lines as its output file gains them, and its end, whose exit status is
# ours. Slurm here is a fake sbatch, squeue and scontrol on the PATH that
# step through a job's life one query at a time (no timing involved).
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 23
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
1) echo PENDING ;;
2) echo RUNNING; printf 'sweetspot: run 1 of x.cfg: 2 launches, 36 points\n[1/2] n1-ppn4-w1-wpn1-onload r1: ok, 18 points in 7.3s (elapsed 7s, ETA 7s)\n' >>"$out" ;;
3) echo RUNNING; printf '[2/2] n1-ppn4-w2-wpn2-onload r1: ok, 18 points in 7.1s (elapsed 14s, ETA 0s)\nrun 1: 2 of 2 launches, 0 failed; 36 points stored, 0 invalid\n' >>"$out" ;;
esac
exit 0
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

exits_with 0 "submit --wait follows the job to its end" sweetspot submit "$TMP/local.cfg" --db "$TMP/w.db" --wait
grep -v '^  output' "$TMP/out" | grep -v '^submitted' | grep -v '^note' >"$TMP/stream"
is "$(sed -n 1p "$TMP/stream")" "following job 777: $TMP/jobs/local-777.out" "the output file's path first"
is "$(sed -n 2p "$TMP/stream")" "job 777: PENDING" "then its state"
is "$(sed -n 3p "$TMP/stream")" "job 777: RUNNING" "its change"
like "$TMP/stream" "^\[1/2\] n1-ppn4-w1-wpn1-onload r1: ok.*ETA 7s\)$" "the first launch line, with its ETA"
like "$TMP/stream" "^\[2/2\] n1-ppn4-w2-wpn2-onload r1: ok" "the second"
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
done_testing
