#!/bin/sh
# tests/testbed/rxe/run.sh: the guest's PID 1 after switch_root. Makes the
# overlay root usable (tmpfs on /run and /dev/shm; /tmp stays the
# overlay, so host paths under /tmp remain visible; loopback up, a host
# name), brings up Soft-RoCE (rdma_rxe, rxe0 on lo), runs the script named by
# TESTSCRIPT with its TAP going to /out/tap and its exit status to
# /out/status, then always powers the guest off: PID 1 must never exit.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/root

mount -t tmpfs tmpfs /run
mkdir -p /dev/shm /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t devpts devpts /dev/pts
hostname sweetspot-guest
ip link set lo up

exec >/out/console 2>&1
echo "run: kernel $(uname -r), $(nproc) cpus, script $TESTSCRIPT"
status=1
if ! modprobe rdma_rxe; then
	echo "run: modprobe rdma_rxe failed"
elif ! rdma link add rxe0 type rxe netdev lo; then
	echo "run: rdma link add rxe0 failed"
else
	sh "$TESTSCRIPT" >/out/tap.part 2>/out/stderr
	status=$?
	mv /out/tap.part /out/tap
fi
echo "$status" >/out/status
sync
echo o >/proc/sysrq-trigger
sleep 60
