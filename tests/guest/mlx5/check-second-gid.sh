#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Issue #30: port 1 of the software ConnectX has two GIDs (GUIDInfo gives
# two GUIDs), and a UD datagram sent through an AH on SGID index 1 carries
# GID 1 in its GRH.  Run by check-all.sh under with-provider.sh, through
# each provider: ibv_devinfo lists two GIDs on port 1, then doorbell-itest's
# UD GRH case runs with -g 1, whose check compares the received GRH's SGID
# with ibv_query_gid(port 1, index 1): a provider (or a device) that put
# index 0 in the address vector fails it.
# Prints PASS|FAIL gid1_NAME lines; exit 1 on a FAIL.
#
# Usage: check-second-gid.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../../scripts/lib.sh"	# pass, fail
build=${DOORBELL_PROVIDER_BUILD:-$(cd "$here/../../.." && pwd)/build}
rc=0
mapfile -t gids < <(ibv_devinfo -v -d mlx5_0 -i 1 |
	sed -nE 's/^[[:space:]]*GID\[ *([0-9]+)\]:[[:space:]]*([0-9a-f:]+).*/\1 \2/p')
if ((${#gids[@]} == 2)) && [[ ${gids[0]#* } != "${gids[1]#* }" ]]; then
	pass gid1_port_1_lists_two_gids "${gids[*]}"
else
	fail gid1_port_1_lists_two_gids "ibv_devinfo -v: ${gids[*]:-no GID}"
	rc=1
fi
"$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 1 \
	-k ud_send_delivers_grh -x matrix_ |
	sed -u -E 's/^(PASS|FAIL|SKIP) /\1 gid1_/'
((PIPESTATUS[0] == 0)) || rc=1
exit "$rc"
