#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Everything that runs inside the guest, against rxe0, through doorbell.
# Usage: suite.sh BUILD_DIR
set -u
build=${1:?usage: suite.sh BUILD_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dev=${DOORBELL_VM_IBDEV:-rxe0}
gid=${DOORBELL_VM_GID_INDEX:-1}

# Only doorbell may serve the device: the stock rxe.driver is hidden.
if [[ -e /etc/libibverbs.d/rxe.driver ]]; then
	echo "FAIL only_doorbell_serves_rxe0: stock rxe.driver is visible"
fi

echo "== integration tests (bytes checked)"
for t in "$build"/tests/integration/itest_*; do
	[[ -x $t ]] || continue
	timeout 900 "$t" -d "$dev" -g "$gid" ||
		echo "    ($(basename "$t") exited $?)"
done

echo "== applications"
"$here/apps.sh"

echo "== rdma-core's pyverbs suite (Debian's copy)"
"$here/rdma-core-suite.sh" 86
