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
# side has a timeout, so nothing hangs).  Prints PASS/FAIL per pingpong;
# exit 1 if any failed.
#
# Usage: check-pingpong.sh [ITERS]   (scripts/cx.sh -- tests/guest/mlx5/check-pingpong.sh)
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
iters=${1:-200}
addr=localhost
pair_timeout=30
failed=0
port=18515
dir=$(mktemp -d)

# name, then the program and its options (both sides)
pair() {
	local name=$1 prog=$2
	shift 2
	port=$((port + 1))
	run_pair "$dir/$name.srv" "$dir/$name.cli" \
		"$prog" -d mlx5_0 -i 1 -p "$port" -n "$iters" "$@"
	pingpong_verdict "cx_$name" "$dir/$name.srv" "$dir/$name.cli" ||
		failed=1
}

pair rc_pingpong ibv_rc_pingpong -c
pair rc_pingpong_events ibv_rc_pingpong -e -c
pair ud_pingpong ibv_ud_pingpong -s 1024 -c
pair ud_pingpong_events ibv_ud_pingpong -s 1024 -e -c
pair srq_pingpong ibv_srq_pingpong -c
pair srq_pingpong_events ibv_srq_pingpong -e -c
pair uc_pingpong ibv_uc_pingpong -c

# XRC: ibv_xsrq_pingpong (its -c is the number of clients; it has no data
# check, so this row proves the XRC path completes, and the model's
# mlx5_xrc_* tests check the bytes).  Both sides exit 0 and say
# "success"; the server's XRC domain is the inode of a file of its own.
port=$((port + 1))
run_pair "$dir/xsrq.srv" "$dir/xsrq.cli" \
	ibv_xsrq_pingpong -d mlx5_0 -i 1 -p "$port" -n "$iters"
if ((rc_s == 0 && rc_c == 0)) && grep -q '^success' "$dir/xsrq.srv" &&
	grep -q '^success' "$dir/xsrq.cli"; then
	pass cx_xsrq_pingpong "$iters tests, both sides"
else
	fail cx_xsrq_pingpong "server exit $rc_s, client exit $rc_c"
	sed 's/^/  server: /' "$dir/xsrq.srv"
	sed 's/^/  client: /' "$dir/xsrq.cli"
	failed=1
fi
rm -rf "$dir"
exit "$failed"
