#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# /init of the doorbell test-VM initramfs (busybox ash; installed by prepare.sh).
# Loads the modules listed in /modules.list (dependency order, computed on the
# host from the kernel's modules.dep), mounts the host root (9p, read-only)
# under a tmpfs-backed overlay and switch_roots into the guest init given on
# the kernel command line as dbvm.init=/abs/path (tests/vm/guest-init.sh of
# the host checkout). The root share is the host's / or, for another
# distribution, its root tree; with dbvm.src=/dir the share "dbvmsrc" (the
# checkout, read-only) is mounted there too, before switch_root.

/bin/busybox mkdir -p /proc /sys /dev /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t devtmpfs devtmpfs /dev
# The initramfs ships no /dev/console node (prepare.sh needs no mknod rights),
# so stdio is attached here.
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

give_up() {
	echo "doorbell-vm initramfs: $*"
	poweroff -f
	sleep 60
}

while read -r mod; do
	[ -n "$mod" ] || continue
	insmod "/lib/modules/$mod" || give_up "insmod $mod failed"
done </modules.list

ginit=
src=
cache=loose
# shellcheck disable=SC2013 # words are wanted
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	dbvm.init=*) ginit=${arg#dbvm.init=} ;;
	dbvm.9pcache=*) cache=${arg#dbvm.9pcache=} ;;
	dbvm.src=*) src=${arg#dbvm.src=} ;;
	esac
done
[ -n "$ginit" ] || give_up "no dbvm.init= on the kernel command line"

mkdir -p /mnt/lower /mnt/rw /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache="$cache" \
	hostroot /mnt/lower || give_up "cannot mount the hostroot 9p share"
mount -t tmpfs -o mode=0755 dbvm-rw /mnt/rw || give_up "cannot mount tmpfs"
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	dbvm-root /newroot || give_up "cannot mount the overlay root"
if [ -n "$src" ]; then
	mkdir -p "/newroot$src" || give_up "cannot create $src"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache="$cache" \
		dbvmsrc "/newroot$src" || give_up "cannot mount the checkout (9p dbvmsrc)"
fi
[ -x "/newroot$ginit" ] || give_up "guest init $ginit not found/executable in the host root"

for d in dev proc sys; do
	mount --move "/$d" "/newroot/$d" || give_up "cannot move /$d"
done
exec switch_root /newroot "$ginit"
