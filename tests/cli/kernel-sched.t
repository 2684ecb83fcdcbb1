#!/bin/sh
# tests/cli/kernel-sched.t: the worker schedules (knomial, ring, recdbl)
# under real mpirun on the rma transport, at W = 1, 3 and 5 (= H) workers
# with 5 hosts, every assignment, sizes that are not powers of two and
# chunks smaller than a block: every byte (every element) checked at every
# destination; the records carry radix, chunk and window; a corrupted byte
# is caught; the multi-hop signals also run over MPI_Rget/MPI_Rput between
# two fake nodes; an algorithm that applies to no listed collective is an
# error.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 26

for w in 1 3 5; do
	kernel_run $((5 + w)) -t rma -w $w -c bcast,gather,allgather,reduce,allreduce \
		-a knomial,ring,recdbl -A block,cyclic,locality -m 4K,1000 --chunk 768 -i 2 -x 1
	is "$?" 0 "w=$w: every schedule ran and validated (exit 0)"
	# bcast, gather, reduce: knomial; allgather: ring, recdbl; allreduce:
	# all three; x 3 assignments x 2 sizes
	is "$(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "48 true" \
		"w=$w: 48 records, all valid"
	is "$(check_records "$TMP/out")" "" "w=$w: formulas match raw times, all fields present"
done
is "$(awk -F'"algorithm":"' '{ split($2, a, "\""); split($0, c, "\"collective\":\""); split(c[2], d, "\""); print d[1] "/" a[1] }' "$TMP/out" | sort -u | tr '\n' ' ')" \
	"allgather/recdbl allgather/ring allreduce/knomial allreduce/recdbl allreduce/ring bcast/knomial gather/knomial reduce/knomial " \
	"each schedule with the collectives it applies to"
is "$(grep -c '"algorithm":"knomial",.*"chunk":768,"window":2,"radix":2,' "$TMP/out") $(grep -c '"radix"' "$TMP/out")" "24 24" \
	"knomial records carry chunk, window and radix (2 by default), the others no radix"
is "$(grep '"algorithm":"r[ie][nc][gd]' "$TMP/out" | grep -c '"chunk":768,"window":2,')" 24 \
	"ring and recdbl records carry chunk and window"
like "$TMP/err" '^allreduce +recdbl +locality +1000 .* yes int32 sum$' "table row on stderr"

# Radix 4, a window of 3, doubles, chunks of 64 elements.
kernel_run 9 -t rma -w 4 -c bcast,gather,reduce,allreduce -a knomial --radix 4 --window 3 \
	--dtype double --op sum,min -m 8K,24 --chunk 512 -i 2 -x 1
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 12 true" \
	"radix 4, window 3, doubles: 12 records, all valid"
is "$(json_field "$TMP/out" radix | sort -u) $(json_field "$TMP/out" window | sort -u)" "4 3" \
	"radix and window recorded"

# Without -a, the algorithms of before: no schedule; no chunk on bcast
# direct (one read, a write per host), the chunk on allgather's leader and
# allin, which now go chunk by chunk (a chunk of the whole block is the
# paper's form, and moves the same bytes).
kernel_run 6 -t rma -w 1 -c bcast,allgather -m 4K -i 2 -x 0
is "$(json_field "$TMP/out" algorithm | tr '\n' ' ')" "direct leader allin " \
	"no -a: direct, leader, allin as before"
is "$(grep '"collective":"bcast"' "$TMP/out" | grep -c '"chunk"') $(grep '"collective":"allgather"' "$TMP/out" | grep -c '"chunk":65536,"window":2')" "0 2" \
	"bcast direct carries no chunk; allgather leader and allin the default 64K, window 2"
# gather direct and allgather leader/allin chunk by chunk: chunks of 1
# byte up to a whole block, windows 1 and 3, every assignment, validated.
kernel_run 7 -t rma -w 2 -c gather,allgather -a direct,leader,allin -A block,cyclic -m 24K \
	--chunk 1K,5000,24K --window 1,3 -i 2 -x 0
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 36 true" \
	"gather direct, allgather leader and allin pipelined: 3 algorithms x 2 assignments x 3 chunks x 2 windows, all valid"

# The fault: the first worker writing to a host flips a byte of that write.
SWEETSPOT_FAULT=flip-byte
export SWEETSPOT_FAULT
kernel_run 8 -t rma -w 3 -c allgather -a ring -m 4K --chunk 1K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid)" "1 false" "allgather ring, flip-byte: exit 1, invalid"
kernel_run 8 -t rma -w 3 -c allreduce -a recdbl --dtype int64 -m 4K --chunk 1K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid)" "1 false" "allreduce recdbl, flip-byte: exit 1, invalid"
like "$TMP/err" 'INVALID.*first bad byte at offset' "said on stderr"
unset SWEETSPOT_FAULT

# Two fake nodes: TCP, the pt2pt one-sided component (no shared memory):
# every hop between workers travels as MPI_Rput/MPI_Rget and is signalled.
trap 'rm -rf "$TMP" /dev/shm/ompi-kA /dev/shm/ompi-kB' EXIT
printf 'kA slots=4\nkB slots=4\n' >"$TMP/hostfile"
mpirun_run 8 --mca plm_rsh_agent "$ROOT/tests/testbed/fake-ssh" --mca btl self,tcp \
	--mca osc pt2pt --hostfile "$TMP/hostfile" --map-by node \
	"$KERNEL" -t rma -w 3 -c bcast,gather,allgather,allreduce -a knomial,ring,recdbl -A locality \
	-m 4K --chunk 1K -i 2 -x 1
is "$?" 0 "two fake nodes, every schedule: exit 0"
is "$(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "7 true" \
	"two fake nodes: 7 points, all valid"

kernel_run 6 -w 1 -c gather -a ring
is "$? $(grep -c '^sweetspot-kernel:' "$TMP/err")" "2 1" "gather ring: exit 2, one message"
like "$TMP/err" 'no listed algorithm applies to gather .direct or knomial.' "says which apply"
kernel_run 6 -w 1 -c bcast --radix 1
like "$TMP/err" '--radix: 1 is out of range' "--radix 1 is refused"

done_testing
