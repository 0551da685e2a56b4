#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: step 3 of issue
# #19.  perftest's RC tests (and send_bw with -e; UC send and write) through the
# provider tests/guest/mlx5/with-provider.sh chose (stock libmlx5 by default) in
# loopback on the software ConnectX's port 1: a server and a client in the
# same guest, the client reaching the server over TCP on localhost for the
# exchange, the data going through the device's data path
# (sim/mlx5/pci/cx_engine.c).  A pair passes when both sides exit 0 and the
# client prints its result line (message size, iterations, then numbers).
# The pairs run through the Soft-RoCE guests' tests/guest/lib/pair-lib.sh (the
# client starts when the server listens; each side has a timeout, so
# nothing hangs).  A failure of perftest's clock calibration (noisy under
# TCG; pair-lib.sh's perftest_gave_up: "Can't produce a report", or inf
# where the times belong, seen on Debian 12's ib_write_lat whose server
# printed numbers in the same run) is retried on a fresh port, by
# pair-lib.sh's one rule (pair_tries: three tries at most, only for that,
# each try's exit codes printed; under load the guest's clock failed twice
# in a row, Debian 12 guest, stage cx at db5a74d).
# After the latency pairs ib_send_lat and ib_write_lat,
# cx_blueflame_rang_NAME (blueflame-lib.sh): their provider rang BlueFlame.
# Prints PASS/FAIL per pair; exit 1 if any failed.
#
# Usage: check-perftest.sh [ITERS]   (scripts/cx.sh -- tests/guest/mlx5/check-perftest.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"	# pass, fail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
# shellcheck source=tests/guest/mlx5/blueflame-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/blueflame-lib.sh"
iters=${1:-200}
addr=localhost
pair_timeout=60
failed=0
port=18615
dir=$(mktemp -d)
result=$perftest_result

# One server and client on a fresh port; sets rc_s and rc_c.
# shellcheck disable=SC2317 # called by pair_tries
once() {
	local name=$1 prog=$2
	shift 2
	port=$((port + 1))
	run_pair "$dir/$name.srv" "$dir/$name.cli" \
		"$prog" -d mlx5_0 -i 1 -F -p "$port" -n "$iters" "$@"
}

# name, then the program and its options (both sides)
pair() {
	local name=$1 prog=$2
	shift 2
	pair_tries "$name" "$dir/$name.srv" "$dir/$name.cli" "$result" once "$name" "$prog" "$@"
	result_verdict "cx_perftest_$name" "$dir/$name.srv" "$dir/$name.cli" \
		"$result" "$prog $*" || failed=1
}

pair ib_send_bw ib_send_bw
pair ib_write_bw ib_write_bw
pair ib_read_bw ib_read_bw
pair ib_atomic_bw ib_atomic_bw
bf=$(bf_count)
pair ib_send_lat ib_send_lat
bf_rang ib_send_lat "$bf" || failed=1
bf=$(bf_count)
pair ib_write_lat ib_write_lat
bf_rang ib_write_lat "$bf" || failed=1
pair ib_read_lat ib_read_lat
# UC (issue #31): sends and RDMA writes, which UC has without an ACK.
pair ib_send_bw_uc ib_send_bw -c UC
pair ib_write_bw_uc ib_write_bw -c UC
# Completion events (-e; perftest refuses it for WRITE and READ).  Not
# ib_send_lat -e: perftest 25.01's fails here through libmlx5 and doorbell
# alike ("Couldn't post send: scnt=3", docs/mlx5-side-by-side.md).
pair ib_send_bw_events ib_send_bw -e
rm -rf "$dir"
exit "$failed"
