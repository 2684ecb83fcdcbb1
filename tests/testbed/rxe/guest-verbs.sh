#!/bin/sh
# tests/testbed/rxe/guest-verbs.sh: the test script the Soft-RoCE guest runs
# (through run.sh, with rxe0 already on lo). Prints TAP on stdout, which
# run.sh saves in /out/tap for tests/testbed/verbs.t to relay. Checks the
# device with the stock tools (ibv_devinfo, ibv_rc_pingpong, ib_write_bw),
# then the verbs transport itself through /out/xport-check, its bad-input
# errors and its failure fault, then (when bin/sweetspot-kernel exists) the
# kernel suite over verbs. Every command runs under a time limit, so a hang
# costs one test, not the boot.
. "$SWEETSPOT_ROOT/tests/lib/tap.sh"
OUT=/out
XCHECK=$OUT/xport-check
LIMIT=${GUEST_CMD_LIMIT:-60}
# MPI carries only control here (shared memory / TCP on lo); the data goes
# over verbs. UCX and the openib BTL would try rxe0 themselves: keep them off.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_osc=pt2pt
mpi() { timeout -k 5 "$LIMIT" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_tcp_if_include=lo \
	OMPI_MCA_oob_tcp_if_include=lo mpirun "$@"; }
t() { timeout -k 5 "$LIMIT" "$@"; }

# one_message REGEX DESCRIPTION: $TMP/err (stderr of the last exits_with)
# has exactly one line matching, i.e. only rank 0 said it.
one_message() {
	n=$(grep -Ec -- "$1" "$TMP/err")
	if [ "$n" = 1 ]; then pass "$2"; else
		fail "$2"; diag "$n lines match /$1/ in:"; sed 's/^/#   | /' "$TMP/err" | head -20; fi
}

# Two-process tools: server in the background, client against localhost.
pair() {
	name=$1; shift
	t "$@" >"$TMP/$name.server" 2>&1 &
	spid=$!
	# The server may take a while to listen on a busy emulated machine:
	# retry the connection while it is still there to be reached.
	tries=0
	while :; do
		sleep 1
		t "$@" localhost >"$TMP/$name.client" 2>&1
		crc=$?
		tries=$((tries + 1))
		[ $crc -ne 0 ] && [ $tries -lt 20 ] && kill -0 $spid 2>/dev/null &&
			grep -q "Couldn't connect" "$TMP/$name.client" || break
	done
	wait $spid
	src=$?
	[ $crc -eq 0 ] && [ $src -eq 0 ] && return 0
	diag "$name: client exit $crc, server exit $src"
	sed 's/^/#   client: /' "$TMP/$name.client" | tail -5
	sed 's/^/#   server: /' "$TMP/$name.server" | tail -5
	return 1
}

echo "# guest: $(uname -r), $(nproc) cpus"

## The device, with the stock tools.
t ibv_devinfo -d rxe0 >"$TMP/devinfo" 2>&1
like "$TMP/devinfo" 'state:[[:space:]]+PORT_ACTIVE' "ibv_devinfo: rxe0 port 1 is active"
ok "ibv_rc_pingpong between two processes over rxe0 (GID 1)" pair pingpong ibv_rc_pingpong -d rxe0 -g 1 -n 100
ok "ib_write_bw between two processes over rxe0" pair writebw ib_write_bw -d rxe0 -x 1 -F -s 65536 -n 200
like "$TMP/writebw.client" '^ *65536 +200 ' "ib_write_bw reports its 65536-byte row"

## The transport on its own.
if [ ! -x "$XCHECK" ]; then
	skip "no $XCHECK (verbs.t builds it)"
else
	exits_with 0 "xport-check: 3 ranks, default device and GID, 1 MiB in 4 KiB writes and reads" \
		mpi -np 3 "$XCHECK" --bytes 1048576 --chunk 4096
	like "$TMP/out" 'on rxe0, 1048576 bytes .*write ok, read ok' "  ... every byte arrived over rxe0"
	exits_with 0 "xport-check: 2 ranks, --device rxe0 --ib-port 1 --gid-index 1, odd sizes" \
		mpi -np 2 "$XCHECK" --device rxe0 --ib-port 1 --gid-index 1 --bytes 300001 --chunk 77777
	exits_with 0 "xport-check: one 64 KiB write each way, under the signalling interval" \
		mpi -np 2 "$XCHECK" --bytes 65536 --chunk 65536

	# Bad input: exit 2, one message (rank 0 only), nothing sent.
	exits_with 2 "unknown --device: exit 2" mpi -np 2 "$XCHECK" --device nosuch0
	one_message "no RDMA device named 'nosuch0' \\(devices here: rxe0" "  ... one clear message"
	exits_with 2 "GID index out of range: exit 2" mpi -np 2 "$XCHECK" --gid-index 4096
	one_message 'GID index 4096 is out of range: port 1 of rxe0 has [0-9]+ GIDs' "  ... one clear message"
	exits_with 2 "--ib-port 2 on a one-port device: exit 2" mpi -np 2 "$XCHECK" --device rxe0 --ib-port 2
	one_message '--ib-port 2: rxe0 has 1 port$' "  ... one clear message"
	# A port that is down: a second rxe on a dummy link that stays down.
	if modprobe dummy 2>/dev/null && ip link add sweet0 type dummy &&
		rdma link add rxe1 type rxe netdev sweet0; then
		exits_with 2 "port down: exit 2" mpi -np 2 "$XCHECK" --device rxe1
		one_message 'port 1 of rxe1 is down, not active' "  ... one clear message"
		exits_with 0 "default device skips rxe1 (port down) and takes rxe0" \
			mpi -np 2 "$XCHECK" --bytes 65536
		rdma link delete rxe1
		ip link delete sweet0
	else
		fail "port down: could not make a second rxe device on a dummy link"
	fi

	# A failing verbs operation: a clear completion error, nonzero exit,
	# within the time limit (exits_with reports 124 if it hung).
	SWEETSPOT_FAULT=bad-rkey mpi -np 2 "$XCHECK" --bytes 65536 >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]; then pass "SWEETSPOT_FAULT=bad-rkey: nonzero exit ($rc), no hang"
	else fail "SWEETSPOT_FAULT=bad-rkey: exit $rc"; sed 's/^/#   /' "$TMP/err" | head; fi
	like "$TMP/err" 'rank [01]: RDMA WRITE to rank [01] failed: remote access error' \
		"  ... the completion error names the peer rank, the operation and the status"
fi

KERNEL=$SWEETSPOT_ROOT/bin/sweetspot-kernel
SUITE=$SWEETSPOT_ROOT/tests/testbed/rxe/guest-kernel.sh
if [ -x "$KERNEL" ] && [ -r "$SUITE" ]; then
	. "$SUITE"
else
	skip "the kernel suite over verbs: no bin/sweetspot-kernel yet"
fi

# Last: with no device at all, the same one message and exit 2.
rdma link delete rxe0
if [ -x "$XCHECK" ]; then
	exits_with 2 "no RDMA device: exit 2" mpi -np 2 "$XCHECK"
	one_message 'no RDMA device found' "  ... one clear message"
fi
echo "1..$tap_n"
done_testing
