#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh, on a function whose
# port is Ethernet (scripts/cx.sh --eth; issue #32 step 1): mlx5e
# registered a netdev on it with the MAC the NIC vport context gives
# (sim/mlx5/pci/cx_eth.h CX_ETH_MAC), mlx5_ib registered mlx5_0 with link
# layer Ethernet; `ip link set up` opens mlx5e's channels (SQs with their
# TIS, RQs, CQs) and the port change event turns the carrier on; frames
# sent (ARP for an address nobody has) complete without an error CQE;
# mlx5_0's port is then ACTIVE; and the drivers logged no error.  Stage
# cx runs it in a sid boot of its own.  Prints PASS/FAIL per check; exit 1 if any failed.
#
# Usage: check-eth.sh [--wire [--suite]]   (scripts/cx.sh --eth -- tests/guest/mlx5/check-eth.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
# shellcheck disable=SC2317 # called through check()
lacks() { ! grep -qE "$1" <<<"$2"; }

mac=00:02:c9:00:63:78
netdev=
for d in /sys/class/net/*; do
	[[ $(basename "$(readlink -f "$d/device/driver" 2>/dev/null)") == mlx5_core &&
		$(cat "$d/address") == "$mac" ]] && netdev=$(basename "$d")
done
ip -d link show ${netdev:+dev "$netdev"} 2>&1 | sed 's/^/  /'
check cx_eth_mlx5e_netdev_registered test -n "$netdev"
check cx_eth_netdev_has_the_vport_mac test "$(cat "/sys/class/net/$netdev/address" 2>/dev/null)" = "$mac"
# The RDMA device of the netdev's function (mlx5_0 when it is the only one).
ibdev=mlx5_0
for d in "/sys/class/net/$netdev/device/infiniband/"*; do
	[[ -e $d ]] && ibdev=$(basename "$d")
done
ll=$(cat "/sys/class/infiniband/$ibdev/ports/1/link_layer" 2>/dev/null)
echo "  $ibdev port 1 link layer: ${ll:-none}"
check cx_eth_mlx5_0_link_layer_is_ethernet test "$ll" = Ethernet
# Up: mlx5e_open's channels, then the carrier from the port event.
check cx_eth_link_set_up ip link set "$netdev" up
for _ in $(seq 20); do
	[[ $(cat "/sys/class/net/$netdev/carrier" 2>/dev/null) == 1 ]] && break
	sleep 0.5
done
op=$(cat "/sys/class/net/$netdev/operstate" 2>/dev/null)
car=$(cat "/sys/class/net/$netdev/carrier" 2>/dev/null)
echo "  $netdev operstate ${op:-none}, carrier ${car:-none}"
check cx_eth_operstate_up test "$op" = up
check cx_eth_carrier_on test "$car" = 1
# Frames out: ARP requests for 192.0.2.2 (nobody has it: no answer),
# through busybox's ping where iputils' is not installed.
ping=(ping)
command -v ping >/dev/null || ping=(busybox ping)
ip addr add 192.0.2.1/24 dev "$netdev" 2>/dev/null
tx0=$(cat "/sys/class/net/$netdev/statistics/tx_packets" 2>/dev/null)
"${ping[@]}" -c 3 -W 1 192.0.2.2 >/dev/null 2>&1
tx=$(cat "/sys/class/net/$netdev/statistics/tx_packets" 2>/dev/null)
echo "  $netdev tx_packets ${tx:-none}"
check cx_eth_frames_sent test "${tx:-0}" -gt "${tx0:-0}"
state=$(cat "/sys/class/infiniband/$ibdev/ports/1/state" 2>/dev/null)
echo "  $ibdev port 1 state: ${state:-none}"
ibv_devinfo -d "$ibdev" 2>&1 | grep -E 'state|link_layer' | sed 's/^/  /'
check cx_eth_mlx5_0_port_active grep -q ACTIVE <<<"$state"
# As check-devinfo.sh: no refused command, failed object, error CQE,
# transmit timeout or kernel warning; the VSC line is expected (no
# vendor-specific capability).
kern=$(dmesg | grep -E 'mlx5|infiniband|WARNING|BUG')
check cx_eth_driver_load_logs_no_error lacks "mlx5_cmd_out_err|Couldn't|[Ff]ailed|[Ee]rror|[Tt]imeout|WARNING|BUG" \
	"$(grep -v 'valid vendor specific ID' <<<"$kern")"
# --wire: two functions on one wire (cx.sh --pair), check-eth-wire.sh's
# checks too (--suite: and rdma-core's suite on RoCE).
if [[ ${1:-} == --wire ]]; then
	"$(dirname "${BASH_SOURCE[0]}")/check-eth-wire.sh" "${@:2}" || db_failed=1
fi
exit "$db_failed"
