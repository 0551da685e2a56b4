# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the scripts that install Debian packages they need.

# install_missing WHO PKG...: install with apt those of PKG... that are not
# installed (needs root; says so and fails otherwise).  WHO prefixes the
# messages on stderr.
install_missing() {
	local who=$1 p missing=()
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	if [[ $(id -u) != 0 ]]; then
		echo "$who: need root to install: ${missing[*]}" >&2
		return 1
	fi
	echo "$who: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# Wait for another apt (unattended-upgrades, a parallel job) to finish.
	local lock=(-o DPkg::Lock::Timeout=600)
	# A mirror being synced serves an index of the wrong size for a
	# while ("Mirror sync in progress?"): try again, then install from
	# the indexes apt has, which fails if they lack a package.
	local try
	for try in 1 2 3; do
		timeout 900 apt-get "${lock[@]}" update -qq >/dev/null && break
		echo "$who: apt-get update failed (try $try of 3)" >&2
		((try < 3)) && sleep 30
	done
	if ! timeout 1800 apt-get "${lock[@]}" install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null; then
		echo "$who: apt-get install ${missing[*]} failed" >&2
		return 1
	fi
}

# cross_packages WHO ARCH TRIPLET: the packages a cross build for ARCH needs,
# one a line: gcc-TRIPLET, libc6-dev-ARCH-cross (crt1.o, ...: gcc-TRIPLET
# only recommends it) and the multiarch libibverbs-dev:ARCH.  dpkg learns
# ARCH first (needs root; says so and fails otherwise).
cross_packages() {
	local who=$1 arch=$2 triplet=$3
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		if [[ $(id -u) != 0 ]]; then
			echo "$who: need root for dpkg --add-architecture $arch" >&2
			return 1
		fi
		dpkg --add-architecture "$arch"
	fi
	printf '%s\n' "gcc-$triplet" "libc6-dev-$arch-cross" "libibverbs-dev:$arch"
}
