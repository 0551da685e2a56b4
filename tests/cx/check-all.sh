#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/cx/guest-cx.sh found mlx5_0: every check of
# stage cx (scripts/test.sh) in one boot, stock libmlx5 and doorbell's mlx5
# backend alternated on the same device and kernel (issue #20;
# tests/cx/with-provider.sh chooses the provider; libmlx5's lines keep
# their cx_ names, doorbell's are cx_doorbell_):
#   devinfo; the pingpongs (data checked) and perftest's RC pairs, each
#   through libmlx5 then doorbell; the interrupt counts through libmlx5;
#   rdma-core's suite through libmlx5 (saved), then through doorbell held to
#   it (0 failures, 0 errors, at least libmlx5's passes); the bad-input
#   matrix through doorbell (doorbell-itest -k matrix_, the errnos
#   docs/mlx5-model.md tables).
# Exit status: 1 if any part failed.
#
# Usage: check-all.sh   (scripts/cx.sh -- tests/cx/check-all.sh)
# DOORBELL_PROVIDER_BUILD: the build of the provider and doorbell-itest
# (default: the checkout's build/; with-provider.sh).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${DOORBELL_PROVIDER_BUILD:-$(cd "$here/../.." && pwd)/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
both() {
	"$here/with-provider.sh" libmlx5 "$@" || rc=1
	"$here/with-provider.sh" doorbell "$@" || rc=1
}
t0=$SECONDS
stamp() { echo "    ($1: $((SECONDS - t0)) s)"; t0=$SECONDS; }

"$here/check-devinfo.sh" || rc=1
both "$here/check-pingpong.sh" 200
stamp pingpongs
both "$here/check-perftest.sh" 200
stamp perftest
"$here/check-interrupts.sh" || rc=1
stamp interrupts
"$here/with-provider.sh" libmlx5 "$here/check-rdma-core-suite.sh" --save "$work/suite" 60 || rc=1
"$here/with-provider.sh" doorbell "$here/check-rdma-core-suite.sh" --baseline "$work/suite" 60 || rc=1
stamp suites
"$here/with-provider.sh" doorbell "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k matrix_ || rc=1
stamp matrix
exit "$rc"
