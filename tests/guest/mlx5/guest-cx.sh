#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest (scripts/cx.sh): load the distribution's own mlx5_core and
# mlx5_ib, wait for mlx5_0, print the driver's kernel lines, run COMMAND.
# Exit status: COMMAND's; 3 if mlx5_0 never appeared (unless --always:
# then COMMAND runs all the same, to look at a driver that did not bind).
#
# Usage: guest-cx.sh [--wait SECS] [--always] -- COMMAND [ARGS...]
set -uo pipefail
wait_s=60
always=0
while (($#)); do
	case "$1" in
	--wait) wait_s=$2; shift ;;
	--always) always=1 ;;
	--) shift; break ;;
	*) break ;;
	esac
	shift
done
lspci -nn 2>/dev/null | grep -i mellanox || grep -l 0x15b3 /sys/bus/pci/devices/*/vendor
modprobe mlx5_core || echo "cx: modprobe mlx5_core failed"
modprobe mlx5_ib || echo "cx: modprobe mlx5_ib failed"
for ((i = 0; i < wait_s; i++)); do
	[[ -e /sys/class/infiniband/mlx5_0 ]] && break
	sleep 1
done
echo "--- kernel lines of mlx5 (dmesg)"
dmesg | grep -iE 'mlx5|15b3|vfio' | sed 's/^/  /'
if [[ ! -e /sys/class/infiniband/mlx5_0 ]]; then
	echo "cx: no mlx5_0 after ${wait_s}s"
	((always)) || exit 3
fi
echo "--- $*"
# The software ConnectX's UMR cannot load translations (sim/mlx5/pci/cx_caps.c):
# doorbell-itest's dma-buf tests then take mlx5_ib's EINVAL as a SKIP.
export ITEST_MLX5_UMR_CANNOT_LOAD=1
"$@"
