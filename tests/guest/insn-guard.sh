#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The instruction-count regression guard in the guest: callgrind counts per
# ibv_post_send and per polled completion through doorbell on the guest's
# device must stay within 10% of tests/bench/insn-baseline.txt
# (tests/bench/insn-guard.sh does the counting and the comparison).  Usage: insn-guard.sh BUILD_DIR
# Exit 1 on a FAIL line, or when a variant could not be counted.
set -uo pipefail
build=${1:?usage: insn-guard.sh BUILD_DIR}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
export RDMAV_DRIVERS=$build/lib/libdoorbell
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
for t in "" -t; do
	variant=${t:+td}
	"$top/tests/bench/insn-guard.sh" "$build" $t \
		--check "$top/tests/bench/insn-baseline.txt" -- -d "$dev" -g "$gid" >"$out"
	rc=$?
	if ! grep -E '^(PASS|FAIL) ' "$out"; then
		fail "insn_rxe_${variant:-default}_counted" "no counts (exit $rc)"
		status=1
	elif ((rc != 0)); then
		status=1
	fi
done
exit "$status"
