# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced: run a perftest/pingpong-style server and client pair on loopback,
# and the helpers of pairs whose sides run apart (a namespace, another host).
# Needs $addr (the server address for the client).
#
# The client starts as soon as the server's TCP port listens (perftest and
# the ibverbs pingpongs exchange their QP numbers over TCP, default port
# 18515, "-p N" to change it), not after a fixed sleep.
# DOORBELL_TIMEOUT_SCALE (an integer, default 1) multiplies every timeout:
# a slow guest kernel (Linux 6.12's rxe under emulation) sets it.

# pass, fail, skip: scripts/lib.sh's, unless the sourcing script has them
if ! declare -F pass >/dev/null; then
	# shellcheck source=scripts/lib.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
fi

# scaled SECS: SECS times DOORBELL_TIMEOUT_SCALE.
scaled() {
	local f=${DOORBELL_TIMEOUT_SCALE:-1}
	[[ $f =~ ^[1-9][0-9]*$ ]] || f=1
	echo $(($1 * f))
}

# pair_port ARGS...: the TCP port the server of ARGS listens on.
pair_port() {
	local port=18515
	while (($#)); do
		case $1 in
		-p | --port) port=${2:-$port}; shift ;;
		--port=*) port=${1#*=} ;;
		esac
		shift
	done
	echo "$port"
}

# port_listens PORT: some socket listens on TCP PORT (IPv4 or IPv6).
# Reads /proc/net/tcp{,6} with builtins: every exec is slow under TCG.
port_listens() {
	local hex f _sl local_addr _rem st _rest
	printf -v hex ':%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[[ -r $f ]] || continue
		while read -r _sl local_addr _rem st _rest; do
			[[ $st == 0A && $local_addr == *"$hex" ]] && return 0
		done <"$f"
	done
	return 1
}

# wait_port PORT PID SECS: wait until PORT listens; fails if PID ends
# first or SECS pass.
wait_port() {
	local port=$1 pid=$2 end=$((SECONDS + $3))
	while ((SECONDS < end)); do
		port_listens "$port" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# cm_listens PORT: an rdma_cm id listens on PORT (iproute2's rdma tool
# lists the ids, as rping's "src-addr 198.51.100.1:PORT").
cm_listens() {
	local ids
	ids=$(rdma resource show cm_id 2>/dev/null)
	grep -qE "state LISTEN .*:$1( |$)" <<<"$ids"
}

# listening tcp|cm PORT PID: wait (30 s, scaled) until the server PID
# listens on PORT: its TCP port (wait_port), or an rdma_cm
# id (cm_listens); 1 if it ends or the time runs out first.
listening() {
	local end=$((SECONDS + $(scaled 30)))
	if [[ $1 == tcp ]]; then
		wait_port "$2" "$3" "$(scaled 30)"
		return
	fi
	until cm_listens "$2"; do
		((SECONDS <= end)) && kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
}

# wait_gone PID SECS: wait until PID has ended, at most SECS.
wait_gone() {
	local end=$((SECONDS + $2))
	while ((SECONDS < end)) && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
	done
}

# run_pair SRV_LOG CLI_LOG ARGS...: server, then client; sets rc_s, rc_c.
# Each side is bounded by $pair_timeout seconds (default 120), scaled.
# The array pair_client_env, if set, is put before the client's command
# (e.g. env VAR=VALUE).
run_pair() {
	local srv=$1 cli=$2 spid port t
	shift 2
	: "${addr:?pair-lib.sh: run_pair needs \$addr, the server address}"
	t=$(scaled "${pair_timeout:-120}")
	port=$(pair_port "$@")
	timeout "$t" "$@" >"$srv" 2>&1 &
	spid=$!
	for _ in 1 2 3; do
		if ! wait_port "$port" "$spid" "$(scaled 30)"; then
			echo "pair-lib: the server did not listen on port $port" >"$cli"
			rc_c=1
			break
		fi
		# shellcheck disable=SC2154 # the caller's, and optional
		timeout "$t" "${pair_client_env[@]}" "$@" "$addr" >"$cli" 2>&1
		rc_c=$?
		# Listening, yet refused: the server was not accepting yet.
		grep -q "Couldn't connect\|Connection refused" "$cli" || break
		sleep 0.2
	done
	# perftest gives up on noisy clocks (emulation); the server then waits.
	# A server that never listened, or whose client failed to connect,
	# would wait for its timeout: stopped at once.  After any other
	# failure of the client the server gets a few seconds to end by
	# itself, then is stopped: its peer is gone, and the pair has failed.
	if ((rc_c != 0)); then
		if ! perftest_gave_up "$cli" &&
			! grep -q "Couldn't connect\|Connection refused\|did not listen" "$cli"; then
			wait_gone "$spid" "$(scaled 10)"
		fi
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	# shellcheck disable=SC2034 # rc_s is the caller's result
	rc_s=$?
}

# perftest's result line (bandwidth and latency tests): bytes, iterations,
# then a figure.
# shellcheck disable=SC2034 # the sourcing script's
perftest_result='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+'

# perftest_gave_up LOG: perftest could not calibrate its clock (emulation):
# it says so, or it prints "inf" for its times.
perftest_gave_up() {
	grep -Eq "Correlation coefficient|Can't produce a report|[[:space:]]inf[[:space:]]" "$1"
}

# pair_tries NAME SRV_LOG CLI_LOG RESULT TRY [ARGS...]: the one retry rule
# of the pair runners (apps.sh, memcheck.sh, demo-pair.sh,
# package-takeover.sh, tests/guest/mlx5/check-perftest.sh,
# tests/bench/guest-bench.sh).  "TRY ARGS..." runs one try of pair NAME: it
# writes the server's output to SRV_LOG, the client's to CLI_LOG, and sets
# rc_s and rc_c.  A try that failed (a side exited non-zero, or the client
# printed no line matching the extended regex RESULT, unless RESULT is
# empty) is run again, three tries at most, only when it failed for
# perftest's clock calibration alone (pair_clock_only); a try that failed
# for any other reason is the last, and the caller judges it by rc_s, rc_c
# and the logs.  When a try is run again, every try's exit codes are
# printed, indented.
pair_tries() {
	local name=$1 srv=$2 cli=$3 result=$4 try
	shift 4
	for try in 1 2 3; do
		"$@"
		if ((try < 3)) && ! pair_passed "$cli" "$result" &&
			pair_clock_only "$srv" "$cli"; then
			echo "    ($name: try $try: server exit $rc_s, client exit $rc_c; perftest could not calibrate its clock, again)"
			continue
		fi
		((try == 1)) || echo "    ($name: try $try: server exit $rc_s, client exit $rc_c)"
		return
	done
}

# pair_passed CLI_LOG RESULT: both sides of the try exited 0, and the
# client printed a line matching RESULT (if not empty).
pair_passed() {
	((rc_s == 0 && rc_c == 0)) && { [[ -z $2 ]] || grep -Eq -- "$2" "$1"; }
}

# pair_clock_only SRV_LOG CLI_LOG: the try that set rc_s and rc_c showed
# perftest's clock-calibration failure (perftest_gave_up) on a side, and
# nothing else went wrong: each side exited 0, or 1 with the symptom in its
# own log, and a server stopped by its runner (exit 143, SIGTERM) had a
# client that gave up.
pair_clock_only() {
	local srv=$1 cli=$2 gs=0 gc=0
	perftest_gave_up "$srv" && gs=1
	perftest_gave_up "$cli" && gc=1
	((gs || gc)) || return 1
	((rc_c == 0 || (rc_c == 1 && gc))) || return 1
	((rc_s == 0 || (rc_s == 1 && gs) || (rc_s == 143 && gc)))
}

# pair_bad_data SRV_LOG CLI_LOG: the ibverbs pingpongs' -c found bad bytes
# on either side.  ibv_*_pingpong -c only prints "invalid data in page N"
# and still exits 0, so a pair that checks data must also test this.
# Prints the first such line; returns 0 if there is one.
pair_bad_data() {
	grep -m1 -h 'invalid data' "$1" "$2"
}

# result_verdict NAME SRV_LOG CLI_LOG REGEX [NOTE]: the verdict on a pair
# whose client prints a result line (perftest, rdma_cm programs): both
# sides exit 0 (rc_s, rc_c) and the client printed a line matching the
# extended REGEX.  PASS NAME with the last such line; FAIL NAME with the
# exit codes and NOTE, then the last 20 lines of each log, indented.
# Returns 1 on a FAIL.
result_verdict() {
	local name=$1 srv=$2 cli=$3 re=$4 note=${5:+ ($5)}
	if ((rc_s == 0 && rc_c == 0)) && grep -Eq "$re" "$cli"; then
		pass "$name" "$(grep -E "$re" "$cli" | tail -n 1 |
			sed 's/^ *//;s/  */ /g')"
		return 0
	fi
	fail "$name" "server exit $rc_s, client exit $rc_c$note"
	sed 's/^/  server: /' "$srv" | tail -n 20
	sed 's/^/  client: /' "$cli" | tail -n 20
	return 1
}

# pingpong_verdict NAME SRV_LOG CLI_LOG: the verdict on one ibverbs pingpong
# pair run by run_pair (rc_s, rc_c): both sides exit 0, both report their
# "iters in" line, and neither found bad data.  Prints PASS or FAIL NAME
# (on a FAIL both logs, indented); returns 1 on a FAIL.
pingpong_verdict() {
	local name=$1 srv=$2 cli=$3 why="" bad
	if ((rc_s != 0 || rc_c != 0)); then
		why="server exit $rc_s, client exit $rc_c"
	elif bad=$(pair_bad_data "$srv" "$cli"); then
		why="bad data: $bad"
	elif ! grep -q 'iters in' "$cli" || ! grep -q 'iters in' "$srv"; then
		why="no 'iters in' line from both sides"
	fi
	if [[ -z $why ]]; then
		pass "$name" "$(grep -m1 'iters in' "$cli")"
		return 0
	fi
	fail "$name" "$why"
	sed 's/^/  server: /' "$srv"
	sed 's/^/  client: /' "$cli"
	return 1
}

# pingpong_stamped NAME SRV_LOG CLI_LOG: both sides of an ibv_rc_pingpong
# -t pair saw the device's timer move between every two receive
# completions: their smallest delta of the completion timestamps is above
# 0 (a device that stamps no CQE gives 0, and the pingpong still exits 0).
# PASS or FAIL NAME; returns 1 on a FAIL.
pingpong_stamped() {
	local name=$1 log side min mins=
	for side in server client; do
		log=$2
		[[ $side == client ]] && log=$3
		min=$(sed -n 's/^Min receive completion clock cycles = //p' "$log")
		if [[ ! $min =~ ^[0-9]+$ ]] || ((min == 0)); then
			fail "$name" "$side: smallest receive completion delta '$min' clock cycles, not above 0"
			sed "s/^/  $side: /" "$log"
			return 1
		fi
		mins+=" $side $min"
	done
	pass "$name" "smallest receive completion deltas (cycles):$mins"
}

# xsrq_verdict NAME SRV_LOG CLI_LOG: an ibv_xsrq_pingpong pair run by
# run_pair: both sides exit 0 and print "success" (the program checks no
# data).  PASS or FAIL NAME (on a FAIL both logs); returns 1 on a FAIL.
xsrq_verdict() {
	if ((rc_s == 0 && rc_c == 0)) && grep -q success "$2" && grep -q success "$3"; then
		pass "$1" "both sides: success"
		return 0
	fi
	fail "$1" "server exit $rc_s, client exit $rc_c"
	sed 's/^/  server: /' "$2"
	sed 's/^/  client: /' "$3"
	return 1
}
