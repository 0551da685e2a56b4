#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run COMMAND in a guest (sid's Linux 7.x by default) whose PCI bus holds the software
# ConnectX (sim/mlx5/pci, docs/connectx-device.md), driven by the guest's own
# mlx5_core and mlx5_ib.  Builds the device server, starts it on a
# vfio-user socket, boots the guest with sid's QEMU attached to it
# (tests/vm/run.sh --vfio-user), loads the drivers, waits for mlx5_0, prints
# the driver's kernel lines and runs COMMAND; then the server's log of the
# commands the driver sent (opcode, op_mod, status), which shows how far
# the driver got.
#
# Usage: scripts/cx.sh [--distro sid|bookworm] [--timeout SECS] [--wait SECS]
#                     [--always] [--no-build] [--log FILE] [--vectors N]
#                     [--eth | --pair [--loss N] [--reorder N]] [--slow[=N]]
#                     -- COMMAND [ARGS...]
#   e.g. scripts/cx.sh -- ibv_devinfo -d mlx5_0
#   --distro D    the guest (default sid, Linux 7.x; bookworm: Debian 12's 6.1)
#   --wait SECS   how long to wait for mlx5_0 after loading the drivers (60)
#   --always      run COMMAND even when mlx5_0 did not appear
#   --log FILE    keep the server's whole log (one line per command) in FILE
#   --vectors N   the function offers N MSI-X vectors (cx-server --vectors),
#                 fewer than mlx5_core wants, so that its EQs share them
#   --eth         the port is Ethernet (cx-server --eth): mlx5e binds, and
#                 mlx5_ib registers the port with link layer Ethernet
#   --pair        two Ethernet functions on one wire (implies --eth): a
#                 second cx-server, MAC 00:02:c9:00:63:79, each server's
#                 frames going to the other (cx-server --wire, --peer);
#                 --loss N, --reorder N: the wire loses, reorders that many
#                 frames per mille each way (cx-server --loss, --reorder)
#   --slow[=N]    a slow device (cx-server --slow): WQEs run from a timer, N
#                 (default 2) per QP per tick, READ and atomic responses land
#                 after later unfenced WQEs, each WQE is compared at its CQE
# Exit status: COMMAND's; 3 if mlx5_0 never appeared; run.sh's 124/125;
# 1 if COMMAND passed but cx-server failed (crashed, sanitizer report).
# DOORBELL_BUILD_DIR with --no-build: the build whose cx-server to use
# (e.g. one built with -fsanitize=address).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
timeout_s=600
distro=sid
wait_s=60
always=()
build=1
log=
vectors=()
eth=()
pair=0
lossy=()
slow=()
while (($#)); do
	case "$1" in
	--distro) distro=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--wait) wait_s=${2:?}; shift ;;
	--no-build) build=0 ;;
	--always) always=(--always) ;;
	--log) log=${2:?}; shift ;;
	--vectors) vectors=(--vectors "${2:?}"); shift ;;
	--eth) eth=(--eth) ;;
	--pair) eth=(--eth) pair=1 ;;
	--loss | --reorder) lossy+=("$1" "${2:?}"); shift ;;
	--slow | --slow=*) slow=("$1") ;;
	--) shift; break ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (COMMAND goes after --)" ;;
	esac
	shift
done
(($#)) || die "no COMMAND (scripts/cx.sh -- ibv_devinfo)"
((!${#lossy[@]} || pair)) || die "--loss and --reorder need --pair"

if ((build)); then
	bdir=$("$top/scripts/build.sh")
else
	bdir=${DOORBELL_BUILD_DIR:-$top/build}
fi
server=$bdir/sim/mlx5/pci/cx-server
[[ -x $server ]] || die "no $server (build first)"

work=$(mktemp -d /tmp/cx.XXXXXX)
sock=$work/cx.sock
spid=
spid2=
# shellcheck disable=SC2317 # invoked by trap
cleanup() {
	local p
	for p in $spid $spid2; do
		if kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

# The engine's violation lines, live (cx-server --stats), in a folder the
# guest shares: with-provider.sh judges each of its commands by them, and a
# check that breaks a rule on purpose names it in expected (below).
stats=$work/stats
mkdir "$stats"
wire=()
devices=(--vfio-user "$sock")
if ((pair)); then
	wire=(--mac 00:02:c9:00:63:78 --wire "$work/wire0" --peer "$work/wire1" "${lossy[@]}")
	"$server" --trace --eth --mac 00:02:c9:00:63:79 --wire "$work/wire1" \
		--peer "$work/wire0" "${lossy[@]}" --seed 2 "${vectors[@]}" \
		"$work/cx2.sock" 2>"$work/server2.log" &
	spid2=$!
	devices+=(--vfio-user "$work/cx2.sock")
fi
"$server" --trace "${eth[@]}" "${wire[@]}" "${vectors[@]}" "${slow[@]}" --stats "$stats/violations" "$sock" 2>"$work/server.log" &
spid=$!
for ((i = 0; i < 50; i++)); do
	[[ -S $sock ]] && { ((!pair)) || [[ -S $work/cx2.sock ]]; } && break
	sleep 0.1
done
[[ -S $sock ]] || die "cx-server did not listen on $sock: $(cat "$work/server.log")"
((!pair)) || [[ -S $work/cx2.sock ]] ||
	die "the second cx-server did not listen: $(cat "$work/server2.log")"

rc=0
"$top/tests/vm/run.sh" --distro "$distro" "${devices[@]}" --timeout "$timeout_s" \
	--share "$stats" --env DOORBELL_CX_STATS="$stats" \
	-- "$top/tests/guest/mlx5/guest-cx.sh" --wait "$wait_s" "${always[@]}" -- "$@" || rc=$?

# The server exits when QEMU hangs up; a crash (or an ASan report) fails
# the run even when COMMAND passed.
src=0
for ((i = 0; i < 50; i++)); do
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$spid" 2>/dev/null; then
	echo "cx.sh: cx-server still running after QEMU exited: stopped"
else
	wait "$spid" || src=$?
	spid=
fi
if ((pair)); then
	for ((i = 0; i < 50; i++)); do
		kill -0 "$spid2" 2>/dev/null || break
		sleep 0.1
	done
	s2=0
	if kill -0 "$spid2" 2>/dev/null; then
		echo "cx.sh: the second cx-server still running after QEMU exited: stopped"
	else
		wait "$spid2" || s2=$?
		spid2=
	fi
	echo "--- the second device server (exit $s2): the commands that failed, its wire"
	{ grep '^cx: cmd ' "$work/server2.log" | grep -v 'status 0x0$' || true; } | tail -n 20 | sed 's/^/  /'
	{ grep -E '^(stat: eth_|violations|m5model|cx-server)' "$work/server2.log" || true; } | sed 's/^/  /'
	((s2 == 0)) || src=$s2
	[[ -z $log ]] || cp "$work/server2.log" "$log.2"
	# Unless asked to lose frames, the wire lost none either way.
	lost=$(cat "$work/server.log" "$work/server2.log" |
		awk '/^stat: wire_(lost|overflow) / { n += $3 } END { print n + 0 }')
	sent=$(cat "$work/server.log" "$work/server2.log" |
		awk '/^stat: wire_sent / { n += $3 } END { print n + 0 }')
	if ((${#lossy[@]})); then
		echo "--- the wire: $sent frames sent, $lost lost"
	elif ((lost == 0 && sent > 0)); then
		pass cx_pair_wire_lost_nothing "$sent frames sent"
	else
		fail cx_pair_wire_lost_nothing "$lost of $((sent + lost)) frames lost"
		((rc)) || rc=1
	fi
fi
n=$(grep -c '^cx: cmd ' "$work/server.log" || true)
echo "--- device server: $n commands; count per opcode:"
grep '^cx: cmd ' "$work/server.log" | awk '{print $3}' | sort | uniq -c |
	awk '{printf "%s%s x%s", (NR > 1 ? ", " : "  "), $2, $1} END {print ""}'
echo "--- device server: the commands that failed, then the last 30"
{ grep -v -e '^cx: cmd .*status 0x0$' "$work/server.log" || true; } | tail -n 30 | sed 's/^/  /'
echo "  ..."
tail -n 30 "$work/server.log" | sed 's/^/  /'
[[ -z $log ]] || cp "$work/server.log" "$log"
# One line on the server itself; with a sanitizer build (stage cx runs one
# guest on build-asan), its report's first lines.
san_re='ERROR: (Address|Leak)Sanitizer|runtime error:'
# Status 3: the engine's checks counted violations (cx_eng_report), per rule.
if grep -q '^violations: ' "$work/server.log"; then
	echo "--- device server: $(grep '^violations: ' "$work/server.log" | paste -sd';' -)"
	grep -m 20 -E '^(m5model.*|cx: )violation' "$work/server.log" | sed 's/^/  /' || true
fi
# Status 3 from violations a check caused on purpose, each named in
# $stats/expected ("RULE N CHECK" lines: check-violations-referee.sh), and
# no other: the run is clean.
if ((src == 3)) && [[ -s $stats/expected ]]; then
	left=$({ db_violation_rules "$work/server.log"; awk 'NF { print $1, -$2 }' "$stats/expected"; } |
		awk '{ n[$1] += $2 } END { for (r in n) if (n[r]) print r, n[r] }')
	if [[ -z $left ]]; then
		echo "--- device server: every violation was caused on purpose:$(awk '{printf " %s %s (%s)", $1, $2, $3}' "$stats/expected")"
		src=0
	else
		echo "--- device server: violations beyond the expected ones: $(paste -sd' ' <<<"$left")"
	fi
fi
# --slow: the server's count of WQEs completed a tick after they ran proves
# the device was slow (0 would mean every check ran at its doorbells).
if ((${#slow[@]})); then
	line=$(grep -m1 '^slow: ' "$work/server.log" || true)
	if [[ $line =~ per\ tick\;\ ([0-9]+)\ WQEs ]] && ((BASH_REMATCH[1] > 0)); then
		pass cx_ran_wqes_late "${line#slow: }"
	else
		fail cx_ran_wqes_late "no WQE completed late (${line:-no slow: line})"
		((rc)) || rc=1
	fi
fi
why=""
((src == 0)) || why="cx-server exited with status $src"
grep -Eq "$san_re" "$work/server.log" && why+="${why:+; }a sanitizer report"
if [[ -n $why ]]; then
	fail cx_server_ends_clean "$why"
	{ grep -E -A12 "$san_re" "$work/server.log" || true; } | head -40 | sed 's/^/  /'
	((rc)) || rc=1
else
	pass cx_server_ends_clean
fi
exit "$rc"
