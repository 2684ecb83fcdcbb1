#!/bin/sh
# tests/cli/submit-intent.t: a job id is never lost. `submit` records its
# intent (the script's path) before sbatch and the job id after; a submit
# killed once sbatch accepted the job leaves the intent, and the next submit
# of the spec asks Slurm (squeue --name) about the run's jobs before
# submitting more: it finds the job, records its id and refuses to queue a
# second writer; once Slurm has no job of the run, it says so and submits.
# Slurm is a fake sbatch and squeue on the PATH with a queue in a file.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v sqlite3 >/dev/null || skip_all "no sqlite3"
plan 14
F=$TMP/fake
S=$TMP/state
mkdir "$F" "$S"
export S

# sbatch: the next job id, queued; with KILL_SUBMIT set it then kills
# the submit that called it (its parent) before answering.
cat >"$F/sbatch" <<'SH'
#!/bin/sh
n=$(($(cat "$S/next" 2>/dev/null || echo 500) + 1)); echo $n >"$S/next"
echo "$n" >>"$S/queue"
echo "$*" >>"$S/sbatch.args"
[ -n "$KILL_SUBMIT" ] && kill -9 "$PPID"
echo "$n"
SH
cat >"$F/squeue" <<'SH'
#!/bin/sh
echo "$*" >>"$S/squeue.args"
cat "$S/queue" 2>/dev/null
exit 0
SH
chmod +x "$F"/*
export PATH="$F:$PATH"
sed "s|\"../bin/sweetspot-kernel\"|\"$BIN/sweetspot-kernel\"|" "$ROOT/profiles/local.cfg" >"$TMP/local.cfg"
DB=$TMP/s.db
q() { sqlite3 "$DB" "$1"; }

KILL_SUBMIT=1 sweetspot submit "$TMP/local.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err"
is "$?" 137 "submit killed right after sbatch accepted the job"
is "$(q "SELECT count(*) FROM jobs WHERE job_id = ''")" 1 "its intent is recorded, without an id"
ok "with the script's path" test -s "$(q 'SELECT script FROM jobs')"

exits_with 1 "the next submit refuses while that job is queued" \
	sweetspot submit "$TMP/local.cfg" --db "$DB"
like "$TMP/out" "^job 501 \(sweetspot-local\) is queued or running but was never recorded: the job of .*\.sbatch" \
	"it found the job Slurm has under the run's name"
like "$TMP/err" "still queued or running \(sweetspot-local: 501\)" "and says why it refuses"
is "$(q 'SELECT job_id FROM jobs')" 501 "the lost job id is recorded now"
like "$S/squeue.args" "^-h -o %i --name=sweetspot-local$" "asked squeue by the jobs' name"
is "$(wc -l <"$S/sbatch.args" | tr -d ' ')" 1 "nothing more submitted"

# The job ended: Slurm has nothing of the run; submit says so and goes on.
: >"$S/queue"
exits_with 0 "once Slurm has no job of the run, submit goes on" \
	sweetspot submit "$TMP/local.cfg" --db "$DB"
like "$TMP/out" "^earlier jobs of this run: none queued or running" "and says what it found"
like "$TMP/out" "^submitted job 502 " "the new job"
is "$(q "SELECT group_concat(job_id, ' ') FROM jobs ORDER BY id")" "501 502" "both ids recorded"
ok "the job's run waits for the run's lock (no race with this submit)" \
	grep -q -- "--wait-lock" "$(q 'SELECT script FROM jobs WHERE job_id = 502')"
done_testing
