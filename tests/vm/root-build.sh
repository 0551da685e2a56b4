#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build doorbell's provider and doorbell-itest natively for a distribution
# guest (tests/vm/run.sh --distro D), on the host's CPU: cmake and gcc of
# D's own root tree (the one prepare.sh caches and the guest boots), against
# D's libibverbs-dev, entered with chroot in a private mount namespace.  The
# root is not written: its tmp directory is a tmpfs, the checkout is bound
# read-only at its mnt, and the build directory OUT (on the host) inside
# that tmpfs.
# The same build made inside the TCG guest took 3 to 4 minutes; here it
# takes the time of a host build.  Prints OUT; the compiler's output goes
# to OUT/build.log.
#
# --as DIR: instead, the whole build that scripts/build.sh makes with
# DOORBELL_BUILD_DIR=DIR (DIR inside the checkout), with the checkout at its
# own path (read-only) and OUT bound at DIR, in a tmpfs overlay of the root:
# a guest of D that binds OUT at DIR runs that same command and finds the
# build up to date (tests/guest/mlx5/check-mlx5-validate.sh).
#
# Usage: tests/vm/root-build.sh --distro D [--as DIR] OUT   (root)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
distro=
as=
while (($#)); do
	case $1 in
	--distro) distro=${2:?--distro needs a distribution}; shift ;;
	--as) as=${2:?--as needs the build directory the guest uses}; shift ;;
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
# --as: OUT is kept, so that the next build is incremental (scripts/build.sh).
[[ -n $as ]] || rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ -n $as ]]; then
	[[ $as == "$top"/* ]] || { echo "root-build.sh: --as $as: not inside $top" >&2; exit 2; }
	mkdir -p "$as"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private bash -euc '
		root=$1 top=$2 out=$3 as=$4
		w=$(mktemp -d)
		mkdir "$w/upper" "$w/work" "$w/r"
		mount -t tmpfs tmpfs "$w/upper"
		mkdir "$w/upper/u" "$w/upper/w"
		mount -t overlay -o "lowerdir=$root,upperdir=$w/upper/u,workdir=$w/upper/w" \
			root-build "$w/r"
		r=$w/r
		mount -t tmpfs tmpfs "$r/tmp"
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mkdir -p "$r$top"
		mount --bind "$top" "$r$top"
		mount -o remount,bind,ro "$r$top"
		mount --bind "$out" "$r$as"
		chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8 \
			DOORBELL_BUILD_DIR="$as" "$top/scripts/build.sh"
	' root-build "$vm_root" "$top" "$out" "$as" >"$out.log" 2>&1 || {
		tail -n 25 "$out.log" >&2
		exit 1
	}
	rm -f "$out.log"
	echo "$out"
	exit 0
fi
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
