#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: the interrupt part
# of issue #19.  cx-cq-events (tests/guest/mlx5/cx-cq-events.c, built with the
# tree; the guest sees the build) takes MSGS messages, 500 us apart,
# through a receive CQ by completion events, unmoderated, then moderated
# with ibv_modify_cq (cq_count 4, cq_period 4000 us), then with a cq_count
# it never reaches so that only cq_period (the server's timer) raises the
# events; each run ends with an SRQ limit
# event, an asynchronous event.  Around each run the guest's /proc/interrupts
# says how many MSI-X interrupts each of mlx5_core's vectors took
# (drivers/net/ethernet/mellanox/mlx5/core/pci_irq.c names them: mlx5_async0
# for the control vector of the async, command and pages EQs, mlx5_compN
# for completion EQ N, mlx5_combined0 when the function has one vector and
# every EQ shares it).  The checks:
#   cx_irq_unmoderated, cx_irq_moderated, cx_irq_period_only: the run ends,
#     its completion vector took interrupts, no more than events + SLACK
#     (the device signals an EQ once until the driver re-arms it); the
#     moderated run has fewer events and fewer interrupts than the
#     unmoderated one (4 messages take about 2 ms, within the period; a
#     guest starved of CPU for longer can blur the difference);
#   cx_irq_period_alone: one message to a CQ armed before it (cq_count 2):
#     its one event comes, raised by cq_period alone;
#   cx_irq_control_vector: the vector of the async, command and pages EQs
#     took interrupts while the runs' commands completed and their SRQ
#     limit events came: every EQ on it is served;
#   cx_irq_comp_vector_N: a run on each further completion vector.
# With scripts/cx.sh --vectors 1 the control and completion EQs all share
# mlx5_combined0, and the same checks show each of them served.
#
# Usage: check-interrupts.sh [MSGS]
#   (scripts/cx.sh [--vectors N] -- tests/guest/mlx5/check-interrupts.sh)
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
build=${DOORBELL_BUILD_DIR:-$top/build}
prog=$build/tests/guest/mlx5/cx-cq-events
msgs=${1:-100}
slack=3
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
[[ -x $prog ]] || { fail cx_irq_setup "no $prog (build first)"; exit 1; }
# shellcheck source=tests/guest/lib/irq-lib.sh
. "$top/tests/guest/lib/irq-lib.sh"

# run NAME ARGS...: cx-cq-events -i; sets events, comp and moved (the
# interrupts of its receive phase, which it reports), ctrl (those of the
# control vector over the whole run: its commands, its SRQ limit event).
ok_runs=0
run() {
	local name=$1 before after out rc
	shift
	before=$(snapshot)
	out=$(timeout 120 "$prog" -i -n "$msgs" -g 500 "$@" 2>&1)
	rc=$?
	after=$(snapshot)
	read -r _ ctrl _ <<<"$(delta "$before" "$after")"
	read -r comp _ moved <<<"$(receive_delta "$out")"
	events=$(sed -n 's/.*events \([0-9]*\).*/\1/p' <<<"$out")
	events=${events:-0}
	if ((rc != 0)) || ! grep -q 'srq_limit_event 1' <<<"$out"; then
		fail "cx_irq_$name" "cx-cq-events $* exit $rc: $(grep -v -e '^before: ' -e '^after: ' <<<"$out")"
		return 1
	fi
	ok_runs=$((ok_runs + 1))
	echo "  $name: $(sed -n 's/^messages \([0-9]*\).*/\1/p' <<<"$out") messages, $events completion events, $comp interrupts on completion vectors while they came ($moved ), $ctrl on the control vector in the whole run"
}

# irq_bound NAME: the run's completion interrupts are > 0 and <= events + slack.
irq_bound() {
	if ((comp > 0 && comp <= events + slack)); then
		return 0
	fi
	fail "cx_irq_$1" "$comp completion interrupts for $events events (want 1 up to events + $slack)"
	return 1
}

echo "  vectors: $(snapshot | tr '\n' ' ')"
ctrl_total=0
if run unmoderated; then
	e0=$events c0=$comp
	ctrl_total=$((ctrl_total + ctrl))
	irq_bound unmoderated && pass cx_irq_unmoderated "$events events, $comp interrupts"
	if run moderated -m 4:4000; then
		ctrl_total=$((ctrl_total + ctrl))
		if irq_bound moderated; then
			if ((events < e0 && comp < c0)); then
				pass cx_irq_moderated "cq_count 4, cq_period 4000 us: $events events, $comp interrupts (unmoderated $e0, $c0)"
			else
				fail "cx_irq_moderated" "$events events, $comp interrupts, not fewer than unmoderated ($e0, $c0)"
			fi
		fi
	fi
fi
# cq_count beyond the messages: every event is the period's (the server's timer).
if run period_only -m 1000:1000; then
	ctrl_total=$((ctrl_total + ctrl))
	irq_bound period_only && pass cx_irq_period_only "cq_count 1000, cq_period 1000 us: $events events, $comp interrupts"
fi
# One message to a CQ armed before it came: nothing but cq_period's timer
# can raise its event (a server without the timer leaves it waiting).
if run period_alone -n 1 -m 2:1000; then
	if ((events == 1 && comp >= 1)); then
		pass cx_irq_period_alone "one message, cq_count 2: its event by cq_period, $comp interrupts"
	else
		fail "cx_irq_period_alone" "$events events, $comp interrupts for one message"
	fi
fi
if ((ctrl_total > 0 && ok_runs > 0)); then
	pass cx_irq_control_vector "$ctrl_total interrupts on the async/command/pages vector; the commands and SRQ limit events of $ok_runs runs delivered"
else
	fail "cx_irq_control_vector" "$ctrl_total interrupts on the control vector, $ok_runs runs complete"
fi
# The other completion vectors (mlx5_core creates their EQs on first use).
nvec=$(ibv_devinfo -v -d mlx5_0 | sed -n 's/.*num_comp_vectors:[[:space:]]*\([0-9]*\).*/\1/p')
for ((v = 1; v < ${nvec:-1}; v++)); do
	if run "comp_vector_$v" -c "$v"; then
		irq_bound "comp_vector_$v" && pass cx_irq_comp_vector_$v "$events events, $comp interrupts ($moved )"
	fi
done
echo "  vectors: $(snapshot | tr '\n' ' ')"
exit "$db_failed"
