#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Everything that runs inside the guest, against its device (db_ibdev,
# scripts/lib.sh: rxe0), through doorbell.
# Usage: suite.sh BUILD_DIR
set -u
build=${1:?usage: suite.sh BUILD_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"	# pass, fail, skip
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}

# Only doorbell may serve the device: the stock rxe.driver is hidden.
if [[ -e /etc/libibverbs.d/rxe.driver ]]; then
	fail only_doorbell_serves_rxe0 "stock rxe.driver is visible"
fi

# The suite's status: 1 if a part exited non-zero, so that a part that
# died without a FAIL line still fails the guest stage (scripts/test.sh).
status=0
part() { "$@" || status=1; }

echo "== integration tests (bytes checked)"
itest=$build/tests/guest/itest/doorbell-itest
if [[ -x $itest ]]; then
	# A crash or a signal is a FAIL line (itest-run.sh).
	part "$here/itest-run.sh" integration_tests_complete -- \
		"$itest" -d "$dev" -g "$gid"
else
	fail integration_tests_built "no $itest"
fi

echo "== applications"
part "$here/apps.sh"

echo "== perftest under valgrind memcheck"
part "$here/memcheck.sh"

echo "== rdma-core's pyverbs suite (Debian's copy): stock librxe, then doorbell"
# Judged test by test against the stock provider in this boot, with the
# same random draws (rdma-core-suite.sh --baseline).  The stock run names
# librxe itself: its rxe.driver is hidden.
export DOORBELL_SUITE_SEED=${DOORBELL_SUITE_SEED:-$RANDOM}
echo "    (DOORBELL_SUITE_SEED=$DOORBELL_SUITE_SEED)"
suite_base=$(mktemp)
RDMAV_DRIVERS=rxe part "$here/rdma-core-suite.sh" --measure --save "$suite_base" \
	--name stock_rdma_core_suite_baseline_measured
part "$here/rdma-core-suite.sh" --baseline "$suite_base" \
	--name rdma_core_suite_no_failures_no_errors_passes_what_stock_passes
rm -f "$suite_base"

echo "== instruction counts (callgrind) against tests/bench/insn-baseline.txt"
part "$here/insn-guard.sh" "$build"

echo "== pyverbs-tests (the project's own Python tests)"
part "$here/pyverbs-suite.sh"

# Last: it deletes the device (and adds it back at the end).
echo "== device removal under traffic"
DOORBELL_BUILD_DIR=$build part "$here/device-removal.sh" 1
exit "$status"
