#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The main job: build doorbell, then run perftest's ib_send_bw and
# ib_write_lat through it and print their results.  It uses this machine's
# own Soft-RoCE device if it has one, and otherwise boots the Soft-RoCE
# guest of tests/vm.  Installs what it needs (run as root on Debian 12).
#
# Usage: scripts/demo.sh [--vm]     --vm: use the guest even if a device exists
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
force_vm=0
[[ ${1:-} == --vm ]] && force_vm=1

scripts/deps.sh
build=$(scripts/build.sh)
export RDMAV_DRIVERS=$build/lib/libdoorbell

# A device of the host that doorbell can serve: an rxe link with a GID.
host_dev=""
if ((!force_vm)) && command -v rdma >/dev/null; then
	host_dev=$(rdma link show 2>/dev/null |
		   awk '/ state ACTIVE / { split($2, a, "/"); print a[1]; exit }')
	if [[ -n $host_dev ]] && ! DOORBELL_DEBUG=1 ibv_devinfo -d "$host_dev" 2>&1 |
			grep -q "serving the device"; then
		host_dev=""	# not a device doorbell serves (not rxe)
	fi
fi

if [[ -n $host_dev ]]; then
	echo "doorbell: running on this machine's $host_dev"
	exec tests/guest/demo-pair.sh "$host_dev"
fi
echo "doorbell: no Soft-RoCE device here; booting the Soft-RoCE guest" >&2
tests/vm/prepare.sh
exec tests/vm/run.sh --env "RDMAV_DRIVERS=$RDMAV_DRIVERS" -- \
	tests/guest/demo-pair.sh
