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
	timeout 600 apt-get update -qq >/dev/null
	timeout 1200 apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
}
