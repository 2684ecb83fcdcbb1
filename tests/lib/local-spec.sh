# tests/lib/local-spec.sh: the spec the Open MPI benches measure with (4
# local ranks through mpirun, host ranks only, 10 timed calls after 2).
# local_spec ROOT COLLS SIZES REPETITIONS [COMMENT]: prints it; COLLS is a
# comma list, COMMENT a first line (another spec for the database).
local_spec() {
	[ -z "${5:-}" ] || echo "# $5"
	cat <<CFG
system = {
	name = "local";
	nodes = "localhost";
	ppn = 4;
	onload = { cores = 2; };
	host_bin = "$1/bin/sweetspot-kernel";
	launcher = "mpirun";
	launcher_args = [ "--oversubscribe" ];
};
sweep = {
	collectives = [ $(echo "$2" | sed 's/[^,]*/"&"/g; s/,/, /g') ];
	assignments = [ "block" ];
	sizes = "$3";
	wpn = [ 1 ];
	workers = [ 1 ];
	placement = [ "onload" ];
	iterations = 10;
	warmup = 2;
	repetitions = $4;
	max_repetitions = 10;
	time_limit = 600;
	transport = "rma";
};
CFG
}
