#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# pyverbs-tests/, the project's own Python tests, through doorbell
# (PYVERBS_TESTS_PROVIDER=libdoorbell: each test checks that doorbell
# serves the device).  One PASS/FAIL/SKIP line per test, named
# PREFIXpyverbs_<module>.<class>.<test> (an expected failure is a SKIP: it
# would pass on any exception), and a FAIL line if unittest exits
# non-zero; then exits 1.  DOORBELL_TIMEOUT_SCALE multiplies the 900 s bound.
# Usage: pyverbs-suite.sh [PREFIX]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
prefix=${1:-}
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"	# scaled
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if PYVERBS_TESTS_PROVIDER=libdoorbell timeout "$(scaled 900)" /usr/bin/python3 \
	-m unittest discover -s "$top/pyverbs-tests" -v >"$log" 2>&1; then
	rc=0
else
	rc=$?
fi
# One line per test: "test_x (module.Class.test_x) ... ok|FAIL|ERROR|skipped",
# or, for a test with a docstring, "test_x (module.Class.test_x)" and then
# "First line of the docstring ... ok".  (Python 3.11 and later print the
# full id in the parentheses; 3.10 and earlier only "module.Class".)
awk -v p="$prefix" '
function report(t, id, r) {
	if (id !~ ("\\." t "$")) id = id "." t
	if (r ~ /^ok$/) print "PASS " p "pyverbs_" id
	else if (r ~ /expected failure/) print "SKIP " p "pyverbs_" id ": an expected failure proves no completion status"
	else if (r ~ /^skipped/) print "SKIP " p "pyverbs_" id ": " r
	else print "FAIL " p "pyverbs_" id ": " r
}
match($0, /^test_[A-Za-z0-9_]+ \([A-Za-z0-9_.]+\)/) {
	t = $1; id = $2; gsub(/[()]/, "", id)
	rest = substr($0, RLENGTH + 1)
	if (rest == "") { pt = t; pid = id; next }
	pt = ""
	if (sub(/^.* \.\.\. /, "", rest)) report(t, id, rest)
	next
}
pt != "" && / \.\.\. / { r = $0; sub(/^.* \.\.\. /, "", r); report(pt, pid, r); pt = "" }
' "$log"
tail -3 "$log" | sed 's/^/    /'
if ((rc != 0)); then
	fail "${prefix}pyverbs_tests_exit_status" "$rc"
	grep -A15 "^FAIL:\|^ERROR:" "$log" | head -60 | sed 's/^/    /'
fi
exit "$((rc != 0))"
