#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Two-host reliability tests: boots two QEMU guests joined by a virtual wire
# (tests/vm/run2.sh), each with rxe0 on its virtio NIC, and runs rdma_xfer
# between them through doorbell for every scenario in one boot, changing the
# netem qdisc on both guests' egress between scenarios (tests/twohost/guest.sh);
# or the same on the software ConnectX (--connectx).
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
#                      (default "-n 32 -m 4194304 -r 1048576 -u 1000 -t 16";
#                      --connectx: "-n 16 -m 1048576 -r 65536 -u 1000 -t 16",
#                      see below)
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
#   --connectx         the software ConnectX instead of rxe (issue #32): two
#                      cx-servers, Ethernet functions on one wire (their
#                      frames between them over a socket), one per guest
#                      (run2.sh --cx); the scenarios set the wire's rates
#                      (sim/mlx5/pci/wire.h) instead of netem; with --stock,
#                      libmlx5 serves. Test names become twohost_cx_*
#                      (twohost_cx_libmlx5_*, and D_ before cx_ as above).
#                      The host adds, per scenario, twohost_cx_wire_injected
#                      (the servers' counts of frames lost, reordered or
#                      duplicated, corrupted); per run, that the engines
#                      resent RC packets and dropped the corrupted ones by
#                      their ICRC when a scenario asked for it, and that
#                      both servers ended clean (no violation, no crash).
#                      After the scenarios, on a clean wire, the pingpongs
#                      and perftest run across the hosts
#                      (tests/twohost/pairs.sh; perftest built without
#                      libmlx5 by scripts/build-perftest.sh).
#                      The device's requester puts a message's packets on
#                      the wire at once, unpaced, and resends go-back-N
#                      the same way; the wire queues 65,536 frames and
#                      drops the rest (overflow, in the summary), as a
#                      switch's buffer would. rxe's 32 messages of up to 4
#                      MiB a QP and READs of 1 MiB overflow it under loss,
#                      and the congestion defeats the retry counts: the
#                      default messages are smaller, and the reorder_dup
#                      scenario reorders and duplicates 2% (netem: 15%
#                      and 2%), where one NAK every few packets would
#                      flood it
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
xfer_args=
phase=
timeout_s=
distro=bookworm
stock=0
cx=0
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
	--connectx) cx=1 rerun=0 ;;
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
if [[ -z $xfer_args ]]; then
	xfer_args="-n 32 -m 4194304 -r 1048576 -u 1000 -t 16"
	((cx)) && xfer_args="-n 16 -m 1048576 -r 65536 -u 1000 -t 16"
fi
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
if ((cx)); then
	server=$build/sim/mlx5/pci/cx-server
	[[ -x $server ]] || { fail twohost_cx_server_built "no $server"; exit 1; }
	# The pairs' perftest, without libmlx5, for either provider
	# (with-provider.sh); built once, then found.
	if ! DOORBELL_BUILD_DIR=$build "$top/scripts/build-perftest.sh" >/dev/null 2>"$tmp/perftest.log"; then
		fail twohost_cx_perftest_without_direct_verbs_builds "$(tail -n 3 "$tmp/perftest.log")"
		exit 1
	fi
	cxdir=$tmp/cx
	mkdir -p "$cxdir/a" "$cxdir/b"
	run2+=(--cx "$cxdir")
	prov=doorbell
	((stock)) && prov=libmlx5
	run2+=(--env "TWOHOST_PROVIDER=$prov")
	prefix=twohost_${kname}cx_
	((stock)) && prefix+=libmlx5_
	echo "== two hosts ($distro) on the software ConnectX's wire, through $prov; scenarios: $scenarios"
elif ((stock)); then
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
# --connectx: the two functions' servers, A's and B's, on one wire whose
# rates the guests set (DIR/wire.ctl); each serves one boot and exits.
cx_servers_start() {
	local r peer seed=1 mac=78
	for r in a b; do
		peer=b
		[[ $r == b ]] && peer=a mac=79 seed=2
		rm -f "$cxdir/$r.sock" "$cxdir/wire.ctl"
		"$server" --eth --mac "00:02:c9:00:63:$mac" --wire "$cxdir/wire.$r" \
			--peer "$cxdir/wire.$peer" --seed "$seed" --wire-ctl "$cxdir/wire.ctl" \
			--stats "$cxdir/$r/violations" "$cxdir/$r.sock" 2>"$cxdir/server.$r.log" &
		cx_pid[$r]=$!
	done
	for _ in $(seq 50); do
		[[ -S $cxdir/a.sock && -S $cxdir/b.sock ]] && return
		sleep 0.1
	done
	fail twohost_cx_servers_listen "$(cat "$cxdir"/server.*.log)"
	exit 1
}
# Their end (they exit when QEMU hangs up): the status of each, in cx_rc.
declare -A cx_pid cx_rc
cx_servers_end() {
	local r
	for r in a b; do
		for _ in $(seq 50); do
			kill -0 "${cx_pid[$r]}" 2>/dev/null || break
			sleep 0.1
		done
		kill "${cx_pid[$r]}" 2>/dev/null && echo "note: cx-server $r still running after QEMU exited: stopped"
		cx_rc[$r]=0
		wait "${cx_pid[$r]}" || cx_rc[$r]=$?
	done
}

# boot LOG SCENARIO...: one boot of the pair for SCENARIOs, its output in
# LOG; sets rc, and res_a/res_b (test name to PASS or "FAIL why").
declare -A res_a res_b
boot() {
	local blog=$1 line h r n why v
	shift
	((cx)) && cx_servers_start
	"${run2[@]}" -- "$here/guest.sh" "$build" "$@" 2>&1 | tee "$blog" | show
	rc=${PIPESTATUS[0]}
	((cx)) && cx_servers_end
	# The servers' logs beside a kept guest log.
	if ((cx)) && [[ $blog != "$tmp"/* ]]; then
		cp "$cxdir/server.a.log" "$blog.server.a"
		cp "$cxdir/server.b.log" "$blog.server.b"
	fi
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
	if ((cx)); then
		expected+=("twohost_served_$label" "twohost_no_violations_$label")
	else
		((stock)) || expected+=("twohost_served_by_doorbell_$label")
		[[ $expect != none ]] && expected+=("twohost_netem_injected_$label")
	fi
done <<<"$labels"
# --connectx: the pairs after the scenarios (tests/twohost/pairs.sh).
if ((cx)); then
	mapfile -t -O "${#expected[@]}" expected < <("$here/pairs.sh" --names)
	expected+=(twohost_served_pairs twohost_no_violations_pairs)
fi
# Anything else the guests reported (e.g. twohost_scenario_known).
for n in "${!res_a[@]}" "${!res_b[@]}"; do
	[[ " ${expected[*]} " == *" $n "* ]] || expected+=("$n")
done

# --connectx: what the wire did in each scenario, by the label the guests
# wrote (sum of both ends' segments); the engines' RC resends and ICRC
# drops; the servers' end.
cx_verdicts() {
	local bad=0 label expect what n got r why
	while read -r _ label expect; do
		[[ $expect == none ]] && continue
		case "$label" in
		*corrupt*) what=corrupted ;;
		*reorder*) what='reordered duplicated' ;;
		*) what=lost ;;
		esac
		got=0
		for n in $what; do
			got=$((got + $(awk -v l="$label" -v k="$n" '$1 == "stat:" && $2 == "wire_segment" && $3 == l {
				for (i = 4; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$cxdir"/server.?.log)))
		done
		if ((got > 0)); then
			pass "${prefix}wire_injected_$label" "$got frames ${what// / or }"
		else
			fail "${prefix}wire_injected_$label" "the wire reports no frame ${what// / or }"
			bad=1
		fi
	done <<<"$labels"
	echo "the wire, both ways: $(awk '$1 == "stat:" && $2 ~ /^(wire_|roce_(bad_icrc|packets))/ && $2 != "wire_segment" {
		k = substr($2, 1, 5) == "wire_" ? substr($2, 6) : $2; v[k] += $3; if (!(k in o)) { o[k] = n++; names[n - 1] = k } }
		END { for (i = 0; i < n; i++) printf "%s%s %d", i ? ", " : "", names[i], v[names[i]] }' "$cxdir"/server.?.log)"
	# Frames lost, reordered or corrupted: the requesters resent.
	n=$(awk '/^stat: roce_packets / { s += $7 } END { print s + 0 }' "$cxdir"/server.?.log)
	if grep -qE '^stat: wire_segment [^ ]+ sent [0-9]+ lost [1-9]' "$cxdir"/server.?.log; then
		if ((n > 0)); then pass "${prefix}rc_resent_what_the_wire_lost" "$n RoCE packets resent"; else
			fail "${prefix}rc_resent_what_the_wire_lost" "the wire lost frames, and no RoCE packet was resent"
			bad=1
		fi
	fi
	n=$(awk '/^stat: roce_bad_icrc / { s += $3 } END { print s + 0 }' "$cxdir"/server.?.log)
	if grep -qE '^stat: wire_segment .* corrupted [1-9]' "$cxdir"/server.?.log; then
		if ((n > 0)); then pass "${prefix}icrc_drops_corrupted_packets" "$n RoCE packets dropped"; else
			fail "${prefix}icrc_drops_corrupted_packets" "the wire corrupted frames, and no ICRC failed"
			bad=1
		fi
	fi
	why=
	for r in a b; do
		((${cx_rc[$r]:-1} == 0)) || why+="${why:+; }cx-server $r exited with status ${cx_rc[$r]:-none}"
		grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$cxdir/server.$r.log" &&
			why+="${why:+; }a sanitizer report from $r"
	done
	if [[ -z $why ]]; then pass "${prefix}servers_end_clean"; else
		fail "${prefix}servers_end_clean" "$why"
		grep -hE '^(violations|stat: (wire|roce))' "$cxdir"/server.?.log | sed 's/^/    /'
		bad=1
	fi
	return "$bad"
}

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
((cx)) && { cx_verdicts || failed=1; }
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
elif ((failed)); then
	# The log goes with tmp: the guests' failures and the indented lines
	# that follow them (the programs' last words), the first 80.
	echo "the guests' failures:"
	awk '/^[AB]\| FAIL / { on = 1; print; next } on && /^[AB]\|   / { print; next } { on = 0 }' "$log" |
		head -n 80 | sed 's/^/    /'
fi
exit $failed
