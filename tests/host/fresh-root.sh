#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Run COMMAND in a clean clone of this checkout's committed tree, inside a
# fresh minimal Debian root (mmdebstrap --variant=minbase of SUITE) entered
# with chroot, /proc, /sys and /dev bound: a newcomer's host of that release.
# The root is a new copy of a pristine tarball each run; the tarball is
# cached under $DOORBELL_VM_CACHE/host-roots/SUITE-KEY.tar (KEY: hash of the
# build options below) and built when absent (~1 min). Downloads are kept
# between runs: the root's /var/cache/apt/archives and /var/cache/doorbell-vm
# are bound to host-roots/SUITE-apt and host-roots/SUITE-vm.
#
# Usage: tests/host/fresh-root.sh [--suite S] [--out DIR] -- COMMAND [ARGS...]
#   --suite S   trixie (default), bookworm or sid
#   --out DIR   a host directory bound at /out in the root
# COMMAND runs as root in the clone (doorbell, in root's home inside the tree) with a clean
# environment; its exit status is ours (125: the root could not be set up).

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${DOORBELL_VM_CACHE:-/var/cache/doorbell-vm}
suite=trixie
out=

# Changing these rebuilds the tarball.
variant=minbase
root_format=1

say() { echo "fresh-root: $*" >&2; }
give_up() {
	say "error: $*"
	exit 125
}

while (($#)); do
	case $1 in
	--suite) suite=${2:?--suite needs trixie, bookworm or sid}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) give_up "unknown argument '$1' (COMMAND goes after --)" ;;
	esac
	shift
done
(($#)) || give_up "no COMMAND (see --help)"
case $suite in trixie | bookworm | sid) ;; *) give_up "unknown suite '$suite'" ;; esac
[[ -z $out || -d $out ]] || give_up "--out $out: not a directory"
((EUID == 0)) || give_up "needs root (mmdebstrap, chroot, mount)"

# The pristine tarball, built when absent.
mkdir -p "$cache/host-roots"
key=$(echo "format $root_format $suite $variant" | sha256sum | cut -c1-12)
tarball=$cache/host-roots/$suite-$key.tar
exec 9>"$cache/host-roots/.lock-$suite"
flock 9
if [[ ! -s $tarball ]]; then
	if ! command -v mmdebstrap >/dev/null; then
		# shellcheck source=scripts/apt-lib.sh
		. "$top/scripts/apt-lib.sh"
		install_missing fresh-root mmdebstrap || give_up "cannot install mmdebstrap"
	fi
	say "building the pristine $suite root $tarball"
	log=$(mktemp)
	# (mmdebstrap writes a tarball when the name ends in .tar)
	if ! mmdebstrap --variant="$variant" "$suite" "$tarball.tmp.tar" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		rm -f "$log" "$tarball.tmp.tar"
		give_up "mmdebstrap $suite failed"
	fi
	rm -f "$log"
	mv "$tarball.tmp.tar" "$tarball"
fi
flock -u 9

root=$(mktemp -d "$cache/host-roots/.root.XXXXXX")
mounted=()
# shellcheck disable=SC2317 # invoked by trap
cleanup() {
	local rc=$? i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -R "${mounted[i]}" 2>/dev/null || umount -Rl "${mounted[i]}" || true
	done
	# Never remove a tree that still has something mounted in it.
	if findmnt -rno TARGET | grep -q "^$root/"; then
		say "something is still mounted under $root: left in place"
	else
		rm -rf --one-file-system "$root"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bind() { # host path, path in the root
	mkdir -p "$root$2"
	mount --rbind "$1" "$root$2"
	mount --make-rslave "$root$2"
	mounted+=("$root$2")
}

tar -xf "$tarball" -C "$root" || give_up "cannot unpack $tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The root is thrown away: dpkg need not sync, nor unpack manuals and
# translations (what gets installed, and how, is left to COMMAND).
cat >"$root/etc/dpkg/dpkg.cfg.d/fresh-root" <<EOF
force-unsafe-io
path-exclude=/usr/share/man/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/info/*
EOF
git clone -q "$top" "$root/root/doorbell" || give_up "git clone $top failed"
mkdir -p "$cache/host-roots/$suite-apt" "$cache/host-roots/$suite-vm"
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind "$cache/host-roots/$suite-apt" /var/cache/apt/archives
bind "$cache/host-roots/$suite-vm" /var/cache/doorbell-vm
[[ -z $out ]] || bind "$out" /out

rc=0
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/doorbell && exec "$@"' fresh-root "$@" || rc=$?
exit "$rc"
