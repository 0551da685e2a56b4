#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build doorbell's provider and doorbell-itest natively for a distribution
# guest (tests/vm/run.sh --distro D), on the host's CPU: cmake and gcc of
# D's own root tree (the one prepare.sh caches and the guest boots), against
# D's libibverbs-dev, entered with chroot in a private mount namespace.  The
# root is not written: /tmp is a tmpfs there, the checkout is bound
# read-only at /mnt, and the build directory OUT (on the host) at out/ in
# that tmpfs.
# The same build made inside the TCG guest took 3 to 4 minutes; here it
# takes the time of a host build.  Prints OUT; the compiler's output goes
# to OUT/build.log.
#
# Usage: tests/vm/root-build.sh --distro D OUT   (root)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
distro=
while (($#)); do
	case $1 in
	--distro) distro=${2:?--distro needs a distribution}; shift ;;
	--) shift; break ;;
	-*) echo "root-build.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
out=${1:?usage: root-build.sh --distro D OUT}
[[ -n $distro ]] || { echo "root-build.sh: --distro D is needed" >&2; exit 2; }
((EUID == 0)) || { echo "root-build.sh: needs root (chroot, mount)" >&2; exit 2; }
vm_root=''
eval "$("$here/prepare.sh" --print-env --distro "$distro")"
[[ -d $vm_root && -x $vm_root/usr/bin/cmake ]] ||
	{ echo "root-build.sh: the $distro root ($vm_root) has no cmake" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck disable=SC2016 # expanded by the inner bash
unshare --mount --propagation private bash -euc '
	root=$1 top=$2 out=$3
	r=$(mktemp -d)
	mount --bind "$root" "$r"
	mount -t tmpfs tmpfs "$r/tmp"
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount --bind "$top" "$r/mnt"
	mount -o remount,bind,ro "$r/mnt"
	mkdir "$r/tmp/out"
	mount --bind "$out" "$r/tmp/out"
	chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 \
		bash -euc "cmake -S /mnt -B /tmp/out -DCMAKE_BUILD_TYPE=RelWithDebInfo
			cmake --build /tmp/out -j $(nproc) --target doorbell-rdmav34 doorbell-itest"
' root-build "$vm_root" "$top" "$out" >"$out.log" 2>&1 || {
	tail -n 25 "$out.log" >&2
	exit 1
}
mv "$out.log" "$out/build.log"
echo "$out"
