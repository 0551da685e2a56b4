#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Harness smoke test, run inside the VM with the STOCK rxe provider:
#   tests/vm/run.sh --keep-stock -- tests/vm/smoke.sh
# Checks ibv_devices, ibv_devinfo, an ibv_rc_pingpong pair, an ib_send_bw
# pair, and (rdma_cm) an rping pair and an ib_send_bw -R pair over the
# guest's device (db_ibdev), using the GID index run.sh found
# (DOORBELL_VM_GID_INDEX). Every command is bounded by timeout (SMOKE_TIMEOUT, default 120 s); SMOKE_VERBOSE=1 shows all output.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
ip=${DOORBELL_VM_IPV4:-10.77.0.1}
T=${SMOKE_TIMEOUT:-120}
logs=$(mktemp -d)

# Wait until the server listens on port $1, on TCP (pingpong/perftest
# out-of-band exchange) or as an rdma_cm id (rping, perftest -R); give up
# after $2 seconds.
wait_listen() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$1\b" && return 0
		sleep 0.1
	done
	return 1
}

# pair NAME PORT SERVER-CMD... -- CLIENT-CMD...: run a server in the
# background and a client against it, both bounded by timeout; both must exit
# 0. "@PORT@" in the commands stands for the TCP/rdma_cm port. perftest gives
# up ("Can't produce a report") when its clock calibration is too noisy, which
# happens under TCG on a busy host: such runs are retried on a fresh port.
pair() {
	local name=$1 port=$2 try src crc t0=$SECONDS
	shift 2
	step "$name"
	for try in 1 2 3; do
		pair_once "$name" "$port" "$@"
		((src || crc)) || break
		if ((try == 3)) || ! grep -q "Can't produce a report" "$logs/$name.client"; then
			break
		fi
		echo "  perftest clock calibration failed (TCG timing noise), retry $try/2"
		port=$((port + 100))
	done
	if ((src || crc)) || [[ ${SMOKE_VERBOSE:-0} == 1 ]]; then
		sed 's/^/  server| /' "$logs/$name.server"
		sed 's/^/  client| /' "$logs/$name.client"
	else
		# One line of results (pingpong/perftest summary) from the client.
		grep -E 'iters in|^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+|ping data: rdma-ping-[0-9]+:' \
			"$logs/$name.client" | tail -n 1 | sed 's/^ */  /' || true
	fi
	if ((src == 0 && crc == 0)); then
		pass "$name" "$((SECONDS - t0)) s"
	else
		fail "$name" "server rc $src, client rc $crc"
	fi
}

# One server/client run; sets src and crc (the caller's locals).
pair_once() {
	local name=$1 port=$2 srv=() cli=() a spid i
	shift 2
	while [[ $1 != -- ]]; do srv+=("${1//@PORT@/$port}"); shift; done
	shift
	for a in "$@"; do cli+=("${a//@PORT@/$port}"); done
	src=0 crc=0
	timeout "$T" "${srv[@]}" >"$logs/$name.server" 2>&1 &
	spid=$!
	if wait_listen "$port" 30; then
		timeout "$T" "${cli[@]}" >"$logs/$name.client" 2>&1 || crc=$?
	else
		echo "server did not listen on port $port" >"$logs/$name.client"
		crc=1
	fi
	# A server whose client failed may wait for it forever: 10 s grace.
	if ((crc)); then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$spid" 2>/dev/null || true
	fi
	wait "$spid" || src=$?
}

echo "kernel $(uname -r), device $dev, gid index $gid ($ip)"

step ibv_devices
if timeout 30 ibv_devices >"$logs/devices" && grep -qw "$dev" "$logs/devices"; then
	pass ibv_devices
else
	fail ibv_devices
fi

step "ibv_devinfo -d $dev -v"
if timeout 30 ibv_devinfo -d "$dev" -v >"$logs/devinfo"; then
	grep -E 'state|active_mtu|GID\[' "$logs/devinfo" | sed 's/^[[:space:]]*/  /'
	if grep -q 'PORT_ACTIVE' "$logs/devinfo" && grep -q "GID\[ *$gid\]:.*::ffff:$ip" "$logs/devinfo"; then
		pass ibv_devinfo
	else
		fail ibv_devinfo "port not ACTIVE or no GID[$gid] ::ffff:$ip"
	fi
else
	fail ibv_devinfo
fi

pair ibv_rc_pingpong 18515 \
	ibv_rc_pingpong -d "$dev" -g "$gid" -p @PORT@ -- \
	ibv_rc_pingpong -d "$dev" -g "$gid" -p @PORT@ "$ip"

pair ib_send_bw 18516 \
	ib_send_bw -d "$dev" -x "$gid" -p @PORT@ -- \
	ib_send_bw -d "$dev" -x "$gid" -p @PORT@ "$ip"

# librdmacm users: rdma_cm/rdma_ucm must work too.
pair rping 18517 \
	rping -s -a "$ip" -p @PORT@ -C 10 -- \
	rping -c -a "$ip" -p @PORT@ -C 10 -v

pair "ib_send_bw-R" 18518 \
	ib_send_bw -d "$dev" -R -p @PORT@ -- \
	ib_send_bw -d "$dev" -R -p @PORT@ "$ip"

rm -rf "$logs"
if ((db_failed)); then
	echo "smoke: FAILED"
	exit 1
fi
echo "smoke: all passed"
