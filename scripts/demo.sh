#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The main job: build doorbell, then run perftest's ib_send_bw and
# ib_write_lat through it and print their results.  It uses this machine's
# own Soft-RoCE device if it has one, and otherwise boots the Soft-RoCE
# guest of tests/vm (no RDMA in the kernel, as in containers and CI, is the
# usual case, not an error): Debian 12's 6.1 kernel, or on a Debian 13 host
# its own 6.12.  Installs what it needs (root, Debian 12 or 13).
#
# Usage: scripts/demo.sh [--vm | --connectx]
#   --vm        use the guest even if a device exists
#   --connectx  the same two programs through doorbell's mlx5 backend on the
#               software ConnectX (sim/mlx5/pci) over RoCE v2, as most
#               ConnectX ports run: sid's guest, whose own mlx5_core,
#               mlx5e and mlx5_ib drive an Ethernet function (scripts/cx.sh
#               --eth); the pairs use the RoCE v2 GID of the netdev's IPv4
#               address (tests/guest/mlx5/demo-roce.sh).  It shows that the
#               backend works through the real kernel driver; its numbers
#               are the emulated device's, not hardware timing.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cd "$top"
force_vm=0
connectx=0
case ${1:-} in
--vm) force_vm=1 ;;
--connectx) connectx=1 ;;
'') ;;
*) die "unknown argument '$1' (usage: scripts/demo.sh [--vm | --connectx])" ;;
esac

scripts/deps.sh || die "could not install the packages it needs (see above)"
if ((connectx)); then
	# The device server is a test program: the whole tree is built.
	build=$(scripts/build.sh) || die "the build failed (see above)"
	# Debian's perftest links libmlx5, which would serve the device.
	scripts/build-perftest.sh >/dev/null || die "perftest did not build (see above)"
	echo "doorbell: the software ConnectX in sid's guest, RoCE v2, driven by its mlx5_ib" >&2
	exec env DOORBELL_BUILD_DIR="$build" DOORBELL_PROVIDER_BUILD="$build" scripts/cx.sh --no-build --eth -- \
		tests/guest/mlx5/with-provider.sh doorbell tests/guest/mlx5/demo-roce.sh
fi
build=$(scripts/build.sh --provider-only) || die "the build failed (see above)"
export RDMAV_DRIVERS=$build/lib/libdoorbell

# host_dev: prints an active rxe link of this machine that doorbell serves,
# or nothing.  Never fails: a kernel without RDMA makes "rdma link show"
# fail ("Failed to open NETLINK_RDMA socket"), which only means "no device".
host_dev() {
	local links dev
	command -v rdma >/dev/null || return 0
	links=$(rdma link show 2>/dev/null) || return 0
	dev=$(awk '/ state ACTIVE / { split($2, a, "/"); print a[1]; exit }' \
		<<<"$links")
	[[ -n $dev ]] || return 0
	# Only a device doorbell serves (an rxe device).
	if DOORBELL_DEBUG=1 ibv_devinfo -d "$dev" 2>&1 |
			grep -q "serving the device"; then
		echo "$dev"
	fi
	return 0
}

dev=""
((force_vm)) || dev=$(host_dev)
if [[ -n $dev ]]; then
	echo "doorbell: running on this machine's $dev"
	exec tests/guest/demo-pair.sh "$dev"
fi
echo "doorbell: no Soft-RoCE device here; booting the Soft-RoCE guest" >&2
tests/vm/prepare.sh || die "could not prepare the Soft-RoCE guest (see above)"
exec tests/vm/run.sh --env "RDMAV_DRIVERS=$RDMAV_DRIVERS" -- \
	tests/guest/demo-pair.sh
