#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The mlx5 backend side by side with stock libmlx5, instructions per
# ibv_post_send and per completion of ibv_poll_cq, both counted by
# tests/bench/insn-guard.sh --mlx5: ours on the software ConnectX
# ($build/tests/model/mlx5/doorbell-mlx5-bench), libmlx5's real mlx5_post_send and
# mlx5_poll_cq_v1 on plain memory ($build/tests/bench/libmlx5-bench, which
# dlopen()s the installed libmlx5 of Debian's ibverbs-providers).  When the
# installed libmlx5 is not a build whose layouts tests/bench/libmlx5_v44.h
# records (libmlx5-bench -p says why), or the bench was not built, the
# libmlx5 column is the recorded one, tests/bench/libmlx5-insn-recorded.txt,
# and the table says so.
#
# Usage: mlx5-vs-libmlx5.sh BUILD_DIR [-t] [--ours FIGURES] [--check]
#   -t              the thread-domain variant on both sides (locks elided)
#   --ours FIGURES  our figures as insn-guard.sh --mlx5 printed them (else it
#                   is run here)
#   --check         exit 1 if a case's ratio ours/libmlx5 is above 1.0
# Prints one line per case: ours, libmlx5, the ratio, and the ratio against
# the 0.85 goal and the 1.0 floor.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: mlx5-vs-libmlx5.sh BUILD_DIR [-t] [--ours FIGURES] [--check]}
shift
td=() variant=default ours='' check=0
while (($#)); do
	case $1 in
	-t) td=(-t) variant=td ;;
	--ours) ours=${2:?--ours needs a file}; shift ;;
	--check) check=1 ;;
	*) echo "mlx5-vs-libmlx5.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [[ -z $ours ]]; then
	"$here/insn-guard.sh" "$build" --mlx5 "${td[@]}" >"$out/ours"
	ours=$out/ours
fi
lm5=$build/tests/bench/libmlx5-bench
recorded=$here/libmlx5-insn-recorded.txt
if [[ -x $lm5 ]] && "$lm5" -p >"$out/probe" 2>&1; then
	# libmlx5's default BlueFlame policy, which is ours: every single WQE.
	env -u MLX5_POST_SEND_PREFER_BF DOORBELL_MLX5_BENCH="$lm5" \
		"$here/insn-guard.sh" "$build" --mlx5 "${td[@]}" >"$out/theirs"
	echo "libmlx5: measured now, $(cat "$out/probe")"
else
	[[ -x $lm5 ]] || echo "$lm5 was not built" >"$out/probe"
	awk -v v="$variant" '$1 == v { print $2, $3 }' "$recorded" \
		>"$out/theirs"
	echo "libmlx5: RECORDED figures from ${recorded#"$here/"}" \
		"(no side-by-side run: $(tr '\n' ' ' <"$out/probe"))"
	sed -n 's/^# source: /libmlx5: /p' "$recorded"
fi
# The five cases of the comparison; post_send4k is shown, and held, too.
awk -v v="$variant" -v check="$check" '
	NR == FNR { lm[$1] = $2; next }
	{
		if (!($1 in lm)) { printf "SKIP %s %s: no libmlx5 figure\n", v, $1; next }
		r = $2 / lm[$1]
		floor = r <= 1.0
		printf "%s mlx5-vs-libmlx5 %s %-13s ours %6.1f libmlx5 %6.1f ratio %.3f (goal 0.85: %s)\n",
			floor ? "PASS" : "FAIL", v, $1, $2, lm[$1], r,
			r <= 0.85 ? "met" : sprintf("%+.1f insns to go", $2 - 0.85 * lm[$1])
		if (!floor) bad = 1
	}
	END { exit check && bad }' "$out/theirs" "$ours"
