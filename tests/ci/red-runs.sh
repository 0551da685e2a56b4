#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The CI's failure paths, each broken on purpose: the run must be red and
# say why in a FAIL line.  One case per ctest entry (tests/ci/CMakeLists.txt);
# no device, no guest:
#   silent_stage      a stage whose command exits 1 and prints nothing
#                     (scripts/test.sh's DOORBELL_TEST_EXTRA_STAGE hook);
#   pass_then_exit    a stage that prints a PASS line, then exits 3;
#   beside_stage      a stage run in the background beside another
#                     (DOORBELL_TEST_EXTRA_BESIDE) that prints a PASS line,
#                     then exits 1, while the other passes;
#   lint_no_tools     scripts/test.sh --only lint with a PATH that has neither
#                     the lint tools nor apt (scripts/lint.sh stops before
#                     its first check);
#   itest_killed      an itest killed by SIGKILL, run as tests/guest/suite.sh
#                     runs doorbell-itest (tests/guest/itest-run.sh);
#   check_skip        CHECK_SKIP (tests/lib/check.h): SKIP and exit 77, but a
#                     CHECK that failed first still makes it a FAIL;
#   pingpong_bad_data the pingpong verdict (tests/guest/pair-lib.sh's
#                     pingpong_verdict, as tests/cx/check-pingpong.sh calls
#                     it, and pair_bad_data, as tests/guest/apps.sh does) on
#                     a pair whose server printed "invalid data in page 0"
#                     and both sides exited 0 (what ibv_rc_pingpong -c does);
#   cited_paths       scripts/cited-paths.sh (lint's paths check) in a small
#                     repository whose text cites a missing path and paths
#                     outside it.
# Prints PASS or FAIL with the ctest entry's name, and on a FAIL the broken
# run's output, indented.  Exit 1 on a FAIL.
#
# Usage: tests/ci/red-runs.sh CASE [CHECK_FIXTURE]
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect NAME RC REGEX CMD...: CMD exits RC ("red": any non-zero) and prints
# a line matching the extended REGEX.
expect() {
	local name=$1 want=$2 re=$3 out rc why=""
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if ! grep -qE -- "$re" <<<"$out"; then
		why="no line matching '$re'"
	elif [[ $want == red ]] && ((rc == 0)); then
		why="exit 0"
	elif [[ $want != red ]] && ((rc != want)); then
		why="exit $rc, expected $want"
	fi
	if [[ -z $why ]]; then
		echo "PASS $name"
		return
	fi
	echo "FAIL $name: $why"
	printf '%s\n' "$out" | sed 's/^/    /'
	failed=1
}

# A PATH of the basic tools scripts/test.sh and scripts/lint.sh use before
# lint's first check: no clang-format, shellcheck, clang, apt-get, dpkg.
bare_path() {
	local t
	mkdir "$tmp/bin"
	for t in bash cat date dirname grep head id mktemp rm sed tail tee wc; do
		ln -s "$(command -v "$t")" "$tmp/bin/$t" || return 1
	done
	for t in clang-format shellcheck clang apt-get dpkg-query; do
		if PATH=$tmp/bin command -v "$t" >/dev/null; then
			echo "FAIL ci_lint_without_its_tools_is_red: $t on the bare PATH"
			return 1
		fi
	done
}

case ${1:-} in
silent_stage)
	expect ci_a_stage_exiting_1_silently_is_red red \
		'^FAIL extra_completes: exit 1$' \
		env DOORBELL_TEST_EXTRA_STAGE='exit 1' \
		"$top/scripts/test.sh" --only extra ;;
pass_then_exit)
	expect ci_a_stage_printing_pass_then_exiting_3_is_red red \
		'^FAIL extra_completes: exit 3$' \
		env DOORBELL_TEST_EXTRA_STAGE='echo PASS ci_looks_fine; exit 3' \
		"$top/scripts/test.sh" --only extra ;;
beside_stage)
	expect ci_a_stage_failing_beside_another_is_red red \
		'^FAIL extra_beside_completes: exit 1$' \
		env DOORBELL_TEST_EXTRA_STAGE='sleep 1; echo PASS ci_front' \
		DOORBELL_TEST_EXTRA_BESIDE='echo PASS ci_beside; exit 1' \
		"$top/scripts/test.sh" --only extra,extra_beside ;;
lint_no_tools)
	bare_path || exit 1
	# Any FAIL line of the lint stage's: lint.sh's own, or run_stage's.
	expect ci_lint_without_its_tools_is_red red '^FAIL lint_' \
		env PATH="$tmp/bin" "$top/scripts/test.sh" --only lint ;;
itest_killed)
	printf '#!/bin/bash\necho "PASS ci_fake_case"\nkill -KILL $$\n' \
		>"$tmp/itest"
	chmod +x "$tmp/itest"
	expect ci_an_itest_killed_by_a_signal_is_red red \
		'^FAIL integration_tests_complete: exit 137 \(killed by SIGKILL\)$' \
		"$top/tests/guest/itest-run.sh" integration_tests_complete -- \
		"$tmp/itest" ;;
check_skip)
	# The fixture, after its emulator in a cross build (qemu-user).
	fixture=("${@:2}")
	((${#fixture[@]})) || { echo "usage: red-runs.sh check_skip [EMULATOR...] CHECK_FIXTURE" >&2; exit 2; }
	expect ci_check_skip_prints_skip_and_exits_77 77 \
		'^SKIP ci_fixture_skips: on purpose$' "${fixture[@]}" skips
	expect ci_check_skip_after_a_failed_check_is_a_fail 1 \
		'^FAIL ci_fixture_fails_then_skips$' "${fixture[@]}" fails_then_skips
	expect ci_check_a_run_with_a_pass_and_a_skip_exits_0 0 \
		'^1 passed, 0 failed, 1 skipped$' "${fixture[@]}" pass_and_skip
	;;
pingpong_bad_data)
	# shellcheck source=tests/guest/pair-lib.sh
	. "$top/tests/guest/pair-lib.sh"
	printf '%s\n' 'invalid data in page 0' \
		'8192000 bytes in 0.10 seconds = 655.36 Mbit/sec' \
		'1000 iters in 0.10 seconds = 100.00 usec/iter' >"$tmp/srv"
	printf '%s\n' '8192000 bytes in 0.10 seconds = 655.36 Mbit/sec' \
		'1000 iters in 0.10 seconds = 100.00 usec/iter' >"$tmp/cli"
	# shellcheck disable=SC2034 # read by pingpong_verdict
	rc_s=0 rc_c=0
	expect ci_pingpong_invalid_data_on_the_server_is_a_fail red \
		'^FAIL ci_pp: bad data: invalid data in page 0$' \
		pingpong_verdict ci_pp "$tmp/srv" "$tmp/cli"
	expect ci_pingpong_invalid_data_on_the_client_is_found 0 \
		'^invalid data in page 0$' \
		pair_bad_data "$tmp/cli" "$tmp/srv"
	expect ci_pingpong_clean_pair_passes 0 '^PASS ci_pp: 1000 iters' \
		pingpong_verdict ci_pp "$tmp/cli" "$tmp/cli"
	;;
cited_paths)
	repo=$tmp/repo
	mkdir -p "$repo/scripts" "$repo/docs"
	cp "$top/scripts/cited-paths.sh" "$top/scripts/lib.sh" "$repo/scripts/"
	# shellcheck disable=SC2016 # backticks: Markdown, not expansions
	printf '%s\n' '`scripts/lib.sh` exists; [up](../scripts/lib.sh) too' \
		'`docs/nope.md` does not' 'nor ../../away, /work/notes/x or /tmp/log' \
		>"$repo/docs/a.md"
	if ! { git -C "$repo" init -q && git -C "$repo" add .; }; then
		echo "FAIL ci_cited_paths_are_checked: no scratch git repository (git)"
		exit 1
	fi
	out=$("$repo/scripts/cited-paths.sh")
	expect ci_cited_paths_finds_a_missing_path red \
		'^missing docs/a.md:2: docs/nope.md$' "$repo/scripts/cited-paths.sh"
	for p in ../../away /work/notes/x /tmp/log; do
		grep -qxF "outside docs/a.md:3: $p" <<<"$out" ||
			{ echo "FAIL ci_cited_paths_finds_paths_outside: not $p"; failed=1; }
	done
	if grep -q ':1: ' <<<"$out"; then
		echo "FAIL ci_cited_paths_accepts_paths_that_exist: line 1 flagged"
		failed=1
	fi
	((failed)) || echo "PASS ci_cited_paths_finds_paths_outside_and_accepts_existing_ones" ;;
*)
	echo "usage: red-runs.sh CASE [CHECK_FIXTURE] (see its header)" >&2
	exit 2 ;;
esac
exit "$failed"
