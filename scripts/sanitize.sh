#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Sanitizer runs: build everything with -DDOORBELL_SANITIZE=KIND, run the unit
# tests (ctest) on the host, then, in the Soft-RoCE guest (tests/vm/run.sh),
# the C integration tests and a few perftest pairs through the sanitized
# provider.  A sanitizer report anywhere, or a test that fails, is a FAIL.
#
# Usage: scripts/sanitize.sh [address,undefined|thread] [--no-vm]
#   address,undefined (default; alias asan)  build-asan/: unit tests with leak
#       detection, doorbell-itest (leak detection on), perftest pairs with
#       LD_PRELOAD of gcc's libasan (leak detection off: not our program)
#   thread (alias tsan)  build-tsan/: the unit tests that start a thread (the
#       plain build's entries run with tests/lib/thread-probe.c preloaded
#       name them; every entry when they cannot) and doorbell-itest -k threads
#   --no-vm  host part only (build and unit tests)
# DOORBELL_SANITIZE_BUILD_DIR overrides the build directory; it must be under
# the checkout (or another directory the guest sees).  Prints PASS/FAIL
# <prefix>_<name> lines (prefix asan or tsan) and a count; exit 1 on a FAIL.
#
# Reports are collected into BUILD/sanitizer-reports/ (kept after a FAIL):
# the sanitizers' log_path files, named after what ran, and copies of the
# perftest processes' stderr that hold a report (the provider's UBSan runtime
# writes to stderr, whatever UBSAN_OPTIONS says, when libasan is preloaded).
# Logs: BUILD/unit-tests.log (ctest -V) and BUILD/guest.log.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail; db_passes and db_fails count them

# Patterns of a sanitizer report in any output.
san_re='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer|SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|LeakSanitizer)'

# ---------------------------------------------------------------- the guest
# sanitize.sh --guest KIND BUILD REPORTS RUNTIME: runs inside tests/vm/run.sh.
if [[ ${1:-} == --guest ]]; then
	kind=$2 build=$3 rep=$4 rt=$5
	dev=$(db_ibdev)
	gid=${DOORBELL_VM_GID_INDEX:-1}
	itest=$build/tests/guest/itest/doorbell-itest
	export RDMAV_DRIVERS=$build/lib/libdoorbell
	# reports TAG: the report files of the processes run under TAG: their
	# log_path files, and their stderr copies that hold a report (the
	# provider's UBSan runtime, libubsan, does not take log_path when
	# libasan is the process's runtime; it writes to stderr).
	reports() {
		find "$rep" -maxdepth 1 -type f -name "$1.*" ! -name "$1.stderr.*"
		find "$rep" -maxdepth 1 -type f -name "$1.stderr.*" \
			-exec grep -lE "$san_re" {} +
	}
	clean_stderr() {
		local f
		for f in "$rep/$1".stderr.*; do
			[[ -f $f ]] && ! grep -qE "$san_re" "$f" && rm -f "$f"
		done
		return 0
	}
	show_reports() {
		local f
		for f in $(reports "$1"); do
			echo "    == $(basename "$f")"
			grep -E "$san_re|^    #[0-9]+ " "$f" | head -25 | sed 's/^/    /'
		done
	}
	# itest TAG [ARGS]: doorbell-itest with the sanitizer logging to TAG.*
	itest() {
		local tag=$1 out err t0 rc n why=""
		shift
		out=$(mktemp) err=$(mktemp)
		t0=$SECONDS
		# The itest is ours: leak detection stays on.  DOORBELL_DEBUG
		# proves which provider served the device.
		ASAN_OPTIONS=log_path=$rep/$tag.asan:detect_leaks=1 \
		UBSAN_OPTIONS=log_path=$rep/$tag.ubsan:print_stacktrace=1:halt_on_error=1 \
		TSAN_OPTIONS=log_path=$rep/$tag.tsan:halt_on_error=0:second_deadlock_stack=1 \
		DOORBELL_DEBUG=1 timeout 900 "$itest" -d "$dev" -g "$gid" "$@" \
			>"$out" 2>"$err"
		rc=$?
		n=$(reports "$tag" | wc -l)
		if ((n)); then
			why="$n process(es) wrote sanitizer reports"
		elif grep -Eq "$san_re" "$out" "$err"; then
			why="a sanitizer report in the output"
		elif ((rc != 0)); then
			why="doorbell-itest exited $rc"
		elif ! grep -q 'serving the device with the rxe backend' "$err"; then
			why="doorbell did not serve $dev"
		fi
		grep -E '^itest: [0-9]+ passed' "$err" | sed 's/^/    /'
		echo "    ($tag: $((SECONDS - t0)) s)"
		if [[ -n $why ]]; then
			fail "${kind}_guest_${tag}_clean" "$why"
			grep -E '^FAIL ' "$out" | head -20 | sed 's/^/    /'
			grep -Ev 'doorbell: ' "$err" | grep -Ev '^itest: ' |
				tail -15 | sed 's/^/    stderr| /'
			show_reports "$tag"
		else
			pass "${kind}_guest_${tag}_clean"
		fi
		rm -f "$out" "$err"
	}

	# perftest PAIR: one pair of tests/guest/apps.sh, each side with the
	# sanitizer runtime preloaded (the wrappers below come first in PATH).
	perftest() {
		local pair=$1 tag=$2 out t0 n
		t0=$SECONDS
		out=$(SAN_TAG=$tag "$top/tests/guest/apps.sh" "$pair" 2>&1)
		sleep 1	# the stderr copies' tee processes end
		n=$(reports "$tag" | wc -l)
		clean_stderr "$tag"
		echo "    ($tag: $((SECONDS - t0)) s)"
		if ((n)); then
			fail "${kind}_guest_${tag}_clean" "$n process(es) wrote sanitizer reports"
			show_reports "$tag"
		elif ! grep -q "^PASS $pair\$" <<<"$out"; then
			fail "${kind}_guest_${tag}_clean" "the pair failed"
			tail -25 <<<"$out" | sed 's/^/    /'
		else
			pass "${kind}_guest_${tag}_clean"
		fi
	}

	if [[ $kind == tsan ]]; then
		# TSan sees our threads and our C11 atomics, not the kernel's side.
		itest itest_threads -k threads
	else
		itest itest
		wrap=$(mktemp -d)
		for app in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw \
			   ib_send_lat ib_write_lat; do
			# Not our programs: libibverbs' and perftest's leaks are
			# not ours to fix, so no leak detection.
			cat >"$wrap/$app" <<-EOF
			#!/bin/bash
			exec 2> >(tee "$rep/\$SAN_TAG.stderr.\$\$" >&2)
			export LD_PRELOAD="$rt\${LD_PRELOAD:+:\$LD_PRELOAD}"
			export ASAN_OPTIONS="log_path=$rep/\$SAN_TAG.asan:detect_leaks=0"
			export UBSAN_OPTIONS="log_path=$rep/\$SAN_TAG.ubsan:print_stacktrace=1:halt_on_error=1"
			exec $(command -v "$app") "\$@"
			EOF
			chmod +x "$wrap/$app"
		done
		export PATH=$wrap:$PATH
		perftest perftest_ib_send_bw_rc perftest_send_bw_rc
		perftest perftest_ib_write_bw_post_list_8 perftest_write_bw_post_list
		perftest perftest_ib_send_bw_ud perftest_send_bw_ud
		perftest perftest_ib_atomic_bw_rc perftest_atomic_bw_rc
		rm -rf "$wrap"
	fi
	((db_fails == 0))
	exit $?
fi

# ----------------------------------------------------------------- the host
kind=address,undefined
vm=1
for a in "$@"; do
	case $a in
	address,undefined | asan) kind=address,undefined ;;
	thread | tsan) kind=thread ;;
	--no-vm) vm=0 ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "usage: scripts/sanitize.sh [address,undefined|thread] [--no-vm]" >&2
	   exit 2 ;;
	esac
done
if [[ $kind == thread ]]; then p=tsan; else p=asan; fi
build=${DOORBELL_SANITIZE_BUILD_DIR:-$top/build-$p}
build=$(realpath -m "$build")
rep=$build/sanitizer-reports
cd "$top" || exit 2
t_start=$SECONDS
finish() {
	echo "sanitize ($kind): $db_passes passed, $db_fails failed, $((SECONDS - t_start)) s"
	((db_fails == 0))
	exit $?
}

scripts/deps.sh || { fail "${p}_dependencies_install"; finish; }
t0=$SECONDS
if DOORBELL_BUILD_DIR=$build scripts/build.sh -DDOORBELL_SANITIZE="$kind" \
		>/dev/null; then
	pass "${p}_build"
else
	fail "${p}_build"
	finish
fi
echo "    (build: $((SECONDS - t0)) s)"
rm -rf "$rep"
mkdir -p "$rep"

# Unit tests: ours, so LeakSanitizer stays on.
# thread_entries: a ctest -R expression of the entries that start a thread
# (TSan finds no race in a process with one), from the plain build's
# ($DOORBELL_BUILD_DIR, default build/) entries run with
# tests/lib/thread-probe.c preloaded.  Fails, and every entry runs, without
# that build, or if a process that started a thread is no entry's command.
thread_entries() {
	local plain=${DOORBELL_BUILD_DIR:-$top/build} out=$rep/../thread-probe
	local probe line
	probe=$plain/tests/lib/libdoorbell-thread-probe.so
	[[ -e $probe ]] || { echo "    (TSan: no $probe; every entry)" >&2; return 1; }
	rm -f "$out.log"
	(cd "$plain" && DOORBELL_THREAD_PROBE_LOG=$out.log LD_PRELOAD=$probe \
		ctest -j "$(nproc)" >/dev/null 2>&1)
	# "name<TAB>command", the command's quotes taken out as the probe's
	# line has none.
	(cd "$plain" && ctest -N -V) | awk '
		/^[0-9]+: Test command: / { sub(/^[0-9]+: Test command: /, "")
			gsub(/"/, ""); cmd = $0; next }
		/^ +Test +#[0-9]+: / { print $3 "\t" cmd }' >"$out.cmds"
	local n names=()
	while IFS= read -r line; do
		n=${#names[@]}
		mapfile -t -O "$n" names < <(awk -F '\t' -v c="$line" \
			'$2 == c { print $1 }' "$out.cmds")
		((${#names[@]} > n)) || {
			echo "    (TSan: '$line' started a thread and is no entry; every entry)" >&2
			return 1
		}
	done < <(sort -u "$out.log" 2>/dev/null)
	((${#names[@]})) || { echo "    (TSan: no entry started a thread; every entry)" >&2; return 1; }
	echo "    (TSan: the ${#names[@]} entries that start a thread)" >&2
	local IFS='|'
	echo "^(${names[*]})\$"
}

t0=$SECONDS
log=$rep/../unit-tests.log
only=()
if [[ $p == tsan ]] && re=$(thread_entries); then
	only=(-R "$re")
fi
(cd "$build" &&
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1 \
	ctest -j "$(nproc)" "${only[@]}" --output-on-failure -V) >"$log" 2>&1
rc=$?
n=$(sed -nE 's/^[0-9]+: PASS .*/x/p' "$log" | wc -l)
echo "    (unit tests: $n passed in $((SECONDS - t0)) s)"
if grep -Eq "$san_re" "$log"; then
	fail "${p}_unit_tests_clean" "sanitizer report (full log: $log)"
	grep -E "$san_re|^[0-9]+:     #[0-9]+ " "$log" | head -40 | sed 's/^/    /'
elif ((rc != 0)); then
	fail "${p}_unit_tests_clean" "ctest exited $rc (full log: $log)"
	grep -E '^[0-9]+: (FAIL|    )' "$log" | head -40 | sed 's/^/    /'
else
	pass "${p}_unit_tests_clean"
fi
((vm)) || finish

if ! tests/vm/prepare.sh >/dev/null; then
	fail "${p}_guest_prepares"
	finish
fi
t0=$SECONDS
rt=""
[[ $p == asan ]] && rt=$(gcc -print-file-name=libasan.so)
glog=$rep/../guest.log
tests/vm/run.sh --timeout 1200 --out "$rep" -- \
	"$top/scripts/sanitize.sh" --guest "$p" "$build" "$rep" "$rt" 2>&1 |
	tee "$glog" | grep --line-buffered -v '^doorbell-vm: '
rc=${PIPESTATUS[0]}
db_passes=$((db_passes + $(grep -c '^PASS ' "$glog")))
db_fails=$((db_fails + $(grep -c '^FAIL ' "$glog")))
if ((rc == 124 || rc == 125)); then
	fail "${p}_guest_run_completes" "run.sh exit $rc"
	grep '^doorbell-vm: ' "$glog" | tail -5 | sed 's/^/    /'
fi
echo "    (guest: $((SECONDS - t0)) s)"
# Anything the guest's checks did not claim is still a report.
if [[ -n $(find "$rep" -type f -print -quit) ]]; then
	((db_fails)) || fail "${p}_no_stray_reports" "$(find "$rep" -type f | wc -l) report file(s) in $rep"
else
	rmdir "$rep"
fi
finish
