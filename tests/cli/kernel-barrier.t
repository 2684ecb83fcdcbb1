#!/bin/sh
# tests/cli/kernel-barrier.t: the barrier under real mpirun. Offloaded:
# each host signals its worker on arrival, computes, then waits for the
# release; the workers synchronise by dissemination or a k-nomial tree.
# What a record measures is the time a host spends before it may go on,
# against its compute (total_us, oe_*). That no host goes on early is the
# simulation's check (kernel-sim-t); here every launch must end, every
# record hold its contract. Host-only: MPI_Barrier under Open MPI's own
# choice, each coll/tuned algorithm forced, and each MPICH one under
# mpiexec.hydra.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 13

# 5 hosts, 2 workers; the message size does not change what a barrier does.
kernel_run 7 -t rma -w 2 -c barrier -A block,cyclic,locality --ppn 2 -m 4K -i 5 -x 1
is "$?" 0 "offloaded barrier, dissemination: exit 0"
records_ok 3 dissem "barrier dissem, an assignment each"
kernel_run 7 -t rma -w 3 -c barrier -a knomial --radix 2,3 -A block,cyclic -m 4K -i 5 -x 1
is "$?" 0 "offloaded barrier, k-nomial tree of 3 workers: exit 0"
is "$(json_field "$TMP/out" radix | tr '\n' ' ')" "2 3 2 3 " "  ... radix 2 and 3, each assignment"

# Host-only: Open MPI's own choice, then each coll/tuned algorithm forced
# (two_proc works on 2 ranks only).
kernel_run 5 --mode mpi -c barrier -m 4K -i 5 -x 1
is "$? $(json_field "$TMP/out" valid) $(json_field "$TMP/out" algorithm)" "0 true default" "MPI_Barrier: exit 0"
all_forced ompi barrier 5 -m 4K -i 3 -x 1
all_forced mpich barrier 4 -m 4K -i 3 -x 1

"$KERNEL" --help >"$TMP/help" 2>&1
like "$TMP/help" '^ *barrier: knomial\* dissem$' "--help: barrier, its algorithm and its schedule"
