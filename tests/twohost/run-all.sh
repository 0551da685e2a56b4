#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Two-host reliability tests: boots two QEMU guests joined by a virtual wire
# (tests/vm/run2.sh), each with rxe0 on its virtio NIC, and runs rdma_xfer
# between them through doorbell for every scenario in one boot, changing the
# netem qdisc on both guests' egress between scenarios (tests/twohost/guest.sh).
# Prints one PASS/FAIL line per test (a test passes when both hosts pass it),
# notes on kernel warnings, and a summary: bytes verified, WRs completed,
# netem loss rates, run time.
#
# Usage: tests/twohost/run-all.sh [options]
#   --build DIR        build tree (default: the checkout's build/, built with
#                      scripts/build.sh if rdma_xfer or the provider is missing)
#   --scenarios "S..." default "noloss loss1 loss5 reorder_dup corrupt"; also
#                      NAME_mixed (every RC opcode on every QP), see guest.sh
#   --xfer-args "..."  rdma_xfer options for every scenario
#                      (default "-n 32 -m 4194304 -r 1048576 -u 1000 -t 16")
#   --phase SECS       bound of each rdma_xfer phase (default 150, times
#                      the distribution's scale)
#   --timeout SECS     bound of the whole guest run (default 900, times the
#                      distribution's scale)
#   --distro D         bookworm (default: Debian 12, Linux 6.1), trixie
#                      (Debian 13, Linux 6.12) or sid: both guests boot that
#                      suite's root and kernel (tests/vm/run2.sh --distro).
#                      Test names become twohost_D_* (not for bookworm), and
#                      the default bounds are scaled by 3 (6.12 and 7.x rxe
#                      are 3-5 times slower than 6.1's under TCG)
#   --netem-limit N    netem's queue limit in packets (default: netem's, 1000)
#   --stock            run the stock provider (librxe) instead of doorbell, to
#                      tell kernel failures from provider ones; test names
#                      become twohost_stock_* (twohost_D_stock_*)
#   --log FILE         keep the full guest output (default: a temporary file,
#                      shown in part on failure)
#   --no-rerun         no second boot (see below)
#   -v, --verbose      stream every guest line (indented) as it comes
# When tests fail and the kernel of a guest logged a WARNING in rxe's
# completer (rxe_completer: the retried-READ bug of docs/reliability.md,
# which librxe meets too), the scenarios with failures run once more in a
# second boot, whose results replace theirs; a note says so. So do the
# scenarios left without a result when a guest died silently: QEMU ended
# (exit 0) with nothing on the guest's console, no kernel message (the
# machine was reset under it, as a triple fault does). Any other failure
# stands.
# Exit status: 0 when every test passed.

set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip

build=
scenarios="noloss loss1 loss5 reorder_dup corrupt"
xfer_args="-n 32 -m 4194304 -r 1048576 -u 1000 -t 16"
phase=
timeout_s=
distro=bookworm
stock=0
netem_limit=
log=
verbose=0
rerun=1
usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; }
while (($#)); do
	case "$1" in
	--build) build=${2:?}; shift ;;
	--scenarios) scenarios=${2:?}; shift ;;
	--xfer-args) xfer_args=${2?}; shift ;;
	--phase) phase=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--distro) distro=${2:?}; shift ;;
	--stock) stock=1 ;;
	--netem-limit) netem_limit=${2:?}; shift ;;
	--log) log=${2:?}; shift ;;
	--no-rerun) rerun=0 ;;
	-v | --verbose) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-all.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

# Linux 6.12 and 7.x rxe are 3-5 times slower than 6.1's under TCG.
case "$distro" in
bookworm) scale=1 kname= ;;
trixie | sid) scale=3 kname=${distro}_ ;;
*) echo "run-all.sh: unknown --distro '$distro' (bookworm, trixie or sid)" >&2; exit 2 ;;
esac
phase=${phase:-$((150 * scale))}
timeout_s=${timeout_s:-$((900 * scale))}

t0=$SECONDS
if [[ -z $build ]]; then
	build=$top/build
	if [[ ! -x $build/tests/twohost/rdma_xfer || ! -e $build/lib/libdoorbell-rdmav34.so ]]; then
		build=$("$top/scripts/build.sh") || { fail twohost_build; exit 1; }
	fi
fi
build=$(realpath "$build")
if [[ ! -x $build/tests/twohost/rdma_xfer ]]; then
	fail twohost_rdma_xfer_built "no $build/tests/twohost/rdma_xfer"
	exit 1
fi

# shellcheck disable=SC2086 # scenario names are words
labels=$("$here/guest.sh" --labels $scenarios) || exit 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -n $log ]] || log=$tmp/guest.log

run2=("$top/tests/vm/run2.sh" --distro "$distro" --timeout "$timeout_s" --grace 30
	--env "TWOHOST_PHASE_S=$phase" --env "TWOHOST_XFER_ARGS=$xfer_args")
[[ -n $netem_limit ]] && run2+=(--env "TWOHOST_NETEM_LIMIT=$netem_limit")
if ((stock)); then
	run2+=(--keep-stock --env TWOHOST_PROVIDER=stock)
	prefix=twohost_${kname}stock_
	echo "== two hosts ($distro), stock provider (librxe); scenarios: $scenarios"
else
	run2+=(--env "RDMAV_DRIVERS=$build/lib/libdoorbell")
	prefix=twohost_$kname
	echo "== two hosts ($distro) through doorbell; scenarios: $scenarios"
fi
# The stock provider must not be selected by an inherited RDMAV_DRIVERS.
((stock)) && unset RDMAV_DRIVERS

# Progress: scenario starts, the rdma_xfer phase lines and errors, the
# per-host counters; everything with -v. PASS/FAIL lines are merged below.
show() {
	if ((verbose)); then
		sed -u 's/^/    /'
	else
		grep --line-buffered -E '^[AB]\| (== scenario|  \[.*(RC phase|UD phase|error)|host [ab] [a-z0-9_]+: )|^run2:|doorbell-vm: (error|TIMEOUT|guest)' |
			sed -u 's/^/    /'
	fi
}
# boot LOG SCENARIO...: one boot of the pair for SCENARIOs, its output in
# LOG; sets rc, and res_a/res_b (test name to PASS or "FAIL why").
declare -A res_a res_b
boot() {
	local blog=$1 line h r n why v
	shift
	"${run2[@]}" -- "$here/guest.sh" "$build" "$@" 2>&1 | tee "$blog" | show
	rc=${PIPESTATUS[0]}
	# A test passes when both hosts print PASS for it.
	while IFS= read -r line; do
		if [[ $line =~ ^([AB])\|\ (PASS|FAIL)\ ([A-Za-z0-9_]+)(:\ (.*))?$ ]]; then
			h=${BASH_REMATCH[1]} r=${BASH_REMATCH[2]} n=${BASH_REMATCH[3]} why=${BASH_REMATCH[5]}
			v=$r
			[[ $r == FAIL ]] && v="FAIL ${why:-}"
			if [[ $h == A ]]; then res_a[$n]=$v; else res_b[$n]=$v; fi
		fi
	done <"$blog"
}
# shellcheck disable=SC2086 # scenario names are words
boot "$log" $scenarios

# boot_again: the scenarios in again, in a second boot appended to the log.
boot_again() {
	cp "$log" "$log.first"
	boot "$log.rerun" "${again[@]}"
	cat "$log.rerun" >>"$log"
	boots=2
}

# The kernel's retried-READ bug (docs/reliability.md): a WARNING in rxe's
# completer. The scenarios with a failed test then get one more boot.
kernel_bug='^[AB]\| +\[ *[0-9.]+\] WARNING: .*rxe_completer'
boots=1
if ((rerun && rc != 124 && rc != 125)) && grep -qE "$kernel_bug" "$log"; then
	again=()
	while read -r sc label _; do
		for n in "${!res_a[@]}" "${!res_b[@]}"; do
			if [[ $n == *"_${label}"* && "${res_a[$n]:-}${res_b[$n]:-}" == *FAIL* ]]; then
				again+=("$sc")
				break
			fi
		done
	done <<<"$labels"
	if ((${#again[@]})); then
		echo "note: the kernel logged a WARNING in rxe_completer (the retried-READ bug, docs/reliability.md); ${again[*]} failed: running them once more in a second boot"
		grep -E '^[AB]\| (FAIL) ' "$log" | sed 's/^/    first boot: /'
		grep -E "$kernel_bug" "$log" | sed 's/^/    first boot: /' | sort -u
		boot_again
	fi
fi
# A guest that died silently (above): its scenarios without a result.
silent_death='^[AB]\| doorbell-vm: guest died without reporting an exit status \(qemu rc 0\)$'
# run2.sh exits with A's status when it is not 0: when B died and A was
# then stopped, that is 143, and B's 125 is on run2.sh's last line.
guest_died() {
	((rc == 125)) || grep -qE '^run2: A exit [0-9]+, B exit 125 ' "$log"
}
if ((rerun && boots == 1)) && guest_died && grep -qE "$silent_death" "$log" &&
	! grep -q 'doorbell-vm: last lines of the guest console' "$log"; then
	again=()
	while read -r sc label _; do
		n=twohost_setup_and_teardown_$label
		[[ -n ${res_a[$n]:-} && -n ${res_b[$n]:-} ]] || again+=("$sc")
	done <<<"$labels"
	if ((${#again[@]})); then
		echo "note: a guest died with nothing on its console (QEMU exit 0, no kernel message); ${again[*]} had no result: running them once more in a second boot"
		grep -E "$silent_death" "$log" | sed 's/^/    first boot: /'
		boot_again
	fi
fi

expected=()
while read -r _ label expect; do
	for t in setup_and_teardown_L rc_send_write_L_all_bytes_verified rc_read_L_all_bytes_verified \
		rc_atomics_L_exact rc_completions_L_exactly_once_in_order ud_L_intact_or_missing; do
		expected+=("twohost_${t/L/$label}")
	done
	((stock)) || expected+=("twohost_served_by_doorbell_$label")
	[[ $expect != none ]] && expected+=("twohost_netem_injected_$label")
done <<<"$labels"
# Anything else the guests reported (e.g. twohost_scenario_known).
for n in "${!res_a[@]}" "${!res_b[@]}"; do
	[[ " ${expected[*]} " == *" $n "* ]] || expected+=("$n")
done

failed=0
for n in "${expected[@]}"; do
	a=${res_a[$n]:-} b=${res_b[$n]:-}
	name=$prefix${n#twohost_}
	if [[ $a == PASS && $b == PASS ]]; then
		pass "$name"
		continue
	fi
	failed=1
	why=()
	[[ $a == FAIL* ]] && why+=("A: ${a#FAIL }")
	[[ $b == FAIL* ]] && why+=("B: ${b#FAIL }")
	[[ -z $a ]] && why+=("no result from A")
	[[ -z $b ]] && why+=("no result from B")
	printf -v j '%s; ' "${why[@]}"
	fail "$name" "${j%; }"
done
if ((rc == 124 || rc == 125)); then
	fail "${prefix}guests_complete" "run2.sh exit $rc (124 timeout, 125 guest set-up or crash)"
	failed=1
fi

# Kernel warnings the guests' dmesg showed (run.sh lists them).
grep -E '^[AB]\| +\[ *[0-9.]+\] WARNING: ' "$log" | sed -E 's/^([AB])\| +/note: host \1 kernel /' | sort -u

# Summary, of every boot.
awk -v t=$((SECONDS - t0)) -v boots="$boots" '
	/^[AB]\| twohost summary / {
		for (i = 1; i <= NF; i++) {
			if ($i == "bytes" && $(i + 1) == "verified,") bytes += $(i - 1)
			if ($i == "WRs" && $(i + 1) == "completed") wrs += $(i - 1)
			if ($i == "receives;") recvs += $(i - 1)
		}
	}
	/^[AB]\| host [ab] [a-z0-9_]+: .*netem sent/ {
		lab = $4; sub(/:$/, "", lab)
		for (i = 1; i <= NF; i++) {
			if ($i == "sent") sent[lab] += $(i + 1)
			if ($i == "dropped") drop[lab] += $(i + 1)
		}
		if (!(lab in seen)) { seen[lab] = 1; order[n++] = lab }
	}
	END {
		printf "twohost summary: %d bytes verified, %d RC WRs and %d receives completed (both hosts%s);", bytes, wrs, recvs, (boots > 1 ? ", both boots" : "")
		for (i = 0; i < n; i++) {
			l = order[i]
			printf " %s %.2f%% dropped", l, sent[l] + drop[l] ? 100 * drop[l] / (sent[l] + drop[l]) : 0
			printf (i + 1 < n ? "," : ";")
		}
		printf " %d s\n", t
	}' "$log"
if ((failed)) && [[ $log != "$tmp"/* ]]; then
	echo "(full guest output in $log)"
fi
exit $failed
