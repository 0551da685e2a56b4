#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: memory
# windows (issue #31) on the software ConnectX, through the provider
# serving mlx5_0 (tests/guest/mlx5/with-provider.sh chooses): rdma-core's
# MWTest (its module test_mr, the distribution's suite, run by
# tests/guest/rdma-core-suite.sh like check-rdma-core-suite.sh does).  Its
# tests bind type-1 windows (ibv_bind_mw) and type-2 ones (IBV_WR_BIND_MW),
# RDMA WRITE through the windows' rkeys both ways, and expect "Remote
# access error" once the windows are unbound, invalidated (LOCAL_INV, or
# SEND_WITH_INV from the peer) or deallocated.  One line, cx_mw_suite:
# PASS when every MWTest test passed and none was skipped (a provider
# without windows skips them: FAIL), then each test's result.
#
# Usage: check-mw.sh [TEST_TIMEOUT]
#        (scripts/cx.sh -- tests/guest/mlx5/check-mw.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
events=$(mktemp)
out=$(mktemp)
trap 'rm -f "$events" "$out"' EXIT

DOORBELL_SUITE_LOG=$events "$here/../rdma-core-suite.sh" \
	--dev mlx5_0 --gid 0 --test-timeout "${1:-120}" --per-module \
	--modules test_mr --name cx_mw_module >"$out" 2>&1
# The runner's lines: "start TEST", then "ok TEST" or skip, fail, error.
mw=$(grep -E '^[a-z]+ [^ ]*MWTest' "$events" | grep -v '^start ')
n=$(grep -c '^ok ' <<<"$mw")
others=$(grep -vc '^ok ' <<<"$mw")
if ((n > 0 && others == 0)); then
	echo "PASS cx_mw_suite: $n MWTest tests passed"
else
	echo "FAIL cx_mw_suite: $n MWTest tests passed, $others did not"
	sed 's/^/    suite: /' "$out"
fi
while IFS= read -r l; do echo "    $l"; done <<<"$mw"
((n > 0 && others == 0))
