#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: a third
# writer of WQEs.  UCX's rc_mlx5 and ud_mlx5 transports build their WQEs,
# ring their doorbells and parse their CQEs with their own code (through
# mlx5dv, beside libmlx5), which nobody here wrote; the device must take
# them as a ConnectX does.  ucx_perftest runs its UCT tests, server and
# client on this guest, over mlx5_0's port 1:
#   rc_mlx5: am_lat, put_lat, am_bw;  ud_mlx5: am_lat, am_bw (UD has no put).
# A test passes when both sides exit 0 and the client printed its final
# line; the device server's violation count (scripts/cx.sh) then says
# whether the device found fault with a WQE or a doorbell.
# SKIP where the guest has no ucx_perftest (ucx-utils is in Debian 12's
# root, the host's; sid's UCX runs its perftest under mpirun only).
#
# Usage: check-ucx.sh [ITERS]   (scripts/cx.sh --distro bookworm -- tests/guest/mlx5/check-ucx.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
iters=${1:-200}
dev=mlx5_0:1
port=13337
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v ucx_perftest >/dev/null; then
	for t in rc_mlx5_am_lat rc_mlx5_put_lat rc_mlx5_am_bw ud_mlx5_am_lat ud_mlx5_am_bw; do
		skip "cx_ucx_${t}_passes" "no ucx_perftest in this guest (ucx-utils)"
	done
	exit 0
fi

# run TRANSPORT TEST: one server and one client, 60 s each at most.
run() {
	local tl=$1 test=$2 name=cx_ucx_$1_$2_passes srv cli
	timeout 60 ucx_perftest -d "$dev" -x "$tl" -p "$port" >"$work/srv" 2>&1 &
	srv=$!
	sleep 2
	timeout 60 ucx_perftest 127.0.0.1 -d "$dev" -x "$tl" -p "$port" -t "$test" \
		-n "$iters" >"$work/cli" 2>&1
	cli=$?
	wait "$srv"
	srv=$?
	if ((cli == 0 && srv == 0)) && grep -q 'Final:' "$work/cli"; then
		pass "$name" "$(grep 'Final:' "$work/cli" | tr -s ' ' | head -n 1)"
	else
		fail "$name" "client exit $cli, server exit $srv: $(tail -n 3 "$work/cli" "$work/srv" | tr '\n' ' ')"
	fi
}

run rc_mlx5 am_lat
run rc_mlx5 put_lat
run rc_mlx5 am_bw
run ud_mlx5 am_lat
run ud_mlx5 am_bw
exit "$db_failed"
