#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest of the Ethernet pair (scripts/cx.sh --pair, after
# check-eth-wire.sh's set-up; issue #32 step 3): the ibverbs-utils
# pingpongs (rc, rc with events, srq, uc, ud) over RoCE v2 between the
# two functions, as users run them on
# a ConnectX: the server on DEV_A with GID index GID_A in this network
# namespace, the client on DEV_B with GID_B in namespace NS, reaching the
# server's TCP port at ADDR over the wire for the exchange of QPNs and
# GIDs.  Every packet of the data crosses the wire as a RoCE v2 frame
# (sim/mlx5/pci/cx_roce.c); each side checks the bytes it received (-c,
# pingpong_verdict).  Run through tests/guest/mlx5/with-provider.sh, which
# proves who served both devices.  Prints PASS/FAIL per pingpong; exit 1
# if any failed.
#
# Usage: check-roce-pingpong.sh NS DEV_A GID_A DEV_B GID_B ADDR [ITERS]
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
ns=$1 dev_a=$2 gid_a=$3 dev_b=$4 gid_b=$5 addr=$6 iters=${7:-100}
dir=$(mktemp -d)
port=18600
failed=0

# NAME PROG [ARGS...]: one pair, server here, client in $ns.
roce_pair() {
	local name=$1 prog=$2 spid t
	shift 2
	port=$((port + 1))
	t=$(scaled 60)
	timeout "$t" "$prog" -d "$dev_a" -g "$gid_a" -p "$port" -n "$iters" "$@" \
		>"$dir/$name.srv" 2>&1 &
	spid=$!
	if wait_port "$port" "$spid" "$(scaled 30)"; then
		timeout "$t" ip netns exec "$ns" "$prog" -d "$dev_b" -g "$gid_b" \
			-p "$port" -n "$iters" "$@" "$addr" >"$dir/$name.cli" 2>&1
		rc_c=$?
	else
		echo "the server did not listen on port $port" >"$dir/$name.cli"
		rc_c=1
	fi
	wait_gone "$spid" "$(scaled 10)"
	kill "$spid" 2>/dev/null
	wait "$spid"
	rc_s=$?
	pingpong_verdict "cx_roce_$name" "$dir/$name.srv" "$dir/$name.cli" ||
		failed=1
}

roce_pair rc_pingpong ibv_rc_pingpong -c
roce_pair rc_pingpong_events ibv_rc_pingpong -e -c
roce_pair srq_pingpong ibv_srq_pingpong -c
roce_pair uc_pingpong ibv_uc_pingpong -c
# UD: one packet per message, at most the RoCE path MTU (1024 here).
roce_pair ud_pingpong ibv_ud_pingpong -s 1024 -c
rm -rf "$dir"
exit "$failed"
