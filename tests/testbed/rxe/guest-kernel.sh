# tests/testbed/rxe/guest-kernel.sh: the kernel suite over verbs, sourced
# by guest-verbs.sh inside the Soft-RoCE guest (so mpi, one_message, the
# TAP functions and $TMP are there). Every collective x algorithm x
# assignment at small sizes, validated, with the data over rxe0 and MPI
# only for control; the byte-flip fault caught by validation; the bad-key
# fault ending in a completion error; bad verbs options ending with exit 2.
. "$SWEETSPOT_ROOT/tests/cli/kernel-lib.sh"

kmpi() { mpi "$@" >"$TMP/out" 2>"$TMP/err"; }

# 5 ranks: 3 hosts, 2 workers (3 is divisible by neither 2 nor the cyclic
# stride, so block, cyclic and locality all differ).
# 24 points of 5 ranks on 2 emulated CPUs: the one long run, with a
# longer limit of its own (about 100 s on an idle machine).
small_limit=$LIMIT
LIMIT=$((LIMIT * 5))
kmpi -np 5 "$KERNEL" -t verbs -w 2 -c bcast,gather,allgather -A block,cyclic,locality \
	-m 4K,64K -i 3 -x 1
rc=$?
LIMIT=$small_limit
is "$rc" 0 "kernel over verbs: every collective x algorithm x assignment at 4K and 64K ran and validated"
[ "$rc" = 0 ] || sed 's/^/#   /' "$TMP/err" | tail -20
# bcast 1 + gather 1 + allgather 2 algorithms, x 3 assignments x 2 sizes
is "$(wc -l <"$TMP/out" | tr -d ' ')" 24 "  ... 24 records"
is "$(json_field "$TMP/out" valid | sort -u)" true "  ... every record valid"
is "$(json_field "$TMP/out" transport | sort -u) $(json_field "$TMP/out" device | sort -u)" "verbs rxe0" \
	"  ... every record says transport verbs, device rxe0"
is "$(check_records "$TMP/out")" "" "  ... formulas match raw times, all fields present"

# alltoall over verbs: every pair's block from its source host to its
# destination, 3 assignments x 2 sizes, in chunks, every byte checked.
LIMIT=$((small_limit * 3))
kmpi -np 5 "$KERNEL" -t verbs -w 2 -c alltoall -A block,cyclic,locality -m 4K,64K --chunk 16K -i 3 -x 1
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 6 true" \
	"alltoall over verbs: 6 records, exit 0, every one valid"
LIMIT=$small_limit
SWEETSPOT_FAULT=flip-byte kmpi -np 5 "$KERNEL" -t verbs -w 2 -c alltoall -m 4K,8K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid | tr '\n' ' ')" "1 false true " \
	"alltoall: SWEETSPOT_FAULT=flip-byte over verbs is caught, exit 1"

# The workers' schedules over verbs: alltoall pairwise (a step from
# worker to worker in one message) and scan, exscan recdbl (partials read
# from other workers in rounds), 3 assignments, every byte and element
# checked.
kmpi -np 5 "$KERNEL" -t verbs -w 2 -c alltoall,scan,exscan -a pairwise,recdbl -A block,cyclic,locality \
	-m 4K --chunk 16K --dtype int64 --op sum -i 3 -x 1
is "$? $(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "0 9 true" \
	"alltoall pairwise, scan and exscan recdbl over verbs: 9 records, exit 0, every one valid"

# --transport auto takes verbs where a device is up.
kmpi -np 3 "$KERNEL" -t auto -c gather -m 8K -i 2 -x 1
is "$? $(json_field "$TMP/out" transport) $(json_field "$TMP/out" device)" "0 verbs rxe0" \
	"--transport auto picks verbs on rxe0"

# A corrupted byte in flight over verbs is caught by the validation.
SWEETSPOT_FAULT=flip-byte kmpi -np 5 "$KERNEL" -t verbs -w 2 -c bcast -m 4K,8K -i 3 -x 1
is "$? $(json_field "$TMP/out" valid | tr '\n' ' ')" "1 false true " \
	"SWEETSPOT_FAULT=flip-byte over verbs: first point invalid, exit 1"

# A verbs operation that fails: a completion error naming peer, operation
# and status, a nonzero exit, no hang (mpi's time limit would say 124).
SWEETSPOT_FAULT=bad-rkey kmpi -np 3 "$KERNEL" -t verbs -c bcast -m 4K -i 2 -x 1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]; then pass "SWEETSPOT_FAULT=bad-rkey: the kernel exits $rc, no hang"
else fail "SWEETSPOT_FAULT=bad-rkey: the kernel exits $rc"; sed 's/^/#   /' "$TMP/err" | head; fi
like "$TMP/err" 'rank [0-9]: RDMA (READ|WRITE) to rank [0-9] failed: remote access error' \
	"  ... with a completion error naming the peer rank, the operation and the status"
is "$(wc -c <"$TMP/out" | tr -d ' ')" 0 "  ... and no record"

# The kernel's own verbs options: bad ones end with one message and exit 2.
exits_with 2 "kernel --device nosuch0: exit 2" mpi -np 3 "$KERNEL" -t verbs --device nosuch0 -m 4K
one_message "no RDMA device named 'nosuch0'" "  ... one clear message"
exits_with 2 "kernel --gid-index 4096: exit 2" mpi -np 3 "$KERNEL" -t verbs --gid-index 4096 -m 4K
one_message 'GID index 4096 is out of range' "  ... one clear message"
exits_with 0 "kernel --device rxe0 --ib-port 1 --gid-index 1: runs" \
	mpi -np 3 "$KERNEL" -t verbs --device rxe0 --ib-port 1 --gid-index 1 -c gather -m 4K -i 2 -x 1
