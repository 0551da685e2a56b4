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
# shellcheck source=tests/guest/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/pair-lib.sh"	# perftest_gave_up, wait_port
dev=${1:-${DOORBELL_VM_IBDEV:-rxe0}}
gid=${2:-${DOORBELL_VM_GID_INDEX:-1}}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}

# show_pair ARGS...: server, then client; prints the client's output.
# Under emulation perftest sometimes cannot calibrate its clock and prints
# zeros ("Correlation coefficient r^2 < 0.9"): run the pair again, up to
# three times.
show_pair() {
	local out srv rc t err=() side
	out=$(mktemp)
	err=("$(mktemp)" "$(mktemp)")	# the server's stderr, the client's
	t=$(scaled 120)
	for try in 1 2 3; do
		DOORBELL_DEBUG=1 timeout "$t" "$@" >/dev/null 2>"${err[0]}" &
		srv=$!
		wait_port "$(pair_port "$@")" "$srv" "$(scaled 30)" || true
		rc=0
		DOORBELL_DEBUG=1 timeout "$t" "$@" "$addr" >"$out" 2>"${err[1]}" || rc=$?
		if { perftest_gave_up "$out" || perftest_gave_up "${err[1]}"; } && ((try < 3)); then
			kill "$srv" 2>/dev/null || true
			wait "$srv" 2>/dev/null || true
			echo "($1: perftest could not calibrate its clock; run $try of 3, again)"
			continue
		fi
		break
	done
	if ((rc != 0)); then
		cat "$out" "${err[1]}"
		rm -f "$out" "${err[@]}"
		wait "$srv" || true
		return 1
	fi
	wait "$srv"
	cat "$out"
	rc=0
	if [[ ${RDMAV_DRIVERS:-} == *libdoorbell* ]]; then
		for side in 0 1; do
			grep -q "^doorbell: $dev: serving the device" "${err[side]}" && continue
			echo "$1: the $( ((side)) && echo client || echo server) printed no 'doorbell: $dev: serving the device' line: not served by doorbell"
			rc=1
		done
		((rc)) || echo "  ($(grep -m 1 "^doorbell: $dev: serving the device" "${err[1]}"), server and client)"
	fi
	rm -f "$out" "${err[@]}"
	return "$rc"
}

echo "== ib_send_bw ($dev, GID index $gid)"
show_pair ib_send_bw -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_send_bw on $dev failed (its output is above)"
echo "== ib_write_lat ($dev, GID index $gid)"
show_pair ib_write_lat -d "$dev" -x "$gid" -F -n 2000 ||
	die "ib_write_lat on $dev failed (its output is above)"
