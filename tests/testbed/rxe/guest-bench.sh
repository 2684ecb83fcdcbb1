#!/bin/sh
# tests/testbed/rxe/guest-bench.sh: the measuring half of
# tests/bench/verbs.sh, run inside the Soft-RoCE guest. Interleaves five
# runs each of perftest's ib_write_bw and sweetspot-kernel --mode bw -t
# verbs --burst 16, both streaming 1 MiB RDMA writes between two processes
# over rxe0, and
# prints one line per run on stdout: "perftest BYTES_PER_S" or "kernel
# BYTES_PER_S" (run.sh saves it in /out/tap).
SIZE=1048576
ITERS=${BENCH_ITERS:-100}
WARM=20
# Writes in flight per wait, as ib_write_bw keeps its send queue full.
BURST=16
KERNEL=$SWEETSPOT_ROOT/bin/sweetspot-kernel
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_osc=pt2pt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
for rep in 1 2 3 4 5; do
	timeout 120 ib_write_bw -d rxe0 -x 1 -F --report_gbits -s $SIZE -n $ITERS >/tmp/server 2>&1 &
	spid=$!
	# Retry while the server is not listening yet (a busy emulated machine).
	for try in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		timeout 120 ib_write_bw -d rxe0 -x 1 -F --report_gbits -s $SIZE -n $ITERS localhost \
			>/tmp/client 2>&1 && break
		kill -0 $spid 2>/dev/null || break
	done
	# Row: bytes, iterations, peak and average Gb/s (10^9 bits), Mpps.
	awk -v s=$SIZE '$1 == s && NF >= 5 { printf "perftest %.0f\n", $4 * 1e9 / 8 }' /tmp/client
	wait
	timeout 120 mpirun -np 2 "$KERNEL" --mode bw -t verbs --burst $BURST -m $SIZE -i $ITERS -x $WARM 2>/tmp/kerr |
		sed -n 's/.*"device":"rxe0".*"bytes_per_s":\([0-9]*\).*"valid":true.*/kernel \1/p'
	[ -s /tmp/kerr ] && sed 's/^/# /' /tmp/kerr | grep -v '^# # verbs write' >&2
done
