#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Runs in each guest of tests/twohost/run-all.sh --connectx, after the
# scenarios (tests/twohost/guest.sh runs it through with-provider.sh, which
# proves the provider in every process it starts): the programs users try
# first on a ConnectX, across the two hosts over RoCE v2 on the software
# ConnectX's wire, host A serving and host B connecting to it:
#   - ibv_rc_pingpong and ibv_ud_pingpong with -g (the RoCE v2 GID index)
#     and -c (each side checks the bytes it received);
#   - perftest's ib_send_bw and ib_write_lat with -x, and ib_send_bw over
#     rdma_cm (-R: the connection through QP1's CM MADs).
# Each host judges its own side: it exits 0, finds no bad data and prints
# its "iters in" line (a pingpong), or its result line (perftest's
# client).  run-all.sh passes a pair when both hosts pass it.
# The hosts meet through files in the shared DOORBELL_VM_CX_DIR: A writes
# pair.NAME.TRY ("listening", or "failed") once its server listens; each
# side then writes its outcome, out.a|b.NAME.TRY: pass, gave_up (perftest
# could not calibrate its clock, pair-lib.sh's perftest_gave_up) or fail,
# and reads the other's.  Both then take the same decision: the pair runs
# again, three tries at most, when it failed for the clock alone, as
# pair-lib.sh's pair_tries does on one host.
#
# Usage: pairs.sh          (in a run2.sh --cx guest)
#        pairs.sh --names  (anywhere: the tests' names, one per line)
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../guest/lib/pair-lib.sh"

names=(rc_pingpong ud_pingpong ib_send_bw ib_write_lat ib_send_bw_cm)
if [[ ${1:-} == --names ]]; then
	printf 'twohost_pair_%s\n' "${names[@]}"
	exit 0
fi
role=${DOORBELL_VM_HOST:?not in a run2.sh guest}
peer=${DOORBELL_VM_PEER_IPV4:?}
cx=${DOORBELL_VM_CX_DIR:?not in a run2.sh --cx guest}
gid=${DOORBELL_VM_GID_INDEX:?}
dev=$(db_ibdev)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
t=$(scaled 90)
port=18900
failed=0

# tell FILE WORD: WORD into the shared FILE, whole or not at all.
tell() {
	echo "$2" >"$cx/.$1" && mv "$cx/.$1" "$cx/$1"
}

# meet FILE SECS: the other host's word in the shared FILE, once it is
# there; "none" after SECS.
meet() {
	local end=$((SECONDS + $2))
	until [[ -s $cx/$1 ]]; do
		((SECONDS < end)) || { echo none; return; }
		sleep 0.2
	done
	cat "$cx/$1"
}

# outcome RC WANT [OTHER]: this side's outcome from its exit status RC and
# $log: pass when RC is 0, no bad data was found and the extended regex
# WANT (if not empty) matches a line; gave_up for perftest's clock, also
# for a server stopped (124, 143) while its client (OTHER) gave up.
outcome() {
	local rc=$1 want=$2 other=${3:-}
	if ((rc == 0)) && ! pair_bad_data "$log" /dev/null >/dev/null &&
		{ [[ -z $want ]] || grep -Eq -- "$want" "$log"; }; then
		echo pass
	elif perftest_gave_up "$log" && ((rc <= 1)); then
		echo gave_up
	elif [[ $other == gave_up ]] && ((rc == 124 || rc == 143)); then
		echo gave_up
	else
		echo fail
	fi
}

# serve KEY KIND WANT CMD...: host A's side of one try; sets mine, other.
serve() {
	local key=$1 kind=$2 want=$3 spid rc word=listening
	shift 3
	timeout -k 5 "$t" "$@" >"$log" 2>&1 &
	spid=$!
	if ! listening "$kind" "$port" "$spid"; then
		word=failed
		echo "pairs.sh: the server did not listen on port $port" >>"$log"
	fi
	tell "pair.$key" "$word"
	other=$(meet "out.b.$key" $((t + $(scaled 30))))
	# Its client has ended: a server still waiting has lost its peer.
	wait_gone "$spid" "$(scaled 10)"
	kill "$spid" 2>/dev/null
	wait "$spid"
	rc=$?
	mine=$(outcome "$rc" "$want" "$other")
	tell "out.a.$key" "$mine"
}

# connect KEY WANT CMD...: host B's side of one try; sets mine, other.
connect() {
	local key=$1 want=$2 rc
	shift 2
	if [[ $(meet "pair.$key" "$(scaled 60)") == listening ]]; then
		timeout -k 5 "$t" "$@" "$peer" >"$log" 2>&1
		rc=$?
	else
		echo "pairs.sh: host A's server did not listen on port $port" >"$log"
		rc=1
	fi
	mine=$(outcome "$rc" "$want")
	tell "out.b.$key" "$mine"
	other=$(meet "out.a.$key" "$(scaled 60)")
}

# pair NAME KIND WANT_A WANT_B CMD...: one pair, CMD on both hosts on a
# port of its own (the client's with A's address appended); KIND tcp or
# cm (pair-lib.sh's listening); WANT_A and WANT_B the regexes of outcome.
pair() {
	local name=$1 kind=$2 want=$3 try mine other log
	[[ $role == b ]] && want=$4
	shift 4
	port=$((port + 1))
	for try in 1 2 3; do
		log=$dir/$name.$try
		if [[ $role == a ]]; then
			serve "$name.$try" "$kind" "$want" "$@" -p "$port"
		else
			connect "$name.$try" "$want" "$@" -p "$port"
		fi
		# Again only when both ended, and a side gave up for the clock.
		case "$mine $other" in
		"gave_up pass" | "pass gave_up" | "gave_up gave_up") ((try < 3)) || break ;;
		*) break ;;
		esac
		echo "    ($name: try $try: host $role $mine, the other $other; perftest could not calibrate its clock, again)"
	done
	if [[ $mine == pass ]]; then
		[[ -z $want ]] && { pass "twohost_pair_$name" "exit 0"; return; }
		pass "twohost_pair_$name" "$(grep -Eh -- "$want" "$log" | tail -n 1 | sed 's/^ *//;s/  */ /g')"
		return
	fi
	fail "twohost_pair_$name" "host $role: $mine (the other host: $other)"
	sed "s/^/  $role: /" "$log" | tail -n 20
	failed=1
}

iters='iters in'
echo "host $role: the pairs on $dev, GID index $gid, port $((port + 1)) on"
pair rc_pingpong tcp "$iters" "$iters" ibv_rc_pingpong -d "$dev" -g "$gid" -n 100 -c
# UD: one packet per message, at most the RoCE path MTU (1024 here).
pair ud_pingpong tcp "$iters" "$iters" ibv_ud_pingpong -d "$dev" -g "$gid" -n 100 -s 1024 -c
# Messages of 8 KiB: eight packets of the 1024-byte path MTU each.
pair ib_send_bw tcp '' "$perftest_result" ib_send_bw -d "$dev" -x "$gid" -s 8192 -n 50 -F
pair ib_write_lat tcp '' "$perftest_result" ib_write_lat -d "$dev" -x "$gid" -s 64 -n 100 -F
pair ib_send_bw_cm cm '' "$perftest_result" ib_send_bw -R -d "$dev" -s 8192 -n 50 -F
exit "$failed"
