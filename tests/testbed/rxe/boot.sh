#!/bin/sh
# tests/testbed/rxe/boot.sh: boots the Soft-RoCE guest once to run one test
# script, under a host-side time limit.
#
#   boot.sh OUTDIR SECONDS SCRIPT [NAME=VALUE...]
#
# SCRIPT (an absolute path on this machine, which the guest sees as its own
# root) runs inside the guest with rxe0 up and the NAME=VALUE pairs in its
# environment; its stdout lands in OUTDIR/tap, its stderr in OUTDIR/stderr,
# its exit status in OUTDIR/status, the guest's serial console in
# OUTDIR/serial. Exit status: 0 when the guest ran the script and powered
# off, 124 when the time limit killed it, 77 when qemu or the kernel cannot
# be had here (reason on stderr), 1 on any other failure.
set -u
[ $# -ge 3 ] || { echo "usage: boot.sh OUTDIR SECONDS SCRIPT [NAME=VALUE...]" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
out=$1 limit=$2 script=$3
shift 3
command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "boot: no qemu-system-x86_64 here" >&2; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "boot: no timeout(1) here" >&2; exit 77; }
case $script in /*) ;; *) echo "boot: $script is not an absolute path" >&2; exit 1 ;; esac
# The kernel command line splits on blanks: refuse what it cannot carry.
for a in "$script" "$@"; do
	case $a in *[[:space:]\"]*) echo "boot: '$a' has a blank or quote" >&2; exit 1 ;; esac
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
rm -f "$out/tap" "$out/status" "$out/stderr" "$out/console" "$out/serial"

files=$("$HERE/prepare.sh")
rc=$?
[ $rc -eq 0 ] || exit $rc
kernel=$(echo "$files" | sed -n 's/^KERNEL=//p')
initrd=$(echo "$files" | sed -n 's/^INITRD=//p')
modules=$(echo "$files" | sed -n 's/^MODULES=//p')

# TCG (this machine is itself a guest, so no KVM for a stock kernel);
# panic=-1 and -no-reboot turn a guest panic into qemu exiting.
timeout -k 5 "$limit" qemu-system-x86_64 \
	-accel tcg,thread=multi -cpu max -smp 2 -m 2G \
	-display none -monitor none -serial "file:$out/serial" -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 quiet RXE_RUN=$HERE/run.sh TESTSCRIPT=$script $*" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$modules,mount_tag=kmods,security_model=none,readonly=on" \
	-virtfs "local,path=$out,mount_tag=out,security_model=none" \
	-nic none </dev/null
rc=$?
case $rc in
0) [ -e "$out/status" ] || { echo "boot: the guest stopped without running $script" >&2; exit 1; } ;;
124|137) echo "boot: time limit of ${limit}s reached; guest killed" >&2; exit 124 ;;
*) echo "boot: qemu exited with status $rc" >&2; exit 1 ;;
esac
