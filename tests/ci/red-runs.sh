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
#   pingpong_bad_data the pingpong verdict (tests/guest/lib/pair-lib.sh's
#                     pingpong_verdict, as tests/guest/mlx5/check-pingpong.sh calls
#                     it, and pair_bad_data, as tests/guest/apps.sh does) on
#                     a pair whose server printed "invalid data in page 0"
#                     and both sides exited 0 (what ibv_rc_pingpong -c does);
#   cited_paths       scripts/ci/cited-paths.sh (lint's paths check) in a small
#                     repository whose text cites a missing path and paths
#                     outside it;
#   layers            scripts/ci/layers.sh (lint's layers check) in a small
#                     tree whose core includes a backend's header and whose
#                     device engine includes the provider's mlx5.h;
#   distro_stage      the trixie/sid stages' guest command
#                     (tests/guest/distro-stage.sh), and
#   arch_stage        the arm64/s390x stages' (tests/guest/distro-suite.sh
#                     with their parts), each run on this host with stand-ins
#                     for the device and the suites (fake_guest): doorbell's
#                     apps die with exit 1 and no line; a pair failing
#                     through doorbell alone is red, one the stock provider
#                     (run after it) fails too a SKIP; green when they pass;
#   filter_nothing    tests/guest/apps.sh with a DOORBELL_APPS_ONLY, and
#                     doorbell-itest with a -k, that match nothing;
#   twohost_retry     tests/twohost/run-all.sh with a stand-in for run2.sh
#                     (fake_twohost): a guest that died silently gets its
#                     scenarios one more boot (green); one that died with
#                     a kernel message, or died again, is red;
#   retry_rule        pair-lib.sh's pair_tries: a try that showed perftest's
#                     clock symptom but whose server crashed is not retried
#                     (the pair fails); a try that failed for the clock alone
#                     is, with its exit codes printed;
#   suite_judge       tests/guest/suite-judge.sh on made-up summaries of
#                     rdma-core's suite: doorbell skipping, failing or
#                     missing a test the stock provider passed in the same
#                     boot is red (a skip is green only when
#                     rdma-core-choices.txt's kind of line names it for
#                     the backend, here rxe); a
#                     kernel exception for an error the stock run did not
#                     hit (that test, that kind and message but for its
#                     numbers) is red, and the saved totals are those after the
#                     exceptions; suite_unpassed gives the stock run after
#                     doorbell's every test doorbell did not pass, and all
#                     of a module that died or crashed at its exit.
# Prints PASS or FAIL with the ctest entry's name, and on a FAIL the broken
# run's output, indented.  Exit 1 on a FAIL.
#
# Usage: tests/ci/red-runs.sh CASE [CHECK_FIXTURE | DOORBELL_ITEST]
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail
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
		pass "$name"
		return
	fi
	fail "$name" "$why"
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
			fail ci_lint_without_its_tools_is_red "$t on the bare PATH"
			return 1
		fi
	done
}

# fake_guest: in $tmp/tests/guest, distro-stage.sh and distro-suite.sh with the
# real helpers they run, stand-ins for the suites (apps.sh dies silently
# for doorbell when FAKE_APPS_DIE=1), the .deb take-over and doorbell-itest
# ($tmp/build), a libibverbs.d in $tmp/conf, an ibv_devinfo that shows
# doorbell serving rxe0; guest_env: the environment to run them in.
fake_guest() {
	local g=$tmp/tests/guest f
	mkdir -p "$g" "$tmp/scripts" "$tmp/conf" "$tmp/bin" "$tmp/build/tests/guest/itest"
	for f in distro-stage.sh distro-suite.sh itest-run.sh suite-judge.sh lib/pair-lib.sh; do
		mkdir -p "$g/$(dirname "$f")" && cp "$top/tests/guest/$f" "$g/$f" || return 1
	done
	cp "$top/scripts/lib.sh" "$tmp/scripts/" || return 1
	: >"$tmp/conf/rxe.driver"
	# shellcheck disable=SC2016 # expanded by the stand-ins
	{
		printf '#!/bin/bash\n[[ ${DOORBELL_EXPECT_BACKEND:-} != stock && ${FAKE_APPS_DIE:-} == 1 ]] && exit 1\nif [[ ${DOORBELL_EXPECT_BACKEND:-} != stock && ${FAKE_APPS_FAIL:-} == 1 || ${DOORBELL_EXPECT_BACKEND:-} == stock && ${FAKE_STOCK_FAILS:-} == 1 ]]; then echo "FAIL ${DOORBELL_NAME_PREFIX:-}fake_pair: exit codes client 1 server 0"; exit 1; fi\necho "PASS ${DOORBELL_NAME_PREFIX:-}fake_pair"\n' >"$g/apps.sh"
		printf '#!/bin/bash\necho "PASS fake_suite"\n' >"$g/rdma-core-suite.sh"
		printf '#!/bin/bash\necho "PASS ${1:-}pyverbs_fake"\n' >"$g/pyverbs-suite.sh"
		printf '#!/bin/bash\necho "PASS deb_fake"\n' >"$g/package-takeover.sh"
		printf '#!/bin/bash\necho "PASS fake_case"\n' >"$tmp/build/tests/guest/itest/doorbell-itest"
		printf '#!/bin/bash\necho "doorbell: rxe0: serving the device with the rxe backend"\necho "state: PORT_ACTIVE (4)"\n' >"$tmp/bin/ibv_devinfo"
	} || return 1
	chmod +x "$g"/*.sh "$tmp/build/tests/guest/itest/doorbell-itest" "$tmp/bin/ibv_devinfo"
	guest_env=(env -u DOORBELL_VM_DISTRO -u DOORBELL_VM_ARCH -u RDMAV_DRIVERS
		DOORBELL_VM=1 DOORBELL_TEST_VERBS_CONF="$tmp/conf" PATH="$tmp/bin:$PATH")
}

# fake_try: the next of $tries, "SRV_RC|CLI_RC|SERVER OUTPUT|CLIENT OUTPUT";
# judge_tries TRY...: pair_tries over those fake tries; then, as the pair
# runners judge the last try, PASS when both exit codes are 0.
# shellcheck disable=SC2317 # called by pair_tries, and by expect
fake_try() {
	local s c
	IFS='|' read -r rc_s rc_c s c <<<"${tries[n]}"
	n=$((n + 1))
	echo "$s" >"$tmp/srv"
	echo "$c" >"$tmp/cli"
}
# shellcheck disable=SC2317
judge_tries() {
	tries=("$@") n=0
	pair_tries fake_pair "$tmp/srv" "$tmp/cli" "^ 2 200 [0-9]" fake_try
	if ((rc_s || rc_c)); then
		fail ci_fake_pair "server exit $rc_s, client exit $rc_c, after $n tries"
		return 1
	fi
	pass ci_fake_pair "after $n tries"
}

# judge_suite STOCK DOORBELL: suite-judge.sh's verdicts on two made-up
# summaries (the lines given, one a "|"-separated field), with a kernel
# exception for tests.t.K.test_kernel on kernel 9.9 and one choice for
# tests.t.C.* skipped with "not offered" on rxe (and one for every
# tests.t.* test on mlx5, which an rxe run must not take).
# shellcheck disable=SC2317 # called by expect
judge_suite() {
	local f rc=0
	. "$top/tests/guest/suite-judge.sh"
	printf 'kernel tests.t.K.test_kernel 9.9 the kernel errs\n' >"$tmp/exc"
	printf '# a comment\nmlx5 | tests.t.* | not offered | mlx5 lacks it\nrxe | tests.t.C.* | not offered | doorbell lacks C\n' >"$tmp/choices"
	for f in stock doorbell; do
		tr '|' '\n' <<<"$1" >"$tmp/$f"
		shift
	done
	suite_except "$tmp/stock" stock 9.9.1 "$tmp/exc"
	suite_except "$tmp/doorbell" doorbell 9.9.1 "$tmp/exc" "$tmp/stock"
	grep -q '^total ' "$tmp/doorbell" && echo "    doorbell's $(grep '^total ' "$tmp/doorbell")"
	suite_compare "$tmp/doorbell" "$tmp/stock" doorbell "$tmp/choices" rxe || rc=1
	grep -q '^bad ' "$tmp/doorbell" && rc=1
	return "$rc"
}

# fake_twohost: in $tmp/tw, tests/twohost/run-all.sh and guest.sh with a
# stand-in for tests/vm/run2.sh: each boot prints PASS for its scenarios'
# tests from both hosts, but the first FAKE_DEATHS boots (default 1) run
# only the first scenario, then host B dies as a silent guest death shows
# it (with FAKE_CONSOLE=1, after a kernel message on its console) and the
# boot exits 125.  twohost: run-all.sh there on noloss and loss10.
fake_twohost() {
	local d=$tmp/tw
	mkdir -p "$d/tests/twohost" "$d/tests/vm" "$d/scripts" "$d/build/tests/twohost" "$d/build/lib"
	cp "$top/tests/twohost/run-all.sh" "$top/tests/twohost/guest.sh" "$d/tests/twohost/" &&
		cp "$top/scripts/lib.sh" "$d/scripts/" || return 1
	: >"$d/build/lib/libdoorbell-rdmav34.so"
	printf '#!/bin/sh
' >"$d/build/tests/twohost/rdma_xfer"
	# shellcheck disable=SC2016 # expanded by the stand-in
	printf '%s
' '#!/bin/bash' 'while [[ $1 != -- ]]; do shift; done; shift 3' \
		'n=$(($(cat "$FAKE_STATE" 2>/dev/null || echo 0) + 1)); echo "$n" >"$FAKE_STATE"' \
		'for sc in "$@"; do l=$("${0%/*}/../twohost/guest.sh" --labels "$sc" | cut -d" " -f2)' \
		'	for h in A B; do for t in setup_and_teardown_L rc_send_write_L_all_bytes_verified rc_read_L_all_bytes_verified rc_atomics_L_exact rc_completions_L_exactly_once_in_order ud_L_intact_or_missing served_by_doorbell_L netem_injected_L; do echo "$h| PASS twohost_${t/L/$l}"; done; done' \
		'	((n > ${FAKE_DEATHS:-1})) && continue' \
		'	echo "B| doorbell-vm: guest died without reporting an exit status (qemu rc 0)"' \
		'	[[ ${FAKE_CONSOLE:-} == 1 ]] && printf "B| doorbell-vm: last lines of the guest console:\nB|   Kernel panic - not syncing\n"' \
		'	[[ ${FAKE_A_STOPPED:-} == 1 ]] && { echo "run2: A exit 143, B exit 125 (1s)"; exit 143; }' \
		'	exit 125; done' >"$d/tests/vm/run2.sh"
	chmod +x "$d/tests/twohost/"*.sh "$d/tests/vm/run2.sh" "$d/build/tests/twohost/rdma_xfer"
}
# shellcheck disable=SC2317 # called by expect
twohost() {
	rm -f "$tmp/tw/state"
	env FAKE_STATE="$tmp/tw/state" "$@" "$tmp/tw/tests/twohost/run-all.sh" \
		--build "$tmp/tw/build" --scenarios "noloss loss10"
}

# shellcheck disable=SC2317 # called by expect
# unpassed_suite SUMMARY: suite_unpassed on SUMMARY ('|' for newlines), on
# one line.
unpassed_suite() {
	. "$top/tests/guest/suite-judge.sh"
	tr '|' '\n' <<<"$1" >"$tmp/summary"
	suite_unpassed "$tmp/summary" | paste -sd' '
}

case ${1:-} in
suite_judge)
	s='pass tests.t.A.test_a|pass tests.t.C.test_c|total 2 0 0 0 0 1'
	expect ci_suite_a_test_stock_passes_and_doorbell_skips_is_red red \
		'^FAIL doorbell_tests.t.A.test_a: passes with the stock provider; here: skipped skip tests.t.A.test_a: no reason$' \
		judge_suite "$s" 'skipped skip tests.t.A.test_a: no reason|pass tests.t.C.test_c|total 1 1 0 0 0 1'
	expect ci_suite_a_test_stock_passes_and_doorbell_fails_is_red red \
		'^FAIL doorbell_tests.t.A.test_a: passes with the stock provider; here: bad fail tests.t.A.test_a' \
		judge_suite "$s" 'bad fail tests.t.A.test_a|pass tests.t.C.test_c|total 1 0 1 0 0 1'
	expect ci_suite_a_test_stock_passes_and_doorbell_misses_is_red red \
		'^FAIL doorbell_tests.t.A.test_a: passes with the stock provider; here: not run$' \
		judge_suite "$s" 'pass tests.t.C.test_c|total 1 0 0 0 0 1'
	expect ci_suite_a_documented_choice_skip_is_green 0 \
		'^SKIP doorbell_tests.t.C.test_c: passes with the stock provider; doorbell.s choice: doorbell lacks C$' \
		judge_suite "$s" 'pass tests.t.A.test_a|skipped skip tests.t.C.test_c: not offered here|total 1 1 0 0 0 1'
	expect ci_suite_a_choice_with_another_reason_is_red red \
		'^FAIL doorbell_tests.t.C.test_c: passes with the stock provider' \
		judge_suite "$s" 'pass tests.t.A.test_a|skipped skip tests.t.C.test_c: it crashed|total 1 1 0 0 0 1'
	expect ci_suite_another_backends_choice_is_red red \
		'^FAIL doorbell_tests.t.A.test_a: passes with the stock provider' \
		judge_suite "$s" 'skipped skip tests.t.A.test_a: not offered|pass tests.t.C.test_c|total 1 1 0 0 0 1'
	expect ci_suite_a_kernel_exception_stock_did_not_hit_is_red red \
		'^FAIL doorbell_tests.t.K.test_kernel: not the kernel.s' \
		judge_suite 'pass tests.t.K.test_kernel|total 1 0 0 0 0 1' \
			'bad error tests.t.K.test_kernel: timed out|total 0 0 0 1 0 1'
	expect ci_suite_a_kernel_exception_stock_hit_too_is_a_skip_counted_so 0 \
		"^    doorbell's total 0 1 0 0 0 1$" \
		judge_suite 'bad error tests.t.K.test_kernel: timed out, 3 CQEs left at 0x5e0 (try 2 of 5)|total 0 0 0 1 0 1' \
			'bad error tests.t.K.test_kernel: timed out, 12 CQEs left at 0x7f1|total 0 0 0 1 0 1'
	# The stock run after doorbell's: what doorbell did not pass, a dead
	# or exit-crashed module whole.
	expect ci_suite_the_stock_run_gets_every_test_doorbell_did_not_pass 0 \
		'^tests.t.B.test_b tests.t.E.test_e tests.u tests.v tests.w$' \
		unpassed_suite 'pass tests.t.A.test_a|skipped skip tests.t.B.test_b: no|bad error tests.t.E.test_e: Errno 22|bad error tests.u.U.test_x: process died (exit 139) before the module ended|bad error tests.v: import failed|pass tests.w.W.test_w|crash w exit 139|total 2 1 0 3 1 4'
	expect ci_suite_a_kernel_exception_for_another_error_than_stocks_is_red red \
		'^FAIL doorbell_tests.t.K.test_kernel: not the kernel.s .*another error' \
		judge_suite 'bad error tests.t.K.test_kernel: timed out, 3 CQEs left|total 0 0 0 1 0 1' \
			'bad error tests.t.K.test_kernel: Failed to resize. Errno: 95|total 0 0 0 1 0 1' ;;
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
	# shellcheck source=tests/guest/lib/pair-lib.sh
	. "$top/tests/guest/lib/pair-lib.sh"
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
	mkdir -p "$repo/scripts/ci" "$repo/docs"
	cp "$top/scripts/lib.sh" "$repo/scripts/"
	cp "$top/scripts/ci/cited-paths.sh" "$repo/scripts/ci/"
	# shellcheck disable=SC2016 # backticks: Markdown, not expansions
	printf '%s\n' '`scripts/lib.sh` exists; [up](../scripts/lib.sh) too' \
		'`docs/nope.md` does not' 'nor ../../away, /work/notes/x or /tmp/log' \
		>"$repo/docs/a.md"
	if ! { git -C "$repo" init -q && git -C "$repo" add .; }; then
		fail ci_cited_paths_are_checked "no scratch git repository (git)"
		exit 1
	fi
	out=$("$repo/scripts/ci/cited-paths.sh")
	expect ci_cited_paths_finds_a_missing_path red \
		'^missing docs/a.md:2: docs/nope.md$' "$repo/scripts/ci/cited-paths.sh"
	for p in ../../away /work/notes/x /tmp/log; do
		grep -qxF "outside docs/a.md:3: $p" <<<"$out" ||
			{ fail ci_cited_paths_finds_paths_outside "not $p"; failed=1; }
	done
	if grep -q ':1: ' <<<"$out"; then
		fail ci_cited_paths_accepts_paths_that_exist "line 1 flagged"
		failed=1
	fi
	((failed)) || pass ci_cited_paths_finds_paths_outside_and_accepts_existing_ones ;;
layers)
	repo=$tmp/repo
	mkdir -p "$repo/scripts/ci" "$repo/providers/doorbell/core" \
		"$repo/sim/mlx5/engine"
	cp "$top/scripts/ci/layers.sh" "$repo/scripts/ci/"
	printf '#include "core/doorbell.h"\n#include "rxe/rxe.h"\n' \
		>"$repo/providers/doorbell/core/caps.c"
	printf '#include "m5m_int.h"\n' >"$repo/sim/mlx5/engine/m5m_cq.c"
	printf '#include "mlx5/mlx5_hw.h"\n' >"$repo/sim/mlx5/engine/m5m_int.h"
	expect ci_layers_finds_a_backend_header_in_core red \
		'^layer core providers/doorbell/core/caps.c:2: rxe/rxe.h$' \
		"$repo/scripts/ci/layers.sh"
	printf '#include "mlx5/mlx5.h"\n' >"$repo/sim/mlx5/engine/m5m_int.h"
	sed -i '/rxe/d' "$repo/providers/doorbell/core/caps.c"
	expect ci_layers_finds_the_provider_in_the_engine red \
		'^layer engine sim/mlx5/engine/m5m_int.h:1: mlx5/mlx5.h$' \
		"$repo/scripts/ci/layers.sh"
	printf '#include "mlx5/mlx5_hw.h"\n' >"$repo/sim/mlx5/engine/m5m_int.h"
	expect ci_layers_accepts_a_tree_that_keeps_them 0 '^$|.' \
		"$repo/scripts/ci/layers.sh" ;;
distro_stage)
	fake_guest || { fail ci_distro_stage_fakes "could not write them"; exit 1; }
	expect ci_a_suite_dying_silently_in_the_distro_stage_is_red red \
		'^FAIL [a-z0-9]+_prebuilt_apps_complete: exit 1 \(no FAIL line\)$' \
		"${guest_env[@]}" FAKE_APPS_DIE=1 \
		"$tmp/tests/guest/distro-stage.sh" "$tmp/build" trixie "$tmp/fake.deb" ""
	expect ci_a_pair_failing_through_doorbell_alone_is_red red \
		'^FAIL [a-z0-9]+_prebuilt_fake_pair: exit codes client 1 server 0$' \
		"${guest_env[@]}" FAKE_APPS_FAIL=1 \
		"$tmp/tests/guest/distro-stage.sh" "$tmp/build" trixie "$tmp/fake.deb" ""
	expect ci_a_pair_failing_with_the_stock_provider_too_is_a_skip 0 \
		'^SKIP [a-z0-9]+_prebuilt_fake_pair: failed with the stock provider too; here: exit codes' \
		"${guest_env[@]}" FAKE_APPS_FAIL=1 FAKE_STOCK_FAILS=1 \
		"$tmp/tests/guest/distro-stage.sh" "$tmp/build" trixie "$tmp/fake.deb" ""
	expect ci_the_distro_stage_with_its_suites_passing_is_green 0 \
		'^PASS trixie_deb_fake$' \
		"${guest_env[@]}" "$tmp/tests/guest/distro-stage.sh" "$tmp/build" trixie \
		"$tmp/fake.deb" "" ;;
arch_stage)
	fake_guest || { fail ci_arch_stage_fakes "could not write them"; exit 1; }
	# As scripts/test.sh's stage_arch runs it (its --env values).
	arch=("${guest_env[@]}" DOORBELL_VM_ARCH=arm64 DOORBELL_DISTRO_BUILDS=prebuilt
		"DOORBELL_DISTRO_PARTS=apps itest" DOORBELL_APPS_ITERS=50)
	expect ci_a_suite_dying_silently_in_the_arch_stage_is_red red \
		'^FAIL [a-z0-9]+_arm64_prebuilt_apps_complete: exit 1 \(no FAIL line\)$' \
		"${arch[@]}" FAKE_APPS_DIE=1 "$tmp/tests/guest/distro-suite.sh" "$tmp/build"
	expect ci_the_arch_stage_with_its_suites_passing_is_green 0 \
		'^PASS [a-z0-9]+_arm64_prebuilt_itest_fails_no_more_than_stock: 0 failed' \
		"${arch[@]}" "$tmp/tests/guest/distro-suite.sh" "$tmp/build" ;;
filter_nothing)
	itest=("${@:2}")
	((${#itest[@]})) || { echo "usage: red-runs.sh filter_nothing [EMULATOR...] DOORBELL_ITEST" >&2; exit 2; }
	expect ci_an_apps_filter_matching_nothing_is_red red \
		'^FAIL apps_filter_matches_a_pair: no pair matches DOORBELL_APPS_ONLY .\^no_such_pair\$.$' \
		env DOORBELL_APPS_ONLY='^no_such_pair$' "$top/tests/guest/apps.sh"
	expect ci_an_itest_filter_matching_nothing_is_red 1 \
		'^FAIL itest_filters_select_a_test: -k no_such_test with 0 -x filters matches no test$' \
		"${itest[@]}" -d no_such_device -k no_such_test ;;
twohost_retry)
	fake_twohost || { fail ci_twohost_fakes "could not write them"; exit 1; }
	expect ci_twohost_a_silent_guest_death_gets_one_more_boot 0 \
		'^note: a guest died with nothing on its console .* loss10 had no result' \
		twohost
	# B died, then run2.sh stopped A: run2.sh exits 143, A's status.
	expect ci_twohost_a_silent_death_of_b_with_a_stopped_gets_one_more_boot 0 \
		'^note: a guest died with nothing on its console .* loss10 had no result' \
		twohost FAKE_A_STOPPED=1
	expect ci_twohost_a_guest_dying_with_a_kernel_message_is_red red \
		'^FAIL twohost_setup_and_teardown_10pct_loss: no result from A; no result from B$' \
		twohost FAKE_CONSOLE=1
	expect ci_twohost_a_second_silent_death_is_red red \
		'^FAIL twohost_guests_complete: run2.sh exit 125' \
		twohost FAKE_DEATHS=2 ;;
retry_rule)
	# shellcheck source=tests/guest/lib/pair-lib.sh
	. "$top/tests/guest/lib/pair-lib.sh"
	# The client printed inf (the clock), but the server crashed: no
	# second try, whose pass would hide the crash.
	expect ci_a_retry_after_a_non_clock_failure_is_red red \
		'^FAIL ci_fake_pair: server exit 139, client exit 0, after 1 tries$' \
		judge_tries '139|0|Segmentation fault| 2 200 inf inf' '0|0|| 2 200 1.5 2.0'
	# The client could not calibrate and its server was stopped: tried
	# again, each try's exit codes printed.
	expect ci_a_retry_after_a_clock_failure_prints_its_exit_codes 0 \
		'^    \(fake_pair: try 1: server exit 143, client exit 1; perftest could not calibrate its clock, again\)$' \
		judge_tries "143|1||Can't produce a report" '0|0|| 2 200 1.5 2.0' ;;
*)
	echo "usage: red-runs.sh CASE [CHECK_FIXTURE] (see its header)" >&2
	exit 2 ;;
esac
exit "$failed"
