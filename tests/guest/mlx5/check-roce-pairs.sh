#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest of the Ethernet pair (scripts/cx.sh --pair, after
# check-eth-wire.sh's set-up; issue #32 steps 3 to 5): RoCE v2 between
# the two functions, as users run it on a ConnectX: the server on DEV_A
# with GID index GID_A in this network namespace, the client on DEV_B
# with GID_B in namespace NS (its address ADDR_B), reaching the server's
# TCP port at ADDR over the wire for the exchange of QPNs and GIDs.  Every
# packet of the data crosses the wire as a RoCE v2 frame
# (sim/mlx5/pci/cx_roce.c).
#   - the ibverbs-utils pingpongs (rc, rc with events, srq, uc, ud) with
#     -g, each side checking the bytes it received (-c, pingpong_verdict);
#     and rc with both sides on DEV_A (the device's own loopback);
#   - perftest's RC pairs with -x (send, write, read, atomic bandwidth;
#     write latency), and UC send: both sides exit 0 and the client
#     prints its result line;
#   - rdma_cm (the CM's MADs on QP1, addresses resolved by the kernel):
#     rping -v, udaddy, ucmatose, rdma_server/rdma_client, perftest's
#     ib_send_bw and ib_write_lat with -R; both exit 0 and the client
#     prints its line of success;
#   - the other programs (step 5), where the guest has them: fio's rdma
#     engine (the client's RDMA WRITE and RDMA READ of the server's
#     buffers over rdma_cm; fio checks no bytes there, so the
#     pass is both exiting 0 with the client's io= total), and libfabric's
#     fi_pingpong over its verbs provider, a connected (msg) endpoint and
#     a reliable datagram one (rdm: ofi_rxm over verbs, the path Open MPI
#     over OFI takes), each with -c (the receiver checks every byte).
# Run through tests/guest/mlx5/with-provider.sh, which proves who served
# both devices.  Prints PASS/FAIL per pair; exit 1 if any failed.
#
# Usage: check-roce-pairs.sh NS DEV_A GID_A DEV_B GID_B ADDR ADDR_B
set -uo pipefail
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair-lib.sh"
ns=$1 dev_a=$2 gid_a=$3 dev_b=$4 gid_b=$5 addr=$6 addr_b=$7
dir=$(mktemp -d)
port=18600
failed=0
result=$perftest_result

# NAME tcp|cm PORT -- SERVER... -- CLIENT...: one pair, the server here,
# the client in $ns once the server listens on PORT (listening); sets
# rc_s and rc_c.
two_sides() {
	local name=$1 kind=$2 lport=$3 srv=() cli=() spid t
	shift 4
	while (($#)) && [[ $1 != -- ]]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	t=$(scaled 90)
	timeout -k 5 "$t" "${srv[@]}" >"$dir/$name.srv" 2>&1 &
	spid=$!
	if listening "$kind" "$lport" "$spid"; then
		timeout -k 5 "$t" ip netns exec "$ns" "${cli[@]}" >"$dir/$name.cli" 2>&1
		rc_c=$?
	else
		echo "the server did not listen on port $lport" >"$dir/$name.cli"
		rc_c=1
	fi
	wait_gone "$spid" "$(scaled 10)"
	kill "$spid" 2>/dev/null
	wait "$spid"
	rc_s=$?
}

# NAME GIDFLAG PROG [ARGS...]: one try of a pair with the devices and GID
# indexes (GIDFLAG: -g or -x), the server on port+1.
# shellcheck disable=SC2317 # called by pair_tries
roce_once() {
	local name=$1 g=$2 prog=$3
	shift 3
	port=$((port + 1))
	two_sides "$name" tcp "$port" -- \
		"$prog" -d "$dev_a" "$g" "$gid_a" -p "$port" "$@" -- \
		"$prog" -d "$dev_b" "$g" "$gid_b" -p "$port" "$@" "$addr"
}

# NAME PROG [ARGS...]: an ibverbs pingpong, 100 iterations.
pingpong() {
	local name=$1
	shift
	roce_once "$name" -g "$@" -n 100
	pingpong_verdict "cx_roce_$name" "$dir/$name.srv" "$dir/$name.cli" ||
		failed=1
}

# NAME PROG [ARGS...]: a perftest pair (perftest_gave_up: retried).
perftest() {
	local name=$1
	shift
	pair_tries "$name" "$dir/$name.srv" "$dir/$name.cli" "$result" \
		roce_once "$name" -x "$@" -F
	result_verdict "cx_roce_perftest_$name" "$dir/$name.srv" \
		"$dir/$name.cli" "$result" "$*" || failed=1
}

# NAME CHECK PORT -- SERVER... -- CLIENT...: an rdma_cm pair, the client
# started once the server's id listens on PORT; passes when both exit 0
# and the client's output matches the regex CHECK.
cm_pair() {
	local name=$1 want=$2
	shift 2
	two_sides "$name" cm "$@"
	result_verdict "cx_roce_cm_$name" "$dir/$name.srv" "$dir/$name.cli" \
		"$want" || failed=1
}

# NAME PROG [ARGS...]: a pingpong with both sides on DEV_A (the client
# here too, to localhost): the device loops the packets back itself.
loopback() {
	local name=$1 prog=$2
	shift 2
	port=$((port + 1))
	addr=localhost run_pair "$dir/$name.srv" "$dir/$name.cli" \
		"$prog" -d "$dev_a" -g "$gid_a" -p "$port" -n 100 "$@"
	pingpong_verdict "cx_roce_$name" "$dir/$name.srv" "$dir/$name.cli" ||
		failed=1
}

pingpong rc_pingpong ibv_rc_pingpong -c
pingpong rc_pingpong_events ibv_rc_pingpong -e -c
pingpong srq_pingpong ibv_srq_pingpong -c
pingpong uc_pingpong ibv_uc_pingpong -c
# UD: one packet per message, at most the RoCE path MTU (1024 here).
pingpong ud_pingpong ibv_ud_pingpong -s 1024 -c
loopback rc_pingpong_loopback ibv_rc_pingpong -c
# Messages of 8 KiB: eight packets of the 1024-byte path MTU each.
perftest ib_send_bw ib_send_bw -s 8192 -n 50
perftest ib_write_bw ib_write_bw -s 8192 -n 50
perftest ib_read_bw ib_read_bw -s 8192 -n 50
perftest ib_atomic_bw ib_atomic_bw -n 50
perftest ib_write_lat ib_write_lat -s 64 -n 100
perftest ib_send_bw_uc ib_send_bw -c UC -s 8192 -n 50
# rdma_cm (step 4): connections made through QP1's CM MADs over RoCE.
cm_pair rping 'ping data' 18700 -- rping -s -a "$addr" -p 18700 -C 10 -- \
	rping -c -a "$addr" -p 18700 -C 10 -v
# udaddy's -p is the port space: its own port, 7174.
cm_pair udaddy 'data transfers complete' 7174 -- udaddy -- udaddy -s "$addr"
cm_pair ucmatose 'data transfers complete' 18702 -- ucmatose -p 18702 -- \
	ucmatose -s "$addr" -p 18702
cm_pair rdma_client 'rdma_client: end 0' 18703 -- rdma_server -p 18703 -- \
	rdma_client -s "$addr" -p 18703
# perftest over rdma_cm (-R): no TCP exchange, no GID index given.
cm_pair ib_send_bw "$result" 18704 -- \
	ib_send_bw -R -d "$dev_a" -p 18704 -s 8192 -n 50 -F -- \
	ib_send_bw -R -d "$dev_b" -p 18704 -s 8192 -n 50 -F "$addr"
cm_pair ib_write_lat "$result" 18705 -- \
	ib_write_lat -R -d "$dev_a" -p 18705 -s 64 -n 100 -F -- \
	ib_write_lat -R -d "$dev_b" -p 18705 -s 64 -n 100 -F "$addr"
# Step 5: fio's rdma engine (the server is the reading job; the client's
# verb is what crosses the wire), 4 MiB in 64 KiB blocks.  Not its SEND
# verb: fio connects with rnr_retry_count 0, so a client that sends before
# the server has reposted a receive fails at the first RNR NAK, as it
# would on a ConnectX, and the server waits for the rest (the likely
# cause of the one hang in three runs under emulation).
fio_job=(--ioengine=rdma --bs=64k --size=4m --iodepth=8)
# VERB PORT: one fio pair, the server's rdma_cm id on PORT.
fio_pair() {
	local verb=$1 p=$2
	cm_pair "fio_$verb" 'io=4096KiB' "$p" -- \
		fio --name=server "${fio_job[@]}" --port="$p" --rw=read -- \
		fio --name=client "${fio_job[@]}" --port="$p" --rw=write \
		--hostname="$addr" --verb="$verb"
}
# libfabric's fi_pingpong, its control socket on -B/-P; -d names each
# side's device (the verbs provider's domain) and -s its address (the
# client's own, in $ns: without it the client's fi_getinfo fails, the
# verbs provider's rdma_resolve_addr finding the network unreachable);
# 100 messages of 4 KiB.  rxm sizes its verbs CQ by FI_UNIVERSE_SIZE (256
# peers by default): (rx + tx depth) x 256 passes this device's max_cqe,
# 65,535 (a ConnectX has 4,194,303; docs/connectx-device.md), so a
# two-process job says it has few peers.
fi_pair() {
	local name=$1 ep=$2 prov=$3 pp=(env FI_UNIVERSE_SIZE=4 fi_pingpong)
	port=$((port + 1))
	two_sides "$name" tcp "$port" -- \
		"${pp[@]}" -p "$prov" -e "$ep" -d "$dev_a" -s "$addr" -B "$port" -I 100 -S 4096 -c -- \
		"${pp[@]}" -p "$prov" -e "$ep" -d "$dev_b" -s "$addr_b" -P "$port" -I 100 -S 4096 -c "$addr"
	result_verdict "cx_roce_$name" "$dir/$name.srv" "$dir/$name.cli" \
		'^4k[[:space:]]+100[[:space:]]' || failed=1
}
# skipped WHY NAMES...: NAMES are skipped, saying WHY.
skipped() {
	local n
	for n in "${@:2}"; do
		skip "cx_roce_$n" "$1"
	done
}
if ! command -v fio >/dev/null; then
	skipped "fio is not installed in this guest" cm_fio_write cm_fio_read
else
	fio_pair write 18711
	fio_pair read 18712
fi
fi_names=(fi_pingpong_msg fi_pingpong_rdm)
if ! command -v fi_pingpong >/dev/null; then
	skipped "libfabric-bin is not installed in this guest" "${fi_names[@]}"
elif [[ $(fi_pingpong -h 2>&1) != *"-s <"* ]]; then
	# Debian 12's libfabric 1.17: fi_pingpong has no source address option.
	skipped "this fi_pingpong has no -s, which the client in its namespace needs" \
		"${fi_names[@]}"
else
	fi_pair fi_pingpong_msg msg verbs
	fi_pair fi_pingpong_rdm rdm 'verbs;ofi_rxm'
fi
rm -rf "$dir"
exit "$failed"
