#!/bin/sh
# tests/cli/kernel-alltoall.t: the personalized all-to-all under real
# mpirun. Offloaded: every assignment, sizes that are and are not whole
# words (1000 puts blocks off 8-byte boundaries), chunks and windows, every
# byte checked at every destination; SWEETSPOT_FAULT=flip-byte corrupts
# one and the check names it. Host-only: MPI_Alltoall under Open MPI's own
# choice and each coll/tuned algorithm forced, validated the same way.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 16

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

# Host-only: Open MPI's own choice, then every coll/tuned algorithm that
# ompi_info lists for alltoall (two_proc only on 2 ranks), each forced.
kernel_run 5 --mode mpi -c alltoall -m 1000,4K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid | sort -u)" "0 true" "MPI_Alltoall: exit 0, valid"
SWEETSPOT_FAULT=flip-byte kernel_run 5 --mode mpi -c alltoall -m 1000 -i 3 -x 1
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":0,"bad_source":4,"bad_offset":4500' "MPI_Alltoall: rank 4's corrupted block for rank 0 is caught"
algs=$(ompi_info --all 2>/dev/null | sed -n 's/.*Valid values: 0:"ignore", \(1:"linear".*\)/\1/p' |
	grep '"pairwise"' | head -1 | grep -o '[0-9]*:"[a-z_]*"' | grep -v two_proc | cut -d: -f1 | tr '\n' ' ')
forced=
for a in $algs; do
	OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_alltoall_algorithm=$a \
		kernel_run 5 --mode mpi -c alltoall -m 1000,4K -i 2 -x 1
	[ "$? $(json_field "$TMP/out" valid | sort -u) $(json_field "$TMP/out" algorithm | sort -u)" = \
		"0 true tuned:$a" ] && forced="$forced $a"
done
is "$forced" " $(echo $algs)" "every coll/tuned alltoall algorithm forced runs valid and is recorded"
ok "ompi_info lists coll/tuned alltoall algorithms ($(echo $algs))" [ -n "$algs" ]

# MPICH: the kernel built with it (make mpich) under mpiexec.hydra, every
# alltoall algorithm the installed MPICH's mpivars lists forced by its
# variable (names are glued to the previous "... algorithm" there).
KMPICH=$BIN/mpich/sweetspot-kernel
malgs=$(mpivars 2>/dev/null | grep -m1 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=' |
	perl -ne 'while (/([a-z_]+)\s+- Force/g) { my $n = $1; $n =~ s/^algorithm//; print "$n\n" }')
forced=
for a in $malgs; do
	MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=$a timeout -k 5 300 mpiexec.hydra -n 4 "$KMPICH" --mode mpi \
		-c alltoall -m 1000,4K -i 2 -x 1 >"$TMP/out" 2>"$TMP/err"
	[ "$? $(json_field "$TMP/out" valid | sort -u) $(json_field "$TMP/out" algorithm | sort -u)" = \
		"0 true mpich:$a" ] && forced="$forced $a"
done
ok "mpivars lists MPICH alltoall algorithms ($(echo $malgs)), make mpich built the kernel" test -n "$malgs" -a -x "$KMPICH"
is "$forced" " $(echo $malgs)" "every MPICH alltoall algorithm forced runs valid and is recorded"

# The kernel's help lists it, from the collectives' table.
"$KERNEL" --help >"$TMP/help" 2>&1
like "$TMP/help" '^ *alltoall: direct$' "--help: alltoall and its algorithm"
exits_with 2 "an algorithm alltoall lacks is refused" "$KERNEL" -c alltoall -a ring
