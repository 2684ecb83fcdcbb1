#!/bin/sh
# tests/testbed/slurm-verify.t: `sweetspot verify` inside a Slurm
# allocation on the testbed cluster (slurm-cluster.sh): srun is chosen, the
# spec's 4 ranks spread over two emulated nodes; a program that sleeps
# longer without the exported rules is decided faster with them, and the
# proof (pml monitoring of one bcast per size, over TCP between the nodes)
# finds the rules applied. Outside an allocation, with srun, the whole
# verify goes through sbatch: one job, its allocation holding every pair;
# run again it resumes; interrupted (SIGTERM) it cancels its job, so
# nothing is left queued. The cluster is torn down at the end.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the Slurm testbed runs slurmd and munged, which needs root"
[ -x "$BIN/sweetspot-loop" ] || skip_all "bin/sweetspot-loop is not built"
command -v mpicc >/dev/null || skip_all "mpicc is not installed"
mpicc -o "$TMP/prog" "$ROOT/tests/data/verify-prog.c" || skip_all "mpicc cannot build an MPI program"

CLUSTER=$TMP/cluster
cleanup() {
	sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER" >/dev/null 2>&1
	[ -n "${SWEETSPOT_KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
plan 23

cat >"$TMP/spec.cfg" <<CFG
system = {
	name = "sv"; nodes = "n[1-2]"; ppn = 2; onload = { cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	launcher = "mpirun";
};
sweep = {
	collectives = [ "bcast" ]; assignments = [ "block" ]; sizes = [ "4K", "64K" ];
	wpn = [ 1 ]; workers = [ 1 ]; placement = [ "onload" ];
	iterations = 10; warmup = 1; repetitions = 5; max_repetitions = 6; time_limit = 120;
	retries = 1; transport = "rma";
};
CFG
# bcast on 4 ranks: binomial (6) at every size.
printf '1\n7\n1\n4\n1\n0 6 0 0\n' >"$TMP/rules"
DB=$TMP/v.db

unset SLURM_JOB_ID
exits_with 0 "the cluster comes up" sh "$ROOT/tests/testbed/slurm-cluster.sh" up "$CLUSTER"
eval "$(sh "$ROOT/tests/testbed/slurm-cluster.sh" env "$CLUSTER")"
exits_with 0 "verify inside an allocation" salloc -Q --nodelist=n1,n2 --nodes=2 --ntasks-per-node=2 \
	sweetspot verify "$TMP/spec.cfg" --export "$TMP/rules" --db "$DB" -- "$TMP/prog" \
	OMPI_MCA_coll_tuned_dynamic_rules_filename 2500 0
is "$(sqlite3 "$DB" "SELECT launcher FROM runs")" srun "srun chosen inside the allocation"
ok "every launch through srun --mpi=pmix" test "$(sqlite3 "$DB" "SELECT count(*) FROM launches WHERE ok AND argv LIKE '%srun --mpi=pmix %'")" -ge 10
like "$TMP/out" '^wall time \(s\) .* faster$' "B faster"
like "$TMP/out" '^  bcast +4096: algorithm 6 forced: the same traffic: applied$' "proof at 4K: binomial ran"
like "$TMP/out" '^  bcast +65536: algorithm 6 forced: the same traffic: applied$' "proof at 64K"
ok "B's launches named the rules file" test "$(sqlite3 "$DB" "SELECT count(*) FROM launches WHERE layout = 'verify-B' AND argv LIKE '%OMPI_MCA_coll_tuned_dynamic_rules_filename=$TMP/rules%'")" -ge 5

# Outside an allocation: through sbatch, exact figures (--metric).
DB2=$TMP/b/v.db
mkdir -p "$TMP/b"
METRIC='^size ([0-9]+): ([0-9.]+) us'
RULESVAR=OMPI_MCA_coll_tuned_dynamic_rules_filename
exits_with 0 "dry run outside an allocation" sweetspot verify "$TMP/spec.cfg" --export "$TMP/rules" --db "$DB2" --launcher srun --dry-run -- "$TMP/prog" $RULESVAR 40 10
like "$TMP/out" "^# outside a Slurm allocation: one batch job \(sbatch --wait; --nodelist n1,n2, 2 tasks per node\)" "... one job on the spec's nodes"
exits_with 0 "verify through sbatch" sweetspot verify "$TMP/spec.cfg" --export "$TMP/rules" --db "$DB2" --launcher srun --metric "$METRIC" -- "$TMP/prog" $RULESVAR 40 10
like "$TMP/out" '^1024 +40 \[40, 40\] +10 \[10, 10\] +0\.250 \[0\.250, 0\.250\] .* faster$' "the job's answer is ours: B/A 0.25"
like "$TMP/out" '^  bcast +65536: algorithm 6 forced: the same traffic: applied$' "... with its proof"
is "$(ls "$TMP/b/jobs/"*.sbatch | wc -l | tr -d ' ')" 1 "one job"
is "$(sqlite3 "$DB2" "SELECT launcher FROM runs")" srun "srun inside it"
launches=$(sqlite3 "$DB2" "SELECT count(*) FROM launches")
ok "every pair and the proof in it ($launches launches)" test "$launches" -ge 12
like "$TMP/err" '^\[[0-9]+/[0-9]+\] verify-[AB] r1: ok' "the job's progress on stderr"
exits_with 0 "again: resumed in a new job" sweetspot verify "$TMP/spec.cfg" --export "$TMP/rules" --db "$DB2" --launcher srun --metric "$METRIC" -- "$TMP/prog" $RULESVAR 40 10
is "$(sqlite3 "$DB2" "SELECT count(*) FROM launches")" "$launches" "no launch the second time"

# Interrupted: the job is cancelled. A launches sleep 10 minutes.
sweetspot verify "$TMP/spec.cfg" --export "$TMP/rules" --db "$TMP/b/i.db" --launcher srun -- "$TMP/prog" $RULESVAR 600000 0 >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
running() { [ -n "$(squeue -h -t RUNNING -n sweetspot-verify-spec)" ] && [ -n "$(sqlite3 "$TMP/b/i.db" "SELECT id FROM runs" 2>/dev/null)" ]; }
ok "its job runs" wait_until 120 running
job=$(squeue -h -n sweetspot-verify-spec -o %i)
kill -TERM $pid
wait $pid
is "$?" 130 "SIGTERM: exit status 130"
gone() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || squeue -h -j "$job" -o %T | grep -q CANCELLED; }
ok "job $job cancelled: nothing left in the queue" wait_until 60 gone
like "$TMP/i.err" "interrupted: job $job cancelled \(scancel\)" "... and says so"
done_testing
