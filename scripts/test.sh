#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The whole test suite: build, unit tests (no device), then the guest suites
# against the real rdma_rxe driver of Debian 12's kernel under QEMU, with
# doorbell alone serving rxe0.  Installs what it needs (root, Debian 12).
# Every test prints PASS/FAIL/SKIP <name>; the last line counts them.
#
# Usage: scripts/test.sh [--unit-only]
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
unit_only=0
[[ ${1:-} == --unit-only ]] && unit_only=1
results=$(mktemp)
trap 'rm -f "$results"' EXIT

record() { tee -a "$results"; }

finish() {
	local p f s
	p=$(grep -c '^PASS ' "$results")
	f=$(grep -c '^FAIL ' "$results")
	s=$(grep -c '^SKIP ' "$results")
	echo "$p passed, $f failed, $s skipped"
	((f == 0))
	exit $?
}

if ! scripts/deps.sh; then
	echo "FAIL dependencies_install" | record
	finish
fi
if ! build=$(scripts/build.sh); then
	echo "FAIL build_is_warning_free" | record
	finish
fi
echo "PASS build_is_warning_free" | record

echo "== unit tests (no device)"
(cd "$build" && ctest --output-on-failure -V 2>&1) |
	sed -nE 's/^[0-9]+: ((PASS|FAIL|SKIP) .*)/\1/p; s/^[0-9]+: (    .*)/\1/p' |
	record
((unit_only)) && finish

echo "== guest: Soft-RoCE on Debian 12's kernel under QEMU"
if ! tests/vm/prepare.sh; then
	echo "FAIL guest_prepares" | record
	finish
fi
tests/vm/run.sh --timeout 2400 \
	--env "RDMAV_DRIVERS=$build/lib/libdoorbell" -- \
	tests/guest/suite.sh "$build" | record
rc=${PIPESTATUS[0]}
if ((rc == 124 || rc == 125)); then
	echo "FAIL guest_suite_completes: run.sh exit $rc" | record
fi

echo "== two hosts: RC/UD through doorbell over a lossy virtual wire"
# Two guests on one virtual wire, netem loss/reorder/duplicate/corruption;
# every byte verified (docs/reliability.md, "Two hosts").
tests/twohost/run-all.sh --build "$build" | record

echo "== packages: deb (lintian), rpm, and the take-over in the guest"
if deb=$(scripts/build-deb.sh); then
	echo "PASS deb_builds_and_is_lintian_clean" | record
	tests/vm/run.sh --keep-stock --timeout 1800 -- \
		tests/guest/package-takeover.sh "$deb" | record
	rc=${PIPESTATUS[0]}
	if ((rc == 124 || rc == 125)); then
		echo "FAIL package_takeover_completes: run.sh exit $rc" | record
	fi
else
	echo "FAIL deb_builds_and_is_lintian_clean" | record
fi
if scripts/build-rpm.sh >/dev/null; then
	echo "PASS rpm_builds_with_rpmbuild" | record
else
	echo "FAIL rpm_builds_with_rpmbuild" | record
fi

echo "== sanitizers: ASan+UBSan and TSan builds (unit tests, then the guest)"
scripts/sanitize.sh address,undefined | record
scripts/sanitize.sh thread | record

echo "== fuzzing: the libFuzzer targets of tests/fuzz, 60 s each, two at a time"
scripts/fuzz.sh 60 --jobs 2 | record
finish
