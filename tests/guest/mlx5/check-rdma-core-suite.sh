#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: step 4 of issue
# #19.  rdma-core's own python suite, as the distribution ships it, on
# mlx5_0 through the distribution's stock libmlx5: the suite's runner of
# the Soft-RoCE guests (tests/guest/rdma-core-suite.sh --per-module, one
# process per test module, each test interrupted after TEST_TIMEOUT
# seconds), pointed at mlx5_0 and its port 1, GID index 0 (the port is
# InfiniBand: GID 0 is the port GUID's link-local one) unless told.  One line,
# cx_rdma_core_suite: PASS with no failure, no error and no crash, FAIL
# otherwise; the counts, the tests that failed, and every skip reason the
# suite gave with how many tests gave it (features the device does not
# claim answer EOPNOTSUPP, or lack a capability, and the suite skips).
# A test that blocks in the kernel outlives the timeouts (the module's
# process cannot be killed there): scripts/cx.sh --timeout ends the guest.
#
# With MODULE names (e.g. test_cq test_qp), only those modules run: the
# subset of stage cx in scripts/test.sh.
#
# --save FILE keeps the counts (libmlx5's run); --baseline FILE then holds
# another provider's run to them: PASS with no failure, no error, no exit
# crash the baseline lacks, and at least as many passes (doorbell's run
# through tests/guest/mlx5/with-provider.sh, issue #20).  --collect FILE,
# --tests FILE and --judge FILE are rdma-core-suite.sh's (check-all.sh:
# doorbell's run is collected, libmlx5 runs the tests it did not pass,
# then doorbell's run is judged against that); --name NAME names the line
# (default cx_rdma_core_suite).  --dev DEV and --gid N run it on another
# device and GID index (an Ethernet function's RoCE v2 GID:
# check-roce-suite.sh).
#
# Usage: check-rdma-core-suite.sh [--save FILE | --baseline FILE]
#                                 [--collect FILE | --tests FILE |
#                                  --judge FILE] [--name NAME]
#                                 [--dev DEV] [--gid N]
#                                 [TEST_TIMEOUT [MODULE...]]
#        (scripts/cx.sh --timeout 3000 -- tests/guest/mlx5/check-rdma-core-suite.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
against=() name=cx_rdma_core_suite judged="" collecting=0 dev=mlx5_0 gid=0
while (($#)); do
	case $1 in
	--save | --baseline | --tests) against+=("$1" "${2:?$1 needs a FILE}") ;;
	--collect) against+=("$1" "${2:?$1 needs a FILE}"); collecting=1 ;;
	--judge) against+=("$1" "${2:?$1 needs a FILE}"); judged=$2 ;;
	--name) name=${2:?--name needs a name} ;;
	--dev) dev=${2:?--dev needs a device} ;;
	--gid) gid=${2:?--gid needs an index} ;;
	*) break ;;
	esac
	shift 2
done
limit=${1:-60}
shift || true
only=(); (($#)) && only=(--modules "$*")
events=$(mktemp)
out=$(mktemp)
trap 'rm -f "$events" "$out"' EXIT

DOORBELL_SUITE_LOG=$events "$here/../rdma-core-suite.sh" \
	--dev "$dev" --gid "$gid" --test-timeout "$limit" --per-module \
	"${only[@]}" "${against[@]}" --name "$name" | tee "$out"
# A collected run's reasons are printed when it is judged.
((collecting)) && exit 0
echo "    skip reasons (tests: reason):"
if [[ -n $judged ]]; then
	sed -n 's/^skipped skip [^:]*: //p' "$judged"
else
	sed -n 's/^skip [^:]*: //p' "$events"
fi | sort | uniq -c | sort -rn | sed 's/^ *\([0-9]*\) /    \1: /'
! grep -q '^FAIL ' "$out"
