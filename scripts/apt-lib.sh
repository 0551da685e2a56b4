# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the scripts that install Debian packages they need.

# apt_update WHO: apt-get update.  Another apt holding the lists' lock is
# waited for (three tries).  An index the mirror serves broken ("Some index
# files failed to download", e.g. "Mirror sync in progress?") is reported
# and the indexes apt has are used: an install then fails if they lack a
# package.
apt_update() {
	local who=$1 try err
	err=$(mktemp)
	for try in 1 2 3; do
		if timeout 900 apt-get -o DPkg::Lock::Timeout=600 update -qq \
			>/dev/null 2>"$err"; then
			rm -f "$err"
			return 0
		fi
		if grep -q "Some index files failed to download" "$err"; then
			echo "$who: apt-get update: an index failed to download; using the indexes apt has" >&2
			grep '^E: Failed to fetch' "$err" | head -3 >&2
			rm -f "$err"
			return 0
		fi
		echo "$who: apt-get update failed (try $try of 3)" >&2
		((try < 3)) && sleep 20
	done
	cat "$err" >&2
	rm -f "$err"
	return 1
}

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
	if ! apt_update "$who"; then
		echo "$who: apt-get update failed" >&2
		return 1
	fi
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
