# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the latency checks (check-pingpong.sh, check-perftest.sh): did
# the provider that served a check ring BlueFlame (the WQE copied to the
# UAR's bfreg, not only its first 8 bytes)?  The software ConnectX counts
# the copies it ran (sim/mlx5/pci/cx_bf.c) in the file of cx-server --stats,
# which scripts/cx.sh shares with the guest as $DOORBELL_CX_STATS; a check
# runs alone, so the count's growth over it is its processes'.  Both
# libmlx5 and doorbell copy a lone small WQE when the kernel gave a
# bf_reg_size (its write-combining probe passed).  Without the file,
# nothing is printed.

# db_stat, pass, fail: scripts/lib.sh's
if ! declare -F db_stat >/dev/null; then
	# shellcheck source=scripts/lib.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
fi

# bf_count: the BlueFlame copies the device ran so far, or nothing.
bf_count() {
	[[ -n ${DOORBELL_CX_STATS:-} && -r $DOORBELL_CX_STATS/violations ]] &&
		db_stat "$DOORBELL_CX_STATS/violations" bf_doorbells
}

# bf_rang NAME BEFORE: PASS or FAIL cx_blueflame_rang_NAME by the copies
# since BEFORE (bf_count's); nothing when BEFORE is empty.
bf_rang() {
	local now
	[[ -n $2 ]] || return 0
	now=$(bf_count)
	if ((${now:-0} > $2)); then
		pass "cx_blueflame_rang_$1" "$((now - $2)) BlueFlame doorbells"
		return 0
	fi
	fail "cx_blueflame_rang_$1" "no BlueFlame doorbell: only 8-byte doorbells"
	return 1
}
