#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced, in the guest, on the software ConnectX's Ethernet functions
# (scripts/cx.sh --eth or --pair): the helpers that find a function's
# netdev, its RDMA device and its RoCE v2 GIDs.

# netdev_of MAC: the netdev of that MAC (mlx5e's, on the function
# cx-server gave it).
netdev_of() {
	local d
	for d in /sys/class/net/*; do
		[[ $(cat "$d/address" 2>/dev/null) == "$1" ]] && basename "$d"
	done
}

# ibdev_of NETDEV: the RDMA device mlx5_ib registered on its function.
ibdev_of() {
	local d
	for d in "/sys/class/net/$1/device/infiniband/"*; do
		[[ -e $d ]] && basename "$d"
	done
}

# carrier NS NETDEV: wait until NETDEV (in namespace NS, "" for this one)
# has its carrier; fails after 15 s.
carrier() {
	local _
	for _ in $(seq 30); do
		[[ $(ip ${1:+-n "$1"} -o link show dev "$2" 2>/dev/null) == *LOWER_UP* ]] && return 0
		sleep 0.5
	done
	return 1
}

# roce_v2_gid DEV GID: prints GID's index in the table of DEV's port 1 when
# it is there as a RoCE v2 GID (the RDMA core adds ::ffff:a.b.c.d for each
# IPv4 address of the netdev, and mlx5_ib writes it into the device's
# table with SET_ROCE_ADDRESS); fails otherwise.
roce_v2_gid() {
	local d=/sys/class/infiniband/$1/ports/1 f
	for f in "$d"/gids/*; do
		[[ $(cat "$f" 2>/dev/null) == "$2" &&
			$(cat "$d/gid_attrs/types/${f##*/}" 2>/dev/null) == "RoCE v2" ]] &&
			echo "${f##*/}" && return 0
	done
	return 1
}

# ipv4_gid A.B.C.D: the RoCE v2 GID of that address, as sysfs writes it.
ipv4_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}
