#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/cx/guest-cx.sh found mlx5_0: step 3 of issue
# #19.  perftest's RC tests through the distribution's stock libmlx5 in
# loopback on the software ConnectX's port 1: a server and a client in the
# same guest, the client reaching the server over TCP on localhost for the
# exchange, the data going through the device's data path
# (tests/cx/cx_engine.c).  A pair passes when both sides exit 0 and the
# client prints its result line (message size, iterations, then numbers).
# Each side has a timeout, so nothing hangs.  A failure of perftest's clock
# calibration (noisy under TCG) is retried once on a fresh port: "Can't
# produce a report", or a client's result line of inf or nan where the
# numbers belong (seen on Debian 12's ib_write_lat, whose server printed
# numbers in the same run).  Prints PASS/FAIL per pair; exit 1 if any
# failed.
#
# Usage: check-perftest.sh [ITERS]   (scripts/cx.sh -- tests/cx/check-perftest.sh)
set -uo pipefail
iters=${1:-200}
limit=60
failed=0
port=18615
dir=$(mktemp -d)
result='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+'
nocal="Can't produce a report|^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+-?(inf|nan)"

# Wait up to 20 s for the server's TCP port; false if it never listens.
listening() {
	local i
	for ((i = 0; i < 200; i++)); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# One server and client on a fresh port; sets srv and cli (exit statuses).
once() {
	local name=$1 prog=$2 spid i
	shift 2
	port=$((port + 1))
	timeout "$limit" "$prog" -d mlx5_0 -i 1 -F -p "$port" -n "$iters" "$@" \
		>"$dir/$name.srv" 2>&1 &
	spid=$!
	cli=0
	if listening "$port"; then
		timeout "$limit" "$prog" -d mlx5_0 -i 1 -F -p "$port" \
			-n "$iters" "$@" localhost >"$dir/$name.cli" 2>&1 || cli=$?
	else
		echo "server did not listen on port $port" >"$dir/$name.cli"
		cli=1
	fi
	# A server whose client failed may wait for ever: 10 s grace.
	if ((cli)); then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$spid" 2>/dev/null
	fi
	srv=0
	wait "$spid" || srv=$?
}

# name, then the program and its options (both sides)
pair() {
	local name=$1 prog=$2 srv cli
	shift 2
	once "$name" "$prog" "$@"
	if { ((srv || cli)) || ! grep -Eq "$result" "$dir/$name.cli"; } &&
		grep -Eq "$nocal" "$dir/$name.cli"; then
		echo "  $name: perftest's clock calibration failed, once more"
		once "$name" "$prog" "$@"
	fi
	if ((srv == 0 && cli == 0)) && grep -Eq "$result" "$dir/$name.cli"; then
		echo "PASS cx_perftest_$name: $(grep -E "$result" "$dir/$name.cli" |
			tail -n 1 | sed 's/^ *//;s/  */ /g')"
	else
		echo "FAIL cx_perftest_$name: server exit $srv, client exit $cli ($prog $*)"
		sed 's/^/  server: /' "$dir/$name.srv" | tail -n 20
		sed 's/^/  client: /' "$dir/$name.cli" | tail -n 20
		failed=1
	fi
}

pair ib_send_bw ib_send_bw
pair ib_write_bw ib_write_bw
pair ib_read_bw ib_read_bw
pair ib_atomic_bw ib_atomic_bw
pair ib_send_lat ib_send_lat
pair ib_write_lat ib_write_lat
pair ib_read_lat ib_read_lat
rm -rf "$dir"
exit "$failed"
