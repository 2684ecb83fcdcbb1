#!/bin/sh
# tests/testbed/rxe/prepare.sh: makes the Soft-RoCE guest's boot files and
# prints where they are. This machine's own kernel has no RDMA, so the guest
# runs Debian's kernel (fetched with apt-get download from the archive the
# machine already uses, unpacked with dpkg-deb, indexed with depmod) and a
# tiny initramfs: busybox-static, the few modules needed to reach this
# machine's root over 9p (in dependency order) and our /init. Everything is
# cached under tests/testbed/cache/ so the second run costs nothing.
#
# Output (stdout, one per line): KERNEL=<vmlinuz> INITRD=<cpio.gz>
# MODULES=<folder holding lib/modules/VERSION>. Exit 0, or 77 with the reason
# on stderr when a piece cannot be had here (the caller skips), 1 on failure.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${SWEETSPOT_TESTBED_CACHE:-$HERE/../cache}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# One preparer at a time (a test and a benchmark may start together).
exec 9>"$CACHE/.lock"
command -v flock >/dev/null 2>&1 && flock 9

missing() { echo "prepare: $*" >&2; exit 77; }
for tool in apt-get apt-cache dpkg-deb depmod modprobe cpio gzip; do
	command -v "$tool" >/dev/null 2>&1 || missing "no $tool on this machine"
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] && "$BUSYBOX" --list 2>/dev/null | grep -qx switch_root ||
	missing "no static busybox (apt-get install busybox-static)"
ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic' || missing "$BUSYBOX is not static (busybox-static)"

# The kernel: reuse the one already unpacked, else ask apt which image the
# linux-image-amd64 meta-package means today (or the newest 6.1 image).
KDIR=$(ls -d "$CACHE"/kernel-6.1.0-*-amd64 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$KDIR" ] || [ ! -e "$KDIR/.done" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -1)
	[ -n "$pkg" ] || pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
		cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$pkg" ] || missing "apt knows no linux-image-6.1.0-*-amd64 (apt-get update?)"
	ver=${pkg#linux-image-}
	KDIR=$CACHE/kernel-$ver
	echo "prepare: fetching $pkg" >&2
	rm -rf "$KDIR" "$CACHE"/dl
	mkdir -p "$CACHE/dl"
	# apt's sandbox user cannot write into the cache; the download is
	# checked against the archive's signed index either way.
	(cd "$CACHE/dl" && apt-get download -q "$pkg" >&2) || missing "apt-get download $pkg failed"
	mkdir -p "$KDIR"
	dpkg-deb -x "$CACHE"/dl/"$pkg"_*.deb "$KDIR"
	depmod -b "$KDIR" "$ver"
	rm -rf "$CACHE/dl"
	touch "$KDIR/.done"
fi
ver=${KDIR##*/kernel-}
VMLINUZ=$KDIR/boot/vmlinuz-$ver
[ -r "$VMLINUZ" ] || { echo "prepare: $VMLINUZ missing" >&2; exit 1; }

# The initramfs, rebuilt when /init or the kernel changes.
INITRD=$CACHE/initramfs-$ver.cpio.gz
if [ ! -e "$INITRD" ] || [ "$HERE/init" -nt "$INITRD" ]; then
	stage=$CACHE/initramfs-stage
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/mods" "$stage/dev" "$stage/proc" "$stage/sys"
	cp "$BUSYBOX" "$stage/bin/busybox"
	cp "$HERE/init" "$stage/init"
	chmod 755 "$stage/init"
	# modprobe --show-depends lists insmod lines dependencies first; keep
	# the first appearance of each module, in that order.
	: >"$stage/modules.list"
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$KDIR" -S "$ver" --show-depends "$m" | while read -r verb path _; do
			[ "$verb" = insmod ] || continue
			base=${path##*/}
			grep -qx "$base" "$stage/modules.list" && continue
			cp "$path" "$stage/mods/$base"
			echo "$base" >>"$stage/modules.list"
		done
	done
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$stage"
fi
echo "KERNEL=$VMLINUZ"
echo "INITRD=$INITRD"
echo "MODULES=$KDIR/lib/modules"
