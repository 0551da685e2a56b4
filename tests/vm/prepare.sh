#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Prepare the doorbell test VM (idempotent; run.sh calls it on every run):
#   * installs the host packages the harness and the guest need (apt, quiet);
#   * fetches the newest Debian 12 linux-image-6.1.0-NN-amd64-unsigned (or
#     $DOORBELL_VM_KERNEL; on a host whose archive has no 6.1, such as Debian
#     13, its own kernel's -unsigned build), unpacks it with dpkg-deb -x into
#     the cache and runs depmod on it;
#   * builds a busybox initramfs holding the modules needed before the 9p
#     root is mounted (rebuilt only when its inputs change).
#
# Usage: prepare.sh [-v|--verbose] [--print-env] [--distro bookworm|trixie|sid]
#                   [--arch amd64|arm64|s390x]
#        prepare.sh [-v] --qemu-root
#   --print-env  print shell assignments (vm_kver, vm_kernel, vm_initrd,
#                vm_moddir, vm_kpkg, vm_distro, vm_root) describing the
#                prepared VM on stdout.
#   --qemu-root  build (once) a sid tree holding only sid's QEMU, whose
#                vfio-user-pci client Debian 12's QEMU lacks (run it with
#                chroot; scripts/cx.sh does), and print the tree's path.
#   --distro D   bookworm (default, $DOORBELL_VM_DISTRO): the host's own
#                root and the kernel described above (on a Debian 13 host:
#                its root and 6.12).
#                trixie or sid: a root tree of that suite built with
#                mmdebstrap (rdma-core, perftest, pyverbs, compilers, ...)
#                holding the suite's own kernel; cached under
#                $DOORBELL_VM_CACHE/roots/SUITE-KEY (KEY: hash of the package
#                list), built when absent (~4 min, ~160 MiB download).
#   --arch A     amd64 (default, $DOORBELL_VM_ARCH) or arm64: Debian 12's
#                arm64 userspace (rdma-core, perftest, pyverbs, ...) and its
#                newest linux-image-6.1.0-NN-arm64-unsigned, unpacked by
#                "mmdebstrap --arch=arm64 --variant=extract" (no maintainer
#                script runs, so no binfmt/qemu-user is needed) from the
#                host's apt sources; cached under
#                $DOORBELL_VM_CACHE/roots/bookworm-arm64-KEY (KEY: hash of
#                the package list and the kernel). Booted by run.sh under
#                qemu-system-aarch64 -M virt.
#                s390x: the same from Debian 12's s390x userspace and its
#                newest linux-image-6.1.0-NN-s390x (s390x has no -unsigned
#                split), booted under qemu-system-s390x -M s390-ccw-virtio.
#
# The kernel booted is the uncompressed vmlinux (PVH entry, extracted once;
# DOORBELL_VM_PVH=0 boots the bzImage through the firmware instead).
#
# Environment: DOORBELL_VM_CACHE (default /var/cache/doorbell-vm),
#   DOORBELL_VM_KERNEL (kernel package name), DOORBELL_VM_MODULES (extra
#   modules for the initramfs, space separated), DOORBELL_VM_NO_APT=1 (never
#   call apt-get install/update).

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${DOORBELL_VM_CACHE:-/var/cache/doorbell-vm}
verbose=${DOORBELL_VM_VERBOSE:-0}
print_env=0
qemu_root=0
distro=${DOORBELL_VM_DISTRO:-bookworm}
arch=${DOORBELL_VM_ARCH:-amd64}

# Bump when the initramfs layout produced below changes.
initramfs_format=1

packages=(qemu-system-x86 busybox-static kmod iproute2 rdma-core ibverbs-utils
	perftest ibverbs-providers python3-pyverbs rdmacm-utils util-linux
	coreutils gzip xz-utils zstd binutils)

# Modules loaded by the initramfs, in this order; dependencies are added from
# the kernel's modules.dep. crc32_generic must be there before rdma_rxe on
# 6.1: the rxe ICRC needs crypto "crc32" at device creation (else "failed to
# add"). A leading "?" marks a module that may be absent (built in, or gone:
# 7.x has no crc32_generic and rxe computes its ICRC with the crc32 library;
# virtio_pci is built in, and sid's packages lack modules.builtin to say so;
# virtio_ccw is s390x's virtio transport).
modules=('?crc32_generic' '?virtio_pci' '?virtio_ccw' 9pnet_virtio 9p overlay dummy
	ib_uverbs rdma_rxe rdma_ucm)
# shellcheck disable=SC2206
modules+=(${DOORBELL_VM_MODULES:-})

say() { echo "doorbell-vm: $*" >&2; }
log() { if [[ $verbose == 1 ]]; then say "$@"; fi; }
die() {
	say "error: $*"
	exit 1
}

# Run a command quietly; show its output only if it fails.
quiet() {
	local out rc=0
	out=$(mktemp)
	"$@" >"$out" 2>&1 || rc=$?
	if ((rc)); then
		say "'$*' failed (rc $rc):"
		tail -n 30 "$out" >&2
	fi
	rm -f "$out"
	return $rc
}

as_root() {
	if ((EUID == 0)); then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo -n "$@"
	else
		die "need root for: $*"
	fi
}

apt_updated=0
apt_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/apt-lib.sh
apt_update() {
	((apt_updated)) && return 0
	[[ ${DOORBELL_VM_NO_APT:-0} == 1 ]] && return 1
	log "apt-get update"
	# scripts/apt-lib.sh's apt_update: an index the mirror serves broken
	# is worked around there; the install then fails only if the indexes
	# apt has lack a package.
	# shellcheck disable=SC2016 # expanded by the inner bash
	quiet as_root env DEBIAN_FRONTEND=noninteractive bash -c \
		'. "$1" && apt_update prepare.sh' _ "$apt_lib" ||
		log "apt-get update failed; going on with the indexes apt has"
	apt_updated=1
}

install_packages() {
	local missing=() p
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	[[ ${DOORBELL_VM_NO_APT:-0} == 1 ]] && die "missing packages: ${missing[*]}"
	say "installing ${missing[*]}"
	local cmd=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq
		--no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}")
	if ! as_root "${cmd[@]}" >/dev/null 2>&1; then
		apt_update
		quiet as_root "${cmd[@]}" || die "package installation failed"
	fi
}

# "<package> <candidate version>" of the kernel to boot with the host root:
# the newest linux-image-6.1.0-NN-$arch-unsigned apt knows (Debian 12's, from
# the linux-image-$arch metapackage and a name search; another
# architecture's through multiarch, "dpkg --add-architecture"); when the
# archive has none (a Debian 13 host), the unsigned build of the kernel
# linux-image-$arch names (the host distribution's own, 6.12 on Debian 13);
# or $DOORBELL_VM_KERNEL. Empty if apt knows none.
resolve_kernel_apt() {
	local names meta ac=(apt-cache -o "APT::Architecture=$arch") sfx=-unsigned
	# s390x has no signed kernels, so no -unsigned package either.
	[[ $arch == s390x ]] && sfx=
	if [[ -n ${DOORBELL_VM_KERNEL:-} ]]; then
		names=$DOORBELL_VM_KERNEL
	else
		meta=$("${ac[@]}" depends "linux-image-$arch" 2>/dev/null |
			sed -n "s/^ *Depends: *\(linux-image-[^ ]*-$arch\)\$/\1$sfx/p")
		names=$({
			echo "$meta"
			"${ac[@]}" search --names-only "^linux-image-6\.1\.0-[0-9]+-$arch$sfx\$" \
				2>/dev/null | cut -d' ' -f1
		} | grep -E "^linux-image-6\.1\.0-[0-9]+-$arch$sfx\$" | sort -u || true)
		[[ -n $names ]] || names=$meta
		[[ -n $names ]] || return 0
	fi
	# shellcheck disable=SC2086
	"${ac[@]}" policy $names 2>/dev/null | awk '
		/^[^ ].*:$/ { pkg = substr($0, 1, length($0) - 1) }
		$1 == "Candidate:" && $2 != "(none)" { print pkg, $2 }' |
		sort -V | tail -n 1
}

# Same, but memoised on the state of the apt lists (apt-cache is slow).
resolve_kernel() {
	local sig memo=$cache/.resolved r
	[[ $arch == amd64 ]] || memo+=-$arch
	sig=$({
		echo "${DOORBELL_VM_KERNEL:-}"
		stat -c '%n %Y %s' /var/lib/apt/lists /var/lib/apt/lists/*Packages* \
			/etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null || true
	} | sha256sum | cut -c1-16)
	if [[ -f $memo ]] && read -r s r <"$memo" && [[ $s == "$sig" && -n $r ]]; then
		echo "$r"
		return
	fi
	r=$(resolve_kernel_apt | tr ' ' '=')
	if [[ -n $r ]]; then echo "$sig $r" >"$memo"; fi
	echo "$r"
}

# Newest already unpacked kernel in the cache (optionally of one package).
cached_kernel_dir() {
	local d
	for d in "$cache"/kernels/"${1:-linux-image-}"*; do
		[[ -e $d/.complete ]] && echo "$d"
	done | sort -V | tail -n 1
}

get_kernel() {
	local pkg ver kdir tmp kver debs r
	r=$(resolve_kernel)
	if [[ -z $r ]] && apt_update; then r=$(resolve_kernel); fi
	pkg=${r%%=*} ver=${r#*=}
	if [[ -z $r ]]; then
		# apt cannot tell (offline, no lists): fall back to the cache.
		pkg=${DOORBELL_VM_KERNEL:-}
		kdir=$(cached_kernel_dir "${pkg:+${pkg}_}")
		[[ -n $kdir ]] || die "cannot find a kernel package (${pkg:-linux-image-6.1.0-NN-amd64-unsigned, or the one linux-image-amd64 names}) with apt-cache, and nothing cached in $cache"
		log "apt does not know ${pkg:-a kernel}; using cached $(basename "$kdir")"
		echo "$kdir"
		return
	fi
	kdir=$cache/kernels/${pkg}_${ver}
	if [[ ! -e $kdir/.complete ]]; then
		say "fetching kernel $pkg $ver into $cache"
		tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
		local sandbox=()
		((EUID == 0)) && sandbox=(-o APT::Sandbox::User=root)
		(cd "$tmp" && quiet apt-get download -qq "${sandbox[@]}" "$pkg=$ver") ||
			die "apt-get download $pkg=$ver failed"
		debs=("$tmp"/*.deb)
		[[ -f ${debs[0]} ]] || die "no .deb downloaded for $pkg"
		quiet dpkg-deb -x "${debs[0]}" "$tmp/root" || die "dpkg-deb -x failed"
		if [[ ! -d $tmp/root/lib/modules && -d $tmp/root/usr/lib/modules ]]; then
			ln -s usr/lib "$tmp/root/lib"
		fi
		kver=$(ls "$tmp/root/lib/modules")
		[[ $kver != *$'\n'* && -n $kver ]] || die "unexpected module tree in $pkg: $kver"
		[[ -f $tmp/root/boot/vmlinuz-$kver ]] || die "no /boot/vmlinuz-$kver in $pkg"
		quiet depmod -b "$tmp/root" "$kver" || die "depmod failed"
		echo "$kver" >"$tmp/root/.kver"
		echo "$pkg" >"$tmp/root/.pkg"
		rm -rf "$kdir"
		mv "$tmp/root" "$kdir"
		touch "$kdir/.complete"
		rm -rf "$tmp"
	fi
	echo "$kdir"
}

# Uncompressed vmlinux next to the bzImage: QEMU boots it directly through
# its PVH entry point (CONFIG_PVH), skipping firmware and the in-guest XZ
# decompression (about 4 s under TCG). Prints the kernel image to boot.
# Arguments: bzImage, kernel config (may be absent: sid's linux-binary ships
# none; then the vmlinux must carry the PVH entry note, Xen type 0x12),
# where to put the vmlinux.
kernel_image() {
	local z=$1 config=$2 out=$3 off tmp
	if [[ ${DOORBELL_VM_PVH:-1} != 1 ]] ||
		{ [[ -f $config ]] && ! grep -q '^CONFIG_PVH=y' "$config"; }; then
		echo "$z"
		return
	fi
	if [[ ! -s $out ]]; then
		tmp=$out.tmp.$$
		# First XZ (zstd, gzip) stream in the bzImage that yields an ELF file.
		local magic unz
		for magic in xz zstd gzip; do
			case $magic in
			xz) off=$(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$z" | cut -d: -f1) unz="xz -dc --single-stream" ;;
			zstd) off=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$z" | cut -d: -f1) unz="zstd -qdc" ;;
			gzip) off=$(LC_ALL=C grep -abo $'\x1f\x8b\x08' "$z" | cut -d: -f1) unz="gzip -dc" ;;
			esac
			for off in $off; do
				# shellcheck disable=SC2086
				tail -c +$((off + 1)) "$z" | $unz >"$tmp" 2>/dev/null || true
				if [[ $(head -c 4 "$tmp" | od -An -c | tr -d ' ') == '177ELF' ]]; then
					if [[ -f $config ]] || readelf -n "$tmp" 2>/dev/null |
						grep -q '^ *Xen .*(0x00000012)'; then
						mv "$tmp" "$out"
					fi
					break 2
				fi
			done
		done
		rm -f "$tmp"
		if [[ ! -s $out ]]; then
			log "cannot extract a PVH vmlinux from $z; booting the bzImage"
			echo "$z"
			return
		fi
	fi
	echo "$out"
}

# Module files (relative to lib/modules/<kver>) in load order.
module_list() {
	local kdir=$1 kver=$2 m line path
	local -A seen=()
	for m in "${modules[@]}"; do
		if ! modprobe -C /dev/null -d "$kdir" -S "$kver" --show-depends "${m#\?}" \
			2>/dev/null | grep -q .; then
			[[ $m == \?* ]] && continue
			die "module $m not found for $kver"
		fi
		m=${m#\?}
		while read -r line; do
			case "$line" in
			insmod\ *)
				path=${line#insmod }
				path=${path%% *}
				path=${path#*/lib/modules/"$kver"/}
				if [[ -z ${seen[$path]:-} ]]; then
					seen[$path]=1
					echo "$path"
				fi
				;;
			esac
		done < <(modprobe -C /dev/null -d "$kdir" -S "$kver" --show-depends "$m")
	done
}

# Arguments: the tree holding lib/modules/KVER, KVER, and where to put the
# image (default: the tree).
build_initramfs() {
	local kdir=$1 kver=$2 odir=${3:-$1} mods hash out stage busybox m
	# The guest's busybox: the host's, or the arm64 root's (busybox-static).
	busybox=${initramfs_busybox:-$(command -v busybox)} || die "busybox not found"
	if readelf -l "$busybox" | grep -q 'program interpreter'; then
		die "$busybox is not static (install busybox-static)"
	fi
	mods=$(module_list "$kdir" "$kver") || exit 1
	hash=$({
		echo "format $initramfs_format $kver $(basename "$kdir")"
		echo "$mods"
		sha256sum "$here/initramfs-init.sh" "$busybox" | cut -d' ' -f1
	} | sha256sum | cut -c1-16)
	out=$odir/initramfs-$hash.cpio.gz
	if [[ ! -e $out ]]; then
		log "building initramfs $out"
		stage=$(mktemp -d "$cache/.tmp.XXXXXX")
		mkdir -p "$stage/bin" "$stage/lib/modules/$kver"
		cp "$busybox" "$stage/bin/busybox"
		ln -s busybox "$stage/bin/sh"
		install -m 0755 "$here/initramfs-init.sh" "$stage/init"
		while read -r m; do
			mkdir -p "$stage/lib/modules/$kver/$(dirname "$m")"
			# busybox insmod takes plain .ko files only.
			case "$m" in
			*.ko.xz) xz -dc "$kdir/lib/modules/$kver/$m" >"$stage/lib/modules/$kver/${m%.xz}" ;;
			*.ko.gz) gzip -dc "$kdir/lib/modules/$kver/$m" >"$stage/lib/modules/$kver/${m%.gz}" ;;
			*.ko.zst) zstd -qdc "$kdir/lib/modules/$kver/$m" >"$stage/lib/modules/$kver/${m%.zst}" ;;
			*) cp "$kdir/lib/modules/$kver/$m" "$stage/lib/modules/$kver/$m" ;;
			esac || die "cannot copy module $m"
			m=${m%.xz} m=${m%.gz} m=${m%.zst}
			echo "$kver/$m"
		done <<<"$mods" >"$stage/modules.list"
		(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
			busybox cpio -o -H newc -R 0:0 2>/dev/null | gzip -6 >"$stage.cpio.gz") ||
			die "cpio failed"
		mv "$stage.cpio.gz" "$out"
		rm -rf "$stage"
		# Keep the three newest initramfs images of this kernel.
		find "$odir" -maxdepth 1 -name 'initramfs-*.cpio.gz' -printf '%T@ %p\n' |
			sort -rn | tail -n +4 | cut -d' ' -f2- | xargs -r rm -f
	fi
	echo "$out"
}

# --- other distributions: a root tree built with mmdebstrap ------------------

# Packages of the trixie/sid roots (their kernel is added by kernel_hook).
# Changing this list (or root_format) rebuilds the cached roots.
# (mount: not pulled in by anything else in sid, and guest-init.sh needs it;
# libc6-dev: gcc only recommends it, and the native build of
# tests/guest/distro-suite.sh links programs; fio, libfabric-bin: the rdma_cm
# programs of tests/guest/mlx5/check-roce-pairs.sh, fio's rdma engine and
# libfabric's fi_pingpong over its verbs provider.)
root_packages=(rdma-core ibverbs-utils ibverbs-providers libibverbs-dev perftest
	python3-pyverbs rdmacm-utils iproute2 kmod busybox gcc libc6-dev cmake make
	pkg-config valgrind python3 mount fio libfabric-bin)
root_format=2

# mmdebstrap --customize-hook (run as "prepare.sh --kernel-hook ROOT" on the
# host while the root's apt lists are there): unpacks the suite's newest
# amd64 kernel into ROOT without its maintainer scripts (which would want an
# initramfs generator) and runs the root's depmod. trixie: the package
# linux-image-VER-amd64-unsigned; sid (7.x): linux-binary-VER (vmlinuz under
# /usr/lib/modules/VER) and linux-modules-VER. The choice is recorded in
# ROOT/etc/doorbell-vm-kernel.
kernel_hook() {
	local root=$1 meta ver pkgs=() p
	# A root's own tools, chrooted (nothing of the root runs on the host).
	c() { chroot "$root" "$@"; }
	meta=$(c apt-cache depends linux-image-amd64 |
		sed -n 's/^ *Depends: *linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | sort -V | tail -n 1)
	[[ -n $meta ]] || { echo "kernel-hook: linux-image-amd64 names no kernel" >&2; return 1; }
	ver=$meta
	if c apt-cache show "linux-binary-$ver" >/dev/null 2>&1; then
		pkgs=("linux-binary-$ver" "linux-modules-$ver")
	elif c apt-cache show "linux-image-$ver-unsigned" >/dev/null 2>&1; then
		pkgs=("linux-image-$ver-unsigned")
	else
		echo "kernel-hook: neither linux-binary-$ver nor linux-image-$ver-unsigned exists" >&2
		return 1
	fi
	mkdir -p "$root/tmp/dbvm-kernel"
	c sh -c 'cd /tmp/dbvm-kernel && apt-get download -qq -o APT::Sandbox::User=root "$@"' \
		sh "${pkgs[@]}" || return 1
	for p in "$root"/tmp/dbvm-kernel/*.deb; do
		c dpkg-deb -x "/tmp/dbvm-kernel/${p##*/}" / || return 1
		# shellcheck disable=SC2016 # dpkg-deb's own ${...} fields
		c dpkg-deb --show --showformat='${Package} ${Version}\n' "/tmp/dbvm-kernel/${p##*/}"
	done >"$root/etc/doorbell-vm-kernel"
	rm -rf "$root/tmp/dbvm-kernel"
	# The root's own ibverbs-providers .deb, for the package take-over's
	# reinstall tests (mmdebstrap empties /var/cache/apt/archives).
	mkdir -p "$root/var/cache/doorbell-vm-debs"
	c sh -c 'cd /var/cache/doorbell-vm-debs &&
		apt-get download -qq -o APT::Sandbox::User=root ibverbs-providers' ||
		return 1
	ver=$(ls "$root/usr/lib/modules")
	[[ -n $ver && $ver != *$'\n'* ]] || { echo "kernel-hook: modules: $ver" >&2; return 1; }
	c depmod -a "$ver"
}

# Packages of the QEMU tree (--qemu-root): sid's QEMU has the vfio-user-pci
# client (QEMU >= 10.1) that Debian 12's 7.2 lacks; it runs on the host
# through chroot, no guest boots from this tree.
qemu_packages=(qemu-system-x86)

# The cached root of suite $1 (built when absent): prints its directory,
# which holds root/ (the tree), kver, and later the vmlinux and initramfs.
# With $2 = qemu: a tree holding only $qemu_packages, no kernel, under
# roots/qemu-SUITE-KEY.
get_root() {
	local suite=$1 kind=${2:-guest} key dir tmp t0 opts=() inc pkgs hook=() kv
	case "$suite" in
	sid) opts=(--aptopt='Acquire::Check-Valid-Until "false"') ;;
	esac
	if [[ $kind == qemu ]]; then
		pkgs=("${qemu_packages[@]}")
	else
		pkgs=("${root_packages[@]}")
		hook=(--customize-hook="\"$here/prepare.sh\" --kernel-hook \"\$1\"")
	fi
	key=$({
		echo "format $root_format $suite"
		printf '%s\n' "${pkgs[@]}" "${opts[@]}"
	} | sha256sum | cut -c1-12)
	dir=$cache/roots/$suite-$key
	[[ $kind == qemu ]] && dir=$cache/roots/qemu-$suite-$key
	if [[ -e $dir/.complete ]]; then
		touch "$dir/.used"
		echo "$dir"
		return
	fi
	if ! command -v mmdebstrap >/dev/null; then
		packages=(mmdebstrap)
		install_packages
	fi
	# Leftovers of interrupted builds (a build takes minutes, not hours).
	find "$cache" -mindepth 1 -maxdepth 1 -name '.tmp.*' -mmin +720 -exec rm -rf {} + || true
	say "building the $suite root with mmdebstrap into $dir (a few minutes)"
	t0=$SECONDS
	tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
	inc=$(IFS=,; echo "${pkgs[*]}")
	quiet mmdebstrap --variant=apt --include="$inc" "${opts[@]}" "${hook[@]}" \
		"$suite" "$tmp/root" || { rm -rf "$tmp"; die "mmdebstrap $suite failed"; }
	if [[ $kind != qemu ]]; then
		ls "$tmp/root/usr/lib/modules" >"$tmp/kver"
		cp "$tmp/root/etc/doorbell-vm-kernel" "$tmp/kpkg"
	fi
	touch "$tmp/.complete"
	mkdir -p "$cache/roots"
	mv "$tmp" "$dir"
	chmod 0755 "$dir"
	kv=
	[[ -f $dir/kver ]] && kv=", kernel $(cat "$dir/kver")"
	say "$suite $kind root built in $((SECONDS - t0))s: $(du -sh "$dir" | cut -f1)$kv"
	touch "$dir/.used"
	# Roots of this suite with another package list (another branch may
	# still use one: remove only those unused for a week).
	find "$cache/roots" -mindepth 2 -maxdepth 2 -path "${dir%-*}-*/.used" \
		! -path "$dir/.used" -mtime +7 -printf '%h\n' | xargs -r rm -rf
	echo "$dir"
}

# --- another architecture: an extracted Debian 12 root ---------------------

# Packages of the arm64 and s390x roots, unpacked (not installed: no maintainer script
# runs, nothing of the root runs on the host) with their dependencies, plus
# the kernel; what guest-init.sh and the guest tests run: bash, mount,
# setsid, timeout, ip/rdma, busybox (static: also the initramfs's), the
# verbs tools, dash (/bin/sh) and gzip (rdma-core-suite.sh unpacks
# rdma-core's tests with gunzip, a /bin/sh script). Changing this list (or
# arch_root_format) rebuilds the root.
arch_root_packages=(bash coreutils util-linux mount iproute2 kmod busybox-static
	dash procps grep sed gawk gzip findutils diffutils libc-bin dpkg rdma-core
	ibverbs-utils ibverbs-providers perftest rdmacm-utils python3 python3-pyverbs)
arch_root_format=1

# mmdebstrap --extract-hook (run as "prepare.sh --extract-hook ROOT" on the
# host, the .debs still in ROOT's apt cache): dpkg's status from their
# control files, so that dpkg-query in the guest names the versions.
extract_hook() {
	local root=$1 d
	for d in "$root"/var/cache/apt/archives/*.deb; do
		dpkg-deb -f "$d"
		echo "Status: install ok installed"
		echo
	done >"$root/var/lib/dpkg/status"
}

# The host's apt sources (mmdebstrap takes the files as its mirrors).
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[[ -s $f ]] && echo "$f"
	done
	return 0
}

# The cached bookworm root of $arch (built when absent): prints its
# directory, which holds root/, kver, kpkg, and later the initramfs.
get_arch_root() {
	local r kpkg key dir tmp t0 inc kver srcs
	r=$(resolve_kernel)
	if [[ -z $r ]] && apt_update; then r=$(resolve_kernel); fi
	[[ -n $r ]] || die "apt knows no linux-image-6.1.0-NN-$arch kernel (dpkg --add-architecture $arch; apt-get update)"
	kpkg=${r%%=*}
	key=$({
		echo "format $arch_root_format bookworm $arch $r"
		printf '%s\n' "${arch_root_packages[@]}"
	} | sha256sum | cut -c1-12)
	dir=$cache/roots/bookworm-$arch-$key
	if [[ -e $dir/.complete ]]; then
		touch "$dir/.used"
		echo "$dir"
		return
	fi
	if ! command -v mmdebstrap >/dev/null; then
		packages=(mmdebstrap)
		install_packages
	fi
	find "$cache" -mindepth 1 -maxdepth 1 -name '.tmp.*' -mmin +720 -exec rm -rf {} + || true
	mapfile -t srcs < <(apt_sources)
	((${#srcs[@]})) || die "no apt sources on the host"
	say "building the bookworm $arch root with mmdebstrap into $dir (a few minutes)"
	t0=$SECONDS
	tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
	inc=$(IFS=,; echo "${arch_root_packages[*]},$kpkg=${r#*=}")
	quiet mmdebstrap --arch="$arch" --variant=extract --include="$inc" \
		--extract-hook="\"$here/prepare.sh\" --extract-hook \"\$1\"" \
		bookworm "$tmp/root" "${srcs[@]}" ||
		{ rm -rf "$tmp"; die "mmdebstrap --arch=$arch failed"; }
	kver=$(ls "$tmp/root/lib/modules")
	[[ -n $kver && $kver != *$'\n'* ]] || die "unexpected module tree in the $arch root: $kver"
	# What maintainer scripts would have made: the modules' index, awk.
	quiet depmod -b "$tmp/root" "$kver" || die "depmod failed"
	[[ -e $tmp/root/usr/bin/awk ]] || ln -s gawk "$tmp/root/usr/bin/awk"
	echo "$kver" >"$tmp/kver"
	echo "$kpkg ${r#*=}" >"$tmp/kpkg"
	touch "$tmp/.complete"
	mkdir -p "$cache/roots"
	mv "$tmp" "$dir"
	chmod 0755 "$dir"
	say "bookworm $arch root built in $((SECONDS - t0))s: $(du -sh "$dir" | cut -f1), kernel $kver"
	touch "$dir/.used"
	find "$cache/roots" -mindepth 2 -maxdepth 2 -path "$cache/roots/bookworm-$arch-*/.used" \
		! -path "$dir/.used" -mtime +7 -printf '%h\n' | xargs -r rm -rf
	echo "$dir"
}

while (($#)); do
	case "$1" in
	-v | --verbose) verbose=1 ;;
	--arch) arch=${2:?--arch needs amd64, arm64 or s390x}; shift ;;
	--arch=*) arch=${1#*=} ;;
	--extract-hook) extract_hook "${2:?}"; exit ;;
	--print-env) print_env=1 ;;
	--distro) distro=${2:?--distro needs bookworm, trixie or sid}; shift ;;
	--distro=*) distro=${1#*=} ;;
	--kernel-hook) kernel_hook "${2:?}"; exit ;;
	--qemu-root) qemu_root=1 ;;
	-h | --help)
		sed -n '3,/^$/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "prepare.sh: unknown argument '$1'" >&2
		exit 2
		;;
	esac
	shift
done


case "$distro" in
bookworm | trixie | sid) ;;
*) die "unknown --distro '$distro' (bookworm, trixie or sid)" ;;
esac
case "$arch" in
amd64) ;;
arm64 | s390x)
	[[ $distro == bookworm ]] || die "--arch $arch: Debian 12 (bookworm) only"
	packages+=(mmdebstrap)
	if [[ $arch == arm64 ]]; then packages+=(qemu-system-arm); else packages+=(qemu-system-misc); fi
	;;
*) die "unknown --arch '$arch' (amd64, arm64 or s390x)" ;;
esac

install_packages

mkdir -p "$cache/kernels" 2>/dev/null || as_root mkdir -p "$cache/kernels"
[[ -w $cache ]] || die "$cache is not writable (set DOORBELL_VM_CACHE)"
if ((qemu_root)); then
	exec 9>"$cache/.lock-qemu"
	flock 9
	echo "$(get_root sid qemu)/root"
	exit
fi
# One lock per distribution: building a root (minutes) does not hold up
# the bookworm guests.
if [[ $arch != amd64 ]]; then
	exec 9>"$cache/.lock-$arch"
elif [[ $distro == bookworm ]]; then
	exec 9>"$cache/.lock"
else
	exec 9>"$cache/.lock-$distro"
fi
flock 9

if [[ $arch != amd64 ]]; then
	rdir=$(get_arch_root)
	kver=$(cat "$rdir/kver")
	kpkg=$(cut -d' ' -f1 "$rdir/kpkg")
	root=$rdir/root
	moddir=
	# arm64: a gzip'ed Image, which QEMU unpacks itself; s390x: the
	# kernel image QEMU's s390-ccw-virtio loads as it is.
	kernel=$root/boot/vmlinuz-$kver
	[[ -f $kernel ]] || die "no /boot/vmlinuz-$kver in the $arch root"
	initramfs_busybox=$root/bin/busybox
	initrd=$(build_initramfs "$root" "$kver" "$rdir")
elif [[ $distro == bookworm ]]; then
	kdir=$(get_kernel)
	kver=$(cat "$kdir/.kver")
	kpkg=$(cat "$kdir/.pkg")
	root=
	moddir=$kdir/lib/modules/$kver
	initrd=$(build_initramfs "$kdir" "$kver")
	kernel=$(kernel_image "$kdir/boot/vmlinuz-$kver" "$kdir/boot/config-$kver" \
		"$kdir/boot/vmlinux-$kver")
else
	rdir=$(get_root "$distro")
	kver=$(cat "$rdir/kver")
	kpkg=$(cut -d' ' -f1 "$rdir/kpkg" | paste -sd' ')
	root=$rdir/root
	# The guest finds these modules at their usual place in its root.
	moddir=
	config=$root/boot/config-$kver # none in sid's linux-binary
	z=$root/boot/vmlinuz-$kver
	[[ -f $z ]] || z=$root/usr/lib/modules/$kver/vmlinuz
	[[ -f $z ]] || die "no vmlinuz for $kver in $root"
	initrd=$(build_initramfs "$root" "$kver" "$rdir")
	kernel=$(kernel_image "$z" "$config" "$rdir/vmlinux-$kver")
fi
log "$distro $arch: kernel $kver ($kpkg), initramfs $initrd"

if ((print_env)); then
	printf 'vm_distro=%q\n' "$distro"
	printf 'vm_arch=%q\n' "$arch"
	printf 'vm_root=%q\n' "$root"
	printf 'vm_kpkg=%q\n' "$kpkg"
	printf 'vm_kver=%q\n' "$kver"
	printf 'vm_kernel=%q\n' "$kernel"
	printf 'vm_initrd=%q\n' "$initrd"
	printf 'vm_moddir=%q\n' "$moddir"
fi
