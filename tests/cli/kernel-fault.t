#!/bin/sh
# tests/cli/kernel-fault.t: the validation catches a corrupted transfer, and
# the hang switch really hangs (for launchers' time limits). With
# SWEETSPOT_FAULT=flip-byte one worker flips the middle byte of the first
# block it writes, in the last iteration of the first point only.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 18

SWEETSPOT_FAULT=flip-byte
export SWEETSPOT_FAULT
# bcast, 5 hosts, 2 workers, block: worker 0 serves hosts 0-1 and 4 and
# writes first to host 1; its result starts after the 8K send area, so the
# middle byte of the 4K block is at 8192 + 2048.
kernel_run 7 -t rma -w 2 -c bcast -m 4K,8K -i 3 -x 1
is "$?" 1 "bcast: a corrupted byte makes the exit status 1"
is "$(json_field "$TMP/out" valid | tr '\n' ' ')" "false true " "bcast: first point invalid, second valid"
is "$(head -1 "$TMP/out" | grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*')" \
	'"bad_rank":1,"bad_source":0,"bad_offset":10240' "bcast: the rank, source and first bad offset"
like "$TMP/err" 'INVALID.*rank 1, first bad byte at offset 10240' "bcast: said on stderr"

# gather: the worker's first write is host 0's block into the root.
kernel_run 7 -t rma -w 2 -c gather -m 4K -i 3 -x 1
is "$?" 1 "gather: exit status 1"
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":0,"bad_source":0,"bad_offset":6144' "gather: root, block of rank 0, offset 4096 + 2048"

# allgather allin, cyclic: worker 0 first writes host 0's block to host 0.
kernel_run 7 -t rma -w 2 -c allgather -a allin -A cyclic -m 4K -i 3 -x 1
is "$?" 1 "allgather allin: exit status 1"
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":0,"bad_source":0,"bad_offset":6144' "allgather allin: host 0, its own block"

# allgather leader: the leader's first write is the whole result to host 0.
kernel_run 7 -t rma -w 2 -c allgather -a leader -m 4K -i 3 -x 1
is "$?" 1 "allgather leader: exit status 1"
is "$(grep -o '"bad_rank":[0-9]*,"bad_source":[0-9]*,"bad_offset":[0-9]*' "$TMP/out")" \
	'"bad_rank":0,"bad_source":2,"bad_offset":14336' "allgather leader: host 0, middle of the 5 blocks"

# Without the fault the same run is valid (the fault, not the kernel, broke it).
SWEETSPOT_FAULT=
kernel_run 7 -t rma -w 2 -c allgather -a leader -m 4K -i 3 -x 1
is "$?" 0 "no fault: exit status 0"
is "$(json_field "$TMP/out" valid)" true "no fault: valid"

# --no-validate skips the check, so the same fault goes unseen.
SWEETSPOT_FAULT=flip-byte
kernel_run 7 -t rma -w 2 -c bcast -m 4K -i 3 -x 1 --no-validate
is "$? $(json_field "$TMP/out" valid)" "0 true" "--no-validate: no check, exit 0"

# hang: rank 0 sleeps after setup; a time limit must end it (124 = timed
# out). Meanwhile ranks 1 and 2 wait for it in a barrier: they must not
# spin. Load-proof: no CPU time and no sleeps. A process that spins never
# sleeps (its state is never S) and makes no voluntary context switch; one
# that backs off or sleeps does one or the other. Each kernel process is
# sampled until it has shown that it waits (generous deadlines, polled).
SWEETSPOT_FAULT=hang
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
	timeout -k 5 30 mpirun -np 3 "$KERNEL" -t rma -m 4K -i 2 -x 0 >"$TMP/out" 2>"$TMP/err" &
job=$!
# The three ranks, once they are all there (up to 25 s on a loaded machine).
n=0
for i in $(seq 250); do
	n=$(pgrep -f "^$KERNEL" | wc -l)
	[ "$n" -ge 3 ] && break
	sleep 0.1
done
# Each rank: seen asleep (S) or its voluntary switches grew, within 500 polls.
waits() {
	v0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	for i in $(seq 500); do
		st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)
		v=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -z "$st" ] && return 1
		[ "$st" = S ] && return 0
		[ -n "$v0" ] && [ "$v" -gt "$v0" ] && return 0
		sleep 0.01
	done
	return 1
}
spinning=
for p in $(pgrep -f "^$KERNEL"); do
	waits "$p" || spinning="$spinning $p"
done
wait $job
is "$?" 124 "hang: still running at the time limit"
is "$(wc -c <"$TMP/out" | tr -d ' ')" 0 "hang: no record"
is "$n" 3 "hang: the 3 ranks were running"
is "$spinning" "" "waiting ranks do not spin: each was seen asleep or yielding"
gone=no
for i in $(seq 300); do
	pgrep -f "^$KERNEL" >/dev/null || { gone=yes; break; }
	sleep 0.1
done
is "$gone" yes "hang: no kernel left running"
unset SWEETSPOT_FAULT
done_testing
