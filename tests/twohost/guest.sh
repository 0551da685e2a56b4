#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Runs in each of the two guests of tests/vm/run2.sh (host A = server,
# host B = client, from DOORBELL_VM_HOST): for every SCENARIO, shape this
# guest's egress with tc netem, run rdma_xfer against the other guest, and
# report the netem and rxe counters.  On the software ConnectX (run2.sh
# --cx, DOORBELL_VM_CX_DIR), the device sends RoCE frames past the qdisc:
# the scenario goes instead to the wire's control file, DIR/wire.ctl
# (sim/mlx5/pci/wire.h: its rates per mille; the wire duplicates but does
# not delay), and the host judges what the wire did from the two servers'
# counts (tests/twohost/run-all.sh --connectx); rdma_xfer runs through
# tests/guest/mlx5/with-provider.sh, which proves the provider in its
# process and reads the device's violation count.  Both guests are given
# the same list and walk it in step (each scenario has its own TCP port;
# rdma_xfer checks that both sides run the same label).
#
# Usage: guest.sh BUILD_DIR SCENARIO...
#        guest.sh --labels SCENARIO...   (anywhere: print "SCENARIO LABEL EXPECT")
# Scenarios (netem on both guests' egress, so each direction sees the rate):
#   noloss        no qdisc
#   loss1         loss 1%
#   loss5         loss 5%
#   loss10        loss 10% (not in the default list; Linux 6.12's profile)
#   reorder_dup   delay 2ms reorder 15% 50% duplicate 2%
#   corrupt       corrupt 1% (the ICRC must turn corruption into loss)
# NAME_mixed runs NAME with every RC opcode on every QP (rdma_xfer -M mixed),
# labelled LABEL_mixed; the default puts send/write, READ and atomics on
# separate QPs (docs/reliability.md, "What Linux 6.1's rxe gets wrong under
# retransmission", says why).
# Environment: TWOHOST_XFER_ARGS extra rdma_xfer options for every scenario
#   (e.g. "-n 24 -m 1048576"), TWOHOST_PHASE_S bound of each phase (240),
#   TWOHOST_VERBOSE=1 progress lines, TWOHOST_PROVIDER=stock when the stock
#   provider serves rxe0 (no doorbell check), or on the ConnectX libmlx5
#   (default doorbell), TWOHOST_NETEM_LIMIT=N netem's
#   queue limit in packets (netem's default is 1000; a 4 MiB message is 4096
#   packets, and what does not fit is dropped before the wire, which rxe
#   counts as send_err).
# Prints rdma_xfer's PASS/FAIL lines and summary, plus per scenario:
#   PASS|FAIL twohost_served_by_doorbell_LABEL  (DOORBELL_DEBUG line seen;
#     on the ConnectX, twohost_served_LABEL: the witness of with-provider.sh,
#     and twohost_no_violations_LABEL: the device's count)
#   PASS|FAIL twohost_netem_injected_LABEL      (netem drops seen, or for
#     reorder_dup and corrupt, rxe sequence errors/duplicates/retries)
# On the ConnectX, after the scenarios: tests/twohost/pairs.sh's lines,
# twohost_pair_NAME, and its served and violation lines (label pairs).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"	# pass, fail, skip

# scenario NAME: sets spec (netem's), rates (the ConnectX wire's), label,
# expect (drop|dup|none), mode, dups.
scenario() {
	local scen=$1
	dups=() expect=drop mode=split
	if [[ $scen == *_mixed ]]; then
		mode=mixed
		scen=${scen%_mixed}
	fi
	case "$scen" in
	noloss) spec='' rates='' label=noloss expect=none ;;
	loss1) spec='loss 1%' rates='loss 10' label=1pct_loss ;;
	loss5) spec='loss 5%' rates='loss 50' label=5pct_loss ;;
	loss10) spec='loss 10%' rates='loss 100' label=10pct_loss ;;
	reorder_dup)
		spec='delay 2ms reorder 15% 50% duplicate 2%' rates='reorder 20 duplicate 20'
		label=reorder_dup dups=(-D) expect=dup
		;;
	corrupt) spec='corrupt 1%' rates='corrupt 10' label=1pct_corrupt expect=dup ;;
	*) return 1 ;;
	esac
	if [[ $mode == mixed ]]; then label+=_mixed; fi
	return 0
}

if [[ ${1:-} == --labels ]]; then
	shift
	for s in "$@"; do
		scenario "$s" || { echo "unknown scenario $s" >&2; exit 2; }
		echo "$s $label $expect"
	done
	exit 0
fi

build=${1:?usage: guest.sh BUILD_DIR SCENARIO...}
shift
role=${DOORBELL_VM_HOST:?not in a run2.sh guest}
nic=${DOORBELL_VM_NETDEV:?}
peer=${DOORBELL_VM_PEER_IPV4:?}
xfer=$build/tests/twohost/rdma_xfer
phase=${TWOHOST_PHASE_S:-240}
port=18800
counters=/sys/class/infiniband/$(db_ibdev)/ports/1/hw_counters
cx=${DOORBELL_VM_CX_DIR:-}
provider=${TWOHOST_PROVIDER:-doorbell}
rc=0

[[ -x $xfer ]] || { fail twohost_rdma_xfer_built "no $xfer"; exit 1; }

snap() { # file: rxe hw counters "name value"
	local f
	for f in "$counters"/*; do
		[[ -f $f ]] && echo "${f##*/} $(cat "$f")"
	done >"$1"
}

# "sent N dropped D" of the root qdisc (netem counts its losses as drops).
qstats() {
	tc -s qdisc show dev "$nic" | awk '/^ Sent/ { gsub(/[(,]/, " "); print "sent", $4, "dropped", $7; exit }'
}

# ConnectX: rdma_xfer through with-provider.sh, its lines named back (the
# provider's prefix off; its served and violation lines per scenario).
on_cx() {
	DOORBELL_CX_STATS=$cx/$role DOORBELL_PROVIDER_BUILD=$build \
		"$here/../guest/mlx5/with-provider.sh" "$provider" "$@" |
		sed -u -E "s/^(PASS|FAIL|SKIP) cx_(doorbell_)?(served|no_violations)_[A-Za-z0-9_]+/\1 twohost_\3_$label/;
			s/^(PASS|FAIL|SKIP) cx_(doorbell_)?twohost_/\1 twohost_/"
	return "${PIPESTATUS[0]}"
}

echo "host $role: $nic $DOORBELL_VM_IPV4, peer $peer, gid index $DOORBELL_VM_GID_INDEX, kernel $(uname -r)"
for scen in "$@"; do
	if ! scenario "$scen"; then
		fail twohost_scenario_known "$scen"
		rc=1
		continue
	fi
	args=(-l "$label" -p "$port" -T "$phase" -M "$mode" "${dups[@]}")
	port=$((port + 1))
	[[ ${TWOHOST_VERBOSE:-0} == 1 ]] && args+=(-v)
	# shellcheck disable=SC2206 # options are words
	args+=(${TWOHOST_XFER_ARGS:-})
	if [[ $role == a ]]; then args+=(-s); else args+=(-c "$peer"); fi
	# Bound: connect wait + two phases + set-up; rdma_xfer bounds each step itself.
	bound=(timeout -k 5 $((3 * phase + 180)))
	if [[ -n $cx ]]; then
		# Both hosts write the same line; the wire's counts go by label.
		echo "== scenario $label: the wire's rates per mille: ${rates:-none}; through $provider"
		echo "label $label $rates" >"$cx/wire.ctl"
		on_cx "${bound[@]}" "$xfer" "${args[@]}" || rc=1
		continue
	fi
	echo "== scenario $label: netem '${spec:-none}' on $nic egress of both hosts"
	tc qdisc del dev "$nic" root 2>/dev/null
	if [[ -n $spec && -n ${TWOHOST_NETEM_LIMIT:-} ]]; then
		spec+=" limit $TWOHOST_NETEM_LIMIT"
	fi
	if [[ -n $spec ]]; then
		# shellcheck disable=SC2086 # the spec is words
		if ! tc qdisc add dev "$nic" root netem $spec; then
			fail "twohost_netem_${label}" "tc qdisc add dev $nic root netem $spec failed"
			rc=1
			continue
		fi
	fi
	snap /tmp/c0
	t0=$SECONDS
	DOORBELL_DEBUG=1 "${bound[@]}" "$xfer" "${args[@]}" 2>/tmp/xfer.err
	xrc=$?
	grep -v '^doorbell: ' /tmp/xfer.err
	((xrc)) && { echo "rdma_xfer exited $xrc"; rc=1; }
	if [[ ${TWOHOST_PROVIDER:-doorbell} == stock ]]; then
		: # the stock provider: nothing to prove
	elif grep -q 'doorbell: .*serving the device' /tmp/xfer.err; then
		pass "twohost_served_by_doorbell_$label"
	else
		fail "twohost_served_by_doorbell_$label" "no DOORBELL_DEBUG line from doorbell"
		rc=1
	fi
	snap /tmp/c1
	read -r _ sent _ dropped < <(qstats)
	sent=${sent:-0} dropped=${dropped:-0}
	delta=$(join /tmp/c0 /tmp/c1 | awk '$3 != $2 { printf " %s +%d", $1, $3 - $2 }')
	echo "host $role $label: $((SECONDS - t0))s; netem sent $sent packets, dropped $dropped" \
		"($(awk -v d="$dropped" -v s="$sent" 'BEGIN { printf "%.2f", s + d ? 100 * d / (s + d) : 0 }')%);" \
		"rxe counters:${delta:- none changed}"
	# Evidence that the wire misbehaved: netem's drops, or (duplicates,
	# reordering, corruption, which netem does not count) rxe's sequence
	# errors, duplicate requests and retries.
	evidence=$(join /tmp/c0 /tmp/c1 | awk '$1 ~ /^(rcvd_seq_err|out_of_seq_request|duplicate_request|completer_retry_err)$/ { n += $3 - $2 } END { print n + 0 }')
	case "$expect" in
	drop) what="netem dropped $dropped packets" ok=$((dropped > 0)) ;;
	dup) what="rxe saw $evidence sequence errors, duplicates or retries" ok=$((evidence > 0)) ;;
	*) ok=-1 ;;
	esac
	if ((ok == 1)); then
		pass "twohost_netem_injected_$label"
	elif ((ok == 0)); then
		fail "twohost_netem_injected_$label" "$what"
		rc=1
	fi
	tc qdisc del dev "$nic" root 2>/dev/null
done
# ConnectX: then the pingpongs and perftest across the hosts, the wire clean.
if [[ -n $cx ]]; then
	label=pairs
	echo "== the pingpongs and perftest across the hosts (tests/twohost/pairs.sh); through $provider"
	echo "label $label" >"$cx/wire.ctl"
	on_cx "$here/pairs.sh" || rc=1
fi
exit $rc
