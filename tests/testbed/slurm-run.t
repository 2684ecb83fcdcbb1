#!/bin/sh
# tests/testbed/slurm-run.t: `sweetspot run` and `submit` against real
# launchers. First the mpirun launcher on made-up host names (fake-ssh
# makes them real here): every rank runs where the plan puts it. Then a
# Slurm cluster on this machine (slurm-cluster.sh: munge, slurmctld, host
# and DPU nodes): a sweep with the srun launcher inside an allocation, every
# rank on its planned node; one allreduce point (slice, int32 sum) stored
# with its dtype and op; `submit --strategy grid --wait` end to end, in one job and in
# chained chunks; a sweep killed with SIGKILL at random moments and run
# again until done holds exactly the plan's points, none twice; a hanging
# kernel is killed at its time limit, recorded as timed out, and the sweep
# goes on; a corrupted byte is recorded as invalid, never as a result. The
# cluster is torn down at the end, on failure too.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/lib/slurm.sh"

[ -x "$BIN/sweetspot-kernel" ] || skip_all "bin/sweetspot-kernel is not built"

plan 46

. "$ROOT/tests/lib/dpu-spec.sh"
q() { sqlite3 "$DB" "$1"; }
# why: the reasons and log tails of failed launches in $DB, for the TAP output.
why() {
	sinfo -h -N -o '%N %T %E' 2>/dev/null | grep -v ' idle ' | sed 's/^/# node not idle: /' | tap_diag_out
	sqlite3 -separator ' ' "$DB" "SELECT layout, repetition, reason, log_path FROM launches
		WHERE NOT ok" 2>/dev/null | while read -r lay rep reason; do
		diag "failed: $lay r$rep: $reason"
		log=${reason##* }
		[ -f "$log" ] && tail -5 "$log" | sed 's/^/#     | /' | tap_diag_out
	done
}
measurements() { sweetspot plan "$1" --json | sed -n 's/.*"measurements":\([0-9]*\).*/\1/p'; }
launches() { sweetspot plan "$1" --json | sed -n 's/.*"launches":\([0-9]*\).*/\1/p'; }

# placement_ok DB RUN: every valid point's rank_hosts is its launch's
# placement: slurm.hostfile (srun), or the rankfile's hosts in rank order
# (mpirun: a launch folder holds its own launcher's files only).
placement_ok() {
	sqlite3 -separator ' ' "$1" "SELECT p.rank_hosts, l.log_path FROM points p JOIN launches l
		ON l.id = p.launch WHERE p.run = $2 AND p.valid" >"$TMP/ph" || return 1
	[ -s "$TMP/ph" ] || return 1
	while read -r hosts log; do
		d=$(dirname "$log")
		if [ -f "$d/slurm.hostfile" ]; then
			want=$(tr '\n' ',' <"$d/slurm.hostfile" | sed 's/,$//')
		else
			want=$(sed -n 's/^rank [0-9]*=\([^ ]*\) .*/\1/p' "$d/rankfile" | tr '\n' ',' | sed 's/,$//')
		fi
		got=$(printf '%s' "$hosts" | tr -d '[]"')
		[ "$got" = "$want" ] || { diag "ran on $got, planned $want"; return 1; }
	done <"$TMP/ph"
}

# ---- mpirun on fake host names ------------------------------------------
unset SLURM_JOB_ID
DB=$TMP/fake.db
spec "fk[1-2]" mpirun "launcher_args = [ \"--mca\", \"plm_rsh_agent\", \"$ROOT/tests/testbed/fake-ssh\",
	\"--mca\", \"btl\", \"self,tcp\", \"--mca\", \"osc\", \"pt2pt\",
	\"--mca\", \"btl_tcp_if_include\", \"lo\", \"--mca\", \"oob_tcp_if_include\", \"lo\" ];" 1 120 >"$TMP/fake.cfg"
exits_with 0 "mpirun on fake hosts: the sweep" sweetspot run "$TMP/fake.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$(measurements "$TMP/fake.cfg")" "every point stored, valid"
is "$(q "SELECT count(DISTINCT host_source) || host_source FROM points")" "1SWEETSPOT_HOSTNAME" \
	"the ranks knew their fake host"
ok "every rank ran on its planned (fake) host" placement_ok "$DB" 1

# ---- the Slurm cluster -----------------------------------------------------
start=$(date +%s)
exits_with 0 "the cluster comes up" sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
diag "cluster up in $(($(date +%s) - start)) s"
ALLOC="--nodelist=n1,n2,n1-bf,n2-bf --nodes=4 --ntasks-per-node=2"

# srun inside an allocation
DB=$TMP/srun.db
# One more attempt for a failed launch: on these emulated nodes a step has,
# now and then, outlived its last rank's output (seen in ~1 of 10 runs of
# this file: every point written, then the step never ended). The retry is
# said in the TAP output (why) when it happens.
RETRIES=1 spec "n[1-2]" mpirun "" 1 120 >"$TMP/s.cfg"
exits_with 0 "srun: a sweep inside an allocation" salloc -Q $ALLOC sweetspot run "$TMP/s.cfg" --db "$DB"
is "$(q "SELECT launcher FROM runs")" "srun" "srun chosen inside the allocation"
like "$TMP/err" "^\[2/2\] " "progress lines"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$(measurements "$TMP/s.cfg")" "every point stored"
why
ok "argv is SLURM_HOSTFILE=... srun --mpi=pmix" test "$(q "SELECT count(DISTINCT layout || ':' || repetition) FROM launches WHERE ok AND argv LIKE 'SLURM_HOSTFILE=% srun --mpi=pmix %'")" -eq 2
is "$(q "SELECT DISTINCT host_source FROM points")" "SLURMD_NODENAME" "ranks report their Slurm node"
ok "every rank ran on its planned node" placement_ok "$DB" 1
like "$TMP/out" "^run 1: 2 of 2 launches, 0 failed" "summary"
ok "the Slurm version was recorded" test -n "$(q 'SELECT slurm_version FROM runs')"

# one allreduce point through srun: slice, int32 sum, 4K, 1 worker
DB=$TMP/allreduce.db
sed 's/collectives = \[ "bcast" \]; algorithms = \[ "direct" \];/collectives = [ "allreduce" ]; algorithms = [ "slice" ]; dtypes = [ "int32" ]; ops = [ "sum" ];/;
	s/"block", "cyclic"/"block"/; s/workers = \[ 1, 2 \]/workers = [ 1 ]/' "$TMP/s.cfg" >"$TMP/a.cfg"
exits_with 0 "srun: an allreduce point" salloc -Q $ALLOC sweetspot run "$TMP/a.cfg" --db "$DB"
is "$(q "SELECT count(*) || ' ' || group_concat(collective || ' ' || algorithm || ' ' || dtype || ' ' || op || ' ' || bytes || ' ' || valid) FROM points")" \
	"1 allreduce slice int32 sum 4096 1" "the point stored with its dtype and op, valid"
is "$(q "SELECT count(*) FROM launches WHERE ok AND argv LIKE 'SLURM_HOSTFILE=% srun --mpi=pmix %'")" 1 "through srun"
ok "its ranks ran on their planned nodes" placement_ok "$DB" 1
why

# Every collective the kernel has (its --help lists them from its table),
# each with every algorithm that applies, in one sweep through srun.
DB=$TMP/every.db
colls=$("$BIN/sweetspot-kernel" --help | sed -n '/--collective/{n;s/^ *//;p;}')
list=$(echo "$colls" | sed 's/[a-z]*/"&"/g; s/,/, /g')
sed "s/collectives = \[ \"bcast\" \]; algorithms = \[ \"direct\" \];/collectives = [ $list ]; dtypes = [ \"int32\" ]; ops = [ \"sum\" ];/;
	s/\"block\", \"cyclic\"/\"block\"/; s/workers = \[ 1, 2 \]/workers = [ 1 ]/" "$TMP/s.cfg" >"$TMP/e.cfg"
exits_with 0 "srun: a sweep of every collective ($colls)" salloc -Q $ALLOC sweetspot run "$TMP/e.cfg" --db "$DB"
is "$(q 'SELECT group_concat(collective) FROM (SELECT DISTINCT collective FROM points WHERE valid ORDER BY collective)')" \
	"$(echo "$colls" | tr ',' '\n' | sort | paste -sd, -)" "  ... every collective stored, valid"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$(measurements "$TMP/e.cfg")" "  ... every point of the plan"
why

# submit --wait, one job
DB=$TMP/submit.db
exits_with 0 "submit --strategy grid --wait" sweetspot submit "$TMP/s.cfg" --strategy grid --wait --db "$DB"
like "$TMP/out" "^submitted job [0-9]+ \(chunk 1 of 1\)" "job id shown"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$(measurements "$TMP/s.cfg")" "the job stored every point"
why
is "$(q 'SELECT count(*) || exit_status FROM jobs')" "10" "the job recorded, exit status 0"
ok "the job's sweep ran with srun" test "$(q "SELECT launcher FROM runs")" = srun

# submit --hetjob --wait: hosts and DPUs as two node classes
DB=$TMP/het.db
exits_with 0 "submit --strategy grid --hetjob --wait" sweetspot submit "$TMP/s.cfg" --strategy grid --hetjob --wait --db "$DB"
ok "job recorded" test -s "$(q 'SELECT script FROM jobs')"
ok "written with #SBATCH hetjob" grep -qx '#SBATCH hetjob' "$(q 'SELECT script FROM jobs')"
is "$(q "SELECT count(*) FROM launches WHERE ok AND argv LIKE '%srun --het-group=0 %: --het-group=1 %'")" 2 \
	"launched with srun --het-group, every launch ok"
ok "every rank ran on its planned node (het)" placement_ok "$DB" 1
why

# submit --wait, chained chunks (4 launches in 2 jobs)
DB=$TMP/chunks.db
RETRIES=1 spec "n[1-2]" mpirun "" 2 120 >"$TMP/c.cfg"
exits_with 0 "submit --strategy grid --chunks 2 --wait" sweetspot submit "$TMP/c.cfg" --strategy grid --chunks 2 --wait --db "$DB"
like "$TMP/out" "chunk 2 of 2, after [0-9]+" "the second job is chained after the first"
is "$(q 'SELECT count(*) FROM jobs')" "2" "two jobs recorded"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$(measurements "$TMP/c.cfg")" "together they stored every point"
why
is "$(q 'SELECT count(*) FROM runs')" "1" "the second job continued the first one's run"

# resume after SIGKILL at random moments
DB=$TMP/kill.db
# RETRIES=1 here and for the hang below: a launch right after one that was
# killed crashes now and then in Open MPI's btl tcp (SIGSEGV, a peer's
# "failed to TCP connect"; issue 26's soak); what is tested is the resume
# and the time limit, and a timed-out launch is never retried.
RETRIES=1 spec "n[1-2]" mpirun "" 3 120 >"$TMP/k.cfg"
kills=0
launch_recorded() { [ "$(q 'SELECT count(*) FROM launches' 2>/dev/null || echo 0)" -gt "$before" ]; }
for extra in $(awk 'BEGIN { srand(); for (i = 0; i < 3; i++) printf "%.1f\n", rand() * 2 }'); do
	before=$(q 'SELECT count(*) FROM launches' 2>/dev/null || echo 0)
	salloc -Q $ALLOC sh -c 'echo $$ >"$1"; exec "$2" run "$3" --db "$4"' sh \
		"$TMP/pid" "$BIN/sweetspot" "$TMP/k.cfg" "$DB" >/dev/null 2>&1 &
	# Kill at a random moment after this attempt recorded a launch of its
	# own: mid-sweep, during a launch or while one is being stored.
	wait_until 60 launch_recorded
	sleep "$extra"
	if [ -s "$TMP/pid" ] && kill -9 "$(cat "$TMP/pid")" 2>/dev/null; then
		kills=$((kills + 1))
		diag "SIGKILL $extra s after launch $((before + 1)) was stored: $(q 'SELECT count(*) FROM launches') recorded"
	fi
	wait
	rm -f "$TMP/pid"
done
ok "killed mid-sweep at least twice" test "$kills" -ge 2
exits_with 0 "then run to the end" salloc -Q $ALLOC sweetspot run "$TMP/k.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM points')" "$(measurements "$TMP/k.cfg")" "exactly the plan's points"
why
is "$(q 'SELECT count(*) FROM (SELECT DISTINCT layout, repetition, collective, algorithm, assignment, bytes FROM points)')" \
	"$(measurements "$TMP/k.cfg")" "none twice"
is "$(q 'SELECT count(*) FROM launches')" "$(launches "$TMP/k.cfg")" "no launch recorded twice"

# a hanging kernel: killed at the time limit, recorded, the sweep goes on
DB=$TMP/hang.db
RETRIES=1 spec "n[1-2]" mpirun "" 1 4 >"$TMP/h.cfg"
SWEETSPOT_FAULT=hang salloc -Q $ALLOC sweetspot run "$TMP/h.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err"
is "$?" "1" "hang: run exits 1"
is "$(q 'SELECT count(*) FROM launches WHERE timed_out AND NOT ok')" "2" "both launches timed out, the sweep went on"
why

# a corrupted byte: invalid, never a result
DB=$TMP/flip.db
SWEETSPOT_FAULT=flip-byte salloc -Q $ALLOC sweetspot run "$TMP/s.cfg" --db "$DB" >"$TMP/out" 2>"$TMP/err"
is "$?" "1" "flip-byte: run exits 1"
ok "invalid points recorded" test "$(q 'SELECT count(*) FROM points WHERE NOT valid')" -ge 1
sweetspot results --db "$DB" --csv >"$TMP/res.csv"
ok "none of them among the results" sh -c "! grep -q ',0\$' '$TMP/res.csv'"

done_testing
