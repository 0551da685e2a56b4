#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: step 1 of issue
# #19 checked on the bytes the stock provider reports.  The distribution's
# libmlx5 opens the device (ibv_devinfo), which is the software ConnectX
# driven by the distribution's mlx5_core/mlx5_ib, and sees the port as the
# device describes it (sim/mlx5/pci/cx_int.h CX_PORT_*, cx_mad.c).
# Prints PASS/FAIL per check; exit 1 if any failed.
#
# Usage: check-devinfo.sh            (scripts/cx.sh -- tests/guest/mlx5/check-devinfo.sh)
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
# shellcheck disable=SC2317 # called through check()
has() { grep -qE "$1" <<<"$info"; }
# shellcheck disable=SC2317 # called through check()
lacks() { ! grep -qE "$1" <<<"$2"; }

info=$(ibv_devinfo -v -d mlx5_0 2>&1)
echo "$info" | sed -n '1,6p;/^[[:space:]]*port:[[:space:]]/,$p' | sed 's/^/  /'
drv=$(basename "$(readlink -f /sys/class/infiniband/mlx5_0/device/driver)")
check cx_mlx5_0_is_bound_by_mlx5_core test "$drv" = mlx5_core
check cx_stock_provider_opens_mlx5_0 has '^hca_id:[[:space:]]+mlx5_0$'
check cx_fw_ver_is_the_devices has 'fw_ver:[[:space:]]+16\.99\.0001$'
check cx_node_guid_is_the_devices has 'node_guid:[[:space:]]+0002:c903:0000:6378$'
check cx_port_1_is_active has 'state:[[:space:]]+PORT_ACTIVE \(4\)$'
check cx_port_1_is_infiniband has 'link_layer:[[:space:]]+InfiniBand$'
check cx_port_1_has_lid_1 has 'port_lid:[[:space:]]+1$'
check cx_port_1_sm_lid_is_1 has 'sm_lid:[[:space:]]+1$'
check cx_port_1_gid_0_is_the_port_guid has 'GID\[  0\]:[[:space:]]+fe80:0000:0000:0000:0002:c903:0000:6379$'
# The driver's load went through without a refused command, a failed
# object (ib_mad's "Couldn't open port 1", "Create QP ... failed") or a
# kernel warning.  mlx5_pci_vsc_init's "Failed to get valid vendor specific
# ID" is expected: the function has no vendor-specific capability.
kern=$(dmesg | grep -E 'mlx5|infiniband|WARNING|BUG')
check cx_driver_load_logs_no_error lacks "mlx5_cmd_out_err|Couldn't|[Ff]ailed|WARNING|BUG" \
	"$(grep -v 'valid vendor specific ID' <<<"$kern")"
exit "$db_failed"
