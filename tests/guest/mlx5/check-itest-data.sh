#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: doorbell-itest's
# data-path tests on the software ConnectX, through the provider
# tests/guest/mlx5/with-provider.sh chose.  Each of them compares every byte that
# arrived with the bytes sent (it_verify), where the pingpongs' -c checks
# one byte per page.  The sets: RC send/receive (sizes, SGEs, inline,
# immediate, RNR retry), RC RDMA write and read, UC send and RDMA write,
# UD send, SRQ.
# Prints doorbell-itest's PASS/FAIL/SKIP lines; exit 1 if any set failed.
#
# Usage: check-itest-data.sh   (check-all.sh: both ... check-itest-data.sh)
# DOORBELL_PROVIDER_BUILD: the build of doorbell-itest (default: build/).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${DOORBELL_PROVIDER_BUILD:-$(cd "$here/../../.." && pwd)/build}
itest=$build/tests/guest/itest/doorbell-itest
rc=0
for k in rc_send_ rc_rdma_ uc_ ud_send_ srq_; do
	"$itest" -d mlx5_0 -g 0 -k "$k" -x matrix_ -x post_ -x feature_ || rc=1
done
exit "$rc"
