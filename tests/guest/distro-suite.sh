#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# doorbell on another distribution's rdma-core and kernel (Debian 13,
# sid), inside tests/vm/run.sh --distro D --keep-stock.  Two builds are
# tested, each with doorbell alone serving rxe0:
#   prebuilt  BUILD_DIR, built on the host (Debian 12, rdma-core 44);
#   native    NATIVE_DIR, built from this checkout with the guest root's own
#             compiler and libibverbs-dev (tests/vm/root-build.sh, on the
#             host; provider and doorbell-itest only).
# The prebuilt build: the perftest/pingpong set (tests/guest/apps.sh), rdma-core's
# own suite as the distribution ships it (one process per module),
# pyverbs-tests/, the bad-input matrix (doorbell-itest -k matrix_)
# and the features newer than Linux 6.1 (doorbell-itest -k feature_: RDMA
# ATOMIC WRITE and FLUSH, which must work on these kernels).
# The stock provider is the baseline (same boot, same kernel, rxe.driver
# visible again): it runs what did not pass through doorbell, right after
# doorbell's run.
#   apps      each pair that failed for doorbell runs again with stock:
#             a FAIL if it passes there, a SKIP if it failed there too;
#             then one line: every doorbell failure failed for stock too.
#   suite     0 failures, 0 errors, and every test doorbell did not pass
#             (a skip, failure or error; a module that died or crashed at
#             its exit: all of it) runs with stock, with the same
#             DOORBELL_SUITE_SEED: one that passes there is a FAIL unless
#             doorbell skips it for a choice of rdma-core-choices.txt
#             (rdma-core-suite.sh --collect, --tests, --judge --baseline).
#             A test doorbell passed needs no baseline.
# Every line is prefixed DISTRO_BUILD_ (e.g. PASS trixie_prebuilt_perftest_
# ib_send_bw_rc); the guest's facts come first (libibverbs' real file and
# version, the kernel), with a check that doorbell served rxe0 through it.
#
# Usage: tests/guest/distro-suite.sh BUILD_DIR [NATIVE_DIR]   (cwd: the checkout)
# Environment: DOORBELL_VM_DISTRO (set by run.sh --distro; else from
# /etc/os-release), DOORBELL_TIMEOUT_SCALE (timeouts; pair-lib.sh),
# DOORBELL_DISTRO_BUILDS (default "prebuilt native"),
# DOORBELL_DISTRO_PARTS (default "apps suite pyverbs matrix features"; also
# "itest": the whole doorbell-itest, stock first as the baseline, doorbell
# failing no more tests; the arm64 stage runs "apps itest"): what the
# prebuilt build runs; DOORBELL_DISTRO_NATIVE_PARTS (default "features"):
# what the native build runs. The two builds are one source; the native one
# shows that it compiles against the guest's headers and serves the device
# there, and the apps, suites and the bad-input matrix are not run twice
# (CI's budget).
# DOORBELL_VM_ARCH (run.sh --arch): names get DISTRO_ARCH_ unless amd64.
# DOORBELL_ITEST_SKIP, DOORBELL_ITEST_SKIP_WHY: below ("itest").
# Exit status: 1 if a check failed or a part exited non-zero (a part that
# dies without a FAIL line of its own gets "FAIL ..._complete: exit N").
# Test hook (tests/ci/red-runs.sh): DOORBELL_TEST_VERBS_CONF=DIR stands for
# /etc/libibverbs.d.
set -uo pipefail
build=${1:?usage: distro-suite.sh BUILD_DIR [NATIVE_DIR]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
conf=${DOORBELL_TEST_VERBS_CONF:-/etc/libibverbs.d}
builds=${DOORBELL_DISTRO_BUILDS:-prebuilt native}
parts=" ${DOORBELL_DISTRO_PARTS:-apps suite pyverbs matrix features} "
native_parts=" ${DOORBELL_DISTRO_NATIVE_PARTS:-features} "
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"	# scaled
# shellcheck source=tests/guest/suite-judge.sh
. "$here/suite-judge.sh"	# suite_unpassed

distro=${DOORBELL_VM_DISTRO:-}
if [[ -z $distro ]]; then
	distro=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
fi
# The names' prefix: the distribution, and the architecture unless amd64
# (run.sh --arch arm64: bookworm_arm64_...).
arch=${DOORBELL_VM_ARCH:-amd64}
name=$distro
[[ $arch == amd64 ]] || name=${distro}_$arch
if [[ ${DOORBELL_VM:-} != 1 ]]; then
	fail "${name}_distro_suite_runs_in_guest" "not in the test guest; run it through tests/vm/run.sh --keep-stock"
	exit 2
fi
work=$(mktemp -d)
stock_driver=$work/rxe.driver
# shellcheck disable=SC2317 # the EXIT trap calls it
restore_stock() {
	[[ -f $stock_driver && ! -e $conf/rxe.driver ]] && cp "$stock_driver" "$conf/rxe.driver"
	rm -rf "$work"
}
trap restore_stock EXIT
if [[ ! -f $conf/rxe.driver ]]; then
	fail "${name}_stock_provider_visible" "no $conf/rxe.driver (run.sh without --keep-stock?)"
	exit 1
fi
cp "$conf/rxe.driver" "$stock_driver"
hide_stock() { rm -f "$conf/rxe.driver"; }
show_stock() { [[ -e $conf/rxe.driver ]] || cp "$stock_driver" "$conf/rxe.driver"; }
stamp() { echo "    ($1: $(($(date +%s) - t0)) s)"; }

# --- the guest ------------------------------------------------------------------
echo "== $name: the guest"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")
libv=$(readlink -f "/usr/lib/$multiarch/libibverbs.so.1")
libv_pkg=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null)
pabi=$(sed -nE 's/.*VERBS_PRIVATE_([0-9]+).*/\1/p' \
	< <(objdump -T "$libv" 2>/dev/null || grep -ao 'VERBS_PRIVATE_[0-9]*' "$libv") |
	sort -un | tail -n1)
echo "    $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
echo "    libibverbs: ${libv##*/} (libibverbs1 $libv_pkg), private ABI ${pabi:-?}"
echo "    rdma-core $(dpkg-query -W -f '${Version}' rdma-core 2>/dev/null)," \
	"perftest $(dpkg-query -W -f '${Version}' perftest 2>/dev/null)," \
	"python3 $(/usr/bin/python3 -c 'import platform; print(platform.python_version())')"
want=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [[ -n ${DOORBELL_VM_DISTRO:-} && $want != "$distro" && ! ($distro == sid && -n $want) ]]; then
	fail "${name}_guest_is_$distro" "/etc/os-release says '$want'"
fi

# --- the native build -------------------------------------------------------------
native=${2:-}
if [[ " $builds " == *" native "* && ! -x $native/tests/guest/itest/doorbell-itest ]]; then
	skip "${name}_native" "no native build given (tests/vm/root-build.sh --distro $distro DIR makes one)"
	builds=${builds/native/}
fi

# --- the stock baseline -----------------------------------------------------------
# The suite draws QP caps and create flags at random: the same draws for
# the stock baseline and doorbell (rdma-core-suite.sh --baseline).
export DOORBELL_SUITE_SEED=${DOORBELL_SUITE_SEED:-$RANDOM}

# stock_apps PAIRS OUT: the apps pairs PAIRS ("a|b") with the stock
# provider alone, its lines into OUT.
stock_apps() {
	echo "== $name: stock provider: the pairs that failed through doorbell (baseline)"
	show_stock
	(unset RDMAV_DRIVERS; DOORBELL_EXPECT_BACKEND=stock DOORBELL_APPS_ONLY="^($1)\$" \
		"$here/apps.sh") >"$2" 2>&1
	hide_stock
	sed 's/^\(PASS\|FAIL\|SKIP\) /    stock: \1 /' "$2" | grep -v '^    [a-z]*| '
}

# stock_suite UNPASSED SAVE: rdma-core's suite with the stock provider
# alone, only the tests UNPASSED lists (suite_unpassed), its summary into
# SAVE.
stock_suite() {
	echo "== $name: stock provider: rdma-core suite, the $(wc -l <"$1") tests doorbell did not pass (baseline)"
	show_stock
	(unset RDMAV_DRIVERS; "$here/rdma-core-suite.sh" --per-module --tests "$1" \
		--measure --save "$2" --name "${name}_stock_rdma_core_suite_baseline_measured") ||
		db_failed=1
	hide_stock
}
show_stock
# The whole doorbell-itest with the stock provider, but for the tests that
# panic Linux 6.1's rxe with it (tests/guest/itest/README.md, "Against the
# stock provider"); stock fails some by design (another errno convention).
# DOORBELL_ITEST_SKIP: name substrings left out for both providers (tests
# that break this guest's kernel whoever drives it), each a SKIP line
# giving DOORBELL_ITEST_SKIP_WHY.
stock_itest=$work/stock.itest
itest_x=()
for x in ${DOORBELL_ITEST_SKIP:-}; do
	itest_x+=(-x "$x")
	[[ $parts == *" itest "* ]] &&
		skip "${name}_itest_${x}" "${DOORBELL_ITEST_SKIP_WHY:-DOORBELL_ITEST_SKIP}"
done
if [[ $parts == *" itest "* ]]; then
	echo "== $name: stock provider: doorbell-itest -x opcode_0x20 ${itest_x[*]} (baseline)"
	t0=$(date +%s)
	(unset RDMAV_DRIVERS
	timeout "$(scaled 900)" "$build/tests/guest/itest/doorbell-itest" -d "$dev" \
		-g "$gid" -x opcode_0x20 "${itest_x[@]}") >"$stock_itest" 2>&1
	sed -n 's/^FAIL /    stock: FAIL /p' "$stock_itest"
	echo "    stock itest: $(grep -c '^PASS ' "$stock_itest") passed," \
		"$(grep -c '^FAIL ' "$stock_itest") failed, $(grep -c '^SKIP ' "$stock_itest") skipped"
	stamp "stock itest"
fi

# --- each build, doorbell alone ---------------------------------------------------
# itest_part BUILD PART FILTER NAME: doorbell-itest -k FILTER (all tests if
# FILTER is empty) of build dir $dir, its lines prefixed $p (and kept in
# $work/BUILD.PART), a FAIL ${p}NAME_complete if it did not run whole
# (itest-run.sh).
itest_part() {
	local itest=$dir/tests/guest/itest/doorbell-itest k=()
	t0=$(date +%s)
	[[ -n $3 ]] && k=(-k "$3")
	if [[ -x $itest ]]; then
		"$here/itest-run.sh" --prefix "$p" "${4}_complete" -- \
			"$itest" -d "$dev" -g "$gid" "${k[@]}" "${itest_x[@]}" |
			tee "$work/$1.$2" || db_failed=1
	else
		fail "${p}${4}_built" "no $itest"
	fi
	stamp "$1 $2"
}

hide_stock
for b in $builds; do
	case $b in
	prebuilt) dir=$build bparts=$parts ;;
	native) dir=$native bparts=$native_parts ;;
	*) fail "${name}_build_$b" "unknown build (prebuilt or native)"; continue ;;
	esac
	p=${name}_${b}_
	export RDMAV_DRIVERS=$dir/lib/libdoorbell
	echo "== $name, $b build ($dir): doorbell alone serves $dev"
	out=$work/$b.devinfo
	DOORBELL_DEBUG=1 timeout "$(scaled 60)" ibv_devinfo -d "$dev" >"$out" 2>&1
	if grep -q "^doorbell: $dev: serving the device" "$out" &&
		grep -q 'PORT_ACTIVE' "$out"; then
		pass "${p}doorbell_serves_$dev"
		grep "^doorbell: $dev: serving" "$out" | head -n1 | sed 's/^/    /'
	else
		fail "${p}doorbell_serves_$dev" "ibv_devinfo with only doorbell did not show doorbell serving an active $dev"
		sed 's/^/    ibv_devinfo| /' "$out" | tail -n 8
		echo "    (the remaining tests of this build are not run)"
		continue
	fi
	if [[ $bparts == *" apps "* ]]; then
		echo "== $name, $b: apps"
		t0=$(date +%s)
		out=$work/$b.apps
		# itest-run.sh: "FAIL ${p}apps_complete" if it died silently.
		DOORBELL_NAME_PREFIX=$p "$here/itest-run.sh" --timeout 0 "${p}apps_complete" -- \
			"$here/apps.sh" >"$out.doorbell"
		failed=$(sed -n "s/^FAIL ${p}\([^:]*\):.*/\1/p" "$out.doorbell" |
			grep -vxE 'apps_complete|apps_filter_matches_a_pair' | paste -sd'|')
		stock_failed=" "
		if [[ -n $failed ]]; then
			stock_apps "$failed" "$work/stock.apps"
			stock_failed=" $(sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$work/stock.apps" | paste -sd' ') "
		fi
		# A failure the stock provider shares is a SKIP.
		awk -v sf="$stock_failed" -v pre="$p" '/^FAIL / {
			n = substr($2, 1, index($2, ":") - 1); sub("^" pre, "", n)
			if (index(sf, " " n " ")) { sub(/^FAIL /, "SKIP "); sub(/: /, ": failed with the stock provider too; here: ") }
		} { print }' "$out.doorbell" | tee "$out"
		! grep -q '^FAIL ' "$out" || db_failed=1
		nd=$(($(grep -c '^FAIL ' "$out") + $(grep -c '^SKIP ' "$out")))
		ns=$(wc -w <<<"$stock_failed")
		if ((nd <= ns)); then
			pass "${p}apps_fail_no_more_than_stock" "$nd failed, $ns of them with the stock provider too"
		else
			fail "${p}apps_fail_no_more_than_stock" "$nd failed, $ns of them with the stock provider too"
		fi
		stamp "$b apps"
	fi
	if [[ $bparts == *" suite "* ]]; then
		echo "== $name, $b: rdma-core suite, one process per module"
		t0=$(date +%s)
		"$here/rdma-core-suite.sh" --per-module --collect "$work/$b.suite" || db_failed=1
		suite_unpassed "$work/$b.suite" >"$work/$b.unpassed"
		stock_suite "$work/$b.unpassed" "$work/stock.suite"
		"$here/rdma-core-suite.sh" --per-module --judge "$work/$b.suite" --baseline "$work/stock.suite" \
			--name "${p}rdma_core_suite_no_failures_no_errors_passes_what_stock_passes" ||
			db_failed=1
		stamp "$b suite"
	fi
	if [[ $bparts == *" pyverbs "* ]]; then
		echo "== $name, $b: pyverbs-tests"
		t0=$(date +%s)
		"$here/pyverbs-suite.sh" "$p" || db_failed=1
		stamp "$b pyverbs"
	fi
	if [[ $bparts == *" matrix "* ]]; then
		echo "== $name, $b: the bad-input matrix (doorbell-itest -k matrix_)"
		itest_part "$b" matrix matrix_ bad_input_matrix
	fi
	if [[ $bparts == *" features "* ]]; then
		echo "== $name, $b: features newer than Linux 6.1 (doorbell-itest -k feature_)"
		itest_part "$b" features feature_ features
	fi
	if [[ $bparts == *" itest "* ]]; then
		echo "== $name, $b: doorbell-itest, every test"
		itest_part "$b" itest "" itest
		nd=$(grep -c '^FAIL ' "$work/$b.itest")
		ns=$(grep -c '^FAIL ' "$stock_itest")
		if ((nd <= ns)); then
			pass "${p}itest_fails_no_more_than_stock" "$nd failed, $ns with the stock provider"
		else
			fail "${p}itest_fails_no_more_than_stock" "$nd failed, $ns with the stock provider"
		fi
	fi
	unset RDMAV_DRIVERS
done
show_stock
exit "$db_failed"
