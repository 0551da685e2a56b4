#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Real verbs applications through doorbell, inside the Soft-RoCE guest:
# perftest and the ibverbs-utils pingpongs, each as a server/client pair on
# the guest's device (db_ibdev).  A pair passes when both sides exit 0, the client prints its results,
# neither side reports bad data (pair_bad_data: the pingpongs' -c) nor a
# completion error, and both sides' DOORBELL_DEBUG
# line shows that doorbell served the device.
#
# Usage: tests/guest/apps.sh [FILTER]   (run inside tests/vm/run.sh)
# Needs RDMAV_DRIVERS pointing at the doorbell build.  Prints PASS/FAIL lines;
# exit 1 if a pair failed, or if FILTER or DOORBELL_APPS_ONLY matched no pair.
# DOORBELL_EXPECT_BACKEND (default rxe) names the backend that must serve
# the device; DOORBELL_APPS_SKIP is an extended regex of pair names to leave
# out;
# DOORBELL_APPS_ONLY, one of the pairs to run (the others are left out);
# DOORBELL_APPS_ITERS the iterations of each (-n, default 200).
# DOORBELL_EXPECT_BACKEND=stock: the stock provider must serve instead (no
# "doorbell:" line on either side): the baseline of tests/guest/distro-suite.sh.
# DOORBELL_NAME_PREFIX is put before every name; DOORBELL_APPS_STOCK_FAILED
# lists (space separated, without the prefix) the pairs that failed with the
# stock provider on the same guest: a failure of one of them is a SKIP.
# DOORBELL_TIMEOUT_SCALE multiplies the timeouts (see pair-lib.sh).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"	# pass, fail, skip

dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}
filter=${1:-}
logs=$(mktemp -d)
export DOORBELL_DEBUG=1
backend=${DOORBELL_EXPECT_BACKEND:-rxe}
served="doorbell: .*serving the device with the $backend backend"
prefix=${DOORBELL_NAME_PREFIX:-}
stock_failed=" ${DOORBELL_APPS_STOCK_FAILED:-} "
skip=${DOORBELL_APPS_SKIP:-}
only=${DOORBELL_APPS_ONLY:-}
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/pair-lib.sh"

# links_libmlx5 PROG: PROG needs libmlx5 itself (the sid guest's perftest):
# then libmlx5, not doorbell, serves an mlx5 device in it.
links_libmlx5() {
	local p
	p=$(command -v "$1") || return 1
	ldd "$p" 2>/dev/null | grep -q 'libmlx5\.so'
}

# pair NAME EXPECT -- ARGS...: run "ARGS" as server, then "ARGS addr".
pair() {
	local name=$1 expect=$2 srv cli why="" bad
	shift 3
	[[ -n $filter && $name != *$filter* ]] && return 0
	[[ -n $skip && $name =~ $skip ]] && return 0
	[[ -n $only && ! $name =~ $only ]] && return 0
	matched=$((matched + 1))
	if [[ $backend == mlx5 ]] && links_libmlx5 "$1"; then
		skip "$prefix$name" "$1 links libmlx5 (perftest's mlx5dv), whose driver registers at load, before RDMAV_DRIVERS' doorbell, and serves the mlx5 device"
		return 0
	fi
	srv=$logs/$name.server cli=$logs/$name.client
	pair_tries "$name" "$srv" "$cli" "$expect" run_pair "$srv" "$cli" "$@"
	if ((rc_c != 0 || rc_s != 0)); then
		why="exit codes client $rc_c server $rc_s"
	elif bad=$(pair_bad_data "$srv" "$cli"); then
		why="bad data: $bad"
	elif grep -qi "completion with error\|failed status\|Couldn't\|Failed to" "$cli" "$srv"; then
		why="an error was reported"
	elif ! grep -Eq "$expect" "$cli"; then
		why="no results in the client's output"
	elif [[ $backend == stock ]]; then
		if grep -q "^doorbell:" "$cli" "$srv"; then
			why="doorbell served, not the stock provider"
		fi
	elif ! grep -q "$served" "$cli" || ! grep -q "$served" "$srv"; then
		why="doorbell did not serve both sides"
	fi
	if [[ -n $why && $stock_failed == *" $name "* ]]; then
		skip "$prefix$name" "failed with the stock provider too; here: $why"
	elif [[ -n $why ]]; then
		fail "$prefix$name" "$why"
		failed=1
		sed 's/^/    client| /' "$cli" | tail -15
		sed 's/^/    server| /' "$srv" | tail -8
	else
		pass "$prefix$name"
	fi
}

failed=0 matched=0
pt=(-d "$dev" -x "$gid" -F)
bw='^[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'
lat="$bw"
iters=${DOORBELL_APPS_ITERS:-200}
n=(-n "$iters")

pair perftest_ib_send_bw_rc "$bw" -- ib_send_bw "${pt[@]}" "${n[@]}"
pair perftest_ib_write_bw_rc "$bw" -- ib_write_bw "${pt[@]}" "${n[@]}"
pair perftest_ib_read_bw_rc "$bw" -- ib_read_bw "${pt[@]}" "${n[@]}"
pair perftest_ib_atomic_bw_rc "$bw" -- ib_atomic_bw "${pt[@]}" "${n[@]}"
pair perftest_ib_write_lat_rc "$lat" -- ib_write_lat "${pt[@]}" "${n[@]}"
pair perftest_ib_send_lat_rc "$lat" -- ib_send_lat "${pt[@]}" "${n[@]}"
pair perftest_ib_read_lat_rc "$lat" -- ib_read_lat "${pt[@]}" "${n[@]}"
pair perftest_ib_atomic_lat_rc "$lat" -- ib_atomic_lat "${pt[@]}" "${n[@]}"
pair perftest_ib_send_bw_ud "$bw" -- ib_send_bw "${pt[@]}" "${n[@]}" -c UD
pair perftest_ib_send_bw_uc "$bw" -- ib_send_bw "${pt[@]}" "${n[@]}" -c UC
pair perftest_ib_write_bw_uc "$bw" -- ib_write_bw "${pt[@]}" "${n[@]}" -c UC
pair perftest_ib_send_lat_events "$lat" -- ib_send_lat "${pt[@]}" "${n[@]}" -e
pair perftest_ib_send_bw_events "$bw" -- ib_send_bw "${pt[@]}" "${n[@]}" -e
pair perftest_ib_send_bw_srq "$bw" -- ib_send_bw "${pt[@]}" "${n[@]}" --use-srq
pair perftest_ib_write_bw_4_qps "$bw" -- ib_write_bw "${pt[@]}" "${n[@]}" -q 4
pair perftest_ib_write_bw_post_list_8 "$bw" -- ib_write_bw "${pt[@]}" "${n[@]}" --post_list 8

pp='iters in [0-9.]+ seconds'
pair pingpong_rc "$pp" -- ibv_rc_pingpong -d "$dev" -g "$gid" -n "$iters"
pair pingpong_rc_events "$pp" -- ibv_rc_pingpong -d "$dev" -g "$gid" -n "$iters" -e
pair pingpong_rc_checked_data "$pp" -- ibv_rc_pingpong -d "$dev" -g "$gid" -n "$iters" -c -s 4096
pair pingpong_ud "$pp" -- ibv_ud_pingpong -d "$dev" -g "$gid" -n "$iters" -s 1024
pair pingpong_srq "$pp" -- ibv_srq_pingpong -d "$dev" -g "$gid" -n "$iters" -q 16
pair pingpong_uc "$pp" -- ibv_uc_pingpong -d "$dev" -g "$gid" -n "$iters"

rm -rf "$logs"
# A filter that matches no pair (a typo) runs nothing: that is no pass.
if ((matched == 0)) && [[ -n $filter$only ]]; then
	what=""
	[[ -z $filter ]] || what+=" FILTER '$filter'"
	[[ -z $only ]] || what+=" DOORBELL_APPS_ONLY '$only'"
	fail "${prefix}apps_filter_matches_a_pair" "no pair matches$what"
	failed=1
fi
exit "$failed"
