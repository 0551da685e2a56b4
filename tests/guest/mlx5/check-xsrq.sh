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
# hung in about one run in six.  The device's count of such resends
# (cx-server --stats, stat ack_timeouts) over the run is printed.
# check-all.sh judges it through both providers.
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

# resends: the device's ACK-timeout resends so far, or nothing.
resends() {
	[[ -n ${DOORBELL_CX_STATS:-} ]] && db_stat "$DOORBELL_CX_STATS/violations" ack_timeouts
}
before=$(resends)
run_pair "$dir/srv" "$dir/cli" ibv_xsrq_pingpong -d mlx5_0 -i 1 -p 18600 -n "$iters"
after=$(resends)
[[ -n $before && -n $after ]] && echo "  xsrq: $((after - before)) ACK-timeout resends by the device"
if ((rc_s == 0 && rc_c == 0)) && grep -q success "$dir/srv" && grep -q success "$dir/cli"; then
	pass cx_xsrq_pingpong "both sides: success ($iters tests per client)"
	exit 0
fi
fail cx_xsrq_pingpong "server exit $rc_s, client exit $rc_c"
sed 's/^/  server: /' "$dir/srv"
sed 's/^/  client: /' "$dir/cli"
exit 1
