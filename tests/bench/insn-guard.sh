#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Instructions per ibv_post_send call and per completion returned by
# ibv_poll_cq, counted by callgrind: --toggle-collect on the named noinline
# wrappers of tests/bench/post_poll.c, inclusive counts from
# callgrind_annotate, divided by the work the program reports ("ops"
# lines).  Deterministic.  Two builds of the one program:
#   rxe    build/tests/bench/bench_post_poll on a device (Soft-RoCE in the
#          guest) through whichever provider RDMAV_DRIVERS selects (none:
#          the stock one); figures post_send64 and poll_1
#   mlx5   build/tests/model/mlx5/doorbell-mlx5-bench, the mlx5 backend on
#          the software ConnectX (instruction counts of libibverbs' dispatch
#          and the provider; not hardware timings); every figure
#
# Usage: insn-guard.sh BUILD_DIR [--mlx5] [-t] [--check BASELINE] [-- ARGS]
#   --mlx5           the model build (default: the device build)
#   -t               thread domain + single-threaded CQs (variant "td";
#                    default "default")
#   --check FILE     also compare with FILE ("variant figure instructions"
#                    lines, # comments): FAIL if a figure grew more than 10%,
#                    and with --mlx5 (mlx5-vs-libmlx5.sh --check) if one is
#                    above stock libmlx5's
#   -- ARGS          more arguments for the program (-d DEV, -g GID_INDEX)
# DOORBELL_MLX5_BENCH=EXE counts EXE instead of the --mlx5 program (same
# wrappers and output), as mlx5-vs-libmlx5.sh does for libmlx5-bench.
# Prints "<figure> <instructions>" lines, then with --check one
# "PASS|FAIL insn_<backend>_<variant>_<figure>_within_10_percent" line per
# figure.  Exit 1 on a FAIL or when nothing could be counted.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
build=${1:?usage: insn-guard.sh BUILD_DIR [--mlx5] [-t] [--check BASELINE] [-- ARGS]}
shift
backend=rxe bench=$build/tests/bench/bench_post_poll
td=() variant=default baseline='' args=()
while (($#)); do
	case $1 in
	--mlx5)
		backend=mlx5
		bench=${DOORBELL_MLX5_BENCH:-$build/tests/model/mlx5/doorbell-mlx5-bench}
		;;
	-t) td=(-t) variant=td ;;
	--check) baseline=${2:?--check needs a file}; shift ;;
	--) shift; args=("$@"); break ;;
	*) echo "insn-guard.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
iters=${DOORBELL_BENCH_CG_ITERS:-2000}
wrappers=(bench_post_inline64 bench_post_send64 bench_post_send4k
	bench_post_write4k bench_poll_1 bench_poll_16)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
toggles=()
for w in "${wrappers[@]}"; do toggles+=("--toggle-collect=$w"); done
# LD_BIND_NOW: no lazy PLT resolution inside the first counted call.
LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
	"${toggles[@]}" "$bench" -n "$iters" "${td[@]}" "${args[@]}" \
	>"$out/log" 2>&1 || {
	cat "$out/log" >&2
	exit 1
}
callgrind_annotate --inclusive=yes "$out/cg" >"$out/ann" 2>/dev/null
ir() {
	awk -v f="$1" '$0 ~ (":" f " ") { gsub(",", "", $1); print $1; exit }' \
		"$out/ann"
}
# Work per wrapper, as the bench reports it: "ops NAME CALLS UNITS".
units() {
	awk -v f="$1" '$1 == "ops" && $2 == f { print $4; exit }' "$out/log"
}
: >"$out/figures"
for w in "${wrappers[@]}"; do
	u=$(units "$w")
	[[ -n $u ]] || continue # not run by this build
	n=$(ir "$w")
	[[ -n $n ]] || { echo "no count for $w" >&2; exit 1; }
	awk -v w="${w#bench_}" -v n="$n" -v u="$u" \
		'BEGIN { printf "%s %.1f\n", w, n / u }' | tee -a "$out/figures"
done
[[ -s $out/figures ]] || { echo "no counts" >&2; exit 1; }
[[ -z $baseline ]] && exit 0
# The guard: each figure at most 10% above the baseline's.
awk -v b="$backend" -v v="$variant" '
	NR == FNR { if ($1 == v) base[$2] = $3; next }
	{
		t = "insn_" b "_" v "_" $1 "_within_10_percent"
		if (!($1 in base)) { printf "FAIL %s: no baseline\n", t; bad = 1; next }
		lim = base[$1] * 1.10
		ok = $2 <= lim
		printf "%s %s: %.1f (baseline %.1f, limit %.1f)\n",
			ok ? "PASS" : "FAIL", t, $2, base[$1], lim
		if (!ok) bad = 1
	}
	END { exit bad }' "$baseline" "$out/figures" || bad=1
# mlx5: the ratio to stock libmlx5, FAIL above 1.0, each against the 0.85
# goal (not when this run counted libmlx5 itself).
if [[ $backend == mlx5 && -z ${DOORBELL_MLX5_BENCH:-} ]]; then
	"$(dirname "$0")/mlx5-vs-libmlx5.sh" "$build" "${td[@]}" \
		--ours "$out/figures" --check || bad=1
fi
exit "${bad:-0}"
