#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Runs doorbell-itest (or another program that prints PASS/FAIL/SKIP lines)
# so that a run that did not finish cannot pass.  Its output (stdout and
# stderr) goes to stdout, the PASS/FAIL/SKIP lines prefixed with PREFIX;
# then "FAIL PREFIX NAME: exit N (why)" unless it exited 0, or 1 after a FAIL
# line of its own (doorbell-itest exits 1 when a case failed).  So a crash
# or a signal (exit 128+N), the timeout (124), a setup error (2) or a
# silent exit 1 is a FAIL.  Exits with the program's status.
#
# Usage: tests/guest/itest-run.sh [--prefix P] [--timeout SECS] NAME -- ITEST [ARG...]
#   SECS: the bound (default 900), times DOORBELL_TIMEOUT_SCALE (pair-lib.sh).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"	# pass, fail, skip
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"	# scaled
usage="usage: itest-run.sh [--prefix P] [--timeout SECS] NAME -- ITEST [ARG...]"
prefix="" secs=900 name=""
while (($#)); do
	case $1 in
	--prefix) prefix=${2?$usage}; shift ;;
	--timeout) secs=${2?$usage}; shift ;;
	--) shift; break ;;
	*) name=$1 ;;
	esac
	shift
done
if [[ -z $name ]] || (($# == 0)); then
	echo "$usage" >&2
	exit 2
fi
secs=$(scaled "$secs")

out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout "$secs" "$@" 2>&1 | sed -uE "s/^(PASS|FAIL|SKIP) /\1 $prefix/" |
	tee "$out"
rc=${PIPESTATUS[0]}
if ((rc == 0)) || { ((rc == 1)) && grep -q '^FAIL ' "$out"; }; then
	exit "$rc"
fi
if ((rc == 124)); then
	why="timed out after $secs s"
elif ((rc > 128)) && sig=$(kill -l $((rc - 128)) 2>/dev/null); then
	why="killed by SIG$sig"
elif ((rc == 1)); then
	why="no FAIL line"
else
	why="did not run whole"
fi
fail "$prefix$name" "exit $rc ($why)"
exit "$rc"
