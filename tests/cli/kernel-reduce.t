#!/bin/sh
# tests/cli/kernel-reduce.t: reduce and allreduce under real mpirun, every
# op x dtype with both algorithms (slice, assigned), pipelined in chunks
# smaller than a worker's part; every element checked at every
# destination; the records carry dtype, op, chunk, window and the
# bandwidths; a corrupted byte is caught; the multi-hop (signalled)
# schedule also runs over MPI_Rget/MPI_Rput between two fake nodes.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 16

kernel_run 7 -t rma -w 2 -c reduce,allreduce -a slice,assigned -A cyclic \
	--dtype int32,int64,uint32,uint64,float,double \
	--op sum,prod,min,max,band,bor,bxor,land,lor,lxor -m 120 --chunk 16 -i 2 -x 1
is "$?" 0 "every op x dtype, both algorithms: exit 0"
# (4 integer dtypes x 10 ops + 2 floating x 4 ops) x 2 collectives x 2 algorithms
is "$(wc -l <"$TMP/out" | tr -d ' ')" 192 "192 records"
is "$(json_field "$TMP/out" valid | sort -u)" true "every record valid"
is "$(check_records "$TMP/out")" "" "formulas match raw times, all fields present"
is "$(awk -F'"dtype":"' '{ split($2, a, "\""); split($0, b, "\"op\":\""); split(b[2], c, "\""); print a[1] "/" c[1] }' "$TMP/out" | sort -u | wc -l | tr -d ' ')" 48 \
	"48 dtype/op pairs recorded"
is "$(json_field "$TMP/out" chunk | sort -u) $(json_field "$TMP/out" window | sort -u)" "16 2" \
	"chunk and window recorded (window defaults to 2)"
# busbw follows algbw: allreduce x 2(n-1)/n = 1.6, reduce x (n-1)/n = 0.8 (n = 5 hosts).
is "$(awk '{
	if (!match($0, /"algbw":[0-9]+/)) { print "no algbw"; next }
	a = substr($0, RSTART + 8, RLENGTH - 8) + 0
	match($0, /"busbw":[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8) + 0
	f = index($0, "\"collective\":\"allreduce\"") ? 1.6 : 0.8
	d = b - a * f; if (d < 0) d = -d
	# Both are printed rounded to whole bytes/s: |b - 1.6 a| <= 0.5 + 1.6 x 0.5.
	if (d > 1.5 + a * 1e-6) print NR ": busbw " b " for algbw " a
	if (!match($0, /"p2p_bw":[1-9][0-9]*/)) print NR ": no p2p_bw"
}' "$TMP/out")" "" "busbw = algbw x 2(n-1)/n (allreduce), x (n-1)/n (reduce); p2p_bw measured"
like "$TMP/err" '^allreduce +assigned +cyclic +120 .* yes double min$' "table row names dtype and op"

# Sizes that are not powers of two, a chunk larger than a part, W = 3 and
# a window of 1 and 3.
kernel_run 8 -t rma -w 3 -c allreduce,reduce -A block,locality --dtype int64,float --op max \
	-m 24K,1004 --chunk 64K --window 3 -i 2 -x 1
is "$? $(wc -c <"$TMP/out" | tr -d ' ')" "2 0" "1004 bytes is not whole int64 elements: exit 2, no record"
kernel_run 8 -t rma -w 3 -c allreduce,reduce -A block,locality --dtype int32,float --op max,sum \
	-m 24K,1004 --chunk 64K --window 3 -i 2 -x 1
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 64 true" \
	"W=3, 24K and 1004 B, chunk over a part, window 3: 64 records, all valid"
kernel_run 8 -t rma -w 3 -c allreduce -a assigned --dtype float --op sum -m 1004 --chunk 8 --window 1 -i 2 -x 1
is "$? $(json_field "$TMP/out" valid | sort -u)" "0 true" "chunk of 2 elements, window 1: valid"

# The fault: the first worker writing to a host flips a byte of that write.
SWEETSPOT_FAULT=flip-byte
export SWEETSPOT_FAULT
kernel_run 7 -t rma -w 2 -c allreduce -a assigned -A cyclic --dtype double --op sum -m 4K --chunk 1K -i 3 -x 1
is "$?" 1 "allreduce assigned, flip-byte: exit 1"
is "$(json_field "$TMP/out" valid)" false "the point is invalid"
like "$TMP/err" 'INVALID.*first bad byte at offset' "said on stderr"
unset SWEETSPOT_FAULT

# Two fake nodes: TCP, the pt2pt one-sided component (no shared memory):
# the signals between workers travel as MPI_Rput and are polled for.
trap 'rm -rf "$TMP" /dev/shm/ompi-kA /dev/shm/ompi-kB' EXIT
printf 'kA slots=4\nkB slots=4\n' >"$TMP/hostfile"
mpirun_run 8 --mca plm_rsh_agent "$ROOT/tests/testbed/fake-ssh" --mca btl self,tcp \
	--mca osc pt2pt --hostfile "$TMP/hostfile" --map-by node \
	"$KERNEL" -t rma -w 2 -c reduce,allreduce -A block,locality --dtype int32 --op sum,bxor \
	-m 4K --chunk 512 -i 3 -x 1
is "$?" 0 "two fake nodes, MPI_Rget/MPI_Rput and signals: exit 0"
is "$(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "16 true" \
	"two fake nodes: 16 points, all valid"

done_testing
