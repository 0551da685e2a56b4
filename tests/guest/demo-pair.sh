#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_send_bw and ib_write_lat over loopback on one device, through whatever
# provider RDMAV_DRIVERS names; prints the client's results.  When it names
# doorbell, both processes of each pair run with DOORBELL_DEBUG=1 and must
# each print doorbell's "DEVICE: serving the device" line (the proof, from
# the process that ran; printed once per pair), or the pair fails.
# Usage: demo-pair.sh [DEVICE [GID_INDEX]]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/pair-lib.sh"	# perftest_gave_up, wait_port
dev=${1:-$(db_ibdev)}
gid=${2:-${DOORBELL_VM_GID_INDEX:-1}}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}

# A result line: message size, iterations, then numbers (not inf).
result='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'

# demo_try SRV_LOG CLI_LOG ARGS...: one try of the pair; sets rc_s, rc_c.
# shellcheck disable=SC2317 # called by pair_tries
demo_try() {
	local srv=$1 cli=$2 spid t
	shift 2
	t=$(scaled 120)
	DOORBELL_DEBUG=1 timeout "$t" "$@" >"$srv" 2>"$srv.err" &
	spid=$!
	wait_port "$(pair_port "$@")" "$spid" "$(scaled 30)" || true
	rc_c=0
	DOORBELL_DEBUG=1 timeout "$t" "$@" "$addr" >"$cli" 2>"$cli.err" || rc_c=$?
	((rc_c == 0)) || kill "$spid" 2>/dev/null || true
	rc_s=0
	wait "$spid" || rc_s=$?
	# Each side's stderr after its stdout: doorbell's lines, written
	# while perftest prints its result, would split that line.
	cat "$srv.err" >>"$srv"
	cat "$cli.err" >>"$cli"
	rm -f "$srv.err" "$cli.err"
}

# show_pair ARGS...: server, then client; prints the client's output.
# Under emulation perftest sometimes cannot calibrate its clock and prints
# zeros ("Correlation coefficient r^2 < 0.9"): the pair runs again, up to
# three times, as pair-lib.sh's pair_tries allows.
show_pair() {
	local srv cli rc=0 side log
	srv=$(mktemp)
	cli=$(mktemp)
	pair_tries "$1" "$srv" "$cli" "$result" demo_try "$srv" "$cli" "$@"
	if ((rc_c != 0 || rc_s != 0)); then
		cat "$cli"
		sed 's/^/server| /' "$srv"
		echo "($1: exit codes: server $rc_s, client $rc_c)"
		rm -f "$srv" "$cli"
		return 1
	fi
	grep -v '^doorbell: ' "$cli"
	if [[ ${RDMAV_DRIVERS:-} == *libdoorbell* ]]; then
		for side in server client; do
			log=$srv
			[[ $side == client ]] && log=$cli
			grep -q "^doorbell: $dev: serving the device" "$log" && continue
			echo "$1: the $side printed no 'doorbell: $dev: serving the device' line: not served by doorbell"
			rc=1
		done
		((rc)) || echo "  ($(grep -m 1 "^doorbell: $dev: serving the device" "$cli"), server and client)"
	fi
	rm -f "$srv" "$cli"
	return "$rc"
}

echo "== ib_send_bw ($dev, GID index $gid)"
show_pair ib_send_bw -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_send_bw on $dev failed (its output is above)"
echo "== ib_write_lat ($dev, GID index $gid)"
show_pair ib_write_lat -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_write_lat on $dev failed (its output is above)"
