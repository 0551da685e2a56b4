#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# tests/guest/pyverbs, the project's own Python tests, through doorbell
# (PYVERBS_TESTS_PROVIDER=libdoorbell: each test checks that doorbell
# serves the device).  One PASS/FAIL/SKIP line per test, named
# PREFIXpyverbs_<module>.<class>.<test>, and a FAIL line if unittest exits
# non-zero.  DOORBELL_TIMEOUT_SCALE multiplies the 900 s bound.
# Usage: pyverbs-suite.sh [PREFIX]
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=${1:-}
# shellcheck source=tests/guest/pair-lib.sh
. "$here/pair-lib.sh"	# scaled
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if PYVERBS_TESTS_PROVIDER=libdoorbell timeout "$(scaled 900)" /usr/bin/python3 \
	-m unittest discover -s "$here/pyverbs" -v >"$log" 2>&1; then
	rc=0
else
	rc=$?
fi
# One line per test: "test_x (module.Class.test_x) ... ok|FAIL|ERROR|skipped".
# (Python 3.11 and later print the full id in the parentheses; 3.10 and
# earlier only "module.Class": the test's name is added then.)
sed -nE 's/^(test_[A-Za-z0-9_]+) \(([A-Za-z0-9_.]+)\)( .*)? \.\.\. (.*)$/\1 \2 \4/p' "$log" |
	awk -v p="$prefix" '{ t = $1; name = $2; $1 = ""; $2 = "";
	       if (name !~ ("\\." t "$")) name = name "." t;
	       sub(/^ +/, " ");
	       if ($0 ~ /^ ok$|expected failure/) print "PASS " p "pyverbs_" name;
	       else if ($0 ~ /^ skipped/) print "SKIP " p "pyverbs_" name ":" $0;
	       else print "FAIL " p "pyverbs_" name ":" $0 }'
tail -3 "$log" | sed 's/^/    /'
if ((rc != 0)); then
	echo "FAIL ${prefix}pyverbs_tests_exit_status: $rc"
	grep -A15 "^FAIL:\|^ERROR:" "$log" | head -60 | sed 's/^/    /'
fi
exit 0
