#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: doorbell's static
# UARs through the real mlx5_ib (issue #20).  mlx5_ib gives a context
# dynamic UARs when the provider asks for them (MLX5_LIB_CAP_DYN_UAR), as
# doorbell does; DOORBELL_MLX5_STATIC_UARS=1 asks for the static ones
# only, what a kernel without dynamic UARs gives.  Through doorbell
# (with-provider.sh): its DOORBELL_DEBUG line must say "static UARs", then
# the pingpongs (check-pingpong.sh, data checked) run on them.  Result
# lines are named cx_doorbell_static_uars_*.  Exit status: 1 if any failed.
#
# Usage: check-static-uars.sh [ITERS]   (scripts/cx.sh -- tests/guest/mlx5/check-static-uars.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2016 # expanded by the inner bash
DOORBELL_MLX5_STATIC_UARS=1 "$here/with-provider.sh" doorbell bash -c '
	line=$(DOORBELL_DEBUG=1 ibv_devinfo -d mlx5_0 2>&1 | grep -m 1 " UARs (")
	if [[ $line != *"static UARs"* ]]; then
		echo "FAIL cx_uars_are_static: ${line:-no UAR line from DOORBELL_DEBUG}"
		exit 1
	fi
	echo "PASS cx_uars_are_static: $line"
	"$1/check-pingpong.sh" "$2"' check-static-uars "$here" "${1:-200}" |
	sed -u 's/^\(PASS\|FAIL\|SKIP\) cx_doorbell_/\1 cx_doorbell_static_uars_/'
exit "${PIPESTATUS[0]}"
