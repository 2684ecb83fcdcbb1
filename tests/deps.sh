#!/bin/sh
# tests/deps.sh: installs the Debian 12 packages that building and testing
# sweetspot need (as root; apt-get update first). Used by the README's two
# commands and by .ci/run. Does nothing when everything is already there.
set -eu
# What each group is for; a fresh minimal Debian 12 root (.ci/fresh-root.sh)
# proves the list is whole.
PKGS="build-essential pkg-config libconfig-dev libsqlite3-dev libjansson-dev
openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin
mpich libmpich-dev libsimgrid-dev
slurm-wlm slurmctld slurmd slurm-client munge
libibverbs-dev rdma-core ibverbs-utils ibverbs-providers perftest
qemu-system-x86 busybox-static kmod cpio
clang libclang-rt-14-dev llvm clang-format
sqlite3 gnuplot-nox iproute2 procps time mandoc bsdextrautils
chromium"
# build: the tuner (libconfig, SQLite, Jansson) and the kernel;
# Open MPI with PMIx, MPICH (hydra), SimGrid (SMPI): the kernel's runtimes;
# Slurm and munge: the mini-cluster of tests/testbed/slurm-cluster.sh;
# verbs, and qemu with what its guest's initramfs is made of: the Soft-RoCE
# guest (tests/testbed/rxe/);
# clang, its sanitizer and libFuzzer runtimes (libclang-rt-14-dev), and
# llvm-symbolizer (llvm), without which LeakSanitizer sees no function names
# and tests/fuzz/lsan.supp matches nothing: the ASan build and the fuzzers;
# clang-format, which tests/cli/style.t holds every C file to;
# the command-line tools the tests and `make demo` call (bsdextrautils: col,
# for the man-page checks); chromium, which report.t renders the report
# page with.
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "sweetspot: installing:$missing" >&2
# Another apt (unattended upgrades, a second CI job) may hold the dpkg lock:
# wait for it, up to 20 minutes, instead of failing at once.
LOCKWAIT="-o DPkg::Lock::Timeout=1200"
# apt-get update does not wait for the lists lock: retry while another apt
# holds it (and only then), up to the same 20 minutes.
tries=0
until out=$($SUDO apt-get $LOCKWAIT update -qq 2>&1); do
	case $out in
	*"Could not get lock"*|*"Unable to lock"*) ;;
	*) printf '%s\n' "$out" >&2; exit 1 ;;
	esac
	tries=$((tries + 1))
	[ "$tries" -lt 240 ] || { printf '%s\n' "$out" >&2; exit 1; }
	echo "sweetspot: another apt holds the package lists' lock; waiting" >&2
	sleep 5
done
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get $LOCKWAIT install -y -qq --no-install-recommends $missing >/dev/null
