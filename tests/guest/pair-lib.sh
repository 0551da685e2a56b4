# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced: run a perftest/pingpong-style server and client pair on loopback.
# Needs $addr (the server address for the client).

# run_pair SRV_LOG CLI_LOG ARGS...: server, then client; sets rc_s, rc_c.
run_pair() {
	local srv=$1 cli=$2 spid
	shift 2
	: "${addr:?pair-lib.sh: run_pair needs \$addr, the server address}"
	timeout 120 "$@" >"$srv" 2>&1 &
	spid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		timeout 120 "$@" "$addr" >"$cli" 2>&1
		rc_c=$?
		grep -q "Couldn't connect\|Connection refused" "$cli" || break
	done
	# perftest gives up on noisy clocks (emulation); the server then waits.
	if ((rc_c != 0)) && perftest_gave_up "$cli"; then
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	# shellcheck disable=SC2034 # rc_s is the caller's result
	rc_s=$?
}

# perftest_gave_up LOG: perftest could not calibrate its clock (emulation):
# it says so, or it prints "inf" for its times.
perftest_gave_up() {
	grep -Eq "Correlation coefficient|Can't produce a report|[[:space:]]inf[[:space:]]" "$1"
}
