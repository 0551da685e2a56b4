#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh, on a function whose
# port is Ethernet (scripts/cx.sh --eth; issue #32 step 1): mlx5e
# registered a netdev on it with the MAC the NIC vport context gives
# (sim/mlx5/pci/cx_eth.h CX_ETH_MAC), mlx5_ib registered mlx5_0 with link
# layer Ethernet, and the drivers' load logged no error.  Stage cx runs
# it in a sid boot of its own.  Prints PASS/FAIL per check; exit 1 if any failed.
#
# Usage: check-eth.sh    (scripts/cx.sh --eth -- tests/guest/mlx5/check-eth.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
# shellcheck disable=SC2317 # called through check()
lacks() { ! grep -qE "$1" <<<"$2"; }

mac=00:02:c9:00:63:78
netdev=
for d in /sys/class/net/*; do
	[[ $(basename "$(readlink -f "$d/device/driver" 2>/dev/null)") == mlx5_core ]] &&
		netdev=$(basename "$d")
done
ip -d link show ${netdev:+dev "$netdev"} 2>&1 | sed 's/^/  /'
check cx_eth_mlx5e_netdev_registered test -n "$netdev"
check cx_eth_netdev_has_the_vport_mac test "$(cat "/sys/class/net/$netdev/address" 2>/dev/null)" = "$mac"
ll=$(cat /sys/class/infiniband/mlx5_0/ports/1/link_layer 2>/dev/null)
echo "  mlx5_0 port 1 link layer: ${ll:-none}"
check cx_eth_mlx5_0_link_layer_is_ethernet test "$ll" = Ethernet
# As check-devinfo.sh: no refused command, failed object or kernel
# warning; the VSC line is expected (no vendor-specific capability).
kern=$(dmesg | grep -E 'mlx5|infiniband|WARNING|BUG')
check cx_eth_driver_load_logs_no_error lacks "mlx5_cmd_out_err|Couldn't|[Ff]ailed|WARNING|BUG" \
	"$(grep -v 'valid vendor specific ID' <<<"$kern")"
exit "$db_failed"
