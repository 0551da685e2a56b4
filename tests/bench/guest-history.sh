#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Callgrind counts for the stock provider and each listed doorbell build.
# Usage: guest-history.sh BUILD_DIR LIST   (LIST lines: "LABEL PROVIDER_PATH")
set -u
build=${1:?} list=${2:?}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
one() {
	local label=$1 c
	shift
	if c=$("$here/insn-guard.sh" "$build" "$@" 2>/dev/null |
		awk '$1 == "post_send64" { p = $2 } $1 == "poll_1" { q = $2 }
		     END { if (p == "" || q == "") exit 1
			   print "post", p, "poll", q }'); then
		echo "$label $c"
	else
		echo "$label unsupported"
	fi
}
one "stock default"
while read -r label path; do
	RDMAV_DRIVERS=$path one "$label default"
	RDMAV_DRIVERS=$path one "$label td" -t
done <"$list"
