# tests/lib/dpu-spec.sh: the small sweep the Slurm tests and the soak bench
# run on the testbed's emulated nodes. Source it with BIN set.
# spec NODES LAUNCHER EXTRA REPS LIMIT (RETRIES, default 0, from the
# environment): 2 nodes x 2 PPN, workers on their DPUs
# (1 and 2 workers: 2 layouts), 2 points a launch.
spec() {
	cat <<EOF
system = {
	name = "t"; nodes = "$1"; ppn = 2;
	dpu = { suffix = "-bf"; cores = 2; };
	host_bin = "$BIN/sweetspot-kernel";
	dpu_bin = "$BIN/sweetspot-kernel";
	launcher = "$2";
	$3
};
sweep = {
	collectives = [ "bcast" ]; algorithms = [ "direct" ];
	assignments = [ "block", "cyclic" ];
	sizes = "4K";
	wpn = [ 1 ]; workers = [ 1, 2 ];
	placement = [ "dpu" ];
	iterations = 3; warmup = 1; repetitions = $4;
	time_limit = $5;
	retries = ${RETRIES:-0};
	transport = "rma";
};
EOF
}
