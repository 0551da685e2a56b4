#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in
# build-fuzz/ and run each for SECONDS (default 60).  Every target starts
# from its seeds (tests/fuzz/corpus/<target>/) and the corpus earlier runs
# grew in build-fuzz/corpus/<target>/.
#
# Usage: scripts/fuzz.sh [SECONDS] [--jobs N] [--only TARGET] [--coverage]
#   --jobs N       run N targets at a time (default 1; the machine's cores
#                  bound what helps)
#   --only TARGET  run one target (fuzz_cq_ring, fuzz_send_wr, fuzz_wr_api,
#                  fuzz_ring_map, fuzz_libver, fuzz_mlx5_cqe)
#   --coverage     no fuzzing: replay the seeds and the grown corpora through
#                  a source-coverage build (build-fuzz-cov/) and print the
#                  line coverage of the provider files the targets exercise
# Prints "PASS fuzz_<target>_<N>_execs_no_crash" per target, or
# "FAIL fuzz_<target>: ..." with the crashing input saved under
# build-fuzz/crashes/ (replay it: build-fuzz/tests/fuzz/<target> FILE).
# DOORBELL_FUZZ_BUILD_DIR overrides build-fuzz/.  Exit 1 on a FAIL.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
cd "$top" || exit 2
secs=60 jobs=1 only="" coverage=0
while (($#)); do
	case $1 in
	--jobs) jobs=${2:?--jobs needs a number}; shift ;;
	--only) only=${2:?--only needs a target}; shift ;;
	--coverage) coverage=1 ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	[0-9]*) secs=$1 ;;
	*) echo "usage: scripts/fuzz.sh [SECONDS] [--jobs N] [--only TARGET] [--coverage]" >&2
	   exit 2 ;;
	esac
	shift
done
build=${DOORBELL_FUZZ_BUILD_DIR:-$top/build-fuzz}
targets=(fuzz_cq_ring fuzz_send_wr fuzz_wr_api fuzz_ring_map fuzz_libver
	 fuzz_mlx5_cqe)
[[ -n $only ]] && targets=("$only")
t_start=$SECONDS
passed=0 failed=0

# clang and libFuzzer's runtime (Debian 12: clang 14).
extra=()
((coverage)) && extra=(llvm)	# llvm-profdata, llvm-cov
scripts/deps.sh clang libclang-rt-dev "${extra[@]}" || {
	fail fuzz_dependencies_install
	exit 1
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$SECONDS
if ! { cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang \
	     -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOORBELL_FUZZ=ON &&
       cmake --build "$build" --target fuzz -j "$(nproc)"; } >"$log" 2>&1; then
	tail -40 "$log"
	fail fuzz_targets_build
	exit 1
fi
pass fuzz_targets_build
passed=$((passed + 1))

if ((coverage)); then
	cov=$build-cov prof=$build-cov/profiles
	if ! { cmake -S "$top" -B "$cov" -DCMAKE_C_COMPILER=clang \
		     -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOORBELL_FUZZ=ON \
		     -DCMAKE_C_FLAGS="-fprofile-instr-generate -fcoverage-mapping" &&
	       cmake --build "$cov" --target fuzz -j "$(nproc)"; } >"$log" 2>&1; then
		tail -40 "$log"
		fail fuzz_coverage_build
		exit 1
	fi
	rm -rf "$prof"
	mkdir -p "$prof"
	objs=()
	for t in "${targets[@]}"; do
		mkdir -p "$build/corpus/$t"
		LLVM_PROFILE_FILE=$prof/$t.profraw "$cov/tests/fuzz/$t" -runs=0 \
			"$build/corpus/$t" "$top/tests/fuzz/corpus/$t" >/dev/null 2>&1
		# llvm-cov: the first binary by name, the others with -object.
		((${#objs[@]})) && objs+=(-object)
		objs+=("$cov/tests/fuzz/$t")
	done
	llvm-profdata merge -o "$prof/all.profdata" "$prof"/*.profraw &&
	llvm-cov report -instr-profile="$prof/all.profdata" "${objs[@]}" \
		"$top"/providers/doorbell/rxe/{rxe_send.c,rxe_send_wqe.h,rxe_wr.c,rxe_cq.c,rxe_poll.c,rxe_ring.c,rxe_ring.h} \
		"$top"/providers/doorbell/core/libver.c \
		"$top"/providers/doorbell/mlx5/{mlx5_poll.c,mlx5_cq.c} |
		awk 'NR > 2 && !/^-/ { print $1, "lines", $8 - $9 "/" $8, $10, "branches", $11 - $12 "/" $11, $13 }' |
		sed 's/^/    /'
	exit 0
fi
echo "    (build: $((SECONDS - t0)) s)"
mkdir -p "$build/crashes" "$build/fuzz-logs"

# run TARGET: fuzz for $secs seconds; the verdict goes to fuzz-logs/T.verdict.
run() {
	local t=$1 bin=$build/tests/fuzz/$1 out=$build/fuzz-logs/$1.log rc n
	local corpus=$build/corpus/$1 seeds=$top/tests/fuzz/corpus/$1 t1=$SECONDS
	mkdir -p "$corpus"
	# -timeout: one input may take 10 s; -rss_limit_mb: libFuzzer's default
	# 2 GB.  The grown corpus first (new inputs go there), then the seeds.
	local TIMEFORMAT='%U %S' cpu
	# The CPU time too: other work on the machine slows the wall clock.
	{ time "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
		"$corpus" "$seeds" >"$out" 2>&1; } 2>"$out.time"
	rc=$?
	cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$out.time")
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
	{
		if ((rc == 0)) && [[ -n $n ]]; then
			pass "${t}_${n}_execs_no_crash"
		else
			fail "${t}" "exit $rc after ${n:-?} executions; input: $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$out" | tail -1)"
			grep -E 'FZ_ASSERT|ERROR: |SUMMARY: |runtime error|^    #[0-5] ' "$out" |
				head -20 | sed 's/^/    /'
		fi
		echo "    ($t: $((SECONDS - t1)) s, ${cpu} s CPU," \
		     "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out" | tail -1) execs/s," \
		     "corpus $(find "$corpus" -type f | wc -l) files)"
	} >"$build/fuzz-logs/$t.verdict"
}

running=0
for t in "${targets[@]}"; do
	run "$t" &
	running=$((running + 1))
	if ((running >= jobs)); then
		wait -n
		running=$((running - 1))
	fi
done
wait
for t in "${targets[@]}"; do
	cat "$build/fuzz-logs/$t.verdict"
	if grep -q '^PASS ' "$build/fuzz-logs/$t.verdict"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed, $((SECONDS - t_start)) s" \
     "($secs s per target, $jobs at a time)"
((failed == 0))
