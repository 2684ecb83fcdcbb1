#!/bin/sh
# tests/deps.sh: installs the Debian 12 packages that building and testing
# sweetspot need (as root; apt-get update first). Used by the README's two
# commands and by .ci/run. Does nothing when everything is already there.
set -eu
PKGS="build-essential pkg-config openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin
slurm-wlm slurmctld slurmd slurm-client munge libibverbs-dev rdma-core
ibverbs-utils ibverbs-providers perftest libconfig-dev libsqlite3-dev
libjansson-dev sqlite3 gnuplot-nox qemu-system-x86 busybox-static kmod cpio
iproute2 procps time"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "sweetspot: installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
