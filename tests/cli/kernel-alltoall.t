#!/bin/sh
# tests/cli/kernel-alltoall.t: the personalized all-to-all under real
# mpirun. Offloaded (direct, and pairwise through the workers on 3 of
# them): every assignment, sizes that are and are not whole
# words (1000 puts blocks off 8-byte boundaries), chunks and windows, every
# byte checked at every destination; SWEETSPOT_FAULT=flip-byte corrupts
# one and the check names it. Host-only: MPI_Alltoall under Open MPI's own
# choice and each coll/tuned algorithm forced, validated the same way.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 23

# 5 hosts, 2 workers: 3 assignments x 2 sizes x 2 chunks x 2 windows.
kernel_run 7 -t rma -w 2 -c alltoall -A block,cyclic,locality --ppn 2 -m 1000,4K \
	--chunk 300,4K --window 1,3 -i 3 -x 1
is "$?" 0 "offloaded alltoall: exit 0"
records_ok 24 direct "offloaded alltoall, an assignment x size x chunk x window each"

# flip-byte: worker 0 (block: hosts 0, 1 and 4) first writes host 0's own
# block, 4K at 5 x 8K (the send area holds a block of the largest size
# per host) + 2048.
SWEETSPOT_FAULT=flip-byte kernel_run 7 -t rma -w 2 -c alltoall -m 4K,8K -i 3 -x 1
is "$?" 1 "a corrupted byte: exit 1"
is "$(json_field "$TMP/out" valid | tr '\n' ' ')" "false true " "first point invalid, second valid"
is "$(first_bad)" '"bad_rank":0,"bad_source":0,"bad_offset":43008' "the rank, source and first bad offset"

# pairwise: 5 hosts, 3 workers (rounds 0-2), the same points; 300-byte
# chunks make steps of many pieces, window 1 a single slot.
kernel_run 8 -t rma -w 3 -a pairwise -c alltoall -A block,cyclic,locality --ppn 2 -m 1000,4K \
	--chunk 300,4K --window 1,3 -i 3 -x 1
is "$?" 0 "offloaded alltoall pairwise: exit 0"
records_ok 24 pairwise "offloaded alltoall pairwise, an assignment x size x chunk x window each"
# flip-byte: worker 0 (block: hosts 0 and 3) first writes in its own
# round, host 0's block for itself, at 5 x 8K + 2048.
SWEETSPOT_FAULT=flip-byte kernel_run 8 -t rma -w 3 -a pairwise -c alltoall -m 4K,8K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid | tr '\n' ' ')" "1 false true " "pairwise: a corrupted byte, exit 1, first point invalid"
is "$(first_bad)" '"bad_rank":0,"bad_source":0,"bad_offset":43008' "  ... the rank, source and first bad offset"

# Host-only: Open MPI's own choice, then every coll/tuned algorithm that
# ompi_info lists for alltoall (two_proc only on 2 ranks), each forced.
kernel_run 5 --mode mpi -c alltoall -m 1000,4K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid | sort -u)" "0 true" "MPI_Alltoall: exit 0, valid"
SWEETSPOT_FAULT=flip-byte kernel_run 5 --mode mpi -c alltoall -m 1000 -i 3 -x 1
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":0,"bad_source":4,"bad_offset":4500' "MPI_Alltoall: rank 4's corrupted block for rank 0 is caught"
all_forced ompi alltoall 5 -m 1000,4K -i 2 -x 1
# MPICH: the kernel built with it (make mpich) under mpiexec.hydra.
all_forced mpich alltoall 4 -m 1000,4K -i 2 -x 1

# The kernel's help lists it, from the collectives' table.
"$KERNEL" --help >"$TMP/help" 2>&1
like "$TMP/help" '^ *alltoall: direct pairwise\*$' "--help: alltoall and its algorithms (pairwise a schedule)"
exits_with 2 "an algorithm alltoall lacks is refused" "$KERNEL" -c alltoall -a ring
