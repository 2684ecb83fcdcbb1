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
algs=$(ompi_info --param coll tuned --level 9 --parsable |
	sed -n 's/^mca:coll:tuned:param:coll_tuned_barrier_algorithm:enumerator:value:\([1-9][0-9]*\):\(.*\)/\1 \2/p' |
	awk '$2 != "two_proc" { print $1 }')
forced=
for a in $algs; do
	rc=$(export OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_barrier_algorithm=$a
		kernel_run 5 --mode mpi -c barrier -m 4K -i 3 -x 1; echo $?)
	[ "$rc $(json_field "$TMP/out" valid) $(json_field "$TMP/out" algorithm)" = "0 true tuned:$a" ] &&
		forced="$forced $a"
done
ok "ompi_info lists coll/tuned barrier algorithms ($(echo $algs))" test -n "$algs"
is "$forced" " $(echo $algs)" "every coll/tuned barrier algorithm forced runs and is recorded"

KMPICH=$BIN/mpich/sweetspot-kernel
malgs=$(mpivars 2>/dev/null | grep -m1 'MPIR_CVAR_BARRIER_INTRA_ALGORITHM *=' |
	perl -ne 'while (/([a-z_]+)\s+- Force/g) { my $n = $1; $n =~ s/^algorithm//; print "$n\n" }')
forced=
for a in $malgs; do
	MPIR_CVAR_BARRIER_INTRA_ALGORITHM=$a timeout -k 5 300 mpiexec.hydra -n 4 "$KMPICH" --mode mpi \
		-c barrier -m 4K -i 3 -x 1 >"$TMP/out" 2>"$TMP/err"
	[ "$? $(json_field "$TMP/out" valid) $(json_field "$TMP/out" algorithm)" = "0 true mpich:$a" ] &&
		forced="$forced $a"
done
ok "mpivars lists MPICH barrier algorithms ($(echo $malgs)), make mpich built the kernel" test -n "$malgs" -a -x "$KMPICH"
is "$forced" " $(echo $malgs)" "every MPICH barrier algorithm forced runs and is recorded"

"$KERNEL" --help >"$TMP/help" 2>&1
like "$TMP/help" '^ *barrier: knomial\* dissem$' "--help: barrier, its algorithm and its schedule"
