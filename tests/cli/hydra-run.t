#!/bin/sh
# tests/cli/hydra-run.t: MPICH as the second real runtime. `sweetspot run`
# with system.launcher = "hydra" starts the MPICH build of the kernel
# (bin/mpich/sweetspot-kernel, `make mpich`) through mpiexec.hydra with the
# generated hostfile.hydra and configfile.hydra: a local sweep whose points
# are all stored, valid and one MPI_COMM_WORLD (ranks = the layout's), from
# which `recommend` answers; a DPU layout on made-up hosts (tests/testbed/
# fake-ssh as hydra's ssh) whose every rank runs on the host the plan gives
# it; and the Open MPI kernel under hydra, which must fail rather than
# measure one-rank jobs.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

KMPICH=$BIN/mpich/sweetspot-kernel
[ -x "$KMPICH" ] || { echo "1..1"; echo "not ok 1 - $KMPICH is not built (make mpich)"; exit 1; }
plan 25

q() { sqlite3 "$DB" "$1"; }

# spec BIN PLACEMENT: a small sweep launched by hydra.
spec() {
	if [ "$2" = dpu ]; then
		cat <<EOF
system = {
	name = "hd"; nodes = "n[1-2]"; ppn = 2;
	dpu = { suffix = "-bf"; cores = 1; };
	host_bin = "$1"; dpu_bin = "$1";
	launcher = "hydra";
	launcher_args = [ "-launcher", "ssh", "-launcher-exec", "$ROOT/tests/testbed/fake-ssh" ];
};
sweep = {
	collectives = [ "bcast", "gather" ]; algorithms = [ "direct" ];
	assignments = [ "block" ]; sizes = [ "4K" ];
	wpn = [ 1 ]; workers = [ 2 ]; placement = [ "dpu" ];
	iterations = 3; warmup = 1; repetitions = 1; time_limit = 120;
	transport = "rma";
};
EOF
	else
		cat <<EOF
system = {
	name = "hl"; nodes = "localhost"; ppn = 2;
	onload = { cores = 2; };
	host_bin = "$1";
	launcher = "hydra";
	env = [ "SWEETSPOT_TEST_MARK=hydra" ];
};
sweep = {
	collectives = [ "bcast", "gather", "allgather" ]; algorithms = [ "direct", "allin" ];
	assignments = [ "block" ]; sizes = "4K:8K";
	wpn = [ 1, 2 ]; workers = [ 1 ]; placement = [ "onload" ];
	iterations = 3; warmup = 1; repetitions = 2; time_limit = 120;
	transport = "rma";
};
EOF
	fi
}

# The files and the people's line.
spec "$KMPICH" onload >"$TMP/l.cfg"
exits_with 0 "generate --launcher hydra" sweetspot generate "$TMP/l.cfg" -o "$TMP/gen" --launcher hydra
d=$TMP/gen/n1-ppn2-w1-wpn1-onload
is "$(ls "$d" | tr '\n' ' ')" "commands configfile.hydra hostfile.hydra " "only hydra's files, and commands"
is "$(grep -v '^#' "$d/hostfile.hydra")" "localhost:3" "hostfile.hydra: host:slots"
is "$(grep -v '^#' "$d/configfile.hydra" | cut -d' ' -f1-5)" "-n 2 -host localhost $KMPICH
-n 1 -host localhost $KMPICH" "configfile.hydra: -n N -host H PROG, hosts then workers"
like "$d/commands" "^MPIEXEC_TIMEOUT=120 mpiexec.hydra -genv SWEETSPOT_TEST_MARK hydra -f $d/hostfile.hydra -configfile $d/configfile.hydra\$" \
	"commands: mpiexec.hydra -genv ... -f HOSTFILE -configfile FILE"

# A real local sweep.
DB=$TMP/l/sweetspot.db
sweetspot plan "$TMP/l.cfg" --json >"$TMP/plan.json"
want=$(sed -n 's/.*"measurements":\([0-9]*\).*/\1/p' "$TMP/plan.json")
launches=$(sed -n 's/.*"launches":\([0-9]*\).*/\1/p' "$TMP/plan.json")
exits_with 0 "dry run shows mpiexec.hydra" sweetspot run "$TMP/l.cfg" --db "$DB" --dry-run
like "$TMP/out" " mpiexec.hydra -genv SWEETSPOT_TEST_MARK hydra -f '.*/hostfile.hydra' -configfile '.*/configfile.hydra'\$" \
	"the line run starts"
exits_with 0 "a hydra sweep" sweetspot run "$TMP/l.cfg" --db "$DB"
is "$(q 'SELECT count(*) FROM points')" "$want" "every planned point stored ($want)"
is "$(q 'SELECT count(*) FROM points WHERE valid')" "$want" "every point valid"
is "$(q 'SELECT count(*) FROM launches WHERE ok')" "$launches" "every launch ok"
is "$(q "SELECT count(*) FROM points WHERE ranks != hosts + workers OR hosts != 2 OR transport != 'rma'")" 0 \
	"one MPI_COMM_WORLD per launch: every record sees 2 hosts + its workers, over rma"
is "$(q "SELECT launcher FROM runs")" "hydra" "the run records launcher hydra"
like "$TMP/l/runs/1/n1-ppn2-w1-wpn1-onload-r1/log" "^# command: mpiexec.hydra " "the log names the line run"
ok "the run's folder holds hydra's files" test -s "$TMP/l/runs/1/n1-ppn2-w1-wpn1-onload-r1/configfile.hydra"
exits_with 0 "recommend answers from the hydra run" sweetspot recommend "$TMP/l.cfg" --db "$DB" --json
like "$TMP/out" '"collective": *"gather"' "with a gather choice"
like "$TMP/out" 'mpiexec.hydra' "and the hydra line that launches it"

# DPU placement on made-up hosts: each rank where the plan puts it.
spec "$KMPICH" dpu >"$TMP/d.cfg"
DB=$TMP/d/sweetspot.db
exits_with 0 "a DPU sweep on made-up hosts n1, n2, n1-bf, n2-bf" sweetspot run "$TMP/d.cfg" --db "$DB"
is "$(q "SELECT DISTINCT rank_hosts FROM points")" '["n1","n1","n2","n2","n1-bf","n2-bf"]' \
	"every rank on its planned host (rank_hosts from the kernel)"

# The Open MPI kernel under hydra would be six one-rank jobs: it must fail.
spec "$BIN/sweetspot-kernel" onload >"$TMP/x.cfg"
DB=$TMP/x/sweetspot.db
exits_with 1 "the Open MPI kernel under hydra fails" sweetspot run "$TMP/x.cfg" --db "$DB" --max-launches 1
is "$(q 'SELECT count(*) FROM points')" 0 "and stores no point"
# MPICH's own algorithms, forced per launch as mpivars names them.
exits_with 0 "baseline with hydra: MPICH's binomial and its own choice" \
	sweetspot baseline "$TMP/l.cfg" --db "$TMP/b.db" --algorithms binomial
algs=$(sqlite3 "$TMP/b.db" "SELECT DISTINCT algorithm FROM points WHERE collective = 'bcast' ORDER BY 1" | tr '\n' ' ')
is "$algs" "default mpich:binomial " "records name the MPICH algorithm that was forced"
like "$TMP/out" "^baseline run [0-9]+: [0-9]+ launches, 0 failed" "every launch ok"

done_testing
