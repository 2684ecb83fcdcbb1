#!/bin/bash
# .ci/fresh-root.sh: proves the README's front door where nothing was
# installed by hand. A minimal Debian 12 root (debootstrap's minbase variant,
# from the Debian mirror this machine's apt uses) gets a clean clone of the
# checkout's HEAD and runs in it, as the README says, `sh tests/deps.sh &&
# make -j2`, then `make check-fresh` (every kind of product built and run
# once) and `make demo`. A package that tests/deps.sh forgets fails here, not
# on a user's machine.
#
#   .ci/fresh-root.sh ['MAKE-ARGS'...]
#
# After `sh tests/deps.sh`, one `make` per argument, given its words:
# by default '-j2' '-j2 check-fresh' '-j2 demo'; the README's two commands,
# timed apart: 'demo' '-j2' 'check'.
#
# The debootstrapped root is kept as a tarball in $SWEETSPOT_CI_CACHE
# (/var/cache/sweetspot-ci) and extracted afresh for every run, so no run
# sees what another installed; packages that apt downloads are kept there
# too (the root's /var/cache/apt/archives), but the root installs every one
# itself. On exit, whatever failed, every process running in the root is
# killed, every mount undone and the root removed (where a run was killed
# before it could, the next run does it: .ci/reap-roots.sh). Prints the
# time and disk each step took. Must run as root.
set -euo pipefail

CACHE=${SWEETSPOT_CI_CACHE:-/var/cache/sweetspot-ci}
SUITE=bookworm
# A base older than this is made again (security updates, new keyring).
MAX_AGE_DAYS=14
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- -j2 '-j2 check-fresh' '-j2 demo'

say() { echo "fresh-root: $*" >&2; }
die() {
	say "$*"
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot and mounts need it)"

# The Debian archive this machine's apt uses: the first source of $SUITE's
# main suite, in either format (one-line .list or deb822 .sources).
mirror_of() {
	local suite=$1 f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '$1 == "deb" {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++; if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == s) { print $i; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# Stanzas are separated by blank lines; comments are dropped.
		awk -v s="$suite" '
			/^#/ { next }
			/^[ \t]*$/ { if (ok && types && uri != "") { print uri; exit } ok = 0; uri = ""; types = 0; next }
			$1 == "Types:" { for (i = 2; i <= NF; i++) if ($i == "deb") types = 1 }
			$1 == "URIs:" { uri = $2 }
			$1 == "Suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { if (ok && types && uri != "") print uri }' "$f"
	done
}
MIRROR=$(mirror_of "$SUITE" | head -1)
SECURITY=$(mirror_of "$SUITE-security" | head -1)
[ -n "$MIRROR" ] || die "no source of $SUITE in /etc/apt/sources.list*"
say "mirror $MIRROR${SECURITY:+, security $SECURITY}"

t0=$(date +%s)
step_start=$t0
step() {
	local now
	now=$(date +%s)
	say "$1: $((now - step_start)) s"
	step_start=$now
}

command -v debootstrap >/dev/null 2>&1 || {
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -qq \
		--no-install-recommends debootstrap >/dev/null
}

mkdir -p "$CACHE/archives/partial"
BASE=$CACHE/$SUITE-minbase.tar
# The base root, made once and kept: made in a folder of its own and renamed
# into place, so an interrupted debootstrap never leaves a half base.
if [ ! -s "$BASE" ] || [ -n "$(find "$BASE" -mtime +$MAX_AGE_DAYS)" ]; then
	tmp=$(mktemp -d "$CACHE/base.XXXXXX")
	say "debootstrap --variant=minbase $SUITE from $MIRROR"
	if ! debootstrap --variant=minbase "$SUITE" "$tmp/root" "$MIRROR" >"$tmp/log" 2>&1; then
		tail -n 20 "$tmp/log" >&2
		rm -rf --one-file-system "$tmp"
		die "debootstrap failed"
	fi
	tar -C "$tmp/root" -cf "$tmp/base.tar" . && mv "$tmp/base.tar" "$BASE"
	rm -rf --one-file-system "$tmp"
	step "debootstrap"
fi

# Roots an earlier run could not clean up (killed with SIGKILL) go first;
# this run's root names its owner, so that a later run can tell.
bash "$SRC/.ci/reap-roots.sh" "$CACHE" || say "some earlier roots are left (above)"
WORK=$(mktemp -d "$CACHE/run.XXXXXX")
echo $$ >"$WORK/owner"
ROOT=$WORK/root

# Every process whose root is ours (what the tests started, daemons among
# them), killed until none is left; then the mounts, innermost first; then
# the root, only when nothing is mounted in it any more (reap-roots.sh
# --own: what a later run would do to a root this one could not clean).
cleanup() {
	local st=$?
	trap - EXIT INT TERM HUP
	if ! bash "$SRC/.ci/reap-roots.sh" --own "$WORK"; then
		say "left $WORK in place (see above)"
		[ $st -ne 0 ] || st=1
	fi
	say "total: $(($(date +%s) - t0)) s, status $st"
	exit $st
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$BASE"
step "extract"

# What the Debian installer writes and debootstrap does not: /etc/hosts with
# this machine's name on 127.0.1.1 (without it hydra's proxies and Slurm wait
# on lookups that never succeed), and apt sources.
host=$(hostname)
cat >"$ROOT/etc/hosts" <<EOF
127.0.0.1	localhost
127.0.1.1	$host

# The following lines are desirable for IPv6 capable hosts
::1     localhost ip6-localhost ip6-loopback
ff02::1 ip6-allnodes
ff02::2 ip6-allrouters
EOF
echo "$host" >"$ROOT/etc/hostname"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
{
	echo "deb $MIRROR $SUITE main"
	echo "deb $MIRROR $SUITE-updates main"
	[ -z "$SECURITY" ] || echo "deb $SECURITY $SUITE-security main"
} >"$ROOT/etc/apt/sources.list"
# No package's maintainer script may start a daemon in the root (munge,
# slurmd): the tests start their own, and nothing may outlive the run.
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 0755 "$ROOT/usr/sbin/policy-rc.d"

# /proc, /sys and /dev with what is mounted below them (/dev/pts, /dev/shm,
# and the cgroup file systems under /sys/fs/cgroup, without which slurmd
# fails to start), as on a booted machine. Slaves of the host's mounts: taking
# them down later cannot take down the host's, even where they are shared.
bind() {
	mkdir -p "$ROOT$2"
	mount --rbind "$1" "$ROOT$2"
	mount --make-rslave "$ROOT$2"
}
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind "$CACHE/archives" /var/cache/apt/archives

# The committed tree, not the working tree: a clone, at the commit checked out.
rev=$(git -C "$SRC" rev-parse HEAD)
git clone -q --no-checkout "$SRC" "$ROOT/root/sweetspot"
git -C "$ROOT/root/sweetspot" checkout -q "$rev"
say "sweetspot at $rev"
step "prepare"

# A login's environment, nothing of ours. Waited for with `wait`, which a
# signal interrupts (bash runs no trap while a command runs in the
# foreground): a CI timeout's SIGTERM cleans up at once.
in_root() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LOGNAME=root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive \
		/bin/sh -c 'cd /root/sweetspot && exec "$@"' sh "$@" &
	wait $!
}
# The root's size, without the downloaded packages (shared by the runs).
disk() { du -sx --block-size=1M --exclude="$ROOT/var/cache/apt/archives" "$ROOT" | cut -f1; }
base_mb=$(disk)
# Two runs at once (two CI jobs) share the downloaded packages, whose lock
# apt does not wait for: one deps.sh at a time.
exec 8>"$CACHE/archives.lock"
flock 8
step_start=$(date +%s) # the wait is not deps.sh's time
in_root sh tests/deps.sh 8>&-
flock -u 8
step "sh tests/deps.sh ($(($(disk) - base_mb)) MB installed)"
for m in "$@"; do
	# shellcheck disable=SC2086
	in_root make $m
	step "make $m"
done
say "disk: $(($(disk) - base_mb)) MB above the minbase root of $base_mb MB;" \
	"apt's downloads $(du -s --block-size=1M "$CACHE/archives" | cut -f1) MB more"
