#!/bin/sh
# tests/cli/ci-reap.t: .ci/reap-roots.sh removes the fresh roots whose run
# is gone, with what is mounted in them and what runs in them, and never a
# root in use. A cache folder of four roots: one whose owner is dead, with
# a tmpfs mounted two deep (a space in its path) and a process chrooted in
# it; one whose owner is alive (a fresh-root.sh stand-in); one without an
# owner file, new; one without, older than STALE_MINUTES. Then --own, a
# run's own cleanup: the live root goes, mounts and all. Needs root (mount,
# chroot); skipped without.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (mounts)"
command -v chroot >/dev/null || skip_all "no chroot"
plan 14

REAP=$ROOT/.ci/reap-roots.sh
C=$TMP/cache
mkdir -p "$C/run.dead/root/proc x" "$C/run.live/root" "$C/run.new/root" "$C/run.old/root"
# A pid that no longer runs: a child that has exited and been waited for.
sh -c 'exit 0' &
dead=$!
wait $dead
echo "$dead" >"$C/run.dead/owner"
mount -t tmpfs none "$C/run.dead/root/proc x" || skip_all "cannot mount a tmpfs here"
mkdir "$C/run.dead/root/proc x/inner"
mount -t tmpfs none "$C/run.dead/root/proc x/inner"
# A process in the dead run's root: the host's /usr bound read-only in it
# (and /bin, /lib... as the host has them: links into usr, or bound too).
mkdir -p "$C/run.dead/root/usr"
mount --bind -o ro /usr "$C/run.dead/root/usr"
for d in bin lib lib64; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$C/run.dead/root/$d"
	elif [ -d "/$d" ]; then
		mkdir "$C/run.dead/root/$d" && mount --bind -o ro "/$d" "$C/run.dead/root/$d"
	fi
done
chroot "$C/run.dead/root" /bin/sleep 600 &
jailed=$!
# The live run: a process whose command line names fresh-root.sh.
mkdir -p "$TMP/stand-in/.ci"
printf '#!/bin/sh\nsleep 600 &\nc=$!\ntrap "kill $c; exit 0" TERM\nwait $c\n' >"$TMP/stand-in/.ci/fresh-root.sh"
sh "$TMP/stand-in/.ci/fresh-root.sh" &
live=$!
echo "$live" >"$C/run.live/owner"
touch -d '5 hours ago' "$C/run.old"
cleanup_test() {
	kill "$live" "$jailed" 2>/dev/null
	awk -v d="$C/" 'index($2, d) == 1 { print length($2) "\t" $2 }' /proc/mounts | sort -rn | cut -f2 |
		while IFS= read -r m; do umount -l "$(printf '%b' "$m")" 2>/dev/null; done
}
trap 'cleanup_test; rm -rf --one-file-system "$TMP"' EXIT
in_jail() { [ "$(readlink "/proc/$jailed/root" 2>/dev/null)" = "$C/run.dead/root" ]; }
wait_until 60 in_jail
ok "a process runs in the dead run's root" in_jail
stand_in_up() { tr '\0' ' ' <"/proc/$live/cmdline" 2>/dev/null | grep -q fresh-root; }
wait_until 60 stand_in_up

bash "$REAP" "$C" 2>"$TMP/err"
is "$?" 0 "reap-roots.sh: status 0"
ok "the dead run's root is removed" test ! -e "$C/run.dead"
ok "nothing is left mounted under it" sh -c "! grep -qF '$C/run.dead' /proc/mounts"
ok "the process in it is killed" sh -c "! kill -0 $jailed 2>/dev/null"
ok "the live run's root is kept" test -d "$C/run.live/root"
ok "a new root without an owner is kept" test -d "$C/run.new/root"
ok "an old root without an owner is removed" test ! -e "$C/run.old"
like "$TMP/err" "removed .*run.dead" "says what it removed"
exits_with 2 "a bad STALE_MINUTES: status 2" env STALE_MINUTES=soon bash "$REAP" "$C"

# --own: fresh-root.sh's cleanup of its own root, in use by its caller.
mkdir "$C/run.live/root/tmp"
mount -t tmpfs none "$C/run.live/root/tmp"
exits_with 0 "--own: status 0" bash "$REAP" --own "$C/run.live"
ok "  ... its root is removed though its owner runs" test ! -e "$C/run.live"
ok "  ... nothing is left mounted under it" sh -c "! grep -qF '$C/run.live' /proc/mounts"
exits_with 2 "no argument: usage, status 2" bash "$REAP"
done_testing
