#!/bin/sh
# tests/cli/model-machine.t: `sweetspot model SPEC --machine FILE`: the
# parameters from a machine description, no launch and no calibration in
# the database; every parameter says where it came from; the spec's own
# system.machine (profiles/paper.cfg names the DPU-Bench testbed's); a bad
# description refused with file:line, exit status 2, no database written.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

plan 14
SPEC=$TMP/m.cfg
DB=$TMP/m.db
cat >"$SPEC" <<CFG
system = {
	name = "machine-test"; nodes = "n[1-4]"; ppn = 4;
	dpu = { hosts = "n[1-4]-bf"; cores = 8; };
	host_bin = "/nonexistent/sweetspot-kernel"; dpu_bin = "/nonexistent/sweetspot-kernel";
	launcher = "mpirun";
};
sweep = {
	collectives = [ "bcast", "allgather" ]; algorithms = [ "direct", "leader" ];
	assignments = [ "block" ]; sizes = [ "64K" ];
	wpn = [ 1, 2 ]; placement = [ "dpu" ];
};
CFG
cat >"$TMP/good.machine" <<CFG
machine = {
	name = "a test machine";
	network = { gbit_s = 100; latency_us = 1.0; };
	dpu = { cores = 8; memory_controllers = 1; memory_gbyte_s = 25.6; };
	overhead_us = 0.3;
};
CFG
exits_with 0 "predicted from the description, no launch" \
	sweetspot model "$SPEC" --machine "$TMP/good.machine" --db "$DB" --json
like "$TMP/err" '^# model parameters: machine .*good.machine \(a test machine\)' "the description is named"
like "$TMP/err" 'net.L 1, net.g_read 8e-05, net.g_write 8e-05, net.g_share 8e-05.*\(from the machine description\)' \
	"100 Gb/s is 8e-5 us/B, 1 us of latency: from the description"
like "$TMP/err" 'dpu_g_share 3.906e-05' "one 25.6 GB/s controller for the DPU's cores"
like "$TMP/err" 'shm.L 0.1.* \(from the defaults\)' "what it leaves out: the defaults, said so"
like "$TMP/out" '"predicted": true' "points in the shape of measured ones"
ok "no launch: no calibration run" sh -c "! grep -q 'calibration\|\[1/' '$TMP/err'"

exits_with 0 "a 1,024-node machine from it" \
	sweetspot model "$SPEC" --machine "$TMP/good.machine" --db "$DB" --nodes 1024 --json
like "$TMP/out" '"comm_simulation": "extrapolated"' "too large to simulate: extrapolated, and said so"

cat >"$TMP/bad.machine" <<CFG
machine = {
	network = { gbit_s = "fast"; };
	dpu = { cores = 8; memroy = 3; };
};
CFG
rm -f "$TMP/bad.db"
exits_with 2 "a bad description: exit 2" \
	sweetspot model "$SPEC" --machine "$TMP/bad.machine" --db "$TMP/bad.db"
like "$TMP/err" 'bad.machine:2: .machine.network.gbit_s. must be a number' "file:line of a wrong type"
like "$TMP/err" "bad.machine:3: unknown setting 'machine.dpu.memroy'" "file:line of an unknown key"
ok "nothing written" test ! -e "$TMP/bad.db"

exits_with 0 "profiles/paper.cfg names its testbed's description" \
	sweetspot plan "$ROOT/profiles/paper.cfg"
done_testing
