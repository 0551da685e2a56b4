#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: ibverbs-utils'
# ibv_xsrq_pingpong (XRC: domains, XRC SRQs, send and receive QPs, issue
# #31) as a server and a client on the software ConnectX, through the
# provider tests/guest/mlx5/with-provider.sh chose.  It passes when both
# sides exit 0 and print "success".  The program checks no data (its -c
# is a number of clients); the bytes of XRC sends are checked by
# doorbell-itest's xrc_ tests.  The server sends as soon as its own QPs
# are connected, so its first message can reach the client's receive QP
# before that reaches RTR; a ConnectX drops it and the server resends it
# after its ACK timeout (timeout 14: 67 ms), as the software ConnectX does
# (sim/mlx5/engine/m5m_send.c, m5m_no_ack).  Without that resend the pair
# hung in about one run in six.  A second pair makes that race every
# time: its client is preloaded with late-rtr.c, which makes it 200 ms
# late to RTR.  The device's count of resends (cx-server --stats, stat
# ack_timeouts) over each pair is printed; the late pair must have some.
# check-all.sh judges both pairs through both providers.
#
# Usage: check-xsrq.sh [ITERS]   (check-all.sh: with-provider.sh P check-xsrq.sh)
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
iters=${1:-20}
addr=localhost
pair_timeout=30
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

build=${DOORBELL_PROVIDER_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/build}
late=$build/tests/guest/mlx5/libcx-late-rtr.so

# resends: the device's ACK-timeout resends so far, or nothing.
resends() {
	[[ -n ${DOORBELL_CX_STATS:-} ]] && db_stat "$DOORBELL_CX_STATS/violations" ack_timeouts
}

# xsrq NAME: one pair, judged; the client as pair_client_env says.
xsrq() {
	local before after
	before=$(resends)
	run_pair "$dir/srv" "$dir/cli" ibv_xsrq_pingpong -d mlx5_0 -i 1 -p 18600 -n "$iters"
	after=$(resends)
	[[ -n $before && -n $after ]] && resent=$((after - before)) &&
		echo "  $1: $resent ACK-timeout resends by the device"
	xsrq_verdict "cx_$1" "$dir/srv" "$dir/cli"
}

rc=0
resent=
xsrq xsrq_pingpong || rc=1
# The client 200 ms late to RTR (late-rtr.c): the server's first message
# finds its receive QP in INIT and must be resent.
[[ -r $late ]] || { fail cx_xsrq_pingpong_late_client "no $late"; exit 1; }
pair_client_env=(env "LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$late" DOORBELL_TEST_LATE_RTR_MS=200)
xsrq xsrq_pingpong_late_client || rc=1
if [[ -n $resent ]]; then
	check cx_xsrq_late_client_was_resent test "$resent" -gt 0 || rc=1
fi
exit "$rc"
