#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Instructions per ibv_post_send call and per completion returned by
# ibv_poll_cq, counted by callgrind (deterministic: user-space instructions
# of bench_post() and bench_poll(), see post_poll.c), through whichever
# provider RDMAV_DRIVERS selects (none: the stock one).
# Usage: callgrind-counts.sh BUILD_DIR [-t]    prints "post N" and "poll N"
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
build=${1:?usage: callgrind-counts.sh BUILD_DIR [-t]}
shift
iters=${DOORBELL_BENCH_CG_ITERS:-2000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
	--toggle-collect=bench_post --toggle-collect=bench_poll \
	"$build/tests/bench/bench_post_poll" -n "$iters" "$@" >"$out/log" 2>&1 || {
	cat "$out/log" >&2
	exit 1
}
callgrind_annotate --inclusive=yes "$out/cg" >"$out/ann" 2>/dev/null
ir() {
	awk -v f="$1" '$0 ~ (":" f " ") { gsub(",", "", $1); print $1; exit }' \
		"$out/ann"
}
post=$(ir bench_post)
poll=$(ir bench_poll)
[[ -n $post && -n $poll ]] || { echo "no counts" >&2; exit 1; }
awk -v p="$post" -v q="$poll" -v n="$iters" \
	'BEGIN { printf "post %.1f\npoll %.1f\n", p / n, q / n }'
