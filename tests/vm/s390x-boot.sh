#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Does Debian 12's s390x kernel boot under qemu-system-s390x (TCG) in
# usable time?  Boots linux-image-$abi-s390x (the one linux-image-s390x
# names) with a busybox initramfs whose /init prints uname and the uptime,
# then powers off; prints the kernel, whether rdma_rxe ships, and the wall
# time from QEMU's start to its exit.  Only the boot: no root, no Soft-RoCE
# (docs/architectures.md, "Full-system guests").
#
# Usage: tests/vm/s390x-boot.sh   (root; needs "dpkg --add-architecture
# s390x" and apt lists; installs qemu-system-misc when missing)
# Prints PASS s390x_kernel_boots_to_init: ... or FAIL ...: why.
# Cache: $DOORBELL_VM_CACHE/s390x/<package>_<version> (default
# /var/cache/doorbell-vm).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"	# pass, fail, skip
cache=${DOORBELL_VM_CACHE:-/var/cache/doorbell-vm}/s390x
ac=(apt-cache -o APT::Architecture=s390x)

command -v qemu-system-s390x >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		qemu-system-misc >/dev/null
pkg=$("${ac[@]}" depends linux-image-s390x |
	sed -n 's/^ *Depends: *\(linux-image-[^ ]*-s390x\)$/\1/p' | sort -V | tail -n 1)
ver=$("${ac[@]}" policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
if [[ -z $pkg || -z $ver || $ver == "(none)" ]]; then
	fail s390x_kernel_boots_to_init "apt knows no s390x kernel (dpkg --add-architecture s390x; apt-get update)"
	exit 1
fi
dir=$cache/${pkg}_$ver
if [[ ! -e $dir/.complete ]]; then
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/ird/bin"
	(cd "$dir/debs" && apt-get download -qq -o APT::Sandbox::User=root \
		-o APT::Architecture=s390x "$pkg=$ver" busybox-static:s390x)
	for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
	cp "$dir/root/bin/busybox" "$dir/ird/bin/"
	cat >"$dir/ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc
/bin/busybox mount -t proc proc /proc
echo "dbvm-s390x: $(/bin/busybox uname -r -m); uptime $(/bin/busybox cut -d' ' -f1 /proc/uptime) s"
/bin/busybox poweroff -f
EOF
	chmod 0755 "$dir/ird/init"
	(cd "$dir/ird" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null |
		gzip >"$dir/initrd.gz")
	rm -rf "$dir/debs"
	touch "$dir/.complete"
fi
kernel=$(ls "$dir"/root/boot/vmlinuz-*)
rxe=$(find "$dir/root/lib/modules" -name 'rdma_rxe.ko*' -printf '%f\n' | head -n1)
echo "    kernel: $pkg $ver; rdma_rxe: ${rxe:-absent}"
console=$(mktemp)
trap 'rm -f "$console"' EXIT
t0=$(date +%s.%N)
rc=0
timeout 600 qemu-system-s390x -machine s390-ccw-virtio -accel tcg -cpu max -m 1G \
	-smp 2 -nodefaults -no-user-config -display none -no-reboot \
	-kernel "$kernel" -initrd "$dir/initrd.gz" -append "console=ttysclp0 panic=-1" \
	-serial "file:$console" </dev/null || rc=$?
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
line=$(grep -a '^dbvm-s390x:' "$console" || true)
if ((rc == 0)) && [[ -n $line ]]; then
	pass s390x_kernel_boots_to_init "${line#dbvm-s390x: }; QEMU wall ${t} s"
else
	fail s390x_kernel_boots_to_init "qemu exit $rc after ${t} s, no line from /init"
	tail -n 15 "$console" | sed 's/^/    console| /'
	exit 1
fi
