#!/bin/bash
# .ci/reap-roots.sh CACHE: removes the fresh roots (CACHE/run.*) that
# .ci/fresh-root.sh left behind when it could not clean up (killed with
# SIGKILL, the machine lost): every process running in such a root is
# killed, every mount under it undone (innermost first), then the folder
# removed. A root is left behind when the run that made it is gone: its
# `owner` file names a process that no longer runs fresh-root.sh; a root
# without an `owner` file (made before there was one, or in the instant
# between mktemp and writing it) only when untouched for STALE_MINUTES
# (default 180: longer than any run). A root still in use is never
# touched. Prints what it removed; exit status 1 when a root could not be
# removed (it says why), else 0. Must run as root.
# reap-roots.sh --own DIR: the same for one root, now: a run's own
# cleanup (fresh-root.sh, at its exit), which left nothing running in it.
set -euo pipefail

case "$#:${1:-}" in
2:--own) OWN=$2 ;;
1:*) OWN='' CACHE=$1 ;;
*) echo "usage: reap-roots.sh CACHE | reap-roots.sh --own DIR" >&2; exit 2 ;;
esac
STALE_MINUTES=${STALE_MINUTES:-180}
case $STALE_MINUTES in '' | *[!0-9]*) echo "reap-roots.sh: STALE_MINUTES is a count of minutes ('$STALE_MINUTES')" >&2; exit 2 ;; esac
say() { echo "reap-roots: $*" >&2; }

# Whether the run that made root folder $1 is gone.
orphaned() {
	local dir=$1 pid
	if [ -f "$dir/owner" ]; then
		pid=$(cat "$dir/owner" 2>/dev/null || true)
		case $pid in '' | *[!0-9]*) return 0 ;; esac
		# Alive and still the script (not a pid reused by another program).
		[ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'fresh-root\.sh' && return 1
		return 0
	fi
	[ -n "$(find "$dir" -maxdepth 0 -mmin +"$STALE_MINUTES")" ]
}

# Processes whose root is at or under $1.
rooted_in() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$1" | "$1"/*) echo "${p#/proc/}" ;; esac
	done
	return 0
}

# reap DIR WHY: kills what runs in DIR, undoes its mounts, removes it.
reap() {
	local dir=$1 why=$2 pids m
	for _ in $(seq 1 50); do
		pids=$(rooted_in "$dir")
		[ -n "$pids" ] || break
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null || true
		sleep 0.1
	done
	[ -z "$(rooted_in "$dir")" ] || { say "$dir: processes still running in it: $(rooted_in "$dir" | tr '\n' ' ')"; return 1; }
	# Mount points under it, deepest first (/proc/mounts escapes spaces as \040).
	awk -v d="$dir/" 'index($2, d) == 1 { print length($2) "\t" $2 }' /proc/mounts | sort -rn | cut -f2 |
		while IFS= read -r m; do
			m=$(printf '%b' "$m")
			umount "$m" 2>/dev/null || umount -l "$m" || say "cannot unmount $m"
		done
	if awk -v d="$dir/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		say "$dir: still mounted, left in place"
		return 1
	fi
	rm -rf --one-file-system "$dir"
	[ -z "$why" ] || say "removed $dir ($why)"
}

[ -z "$OWN" ] || { reap "$OWN" ""; exit; }
st=0
for dir in "$CACHE"/run.*; do
	[ -d "$dir" ] || continue
	orphaned "$dir" || continue
	reap "$dir" "its run was gone" || st=1
done
exit $st
