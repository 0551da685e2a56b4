#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's own pyverbs test suite, as Debian ships it in the rdma-core
# package, against rxe0.  Prints the unittest summary and one PASS/FAIL line:
# the suite passes with no failures and no errors, and at least MIN_PASS
# tests passed (the stock provider's count on the same kernel).
# Usage: rdma-core-suite.sh [MIN_PASS [unittest args...]]
set -u
min=${1:-86}
shift || true
dev=${DOORBELL_VM_IBDEV:-rxe0}
gid=${DOORBELL_VM_GID_INDEX:-1}
src=/usr/share/doc/rdma-core/tests
# The huge-page tests need 2 MiB pages; reserve some in the throw-away guest.
if [[ -n ${DOORBELL_VM:-} ]]; then
	echo 32 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
fi
work=$(mktemp -d)
cp -r "$src" "$work/tests"
find "$work/tests" -name '*.gz' -exec gunzip -f {} +
log=$work/log
timeout 1800 /usr/bin/python3 "$work/tests/run_tests.py" --dev "$dev" --port 1 \
	--gid "$gid" -v "$@" >"$log" 2>&1
rc=$?
grep -E "^(FAIL|ERROR):" "$log" | sed 's/^/    /'
grep -E "^Ran [0-9]+ tests|^OK|^FAILED" "$log" | sed 's/^/    /'
ran=$(sed -nE 's/^Ran ([0-9]+) tests.*/\1/p' "$log")
skipped=$(grep -oE "skipped=[0-9]+" "$log" | tail -1 | cut -d= -f2)
failures=$(grep -oE "failures=[0-9]+" "$log" | tail -1 | cut -d= -f2)
errors=$(grep -oE "errors=[0-9]+" "$log" | tail -1 | cut -d= -f2)
passed=$(( ${ran:-0} - ${skipped:-0} - ${failures:-0} - ${errors:-0} ))
echo "    rdma-core suite: ran ${ran:-0}, passed $passed, skipped ${skipped:-0}, failures ${failures:-0}, errors ${errors:-0}"
if ((rc == 0 && passed >= min)); then
	echo "PASS rdma_core_suite_passes_with_no_failures_or_errors"
else
	echo "FAIL rdma_core_suite_passes_with_no_failures_or_errors: exit $rc, $passed passed (need $min)"
fi
if [[ -n ${DOORBELL_SUITE_LOG:-} ]]; then
	cp "$log" "$DOORBELL_SUITE_LOG"
fi
rm -rf "$work"
exit 0
