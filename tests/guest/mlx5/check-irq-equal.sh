#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: issue #20's
# interrupt comparison.  The same device and kernel serve both providers,
# so doorbell's mlx5 backend must give the completion events and
# completion-vector interrupts libmlx5 gives, exactly: a difference would
# be in how the provider arms the CQ (the arm word's sequence number,
# command and consumer index, in the doorbell record and the UAR write).
# cx-cq-events (tests/guest/mlx5/cx-cq-events.c) runs in lockstep (-b): each batch
# of messages is taken and the CQ armed again before the next one is
# sent, so each batch raises exactly one event and one interrupt, whatever
# the timing:
#   unmoderated   batch 1, one event per message;
#   solicited     batch BATCH, armed for solicited completions only, the
#                 batch's last message solicited;
#   moderated     batch BATCH, ibv_modify_cq cq_count BATCH, cq_period
#                 4095 us (the longest; it never runs out first);
#   period_only   batch 1, cq_count 1000: cq_period (the server's timer)
#                 raises each event;
#   comp_vector_1 as unmoderated, on completion vector 1 (if the device
#                 has it).
# Each mode runs with libmlx5, then with doorbell (tests/guest/mlx5/with-provider.sh);
# the events and the interrupts of the receive phase (cx-cq-events -i
# brackets it, so with scripts/cx.sh --vectors 1 the control interrupts
# of the setup commands on mlx5_combined0 stay out) must equal the
# formula (one event and one interrupt per batch) for both.  Prints
#   PASS cx_irq_equal_MODE: libmlx5 E events I interrupts, doorbell E' I'
# per mode (FAIL with the reason); exit 1 if any failed.
#
# Usage: check-irq-equal.sh [MSGS [BATCH]]   (defaults 64 and 4)
#   (scripts/cx.sh [--vectors 1] -- tests/guest/mlx5/check-irq-equal.sh)
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
build=${DOORBELL_BUILD_DIR:-$top/build}
prog=$build/tests/guest/mlx5/cx-cq-events
msgs=${1:-64}
batch=${2:-4}
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
[[ -x $prog ]] || { fail cx_irq_equal_setup "no $prog (build first)"; exit 1; }
# shellcheck source=tests/guest/lib/irq-lib.sh
. "$top/tests/guest/lib/irq-lib.sh"

# measure PROVIDER ARGS...: "EVENTS INTERRUPTS" of one lockstep run, or
# "error: WHY".
measure() {
	local prov=$1 out rc events comp
	shift
	out=$(timeout 60 "$top/tests/guest/mlx5/with-provider.sh" "$prov" \
		"$prog" -i -n "$msgs" "$@" 2>&1)
	rc=$?
	events=$(sed -n 's/^messages [0-9]* events \([0-9]*\) srq_limit_event 1$/\1/p' <<<"$out")
	if ((rc != 0)) || [[ -z $events ]]; then
		echo "error: exit $rc: $(grep -v -e '^before: ' -e '^after: ' <<<"$out" | tr '\n' ' ')"
		return
	fi
	read -r comp _ <<<"$(receive_delta "$out")"
	echo "$events $comp"
}

# mode NAME PER_BATCH ARGS...: libmlx5 then doorbell; PER_BATCH messages
# make one event.
mode() {
	local name=$1 per=$2 l d want t0=$SECONDS
	shift 2
	want=$(((msgs + per - 1) / per))
	l=$(measure libmlx5 "$@")
	d=$(measure doorbell "$@")
	local got="libmlx5 ${l/ / events } interrupts, doorbell ${d/ / events } interrupts"
	if [[ $l == error:* || $d == error:* ]]; then
		fail "cx_irq_equal_$name" "cx-cq-events $*: libmlx5 $l; doorbell $d"
	elif [[ $l != "$d" ]]; then
		fail "cx_irq_equal_$name" "$got: the providers differ (cx-cq-events $*)"
	elif [[ $l != "$want $want" ]]; then
		fail "cx_irq_equal_$name" "$got, not $want and $want (cx-cq-events $*)"
	else
		pass "cx_irq_equal_$name" "$got ($msgs messages, $per a batch; $((SECONDS - t0)) s)"
	fi
}

mode unmoderated 1 -b 1
mode solicited "$batch" -b "$batch" -s
mode moderated "$batch" -b "$batch" -m "$batch:4095"
mode period_only 1 -b 1 -m 1000:1000
nvec=$(ibv_devinfo -v -d mlx5_0 | sed -n 's/.*num_comp_vectors:[[:space:]]*\([0-9]*\).*/\1/p')
if ((${nvec:-1} > 1)); then
	mode comp_vector_1 1 -b 1 -c 1
else
	echo "  (one completion vector: no comp_vector_1 run)"
fi
echo "  (check-irq-equal.sh: $SECONDS s)"
exit "$db_failed"
