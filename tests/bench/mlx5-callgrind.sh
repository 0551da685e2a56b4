#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Instructions per ibv_post_send and per completion returned by ibv_poll_cq
# for the mlx5 backend on the software ConnectX, counted by callgrind as
# callgrind-counts.sh counts them for rxe: --toggle-collect on the named
# noinline wrappers of tests/mlx5/bench_post_poll.c, inclusive counts from
# callgrind_annotate, divided by the work done.  The bench links the
# backend compiled as production compiles it (no DOORBELL_MLX5_MODEL) and
# runs the posted WQEs through the model outside the wrappers, so what is
# counted is libibverbs' dispatch and the provider, never the model.
# These are instruction counts on the model, not hardware timings.
#
# Usage: mlx5-callgrind.sh BUILD_DIR [-t] [--check BASELINE]
#   -t               thread domain + single-threaded CQs (variant "td")
#   --check FILE     also compare with FILE ("variant figure value" lines):
#                    FAIL if a figure grew more than 10% above it
# Prints "<figure> <instructions>" lines.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
build=${1:?usage: mlx5-callgrind.sh BUILD_DIR [-t] [--check BASELINE]}
shift
td=() variant=default baseline=
while (($#)); do
	case $1 in
	-t) td=(-t) variant=td ;;
	--check) baseline=${2:?--check needs a file}; shift ;;
	*) echo "mlx5-callgrind.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
bench=$build/tests/mlx5/doorbell-mlx5-bench
iters=${DOORBELL_BENCH_CG_ITERS:-2000}
wrappers=(bench_post_inline64 bench_post_send64 bench_post_send4k
	bench_post_write4k bench_poll_1 bench_poll_16)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
toggles=()
for w in "${wrappers[@]}"; do toggles+=("--toggle-collect=$w"); done
# LD_BIND_NOW: no lazy PLT resolution inside the first counted call.
LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
	"${toggles[@]}" "$bench" -n "$iters" "${td[@]}" >"$out/log" 2>&1 || {
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
	n=$(ir "$w") u=$(units "$w")
	[[ -n $n && -n $u ]] || { echo "no count for $w" >&2; exit 1; }
	awk -v w="${w#bench_}" -v n="$n" -v u="$u" \
		'BEGIN { printf "%s %.1f\n", w, n / u }' | tee -a "$out/figures"
done
[[ -z $baseline ]] && exit 0
# The guard: each figure at most 10% above the baseline's.
awk -v v="$variant" '
	NR == FNR { if ($1 == v) base[$2] = $3; next }
	{
		if (!($1 in base)) { printf "FAIL %s: no baseline\n", $1; bad = 1; next }
		lim = base[$1] * 1.10
		ok = $2 <= lim
		printf "%s mlx5 %s %s: %.1f (baseline %.1f, limit %.1f)\n",
			ok ? "PASS" : "FAIL", v, $1, $2, base[$1], lim
		if (!ok) bad = 1
	}
	END { exit bad }' "$baseline" "$out/figures"
