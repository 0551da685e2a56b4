# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the scripts that install Debian packages they need.

# apt_update WHO: apt-get update.  Another apt holding the lists' lock is
# waited for (three tries).  An index the mirror serves broken ("Some index
# files failed to download", e.g. "Mirror sync in progress?") is reported
# and the indexes apt has are used: an install then fails if they lack a
# package.  apt keeps a suite's old indexes when any of them fails, so one
# architecture's broken index would starve the others: the update is run
# again without the architectures that failed, then once more with all.
apt_update() {
	local who=$1 try err
	err=$(mktemp)
	for try in 1 2 3; do
		if apt_get_update "$err"; then
			rm -f "$err"
			return 0
		fi
		if grep -q "Some index files failed to download" "$err"; then
			echo "$who: apt-get update: an index failed to download; using the indexes apt has" >&2
			grep '^E: Failed to fetch' "$err" | head -3 >&2
			apt_update_without_failed "$who" "$err"
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

# apt_get_update ERRFILE [APT-OPTION...]
apt_get_update() {
	local err=$1
	shift
	timeout 900 apt-get -o DPkg::Lock::Timeout=600 "$@" update -qq \
		>/dev/null 2>"$err"
}

# apt_update_without_failed WHO ERRFILE: the update again with
# APT::Architectures set to every architecture but those whose
# binary-ARCH index ERRFILE names as failed, so that a suite's other
# indexes arrive; then with all of them again, which restores the indexes
# the first pass dropped (the suite that failed keeps what it now has).
apt_update_without_failed() {
	local who=$1 err=$2 a bad keep=() opts=() tmp
	mapfile -t bad < <(sed -n 's|^E: Failed to fetch .*/binary-\([a-z0-9]*\)/.*|\1|p' \
		"$err" | sort -u)
	((${#bad[@]})) || return 0
	for a in $(dpkg --print-architecture) $(dpkg --print-foreign-architectures); do
		[[ " ${bad[*]} " == *" $a "* ]] || keep+=("$a")
	done
	((${#keep[@]})) || return 0
	for a in "${keep[@]}"; do
		opts+=(-o "APT::Architectures::=$a")
	done
	echo "$who: apt-get update again for ${keep[*]} (not ${bad[*]})" >&2
	tmp=$(mktemp)
	apt_get_update "$tmp" "${opts[@]}" ||
		grep '^E: ' "$tmp" | head -3 >&2
	apt_get_update "$tmp" || true
	rm -f "$tmp"
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
