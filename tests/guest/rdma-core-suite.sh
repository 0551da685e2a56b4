#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's own pyverbs test suite, as the distribution ships it in the
# rdma-core package (/usr/share/doc/rdma-core/tests), against the guest's
# device, through whichever provider serves it.
#
# Usage: rdma-core-suite.sh [--per-module] [--name NAME] [--save FILE]
#                           [--baseline FILE | --min MIN_PASS | --measure]
#                           [--test-timeout SECS] [--modules "M..."]
#                           [--tests FILE] [--collect FILE | --judge FILE]
#                           [--dev DEV] [--gid N]
# (default: the guest's DOORBELL_VM_IBDEV and DOORBELL_VM_GID_INDEX, rxe0
# and 1; tests/guest/mlx5/check-rdma-core-suite.sh: mlx5_0 and 0).
#
# Each test_*.py (or only the --modules named, e.g. "test_cq test_qp", or
# only the tests --tests FILE lists, one id a line, a module's name for
# all of it: tests.test_qp.QPTest.test_create_qp, tests.test_cq) runs
# in its own python process (rdma-core-module.py), so that a crash costs
# one module: on Debian 13, python dies in the garbage collector after
# pyverbs' "Failed to close CQ. Errno: 9" with the stock provider.
# (--per-module is accepted and is the only form.)  Each test is
# interrupted after 120 s (--test-timeout), each module after 900 s (both
# times DOORBELL_TIMEOUT_SCALE).
# How a module's end counts:
#   - it ran to its end: its tests count as unittest reported them;
#   - a test was interrupted by the per-test timeout: one error;
#   - the process died (signal, module timeout) before all its tests had
#     run: one error, named after the test that was running;
#   - the process died after all its tests had run ("done" written;
#     python's teardown crashed): its results count, and the module is
#     listed as an exit crash.  It is a failure of the run unless the
#     baseline (the stock provider, same guest) crashed at exit in the
#     same module too: then the crash is the distribution's pyverbs or
#     python, not the provider.
# The tests that failed or erred are named, each on a line of its own.
# --save FILE keeps the counts and names (for a later --baseline);
# --baseline FILE (the stock provider's --save, same boot, same
# DOORBELL_SUITE_SEED) judges test by test (suite-judge.sh): the line is
# PASS when there is no failure, no error, no exit crash the baseline
# lacks, and every test the baseline passed passes here too, or skips for
# a documented choice of doorbell's (rdma-core-choices.txt); each test that
# does not is a FAIL line of its own.  A kernel exception
# (rdma-core-exceptions.txt) turns an error into a SKIP only when the
# baseline hit it too.  Without --baseline: MIN_PASS (--min, default 1).
# An expected failure (unittest.expectedFailure) counts as a skip: it
# passes on any exception.  The saved counts are those after the kernel
# exceptions.
# --measure (the baseline's own run): PASS when some test passed (with
# --tests: when every module listed ran); its failures, errors and crashes
# are listed, not failed.
# --collect FILE runs and keeps the summary in FILE, as it is before the
# kernel exceptions, and judges nothing (no PASS/FAIL line; exit 0);
# --judge FILE runs nothing and judges that summary as if it had just run
# (with --baseline: a stock run made after it, on the tests it did not
# pass: tests/guest/distro-suite.sh).
# --name NAME names the PASS/FAIL line (default
# rdma_core_suite_passes_with_no_failures_or_errors).
# Exits 1 after its FAIL line.
# DOORBELL_SUITE_LOG: copy the whole log (or the per-module results) there.
# DOORBELL_SUITE_SEED (--per-module): seed the suite's random draws (QP
# caps, create flags) per test, so that a baseline and the run held to it
# draw the same (tests/guest/mlx5/check-all.sh).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"	# pass, fail, skip
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"	# scaled
# shellcheck source=tests/guest/suite-judge.sh
. "$here/suite-judge.sh"
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
src=/usr/share/doc/rdma-core/tests
name=rdma_core_suite_passes_with_no_failures_or_errors
save="" baseline="" min="" measure=0 test_timeout=120 only="" tests=""
collect="" judge=""
while (($#)); do
	case $1 in
	--dev) dev=${2:?--dev needs a device}; shift ;;
	--gid) gid=${2:?--gid needs an index}; shift ;;
	--test-timeout) test_timeout=${2:?--test-timeout needs seconds}; shift ;;
	--per-module) ;;
	--modules) only=${2:?--modules needs module names}; shift ;;
	--tests) tests=${2:?--tests needs a file}; shift ;;
	--collect) collect=${2:?--collect needs a file}; shift ;;
	--judge) judge=${2:?--judge needs a file}; shift ;;
	--name) name=${2:?--name needs a name}; shift ;;
	--save) save=${2:?--save needs a file}; shift ;;
	--baseline) baseline=${2:?--baseline needs a file}; shift ;;
	--min) min=${2:?--min needs a number}; shift ;;
	--measure) measure=1 ;;
	*) break ;;
	esac
	shift
done
# doorbell's backend for DEV, for rdma-core-choices.txt.
case $dev in
mlx5*) backend=mlx5 ;;
*) backend=rxe ;;
esac
if [[ ! -d $src ]]; then
	fail "$name" "no $src (is rdma-core installed?)"
	exit 1
fi
# The huge-page tests need 2 MiB pages; reserve some in the throw-away guest.
if [[ -n ${DOORBELL_VM:-} ]]; then
	echo 32 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/tests"
find "$work/tests" -name '*.gz' -exec gunzip -f {} +
log=$work/log

# --- one process per module ----------------------------------------------------
# rdma-core-module.py forks a child per module; the events of all modules
# go to $res ("module", per-test lines, "done", "exit").
res=$work/results
: >"$res"
seed=()
[[ -z ${DOORBELL_SUITE_SEED:-} ]] || seed=(--seed "$DOORBELL_SUITE_SEED")
mods=()
if [[ -n $tests ]]; then
	# One argument per module: MODULE, or MODULE:CLASS.TEST,... (its tests).
	mapfile -t mods < <(awk '{
		id = $1; sub(/^tests\./, "", id); m = id; sub(/\..*/, "", m)
		if (!(m in sel)) { order[++n] = m; sel[m] = "" }
		if (id == m) whole[m] = 1
		else sel[m] = sel[m] (sel[m] == "" ? "" : ",") substr(id, length(m) + 2)
	} END { for (i = 1; i <= n; i++) print order[i] (whole[order[i]] ? "" : ":" sel[order[i]]) }' "$tests")
elif [[ -n $only ]]; then
	read -ra mods <<<"$only"
else
	for f in "$work"/tests/test_*.py; do
		m=${f##*/}
		mods+=("${m%.py}")
	done
fi
summary=$work/summary
if [[ -n $judge ]]; then
	cp "$judge" "$summary"
elif ((${#mods[@]} == 0)); then
	echo "    no test to run"
	echo "total 0 0 0 0 0 0" >"$summary"
else
	timeout "$(scaled 3600)" /usr/bin/python3 "$here/rdma-core-module.py" \
		--test-timeout "$(scaled "$test_timeout")" --module-timeout "$(scaled 900)" \
		--dev "$dev" --port 1 --gid "$gid" "${seed[@]}" "$work/tests" "$res" "${mods[@]}" \
		>"$log" 2>&1
	rc=$?
	((rc == 0)) || echo "    (the runner itself exited $rc)"

	# Per module: count, and name what failed; the last line sums up:
	#   total PASSED SKIPPED FAILURES ERRORS EXIT_CRASHES MODULES
	# "bad" lines name the failed tests, "crash" lines the exit crashes.
	awk '
	function flush() {
		if (mod == "") return
		if (!done) {
			if (rc == "") why = "the runner ended"
			else if (rc == 124) why = "module timed out"
			else why = "process died (exit " rc ")"
			print "bad error " (cur != "" ? cur : "tests." mod) ": " why \
				" before the module ended"
			E++
		} else if (rc != 0 && rc != 1) {
			print "crash " mod " exit " rc
			C++
		}
		mods++
	}
	$1 == "module" { flush(); mod = $2; done = 0; cur = ""; rc = ""; next }
	$1 == "start" { cur = $2; next }
	$1 == "done" { done = 1; cur = ""; next }
	$1 == "exit" { rc = $2; next }
	$1 == "ok" { P++; cur = ""; print "pass " $2; next }
	$1 == "xfail" {
		S++; cur = ""
		print "skipped skip " $2 ": an expected failure, which proves no status"
		next
	}
	$1 == "skip" { S++; cur = ""; print "skipped " $0; next }
	$1 == "fail" || $1 == "xpass" { F++; cur = ""; print "bad " $0; next }
	$1 == "error" { E++; cur = ""; print "bad " $0; next }
	END { flush(); printf "total %d %d %d %d %d %d\n", P, S, F, E, C, mods }
	' "$res" >"$summary"
	read -r _ passed skipped failures errors crashes nmods < <(grep '^total ' "$summary")
	if ((nmods < ${#mods[@]})); then
		echo "    ERROR: $((${#mods[@]} - nmods)) of ${#mods[@]} modules did not run (the runner ended)"
		errors=$((errors + ${#mods[@]} - nmods))
		sed -i "s/^total .*/total $passed $skipped $failures $errors $crashes $nmods/" "$summary"
	fi
fi
# The slowest modules, with the seconds each took (wall, boot excluded).
awk '$1 == "module" { m = $2 } $1 == "exit" && NF > 2 { print $3, m }' "$res" |
	sort -rn | head -8 | awk '{ s = s sep $2 " " $1; sep = ", " }
		END { if (s != "") print "    slowest modules (s): " s }'
read -r _ passed skipped failures errors crashes nmods < <(grep '^total ' "$summary")
if [[ -n $collect ]]; then
	cp "$summary" "$collect"
	echo "    rdma-core suite, one process per module ($nmods modules), not judged yet: passed $passed, skipped $skipped, failures $failures, errors $errors, exit crashes $crashes"
	exit 0
fi
# The stock run (--measure) samples each kernel exception of this kernel
# again: a test it passed that an exception names (a kernel bug that
# strikes now and then) runs up to 4 more times in this boot, its module
# with the same seed, and the first try that hits the bug is the stock
# run's result for it, so that doorbell's run is held to the same boot's
# stock behaviour (suite_except) and not to one draw of it.
if ((measure)); then
	while read -r kind t pfx _; do
		[[ $kind == kernel && $(uname -r) == "$pfx"* ]] || continue
		grep -qxF "pass $t" "$summary" || continue
		mod=${t#tests.}
		mod=${mod%%.*}
		again=""
		for ((try = 2; try <= 5; try++)); do
			: >"$work/again"
			timeout "$(scaled 900)" /usr/bin/python3 "$here/rdma-core-module.py" \
				--test-timeout "$(scaled "$test_timeout")" --module-timeout "$(scaled 900)" \
				--dev "$dev" --port 1 --gid "$gid" "${seed[@]}" "$work/tests" \
				"$work/again" "$mod" >>"$log" 2>&1
			again=$(awk -v t="$t" '$1 == "fail" || $1 == "error" {
				id = $2; sub(/:$/, "", id); if (id == t) { print; exit } }' "$work/again")
			[[ -n $again ]] && break
		done
		if [[ -z $again ]]; then
			echo "    stock: $t passed in each of 5 tries in this boot"
			continue
		fi
		echo "    stock: $t passed, then in try $try of 5 in this boot: $again"
		awk -v t="$t" -v b="bad $again (try $try of 5)" \
			'$0 == "pass " t { print b; next } { print }' "$summary" >"$work/s2"
		mv "$work/s2" "$summary"
		passed=$((passed - 1))
		if [[ $again == error* ]]; then errors=$((errors + 1)); else failures=$((failures + 1)); fi
		sed -i "s/^total .*/total $passed $skipped $failures $errors $crashes $nmods/" "$summary"
	done < <(grep '^kernel ' "$here/rdma-core-exceptions.txt")
fi
# Failures and errors the kernel causes (rdma-core-exceptions.txt): SKIP,
# held to the same boot's stock run when there is one (suite-judge.sh).
# The totals are written after them, so a saved baseline counts them so.
suite_except "$summary" "$name" "$(uname -r)" "$here/rdma-core-exceptions.txt" \
	"$baseline"
read -r _ passed skipped failures errors crashes nmods < <(grep '^total ' "$summary")
sed -n 's/^bad \([a-z]*\) /    \U\1\E /p' "$summary"
sed -n 's/^crash \([^ ]*\) exit \(.*\)/    exit crash: \1 (exit status \2) after all its tests ran/p' "$summary"
echo "    rdma-core suite, one process per module ($nmods modules): passed $passed, skipped $skipped, failures $failures, errors $errors, exit crashes $crashes"
[[ -z $save ]] || cp "$summary" "$save"
[[ -z ${DOORBELL_SUITE_LOG:-} ]] || cp "$res" "$DOORBELL_SUITE_LOG"

why=""
if ((measure)); then
	if [[ -z $tests ]]; then
		((passed > 0)) || why=", no test passed"
	elif ((nmods < ${#mods[@]})); then
		why=", $((${#mods[@]} - nmods)) of the ${#mods[@]} modules listed did not run"
	fi
	failures=0 errors=0
fi
((failures == 0)) || why+=", $failures failures"
((errors == 0)) || why+=", $errors errors"
if ((measure)); then
	:
elif [[ -n $baseline ]]; then
	if [[ ! -s $baseline ]]; then
		why+=", no baseline in $baseline"
	else
		suite_compare "$summary" "$baseline" "$name" \
			"$here/rdma-core-choices.txt" "$backend" ||
			why+=", a test that passes with the stock provider does not pass here (FAIL lines above)"
	fi
else
	min=${min:-1}
	((passed >= min)) || why+=", $passed passed (need $min)"
	((crashes == 0)) || why+=", $crashes exit crashes"
fi
if [[ -z $why ]]; then
	pass "$name"
else
	fail "$name" "${why#, }"
fi
exit "$((${#why} > 0))"
