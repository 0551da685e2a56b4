#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh, on a function whose
# port is Ethernet (scripts/cx.sh --eth): the README's --connectx demo over
# RoCE v2.  mlx5e's netdev gets 192.0.2.1/24 and is set up; once the port's
# GID table holds that address as a RoCE v2 GID (::ffff:192.0.2.1),
# tests/guest/demo-pair.sh runs ib_send_bw and ib_write_lat on it (-x
# INDEX), server and client on the same port, through the provider
# RDMAV_DRIVERS names (scripts/demo.sh --connectx: doorbell, through
# tests/guest/mlx5/with-provider.sh).  Exit status: demo-pair.sh's; 1 when
# the netdev or the GID never came.
#
# Usage: demo-roce.sh   (scripts/cx.sh --eth -- tests/guest/mlx5/demo-roce.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/guest/mlx5/eth-lib.sh
. "$here/eth-lib.sh"	# netdev_of, ibdev_of, carrier, roce_v2_gid, ipv4_gid

addr=192.0.2.1
netdev=$(netdev_of 00:02:c9:00:63:78)
dev=$(ibdev_of "${netdev:-none}")
if [[ -z $netdev || -z $dev ]]; then
	echo "demo-roce: no netdev or RDMA device on the Ethernet function" >&2
	exit 1
fi
ip addr add "$addr/24" dev "$netdev"
ip link set "$netdev" up
carrier "" "$netdev" || { echo "demo-roce: $netdev has no carrier" >&2; exit 1; }
gid=$(ipv4_gid "$addr")
for _ in $(seq 20); do
	idx=$(roce_v2_gid "$dev" "$gid") && break
	sleep 0.5
done
if [[ -z ${idx:-} ]]; then
	echo "demo-roce: no RoCE v2 GID of $addr on $dev" >&2
	exit 1
fi
echo "doorbell: $dev, link layer Ethernet; RoCE v2 GID $idx (::ffff:$addr) on $netdev" >&2
exec "$here/../demo-pair.sh" "$dev" "$idx"
