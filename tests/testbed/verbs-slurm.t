#!/bin/sh
# tests/testbed/verbs-slurm.t: verbs under Slurm, for real, in one test (the
# design card's whole sentence). Boots the Soft-RoCE guest
# (tests/testbed/rxe/: Debian's kernel, this machine's root over 9p, rxe0 on
# lo) with tests/testbed/rxe/guest-slurm.sh, which brings up a Slurm
# cluster inside the guest (munge, slurmctld, slurmd n1 and its DPU n1-bf,
# mpi/pmix), runs `sweetspot submit --wait` of
# tests/data/specs/verbs-slurm.cfg (transport verbs, launcher srun: the
# job's launches are `srun --mpi=pmix` of the kernels, hosts on n1 and
# workers on n1-bf), and checks `sweetspot results --json` (every point
# valid, "transport":"verbs", "device":"rxe0") and `sweetspot recommend`.
# This test relays the guest's TAP, one line per check, then reads the
# results the guest left in the shared folder once more itself. The guest
# runs under a host-side time limit (SWEETSPOT_GUEST_LIMIT, 900 s): a hang
# is a failure, never a wait. Skips (with the reason) only when qemu or the
# guest's kernel cannot be had here.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
RXE=$ROOT/tests/testbed/rxe
LIMIT=${SWEETSPOT_GUEST_LIMIT:-900}

command -v qemu-system-x86_64 >/dev/null 2>&1 || skip_all "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
case $ROOT in *[[:space:]]*) skip_all "the repository path has a blank, which a kernel command line cannot carry" ;; esac
"$RXE/prepare.sh" >"$TMP/prepare.out" 2>"$TMP/prepare.err"
case $? in
0) ;;
77) skip_all "$(tail -1 "$TMP/prepare.err")" ;;
*) echo "1..1"; fail "prepare the guest's kernel and initramfs"; sed 's/^/# /' "$TMP/prepare.err"; exit 1 ;;
esac

# What the guest runs is this repository's build: without it the test
# fails (make builds it before make check runs the tests).
for b in sweetspot sweetspot-kernel; do
	[ -x "$BIN/$b" ] || fail "bin/$b is built (run make)"
done
if [ "$tap_failed" -gt 0 ]; then
	echo "1..$tap_n"
	exit 1
fi

G=$TMP/guest
mkdir -p "$G"
start=$(date +%s)
"$RXE/boot.sh" "$G" "$LIMIT" "$RXE/guest-slurm.sh" "SWEETSPOT_ROOT=$ROOT" 2>"$TMP/boot.err"
boot_rc=$?
diag "guest: $(($(date +%s) - start)) s from boot to power-off (status $boot_rc)"

# The guest's own checks, each relayed as one of this test's.
guest_plan= guest_n=0
tap=$G/tap
[ -r "$tap" ] || tap=$G/tap.part
if [ -r "$tap" ]; then
	while IFS= read -r line; do
		case $line in
		"ok "*"# skip"*|"ok "*"# SKIP"*) guest_n=$((guest_n + 1)); skip "guest: ${line#*# [sS][kK][iI][pP] }" ;;
		"ok "*) guest_n=$((guest_n + 1)); pass "guest: ${line#ok [0-9]* - }" ;;
		"not ok "*) guest_n=$((guest_n + 1)); fail "guest: ${line#not ok [0-9]* - }" ;;
		"1.."*) guest_plan=${line#1..} ;;
		*) echo "$line" ;;
		esac
	done <"$tap"
fi
case $boot_rc in
0)
	if [ -n "$guest_plan" ] && [ "$guest_plan" = "$guest_n" ]; then
		pass "the guest ran all $guest_plan of its checks and powered off"
	else
		fail "the guest ran all ${guest_plan:-its} checks and powered off"
		diag "the guest script ran $guest_n checks, exit status $(cat "$G/status" 2>/dev/null)"
		sed 's/^/#   stderr: /' "$G/stderr" 2>/dev/null | tail -20
	fi ;;
124)
	fail "the guest finished within ${LIMIT}s (it was killed: a hang)"
	sed 's/^/#   stderr: /' "$G/stderr" 2>/dev/null | tail -20
	sed 's/^/#   console: /' "$G/console" 2>/dev/null | tail -10 ;;
*)
	fail "the guest booted and ran its script"
	sed 's/^/#   /' "$TMP/boot.err"
	sed 's/^/#   serial: /' "$G/serial" 2>/dev/null | tail -20 ;;
esac
# A failure's Slurm side: the daemons' logs the guest copied out.
if [ "$tap_failed" -gt 0 ]; then
	for f in "$G"/slurm/*.log "$G/job.out"; do
		[ -r "$f" ] && tail -15 "$f" | sed "s|^|#   ${f##*/}: |"
	done
fi

# The results as the guest's `sweetspot results --json` printed them, read
# here once more: every point of the plan, over verbs on rxe0, valid.
want=$(sweetspot plan "$ROOT/tests/data/specs/verbs-slurm.cfg" --json 2>/dev/null |
	sed -n 's/.*"measurements":\([0-9]*\).*/\1/p')
R=$G/results.json
if [ -s "$R" ]; then
	is "$(grep -c '"collective":' "$R")" "$want" "host: results.json from the guest holds the plan's $want points"
	is "$(grep -c '"transport": *"verbs"' "$R") $(grep -c '"device": *"rxe0"' "$R") $(grep -c '"valid": *true' "$R")" \
		"$want $want $want" "host: each with \"transport\":\"verbs\", \"device\":\"rxe0\", valid"
else
	fail "host: the guest left results.json"
	fail "host: each with \"transport\":\"verbs\", \"device\":\"rxe0\", valid"
fi
echo "1..$tap_n"
done_testing
