#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The instruction-count regression guard: callgrind counts per ibv_post_send
# and per polled completion through doorbell must stay within 10% of
# tests/bench/insn-baseline.txt.  Usage: insn-guard.sh BUILD_DIR
set -u
build=${1:?usage: insn-guard.sh BUILD_DIR}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export RDMAV_DRIVERS=$build/lib/libdoorbell
while read -r variant post poll; do
	[[ -z $variant || $variant == \#* ]] && continue
	args=()
	[[ $variant == td ]] && args=(-t)
	if ! got=$("$top/tests/bench/callgrind-counts.sh" "$build" "${args[@]}"); then
		echo "FAIL instructions_per_call_within_10_percent_$variant: no counts"
		continue
	fi
	gpost=$(awk '$1 == "post" { print $2 }' <<<"$got")
	gpoll=$(awk '$1 == "poll" { print $2 }' <<<"$got")
	echo "    $variant: post $gpost (recorded $post), poll $gpoll (recorded $poll)"
	if awk -v a="$gpost" -v b="$post" -v c="$gpoll" -v d="$poll" \
		'BEGIN { exit !(a <= b * 1.10 && c <= d * 1.10) }'; then
		echo "PASS instructions_per_call_within_10_percent_$variant"
	else
		echo "FAIL instructions_per_call_within_10_percent_$variant: grew more than 10%"
	fi
done <"$top/tests/bench/insn-baseline.txt"
