#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: step 2 of issue
# #19.  The pingpongs of the distribution's ibverbs-utils (rc, ud and srq
# also with -e, completion events; uc), through the provider
# tests/guest/mlx5/with-provider.sh chose (stock libmlx5 by default), in loopback on the software ConnectX's port 1: a server
# and a client in the same guest, the client reaching the server over TCP
# on localhost for the exchange of LIDs and QPNs, the data going through
# the device's data path (sim/mlx5/pci/cx_engine.c); each side checks the
# bytes it received (-c); a side that prints "invalid data" (which -c
# does and still exits 0) fails the pair (pingpong_verdict, in
# tests/guest/lib/pair-lib.sh).  The pairs run through the Soft-RoCE guests'
# tests/guest/lib/pair-lib.sh (the client starts when the server listens; each
# side has a timeout, so nothing hangs).  ibv_rc_pingpong -t (issue #31)
# polls through ibv_cq_ex with completion timestamps and prints the
# smallest gap, in device clock cycles, between two receive completions: a
# second line, cx_rc_pingpong_ts_stamped, requires it above 0 on both
# sides (a device that writes no timestamp into its CQEs gives 0, and the
# pingpong still exits 0: pingpong_stamped).  After each pingpong, cx_blueflame_rang_NAME
# (blueflame-lib.sh): its provider rang BlueFlame.  Prints PASS/FAIL per
# pingpong; exit 1 if any failed.
#
# Usage: check-pingpong.sh [ITERS]   (scripts/cx.sh -- tests/guest/mlx5/check-pingpong.sh)
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
# shellcheck source=tests/guest/mlx5/blueflame-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/blueflame-lib.sh"
iters=${1:-200}
addr=localhost
pair_timeout=30
failed=0
port=18515
dir=$(mktemp -d)

# name, then the program and its options (both sides)
pair() {
	local name=$1 prog=$2 bf
	shift 2
	port=$((port + 1))
	bf=$(bf_count)
	run_pair "$dir/$name.srv" "$dir/$name.cli" \
		"$prog" -d mlx5_0 -i 1 -p "$port" -n "$iters" "$@"
	pingpong_verdict "cx_$name" "$dir/$name.srv" "$dir/$name.cli" ||
		failed=1
	bf_rang "$name" "$bf" || failed=1
}

pair rc_pingpong ibv_rc_pingpong -c
pair rc_pingpong_events ibv_rc_pingpong -e -c
pair ud_pingpong ibv_ud_pingpong -s 1024 -c
pair ud_pingpong_events ibv_ud_pingpong -s 1024 -e -c
pair srq_pingpong ibv_srq_pingpong -c
pair srq_pingpong_events ibv_srq_pingpong -e -c
pair uc_pingpong ibv_uc_pingpong -c
pair rc_pingpong_ts ibv_rc_pingpong -t -c
pingpong_stamped cx_rc_pingpong_ts_stamped "$dir/rc_pingpong_ts.srv" \
	"$dir/rc_pingpong_ts.cli" || failed=1
rm -rf "$dir"
exit "$failed"
