#!/bin/sh
# tests/cli/kernel-scan.t: scan and exscan under real mpirun. Offloaded
# (the workers' chain, and their recursive-doubling prefix on 3 workers,
# not a power of two): every assignment, every dtype x op the reductions
# have, every element of every host's prefix checked against the
# sequential fold of the hosts before it (and its own, for scan); a
# corrupted byte is caught. Host-only: MPI_Scan and MPI_Exscan the same
# way, under Open MPI's own choice, each coll/tuned algorithm forced, and
# each MPICH algorithm forced under mpiexec.hydra.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 25
DTYPES=int32,int64,uint32,uint64,float,double
OPS=sum,prod,min,max,band,bor,bxor,land,lor,lxor

# 5 hosts, 2 workers; 1000 bytes is whole elements of every dtype.
kernel_run 7 -t rma -w 2 -c scan,exscan -A block,cyclic,locality --ppn 2 --dtype $DTYPES --op $OPS \
	-m 1000,8K -i 2 -x 1
is "$?" 0 "offloaded scan and exscan: exit 0"
# 2 collectives x 3 assignments x 2 sizes x 48 dtype x op that apply
records_ok 576 chain "offloaded scan and exscan, a collective x assignment x size x dtype x op each"

# flip-byte, exscan: worker 0 (block: hosts 0, 1 and 4) first writes host
# 1's result (host 0's vector), at the 8K send area + 2048.
SWEETSPOT_FAULT=flip-byte kernel_run 7 -t rma -w 2 -c exscan -m 4K,8K -i 2 -x 1
is "$? $(json_field "$TMP/out" valid | tr '\n' ' ')" "1 false true " "exscan: a corrupted byte, exit 1, first point invalid"
is "$(first_bad)" '"bad_rank":1,"bad_source":-1,"bad_offset":10240' "  ... host 1, the reduced block, its first bad byte"

# recdbl: 5 hosts, 3 workers; block makes 5 runs of one host (workers 0 1
# 2 0 1), 3 rounds; cyclic the same, locality (hosts 0-1, 2-3, 4 on
# nodes 0-2) others.
kernel_run 8 -t rma -w 3 -a recdbl -c scan,exscan -A block,cyclic,locality --ppn 2 --dtype $DTYPES \
	--op $OPS -m 1000,8K -i 2 -x 1
is "$?" 0 "offloaded scan and exscan, recdbl: exit 0"
records_ok 576 recdbl "offloaded scan and exscan recdbl, a collective x assignment x size x dtype x op each"

# flip-byte, exscan recdbl: worker 0's first write to a host is run 3's
# E (hosts 0 .. 2) to host 3, at the 8K send area + 2048; host 0 gets none.
SWEETSPOT_FAULT=flip-byte kernel_run 8 -t rma -w 3 -a recdbl -c exscan -m 4K,8K -i 2 -x 1
is "$? $(json_field "$TMP/out" valid | tr '\n' ' ')" "1 false true " "exscan recdbl: a corrupted byte, exit 1, first point invalid"
is "$(first_bad)" '"bad_rank":3,"bad_source":-1,"bad_offset":10240' "  ... host 3, the reduced block, its first bad byte"

# Host-only, Open MPI's own choice, every dtype x op (96 points: batches of
# 1 ms, not the default 20, as nothing here is timed; 5 busy-polling ranks
# sharing one free core take minutes at the default).
kernel_run 5 --mode mpi -c scan,exscan --dtype $DTYPES --op $OPS -m 1000 -i 2 -x 1 --batch-ms 1
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 96 true" \
	"MPI_Scan and MPI_Exscan: every dtype x op valid"
SWEETSPOT_FAULT=flip-byte kernel_run 5 --mode mpi -c exscan -m 4K -i 2 -x 1
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":-*[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":1,"bad_source":-1,"bad_offset":2048' "MPI_Exscan: rank 0's corrupted vector is caught at rank 1"

# Every coll/tuned algorithm of each forced, and every MPICH one under
# mpiexec.hydra (make mpich).
for c in scan exscan; do
	all_forced ompi $c 4 --dtype int64,double --op sum,max -m 4K -i 2 -x 1
	all_forced mpich $c 4 --dtype int64,double --op sum,max -m 4K -i 2 -x 1
done

"$KERNEL" --help >"$TMP/help" 2>&1
like "$TMP/help" '^ *exscan: recdbl\* chain$' "--help: scan, exscan and their algorithms (recdbl a schedule)"
