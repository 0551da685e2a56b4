#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Device removal under traffic, inside the Soft-RoCE guest.  Two clients
# run on the guest's device (db_ibdev, scripts/lib.sh: rxe0) when `rdma
# link delete` removes it:
#   - doorbell-removal (tests/guest/itest/removal.c): RC send/receive with a
#     completion channel, every message and completion checked, watching the
#     async fd and the device list; it prints its own PASS/FAIL/SKIP lines;
#   - an ib_send_bw pair (-D 10), a second, independent client.
# Then this script checks that every process ended by itself in bounded
# time (no crash, no hang), that the unregistration completed once the
# last context closed, and re-adds the device and waits until it is ACTIVE with
# the same GID and doorbell runs traffic on it again.
#
# What Linux 6.1 rxe does (docs/reliability.md, "Device removal"):
# rxe has no disassociate_ucontext, so ib_unregister_device waits in
# ib_uverbs_remove_one until every process has closed its context; no
# IBV_EVENT_DEVICE_FATAL (or any other event) is sent, the QPs keep
# working, and only the device list (netlink) shows the removal.
#
# Usage (cwd: the checkout, inside tests/vm/run.sh; run it alone or last:
# it deletes the device, and re-adds it at the end):
#   tests/vm/run.sh --env RDMAV_DRIVERS=$PWD/build/lib/libdoorbell -- \
#       tests/guest/device-removal.sh [ROUNDS]
# Without RDMAV_DRIVERS (and with --keep-stock) the stock provider serves.
# DOORBELL_BUILD_DIR selects the build tree (default build/).  Prints one
# PASS/FAIL/SKIP line per check and per round; exit status 1 if any FAIL.
set -u

netdev=${DOORBELL_VM_NETDEV:-d0}
gid=${DOORBELL_VM_GID_INDEX:-1}
addr=${DOORBELL_VM_IPV4:-10.77.0.1}
rounds=${1:-1}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip; db_fails counts the FAILs
dev=$(db_ibdev)
kind=$(db_link_type)
build=${DOORBELL_BUILD_DIR:-$top/build}
app=$build/tests/guest/itest/doorbell-removal
itest=$build/tests/guest/itest/doorbell-itest
logs=$(mktemp -d)
bound=90		# seconds any one process may take
bw=(-d "$dev" -x "$gid" -F -D 10)
nfail=0
export DOORBELL_DEBUG=1
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$top/tests/guest/lib/pair-lib.sh"	# wait_port, pair_port, scaled
served='doorbell: .*serving the device with the rxe backend'

say() { echo "$*"; }
now() { echo "$EPOCHREALTIME"; }
secs() { printf '%.1f' "$(echo "$2 - $1" | bc)"; }
port=/sys/class/infiniband/$dev/ports/1

# wait_active SECS: the device ACTIVE with the IPv4-mapped GID at index $gid.
wait_active() {
	local t want g a b c d
	IFS=. read -r a b c d <<<"$addr"
	printf -v want '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$a" "$b" "$c" "$d"
	for ((t = 0; t < $1 * 10; t++)); do
		if [[ $(cat "$port/state" 2>/dev/null) == *ACTIVE* ]] &&
			g=$(cat "$port/gids/$gid" 2>/dev/null) &&
			[[ $g == "$want" ]]; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# Whatever happens, leave the device behind for whoever runs next.
restore() {
	if ! rdma link show "$dev/1" >/dev/null 2>&1; then
		rdma link add "$dev" type "$kind" netdev "$netdev" 2>/dev/null
		wait_active 30
	fi
	rm -rf "$logs"
}
trap restore EXIT

[[ -x $app && -x $itest ]] || { fail device_removal_setup "no $app or $itest (build first)"; exit 1; }
wait_active 30 || { fail device_removal_setup "$dev not ACTIVE"; exit 1; }

# alive PID: still running?
alive() { kill -0 "$1" 2>/dev/null; }
# status_of PID: its exit status once it ended.
status_of() { wait "$1"; echo $?; }

round() {
	local r=$1 L t0 tdel tapp tcli tsrv tlast tend
	local app_pid srv_pid cli_pid del_pid rc_app rc_srv rc_cli rc_del
	local waited=no bw_running=no try end
	L=$logs/$r
	mkdir -p "$L"
	say "# round $r"
	t0=$(now)
	# The app first: it runs until it sees the removal (at most 90 s).
	timeout $((bound + 60)) "$app" -d "$dev" -g "$gid" -t 90 -w 3000 \
		>"$L/app" 2>"$L/app.err" &
	app_pid=$!
	# ib_send_bw, line-buffered so that its header shows when it starts
	# measuring; the client retries while the server is not listening yet.
	timeout $bound stdbuf -oL ib_send_bw "${bw[@]}" >"$L/srv" 2>&1 &
	srv_pid=$!
	wait_port "$(pair_port "${bw[@]}")" "$srv_pid" "$(scaled 30)"
	for ((try = 1; try <= 10; try++)); do
		((try == 1)) || sleep 1
		timeout $bound stdbuf -oL ib_send_bw "${bw[@]}" "$addr" >"$L/cli" 2>&1 &
		cli_pid=$!
		end=$((SECONDS + 5))
		while alive "$cli_pid" && ! grep -q -- '---' "$L/cli" &&
			((SECONDS < end)); do
			sleep 0.1
		done
		if ! alive "$cli_pid" && grep -q "Couldn't connect" "$L/cli"; then
			wait "$cli_pid"
			continue
		fi
		break
	done
	# Both clients running: the app says READY, ib_send_bw its header.
	end=$((SECONDS + 40))
	while ((SECONDS < end)); do
		grep -q '^READY' "$L/app" && grep -q '#bytes' "$L/cli" && break
		if ! alive "$app_pid" || ! alive "$cli_pid"; then
			break
		fi
		sleep 0.1
	done
	if ! grep -q '^READY' "$L/app"; then
		say "    (the app never said READY)"
	fi
	if ! grep -q '#bytes' "$L/cli"; then
		say "    (ib_send_bw never started measuring; client log:)"
		sed 's/^/    cli| /' "$L/cli" | tail -5
	fi
	alive "$cli_pid" && alive "$srv_pid" && bw_running=yes
	# A server whose client never came would hold the device until killed.
	[[ $bw_running == yes ]] || kill "$srv_pid" 2>/dev/null
	tdel=$(now)
	timeout $bound rdma link delete "$dev" >"$L/del" 2>&1 &
	del_pid=$!
	tapp='' tcli='' tsrv='' tend=''
	# Watch every process end (each is bounded by timeout $bound).
	while :; do
		[[ -z $tapp ]] && ! alive "$app_pid" && tapp=$(now)
		[[ -z $tcli ]] && ! alive "$cli_pid" && tcli=$(now)
		[[ -z $tsrv ]] && ! alive "$srv_pid" && tsrv=$(now)
		[[ -z $tend ]] && ! alive "$del_pid" && tend=$(now)
		[[ -n $tapp && -n $tcli && -n $tsrv && -n $tend ]] && break
		sleep 0.05
	done
	rc_app=$(status_of "$app_pid")
	rc_cli=$(status_of "$cli_pid")
	rc_srv=$(status_of "$srv_pid")
	rc_del=$(status_of "$del_pid")

	grep -E '^(removal:|PASS|FAIL|SKIP)' "$L/app" | while read -r line; do
		say "$line"
	done
	nfail=$((nfail + $(grep -c '^FAIL' "$L/app")))
	if grep -q "$served" "$L/app.err"; then
		say "    (the app was served by doorbell)"
	else
		say "    (the app was served by another provider)"
	fi
	if ((rc_app == 124 || rc_app > 128)); then
		fail device_removal_app_exits_without_crash_or_hang \
			"exit status $rc_app (124: killed after $((bound + 60))s)"
		sed 's/^/    app| /' "$L/app.err" | tail -10
	elif ((rc_app > 1)); then
		fail device_removal_app_exits_without_crash_or_hang \
			"exit status $rc_app (setup error)"
		sed 's/^/    app| /' "$L/app.err" | tail -10
	else
		pass device_removal_app_exits_without_crash_or_hang
	fi

	if ((rc_cli == 124 || rc_srv == 124 || rc_cli > 128 || rc_srv > 128)); then
		fail device_removal_ib_send_bw_exits_without_hang \
			"client status $rc_cli, server $rc_srv (124: killed after ${bound}s)"
	elif [[ $bw_running != yes ]]; then
		skip device_removal_ib_send_bw_exits_without_hang \
			"ib_send_bw was not running when the removal started (client status $rc_cli, server $rc_srv)"
		sed 's/^/    cli| /' "$L/cli" | tail -5
	else
		pass device_removal_ib_send_bw_exits_without_hang
		say "    (ib_send_bw exit status: client $rc_cli, server $rc_srv)"
	fi
	if ! grep -q "$served" "$L/cli" || ! grep -q "$served" "$L/srv"; then
		say "    (ib_send_bw was not served by doorbell on both sides)"
	fi

	tlast=$tapp
	for x in "$tcli" "$tsrv"; do
		(($(echo "$x > $tlast" | bc))) && tlast=$x
	done
	# Polled every 50 ms: "after" means it did not return before them.
	(($(echo "$tend > $tlast - 0.05" | bc))) && waited=yes
	say "removal: rdma link delete returned $rc_del after $(secs "$tdel" "$tend") s," \
		"$(secs "$tlast" "$tend") s after the last client ended" \
		"(it waited for every client to close: $waited)"
	if ((rc_del != 0)); then
		fail device_removal_unregister_completes_after_last_close \
			"rdma link delete: status $rc_del: $(head -c 200 "$L/del")"
	elif (($(echo "$tend - $tlast > 10" | bc))); then
		fail device_removal_unregister_completes_after_last_close \
			"rdma link delete returned $(secs "$tlast" "$tend") s after the last client ended"
	elif rdma link show "$dev/1" >/dev/null 2>&1 || [[ -e /sys/class/infiniband/$dev ]]; then
		fail device_removal_unregister_completes_after_last_close \
			"$dev still exists after rdma link delete"
	else
		pass device_removal_unregister_completes_after_last_close
	fi

	# Back again: the link, the port, the GID, and traffic through it.
	if ! rdma link add "$dev" type "$kind" netdev "$netdev" >"$L/add" 2>&1; then
		fail device_removal_relinked_device_serves_traffic \
			"rdma link add: $(head -c 200 "$L/add")"
	elif ! wait_active 30; then
		fail device_removal_relinked_device_serves_traffic \
			"$dev not ACTIVE with its GID at index $gid after 30 s"
	elif ! timeout $bound "$itest" -d "$dev" -g "$gid" \
		-k rc_post_list_of_10_sends_completes_in_order >"$L/itest" 2>&1; then
		fail device_removal_relinked_device_serves_traffic \
			"$(grep -m1 -E '^FAIL' "$L/itest" || tail -1 "$L/itest")"
	else
		pass device_removal_relinked_device_serves_traffic
	fi
	say "    (round $r: $(secs "$t0" "$(now)") s)"
}

for ((r = 1; r <= rounds; r++)); do
	round "$r"
done
nfail=$((nfail + db_fails))
say "device-removal: $rounds round(s), $nfail failed check(s)"
((nfail == 0))
