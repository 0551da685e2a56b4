#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/cx/guest-cx.sh found mlx5_0: run COMMAND with
# PROVIDER serving mlx5_0, the same device and kernel either way (issue #20:
# doorbell side by side with libmlx5).
#   libmlx5   the distribution's stock libmlx5: RDMAV_DRIVERS and
#             DOORBELL_MLX5 unset; COMMAND's result lines are named
#             PASS cx_NAME (from PASS cx_NAME or PASS NAME: doorbell-itest's
#             names).
#   doorbell  doorbell's mlx5 backend: RDMAV_DRIVERS at the build's
#             libdoorbell, DOORBELL_MLX5=1, and the distribution's
#             mlx5.driver hidden for COMMAND's time, so that libmlx5 cannot
#             serve in doorbell's place; first a check that doorbell serves
#             (its DOORBELL_DEBUG line; FAIL cx_doorbell_serves_mlx5_0 if not);
#             COMMAND's result lines are renamed PASS cx_doorbell_NAME
#             (from PASS cx_NAME or PASS NAME: doorbell-itest's names).
# Both run perftest from the build's perftest-nodv/ (scripts/build-perftest.sh)
# when it is there: Debian's perftest links libmlx5, which then serves
# mlx5_0 whatever RDMAV_DRIVERS says, so through doorbell that directory
# must be there (FAIL cx_doorbell_perftest_without_libmlx5 otherwise), and
# libmlx5's runs use the same binaries.
# Exit status: COMMAND's (1 if doorbell did not serve).
#
# Usage: with-provider.sh libmlx5|doorbell COMMAND [ARGS...]
# DOORBELL_PROVIDER_BUILD: the build whose libdoorbell serves (default: the
# checkout's build/; not DOORBELL_BUILD_DIR, which stage cx points at an
# ASan build for the device server: an ASan provider cannot load into
# perftest).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${DOORBELL_PROVIDER_BUILD:-$top/build}
prov=${1:?usage: with-provider.sh libmlx5|doorbell COMMAND [ARGS...]}
shift
(($#)) || { echo "with-provider.sh: no COMMAND" >&2; exit 2; }
driver=/etc/libibverbs.d/mlx5.driver
perftest=$build/perftest-nodv
[[ ! -x $perftest/ib_send_bw ]] || export PATH=$perftest:$PATH

case $prov in
libmlx5)
	unset RDMAV_DRIVERS DOORBELL_MLX5
	[[ -e $driver ]] || { echo "FAIL cx_libmlx5_visible: no $driver"; exit 1; }
	"$@" | sed -u -E 's/^(PASS|FAIL|SKIP) (cx_)?/\1 cx_/'
	exit
	;;
doorbell) ;;
*) echo "with-provider.sh: no provider '$prov' (libmlx5 or doorbell)" >&2; exit 2 ;;
esac

export RDMAV_DRIVERS=$build/lib/libdoorbell DOORBELL_MLX5=1
if ldd "$(command -v ib_send_bw)" 2>/dev/null | grep -q libmlx5; then
	echo "FAIL cx_doorbell_perftest_without_libmlx5: $(command -v ib_send_bw) links libmlx5 (scripts/build-perftest.sh builds one that does not)"
	exit 1
fi
hidden=
# shellcheck disable=SC2317 # the EXIT trap calls it
restore() { [[ -n $hidden && ! -e $driver ]] && mv "$hidden" "$driver"; }
trap restore EXIT
if [[ -e $driver ]]; then
	hidden=$(mktemp /run/mlx5.driver.XXXXXX)
	mv "$driver" "$hidden"
fi
line=$(DOORBELL_DEBUG=1 ibv_devinfo -d mlx5_0 2>&1 | grep 'doorbell: .*serving the device')
if [[ $line != *"with the mlx5 backend"* ]]; then
	echo "FAIL cx_doorbell_serves_mlx5_0: ${line:-no doorbell line from ibv_devinfo -d mlx5_0}"
	exit 1
fi
echo "  ($line)"
"$@" | sed -u -E 's/^(PASS|FAIL|SKIP) (cx_)?/\1 cx_doorbell_/'
