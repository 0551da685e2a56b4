#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: every check of
# stage cx (scripts/test.sh) in one boot, stock libmlx5 and doorbell's mlx5
# backend alternated on the same device and kernel (issue #20;
# tests/guest/mlx5/with-provider.sh chooses the provider; libmlx5's lines keep
# their cx_ names, doorbell's are cx_doorbell_; after each, with-provider.sh's
# cx_[doorbell_]served_* line proves the provider in every process):
#   devinfo; the referee of who served failing as it must
#   (check-served-witness.sh); the device's verdict failing as it must on
#   a writer that breaks a rule (check-violations-referee.sh; after
#   that, every with-provider.sh process is judged by the device's rules
#   too); the pingpongs (data checked), ibv_xsrq_pingpong and perftest's
#   RC pairs, each through libmlx5 then doorbell; UCX's rc_mlx5 and
#   ud_mlx5, a third writer of WQEs (check-ucx.sh); the pingpongs through
#   doorbell again on static UARs (check-static-uars.sh); doorbell-itest's data-path tests,
#   every byte compared (check-itest-data.sh), through both; the completion channel (doorbell-itest's
#   comp_channel_ and destroy_cq_ tests: arm, solicited-only, several CQs
#   on one channel, a CQ destroyed with events unacked) through both;
#   doorbell-itest's CQ resize tests (pending completions kept in order, a
#   refused shrink that loses nothing) through both; the device's raw
#   clock (doorbell-itest's clock_ tests, ibv_query_rt_values_ex) through
#   both; the port's second GID as a UD source (check-second-gid.sh)
#   through both; an XRC target opened by a second context (ibv_open_qp) that
#   outlives its creator's handle (doorbell-itest's xrc_ tests) through
#   doorbell, through libmlx5 as a measurement; the interrupt counts through libmlx5, then libmlx5's and doorbell's equal
#   run for run (check-irq-equal.sh); rdma-core's suite through doorbell,
#   then through libmlx5 on the tests doorbell did not pass, and
#   doorbell's run held to that test by test (0 failures, 0 errors, every
#   test libmlx5 passed passes or skips for a choice of
#   rdma-core-choices.txt); the bad-input matrix (doorbell-itest -k
#   matrix_) through doorbell, whose errnos docs/mlx5-model.md tables, then
#   through libmlx5 as a measurement only: its answers are printed
#   ("libmlx5 (Linux V): PASS|FAIL|SKIP matrix_NAME"), not judged, for the
#   table of docs/mlx5-side-by-side.md.
# --validate: then scripts/mlx5-validate.sh, the hardware validation, its
# code unchanged (check-mlx5-validate.sh, with the build the host made in
# build-mlx5-validate/); the script runs ibv_xsrq_pingpong through both
# providers and perftest's pairs through doorbell, so this boot's own XRC
# pingpong and perftest pairs are left to it (CI's budget; perftest
# through both providers on that kernel: check-roce-pairs.sh's pairs in
# Debian 12's pair boot, which CI does not make), and
# libmlx5's matrix measurement to a boot without --validate (stage cx's
# sid boot).
# Exit status: 1 if any part failed.
#
# Usage: check-all.sh [--validate]   (scripts/cx.sh -- tests/guest/mlx5/check-all.sh)
# DOORBELL_PROVIDER_BUILD: the build of the provider and doorbell-itest
# (default: the checkout's build/; with-provider.sh).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../../scripts/lib.sh"	# db_violation_rules
build=${DOORBELL_PROVIDER_BUILD:-$(cd "$here/../../.." && pwd)/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
# shellcheck source=tests/guest/mlx5/both-lib.sh
. "$here/both-lib.sh"	# both, stamp, suite_both

"$here/check-devinfo.sh" || rc=1
"$here/check-served-witness.sh" || rc=1
"$here/check-violations-referee.sh" || rc=1
both "$here/check-pingpong.sh" 200
stamp pingpongs
validate=0
[[ ${1:-} == --validate ]] && validate=1
((validate)) || both "$here/check-xsrq.sh"
stamp "XRC pingpong"
both "$here/check-itest-data.sh"
stamp "data path (itest)"
"$here/check-static-uars.sh" 100 || rc=1
stamp "static UARs"
((validate)) || both "$here/check-perftest.sh" 200
stamp perftest
"$here/check-ucx.sh" 200 || rc=1
stamp "UCX rc_mlx5, ud_mlx5"
both "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k comp_channel_
both "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k destroy_cq_
stamp "completion channel"
both "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k resize_cq_ -x matrix_
stamp "CQ resize"
both "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k clock_
stamp "raw clock"
both "$here/check-second-gid.sh"
stamp "UD from the second GID"
"$here/with-provider.sh" doorbell "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k xrc_ -x matrix_ || rc=1
# Through libmlx5 measured, not judged: its ibv_destroy_qp of an
# ibv_open_qp handle frees a doorbell record that mlx5_open_qp never
# allocated (mlx5_free_db() of NULL) and the process dies (rdma-core 44
# and 65; docs/mlx5-side-by-side.md).
"$here/with-provider.sh" libmlx5 "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k xrc_ -x matrix_ 2>&1 |
	sed -E "s/^(PASS|FAIL|SKIP) (cx_)?/  libmlx5 (Linux $(uname -r)), measured: \\1 /"
stamp "XRC target shared by two contexts"
"$here/check-interrupts.sh" || rc=1
"$here/check-irq-equal.sh" || rc=1
stamp interrupts
# The suite draws QP caps and create flags at random: the same draws for
# both (a flag the device lacks makes a test skip, under either provider).
export DOORBELL_SUITE_SEED=${DOORBELL_SUITE_SEED:-$RANDOM}
echo "    (rdma-core suite: DOORBELL_SUITE_SEED=$DOORBELL_SUITE_SEED)"
suite_both cx_doorbell_rdma_core_suite "$work" 60
stamp suites
"$here/with-provider.sh" doorbell "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k matrix_ || rc=1
stamp matrix
# libmlx5_matrix: the matrix through libmlx5, a measurement. Its violations
# of the device's rules are measured too, not judged: each rule's count is
# printed and named in the expected file that scripts/cx.sh subtracts from
# the server's verdict.
libmlx5_matrix() {
	local stats=/nonexistent expected=/dev/null before
	if [[ -n ${DOORBELL_CX_STATS:-} ]]; then
		stats=$DOORBELL_CX_STATS/violations expected=$DOORBELL_CX_STATS/expected
	fi
	before=$(db_violation_rules "$stats")
	"$here/with-provider.sh" libmlx5 "$build/tests/guest/itest/doorbell-itest" -d mlx5_0 -g 0 -k matrix_ 2>&1 |
		sed -E -e "s/^(PASS|FAIL|SKIP) cx_matrix_/  libmlx5 (Linux $(uname -r)): \\1 matrix_/" \
			-e "s/^(PASS|FAIL) cx_no_violations_/  libmlx5 (Linux $(uname -r)), measured: \\1 no_violations_/"
	{ db_violation_rules "$stats"; awk 'NF { print $1, -$2 }' <<<"$before"; } |
		awk -v who=libmlx5-matrix-measurement '{ n[$1] += $2 }
			END { for (r in n) if (n[r] > 0) print r, n[r], who }' | tee -a "$expected" |
		sed 's/^/  libmlx5 (Linux '"$(uname -r)"'), measured: violations /'
}
if ((validate)); then
	"$here/check-mlx5-validate.sh" || rc=1
	stamp "scripts/mlx5-validate.sh"
else
	libmlx5_matrix
	stamp "matrix through libmlx5"
fi
exit "$rc"
