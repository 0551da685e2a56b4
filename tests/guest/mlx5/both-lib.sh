# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by check-all.sh and check-slow.sh: each check side by side.
#   both CMD...  CMD through libmlx5, then through doorbell
#                (with-provider.sh, which proves who served); rc=1 if
#                either failed
#   stamp WHAT   "    (STAMP_PREFIX WHAT: N s)", the seconds since the
#                last stamp (or since this was sourced)
#   suite_both NAME DIR ARGS...  rdma-core's suite
#                (check-rdma-core-suite.sh ARGS: options, then TEST_TIMEOUT
#                and modules) through doorbell, then through libmlx5 on
#                the tests doorbell did not pass, and doorbell's run judged
#                against that, test by test (suite-judge.sh; a test
#                doorbell passed needs no baseline): one line, PASS|FAIL
#                NAME; the summaries kept in DIR; rc=1 if it failed
both_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=${rc:-0}
both() {
	"$both_here/with-provider.sh" libmlx5 "$@" || rc=1
	"$both_here/with-provider.sh" doorbell "$@" || rc=1
}
t0=$SECONDS
stamp() { echo "    (${stamp_prefix:-}$1: $((SECONDS - t0)) s)"; t0=$SECONDS; }
suite_both() {
	local name=$1 dir=$2 suite=$both_here/check-rdma-core-suite.sh
	shift 2
	# shellcheck source=tests/guest/suite-judge.sh
	declare -F suite_unpassed >/dev/null || . "$both_here/../suite-judge.sh"
	"$both_here/with-provider.sh" doorbell "$suite" --collect "$dir/suite" "$@" || rc=1
	# A test DOORBELL_SUITE_SKIP skips (rdma-core-module.py) skips for
	# libmlx5 too: no baseline needed.
	local rule why
	suite_unpassed "$dir/suite" >"$dir/unpassed"
	while IFS= read -r -d ';' rule; do
		why=${rule#*=}
		[[ -n $rule && -n $why ]] || continue
		grep -F ": $why" "$dir/suite" | sed -n 's/^skipped skip \([^:]*\): .*/\1/p' |
			grep -vxFf - "$dir/unpassed" >"$dir/unpassed.n"
		mv "$dir/unpassed.n" "$dir/unpassed"
	done <<<"${DOORBELL_SUITE_SKIP:-};"
	echo "    (libmlx5: the $(wc -l <"$dir/unpassed") tests doorbell did not pass)"
	if [[ -s $dir/unpassed ]]; then
		"$both_here/with-provider.sh" libmlx5 "$suite" --tests "$dir/unpassed" \
			--save "$dir/base" "$@" || rc=1
	else
		echo "total 0 0 0 0 0 0" >"$dir/base"
	fi
	"$suite" --judge "$dir/suite" --baseline "$dir/base" --name "$name" "$@" || rc=1
}
