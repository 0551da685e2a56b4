#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, on an Ethernet function of scripts/cx.sh --pair whose
# netdev has its address (check-eth-wire.sh gives the first
# 198.51.100.1; issue #32 step 3): rdma-core's suite on the port's RoCE v2
# GID, the modules whose tests a RoCE port changes.
#   test_rdmacm  connections through librdmacm to the netdev's address,
#                server and client on the one port (the device's
#                loopback); on an InfiniBand port with no netdev these
#                skip ("doesn't have net interface");
#   test_addr    address handles on a RoCE v2 GID: the kernel resolves
#                the destination MAC, the provider builds the Ethernet
#                address vector;
#   test_qpex    traffic of every QP type through the ibv_wr_* API, each
#                packet framed as RoCE v2 with its GRH.
# Through doorbell, then through libmlx5 on the tests doorbell did not
# pass, doorbell's run judged test by test against that (both-lib.sh's
# suite_both): PASS|FAIL cx_doorbell_roce_rdma_core_suite.  Exit 1 if it
# failed.
# test_rdmacm's multicast tests skip, for both providers: the device has
# no multicast (no ATTACH_TO_MCG steering; docs/connectx-device.md), and
# through libmlx5 they fail as through doorbell ("Exception in passive
# side occurred"; after a leave, "traffic passed which is not expected"),
# and suite_both runs no baseline for them.
#
# Usage: check-roce-suite.sh DEV GID_INDEX
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dev=${1:?usage: check-roce-suite.sh DEV GID_INDEX}
gid=${2:?usage: check-roce-suite.sh DEV GID_INDEX}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
# shellcheck source=tests/guest/mlx5/both-lib.sh
. "$here/both-lib.sh"	# suite_both, stamp
export DOORBELL_SERVED_DEVS=$dev
export DOORBELL_SUITE_SEED=${DOORBELL_SUITE_SEED:-$RANDOM}
export DOORBELL_SUITE_SKIP="tests.test_rdmacm.*multicast*=the software ConnectX has no multicast"
echo "    (rdma-core suite on $dev's RoCE v2 GID $gid: DOORBELL_SUITE_SEED=$DOORBELL_SUITE_SEED)"
suite_both cx_doorbell_roce_rdma_core_suite "$work" --dev "$dev" --gid "$gid" \
	60 test_rdmacm test_addr test_qpex
stamp "rdma-core suite on RoCE"
exit "$rc"
