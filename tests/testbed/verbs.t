#!/bin/sh
# tests/testbed/verbs.t: verbs for real. This machine has no RDMA device, so
# the test boots a Soft-RoCE guest (tests/testbed/rxe/: Debian's kernel
# fetched with apt, this machine's root over 9p) and relays the TAP of
# tests/testbed/rxe/guest-verbs.sh, which runs inside it. Also proves the
# host-side time limit: a guest that hangs is killed and reported as a
# failure. Skips (with the reason) only when qemu, mpicc or the kernel
# package cannot be had here.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
RXE=$ROOT/tests/testbed/rxe
LIMIT=${SWEETSPOT_GUEST_LIMIT:-900}

command -v qemu-system-x86_64 >/dev/null 2>&1 || skip_all "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
command -v mpicc >/dev/null 2>&1 || skip_all "no mpicc (apt-get install libopenmpi-dev)"
case $ROOT in *[[:space:]]*) skip_all "the repository path has a blank, which a kernel command line cannot carry" ;; esac
"$RXE/prepare.sh" >"$TMP/prepare.out" 2>"$TMP/prepare.err"
case $? in
0) ;;
77) skip_all "$(tail -1 "$TMP/prepare.err")" ;;
*) echo "1..1"; fail "prepare the guest's kernel and initramfs"; sed 's/^/# /' "$TMP/prepare.err"; exit 1 ;;
esac

# relay OUTDIR SECONDS SCRIPT [NAME=VALUE...]: boots the guest and turns
# what it wrote into TAP lines of this test: each guest result is relayed,
# a guest that was killed, died, or printed fewer results than it planned
# is one failure more.
relay() {
	relay_out=$1 relay_limit=$2
	"$RXE/boot.sh" "$@" 2>"$TMP/boot.err"
	relay_rc=$?
	relay_plan=
	relay_tap=$relay_out/tap
	[ -r "$relay_tap" ] || relay_tap=$relay_out/tap.part
	if [ -r "$relay_tap" ]; then
		relay_n=0
		while IFS= read -r line; do
			case $line in
			"ok "*"# skip"*|"ok "*"# SKIP"*) relay_n=$((relay_n + 1)); skip "${line#*# [sS][kK][iI][pP] }" ;;
			"ok "*) relay_n=$((relay_n + 1)); pass "guest: ${line#ok [0-9]* - }" ;;
			"not ok "*) relay_n=$((relay_n + 1)); fail "guest: ${line#not ok [0-9]* - }" ;;
			"1.."*) relay_plan=${line#1..} ;;
			*) echo "$line" ;;
			esac
		done <"$relay_tap"
	fi
	case $relay_rc in
	0) if [ -n "$relay_plan" ] && [ "$relay_plan" = "$relay_n" ]; then
		pass "the guest ran its script to the end and powered off"
	   else
		fail "the guest ran its script to the end and powered off"
		diag "the guest script stopped early (status $(cat "$relay_out/status" 2>/dev/null))"
		sed 's/^/#   stderr: /' "$relay_out/stderr" 2>/dev/null | tail -20
	   fi ;;
	124) fail "the guest finished within ${relay_limit}s (it was killed: a hang)"
	     sed 's/^/#   serial: /' "$relay_out/serial" 2>/dev/null | tail -5 ;;
	*) fail "the guest booted and ran its script"
	   sed 's/^/#   /' "$TMP/boot.err"
	   sed 's/^/#   serial: /' "$relay_out/serial" 2>/dev/null | tail -20 ;;
	esac
	return "$relay_rc"
}

# The verbs options are checked before MPI_Init, on any machine.
with_fault() ( SWEETSPOT_FAULT=$1; export SWEETSPOT_FAULT; shift; mpirun_local "$@" )
if [ -x "$BIN/sweetspot-kernel" ]; then
	exits_with 2 "kernel --ib-port 0: exit 2" mpirun_local -np 2 "$BIN/sweetspot-kernel" --ib-port 0
	like "$TMP/err" '^sweetspot-kernel: --ib-port: ' "  ... says why"
	exits_with 2 "kernel --gid-index -1: exit 2" mpirun_local -np 2 "$BIN/sweetspot-kernel" --gid-index -1
	like "$TMP/err" '^sweetspot-kernel: --gid-index: ' "  ... says why"
	exits_with 2 "SWEETSPOT_FAULT=bad-key (misspelt): exit 2" \
		with_fault bad-key -np 2 "$BIN/sweetspot-kernel"
	like "$TMP/err" "unknown fault in SWEETSPOT_FAULT 'bad-key' \\(one of: flip-byte, hang, bad-rkey\\)" "  ... names the faults"
	# This machine itself has no RDMA device (which is why the guest exists).
	if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		exits_with 2 "-t verbs on a machine without a device: exit 2" \
			mpirun_local -np 2 "$BIN/sweetspot-kernel" -t verbs -m 4K
		like "$TMP/err" 'no RDMA device with an active port here' "  ... says so"
	else
		skip "-t verbs without a device: this machine has one"
		skip "  ... says so"
	fi
fi

# The transport's own driver, built here: host binaries run unchanged in
# the guest, which sees this machine's root.
G=$TMP/guest
mkdir -p "$G"
if ! mpicc -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 \
	-I"$ROOT/kernels" -I"$ROOT/common" -o "$G/xport-check" "$RXE/xport-check.c" \
	"$ROOT/kernels/transport_verbs.c" "$ROOT/common/xalloc.c" -libverbs 2>"$TMP/cc.err"; then
	fail "build xport-check"; sed 's/^/# /' "$TMP/cc.err"
fi

# A guest that hangs is killed by the time limit and reported as a failure.
H=$TMP/hang
mkdir -p "$H"
(relay "$H" 20 "$RXE/hang.sh") >"$TMP/hang.tap" 2>&1
hang_rc=$?
is "$hang_rc" 124 "a hanging guest is killed at the time limit (boot.sh exits 124)"
like "$TMP/hang.tap" '^not ok .*finished within 20s \(it was killed: a hang\)' "  ... and reported as a TAP failure"
[ -e "$H/status" ] && fail "  ... the hanging script never finished" || pass "  ... the hanging script never finished"

# The real run.
relay "$G" "$LIMIT" "$RXE/guest-verbs.sh" "SWEETSPOT_ROOT=$ROOT"
echo "1..$tap_n"
done_testing
