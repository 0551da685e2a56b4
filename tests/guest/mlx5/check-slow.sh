#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0 on a slow
# device (scripts/cx.sh --slow: WQEs run from the device's timer, a few per
# QP per tick; READ and atomic responses land after later unfenced WQEs;
# each WQE compared at its CQE; receives read when the message executes):
# the checks whose timing a synchronous device hides, each through libmlx5
# then doorbell (tests/guest/mlx5/with-provider.sh proves the provider and
# judges the device's violation lines in every process): the pingpongs
# (data checked), perftest's RC pairs, doorbell-itest's data-path tests
# (every byte compared).
# Exit status: 1 if any part failed.
#
# Usage: check-slow.sh [--no-perftest] [ITERS]
#        (scripts/cx.sh --slow -- tests/guest/mlx5/check-slow.sh)
# ITERS: the pingpongs' and perftest's iterations (default 200; stage cx
# runs 50). --no-perftest: not perftest's pairs, which compare no bytes
# (stage cx, for CI's budget: the pingpongs and doorbell-itest check the
# data that lands late).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
perftest=1
if [[ ${1:-} == --no-perftest ]]; then
	perftest=0
	shift
fi
iters=${1:-200}
rc=0
stamp_prefix="slow "
# shellcheck source=tests/guest/mlx5/both-lib.sh
. "$here/both-lib.sh"	# both, stamp

both "$here/check-pingpong.sh" "$iters"
stamp pingpongs
if ((perftest)); then
	both "$here/check-perftest.sh" "$iters"
	stamp perftest
fi
both "$here/check-itest-data.sh"
stamp "data path (itest)"
exit "$rc"
