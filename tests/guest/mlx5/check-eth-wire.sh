#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh, with two Ethernet
# functions on one wire (scripts/cx.sh --pair; issue #32 step 2): mlx5e's
# two netdevs, the second moved into a network namespace so that the
# kernel cannot short-cut between them, exchange frames over the wire:
# ARP and ping both ways, a ping of a full 1500-byte frame and one the
# kernel fragments, an IPv6 ping, and a TCP stream whose bytes are
# compared at the far end (the checksums each side's device computes on
# sending and reports on receiving); and the first port's RoCE v2 GID of
# its IPv4 address.  The drivers must log no error, and
# no "hw csum failure" (a receive checksum that does not match the bytes).
# Prints PASS/FAIL per check; exit 1 if any failed.
#
# Then the RoCE v2 pingpongs between the two functions, through stock
# libmlx5 and through doorbell (check-roce-pairs.sh); with --suite,
# rdma-core's suite on the first function's RoCE v2 GID
# (check-roce-suite.sh; stage cx: in sid's pair boot).
#
# Usage: check-eth-wire.sh [--suite]   (scripts/cx.sh --pair -- tests/guest/mlx5/check-eth-wire.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/guest/mlx5/eth-lib.sh
. "$here/eth-lib.sh"	# netdev_of, ibdev_of, carrier, roce_v2_gid, ipv4_gid
# shellcheck disable=SC2317 # called through check()
lacks() { ! grep -qE "$1" <<<"$2"; }

for _ in $(seq 30); do
	[[ -e /sys/class/infiniband/mlx5_1 ]] && break
	sleep 1
done
a=$(netdev_of 00:02:c9:00:63:78)
b=$(netdev_of 00:02:c9:00:63:79)
echo "  netdevs: ${a:-none} (00:02:c9:00:63:78), ${b:-none} (00:02:c9:00:63:79)"
check cx_pair_two_netdevs test -n "$a" -a -n "$b"
ia=$(ibdev_of "$a")
ib=$(ibdev_of "$b")
ns=cxwire
ip netns add "$ns"
ip link set "$b" netns "$ns"
ip addr add 198.51.100.1/24 dev "$a"
ip addr add 2001:db8::1/64 dev "$a" nodad
ip link set "$a" up
ip -n "$ns" addr add 198.51.100.2/24 dev "$b"
ip -n "$ns" addr add 2001:db8::2/64 dev "$b" nodad
ip -n "$ns" link set "$b" up
ip -n "$ns" link set lo up
check cx_pair_carrier_on_both carrier "" "$a"
carrier "$ns" "$b" || true

# RoCE (issue #32 step 3): the RDMA core's GID table of each function's
# port holds its IPv4 address as a RoCE v2 GID (::ffff:a.b.c.d), which
# mlx5_ib also wrote into the device's table (SET_ROCE_ADDRESS).
gid=$(ipv4_gid 198.51.100.1)
gid_b=$(ipv4_gid 198.51.100.2)
for _ in $(seq 20); do
	roce_v2_gid "$ia" "$gid" >/dev/null && roce_v2_gid "$ib" "$gid_b" >/dev/null && break
	sleep 0.5
done
check cx_pair_roce_v2_gid_of_the_address roce_v2_gid "$ia" "$gid"
check cx_pair_roce_v2_gid_of_the_far_address roce_v2_gid "$ib" "$gid_b"
ibv_devinfo -v -d "$ia" 2>&1 | grep -E 'GID\[' | sed 's/^/  /'

# The guests' roots have busybox's ping (iputils' where installed).
ping=(ping)
command -v ping >/dev/null || ping=(busybox ping)
check cx_pair_ping_crosses "${ping[@]}" -c 3 -W 3 198.51.100.2
check cx_pair_ping_back ip netns exec "$ns" "${ping[@]}" -c 2 -W 3 198.51.100.1
# A whole 1500-byte IP datagram, and one cut into fragments.
check cx_pair_ping_full_frame "${ping[@]}" -c 2 -W 3 -s 1472 198.51.100.2
check cx_pair_ping_fragmented "${ping[@]}" -c 2 -W 3 -s 5000 198.51.100.2
check cx_pair_ping6 "${ping[@]}" -6 -c 2 -W 3 2001:db8::2
ip neigh show dev "$a" | sed 's/^/  /'

# TCP: 1 MiB of random bytes from the namespace, its SHA-256 at each end.
if command -v python3 >/dev/null; then
	src=$(mktemp) dst=$(mktemp)
	head -c 1048576 /dev/urandom >"$src"
	python3 - "$dst" <<-'EOF' &
		import socket, sys
		s = socket.socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		s.bind(("198.51.100.1", 5201))
		s.listen(1)
		s.settimeout(60)
		c, _ = s.accept()
		c.settimeout(60)
		with open(sys.argv[1], "wb") as f:
		    while True:
		        b = c.recv(65536)
		        if not b:
		            break
		        f.write(b)
	EOF
	lpid=$!
	# The client tries again until the listener listens (python starts
	# slowly in a loaded guest: once refused after a second's wait).
	ip netns exec "$ns" python3 - "$src" <<-'EOF'
		import socket, sys, time
		end = time.monotonic() + 60
		while True:
		    try:
		        c = socket.create_connection(("198.51.100.1", 5201), timeout=60)
		        break
		    except ConnectionRefusedError:
		        if time.monotonic() > end:
		            raise
		        time.sleep(0.5)
		with open(sys.argv[1], "rb") as f:
		    c.sendall(f.read())
		c.close()
	EOF
	wait "$lpid"
	echo "  sent $(sha256sum <"$src" | cut -c1-16), received $(sha256sum <"$dst" | cut -c1-16) ($(stat -c %s "$dst") bytes)"
	check cx_pair_tcp_stream_arrives_intact cmp -s "$src" "$dst"
	rm -f "$src" "$dst"
else
	skip cx_pair_tcp_stream_arrives_intact "no python3 in the guest"
fi

# RoCE v2 between the two functions (issue #32 step 3): the pingpongs,
# the referee first (stock libmlx5), then doorbell, each proven to have
# served both devices in the processes that ran (with-provider.sh).
if [[ -n ${ia:-} && -n ${ib:-} ]] && ga=$(roce_v2_gid "$ia" "$gid") &&
	gb=$(roce_v2_gid "$ib" "$gid_b"); then
	echo "  RoCE v2: $ia GID $ga, $ib GID $gb"
	for p in libmlx5 doorbell; do
		DOORBELL_SERVED_DEVS="$ia $ib" "$here/with-provider.sh" "$p" \
			"$here/check-roce-pairs.sh" "$ns" "$ia" "$ga" "$ib" "$gb" \
			198.51.100.1 198.51.100.2 || db_failed=1
	done
	# rdma-core's suite on the first function's RoCE v2 GID.
	if [[ ${1:-} == --suite ]]; then
		"$here/check-roce-suite.sh" "$ia" "$ga" || db_failed=1
	fi
else
	fail cx_pair_roce_pingpongs "no RoCE v2 GID of the addresses on ${ia:-?} and ${ib:-?}"
fi

for d in "$a" "$ns:$b"; do
	n=${d%%:*} dev=${d#*:}
	[[ $d == *:* ]] || n=""
	echo "  $dev: $(ip ${n:+-n "$n"} -s -o link show dev "$dev" | grep -oE 'RX:.*' | tr -s ' ' | cut -c1-160)"
done
kern=$(dmesg | grep -E 'mlx5|infiniband|WARNING|BUG|csum')
check cx_pair_drivers_log_no_error lacks "mlx5_cmd_out_err|Couldn't|[Ff]ailed|[Ee]rror|[Tt]imeout|WARNING|BUG|hw csum failure" \
	"$(grep -v 'valid vendor specific ID' <<<"$kern")"
ip netns del "$ns"
exit "$db_failed"
