#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_send_bw and ib_write_lat over loopback on one device, through whatever
# provider RDMAV_DRIVERS names; prints the client's results.
# Usage: demo-pair.sh [DEVICE [GID_INDEX]]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
dev=${1:-${DOORBELL_VM_IBDEV:-rxe0}}
gid=${2:-${DOORBELL_VM_GID_INDEX:-1}}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}

run_pair() {
	local out
	out=$(mktemp)
	timeout 120 "$@" >/dev/null 2>&1 &
	local srv=$!
	sleep 1
	if ! timeout 120 "$@" "$addr" >"$out" 2>&1; then
		cat "$out"
		rm -f "$out"
		wait "$srv" || true
		return 1
	fi
	wait "$srv"
	cat "$out"
	rm -f "$out"
}

echo "== ib_send_bw ($dev, GID index $gid)"
run_pair ib_send_bw -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_send_bw on $dev failed (its output is above)"
echo "== ib_write_lat ($dev, GID index $gid)"
run_pair ib_write_lat -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_write_lat on $dev failed (its output is above)"
