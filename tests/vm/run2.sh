#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Run two commands in two throw-away QEMU (TCG) guests joined by a virtual
# Ethernet wire, each guest with Soft-RoCE rxe0 on its virtio NIC:
# host A 10.88.0.1/24, host B 10.88.0.2/24. One run.sh per guest.
#
# Usage: tests/vm/run2.sh [options] -- CMD_A [ARGS...] ::: CMD_B [ARGS...]
#        tests/vm/run2.sh [options] -- CMD [ARGS...]   (the same command on both)
#   --out DIR        writable host directory, the same one in both guests
#                    (default: a new temporary directory, removed if empty)
#   --share DIR      one more writable host directory (repeatable)
#   --env NAME=VALUE set a variable for both commands (repeatable)
#   --keep-stock     keep the stock rxe provider (rxe.driver) visible
#   --distro D       bookworm (default, $DOORBELL_VM_DISTRO): Debian 12's 6.1
#                    kernel; trixie or sid: that suite's root and kernel in
#                    both guests (run.sh --distro; prepare.sh builds the root)
#   --timeout SECS   kill a guest after SECS seconds, boot included (default
#                    900); its status is then 124
#   --grace SECS     once one guest has ended with a non-zero status, kill the
#                    other after SECS more seconds (default 60)
#   --mem SIZE       memory of each guest (default 1G)
#   --smp N          CPUs of each guest (default 1: two guests on a 2-core host)
#   --wire dgram|socket   QEMU netdev joining the NICs: -netdev dgram (default)
#                    or -netdev socket,udp=; UDP on 127.0.0.1 only, free ports
#   --console PREFIX save the kernel consoles to PREFIX.a and PREFIX.b
#   --cx DIR         the software ConnectX instead of rxe and the virtio NIC:
#                    guest A gets the Ethernet function served on DIR/a.sock,
#                    B the one on DIR/b.sock (cx-server --eth, the two
#                    servers on one wire: tests/twohost/run-all.sh
#                    --connectx starts them); DIR is shared with both guests
#                    (DOORBELL_VM_CX_DIR). In the guest, mlx5_core and mlx5_ib
#                    load (tests/guest/mlx5/guest-cx.sh), and mlx5e's netdev
#                    and its RDMA device take the NIC's and rxe0's places
#   -v, --verbose    run.sh's progress and consoles on stderr
#   -h, --help       this text
#
# Each command runs as with run.sh, but on rxe0 (or run.sh's
# DOORBELL_VM_LINK_TYPE device) over the virtio NIC (the dummy d0 and the
# device run.sh made on it are removed), or with --cx on the function's
# mlx5e netdev and RDMA device, with
#   DOORBELL_VM_HOST=a|b  DOORBELL_VM_NETDEV=<NIC>  DOORBELL_VM_IPV4=<own>
#   DOORBELL_VM_PEER_IPV4=<other>  DOORBELL_VM_GID_INDEX=<index of ::ffff:own>
#   DOORBELL_VM_IBDEV=<the RDMA device>
# and the modules virtio_net (net_failover, failover) and sch_netem loaded,
# so the command can shape its egress with "tc qdisc ... netem".
# Output: stdout and stderr of A and B (and of their run.sh) on stdout, each
# line prefixed "A| " or "B| ", then "run2: A exit N, B exit M".
# Exit status: 0 if both commands exit 0; otherwise A's status if non-zero,
# else B's (124 timeout, 125 guest set-up failure, as run.sh).
#
# Internal: inside the guest run.sh runs "run2.sh --in-guest a|b [--cx] --
# CMD", which sets up the NIC and the device and then executes CMD.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ipv4_a=10.88.0.1
ipv4_b=10.88.0.2
prefix=24
mac_a=52:54:00:88:00:01
mac_b=52:54:00:88:00:02

say() { echo "run2: $*" >&2; }
usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; }

# ---------------------------------------------------------------------------
# Guest side: replace d0 and the device run.sh made on it (rxe0, or KIND0 of
# DOORBELL_VM_LINK_TYPE=KIND) by the same device on the virtio NIC, or
# (--cx) take the ConnectX function's netdev and RDMA device; then exec
# COMMAND.
in_guest() {
	local role=$1 mac ip peer nic='' n a t g gid state want_gid dev kind cx=0
	shift
	[[ ${1:-} == --cx ]] && { cx=1; shift; }
	[[ ${1:-} == -- ]] && shift
	case "$role" in
	a) mac=$mac_a ip=$ipv4_a peer=$ipv4_b ;;
	b) mac=$mac_b ip=$ipv4_b peer=$ipv4_a ;;
	*) say "--in-guest a|b"; exit 125 ;;
	esac
	# No udev in the guest: load the NIC driver (pulls net_failover and
	# failover) and netem from the unpacked kernel's tree (with --cx,
	# guest-cx.sh loaded mlx5_core and mlx5_ib).
	if ((cx)); then
		modprobe sch_netem || { say "modprobe sch_netem failed"; exit 125; }
	else
		modprobe -a virtio_net sch_netem || { say "modprobe virtio_net sch_netem failed"; exit 125; }
	fi
	for ((t = 0; t < 100; t++)); do
		for n in /sys/class/net/*; do
			a=
			read -r a <"$n/address" 2>/dev/null || true
			# --cx: the netdev with an RDMA device, mlx5e's.
			if [[ $a == "$mac" ]] || { ((cx)) && [[ -e $n/device/infiniband ]]; }; then
				nic=${n##*/}
			fi
		done
		[[ -n $nic ]] && break
		sleep 0.1
	done
	[[ -n $nic ]] || { say "no NIC with MAC $mac (or with --cx, of the ConnectX)"; ip -br link >&2; exit 125; }
	if ((cx)); then
		dev=$(ls "/sys/class/net/$nic/device/infiniband")
		export DOORBELL_VM_CX_DIR=${DOORBELL_VM_CX_DIR:?}
	else
		dev=$(db_ibdev)
		kind=$(db_link_type)
		# run.sh's device sits on the dummy d0: remove both.
		if [[ -e /sys/class/infiniband/$dev ]]; then
			rdma link delete "$dev" || { say "rdma link delete $dev failed"; exit 125; }
		fi
		if [[ -e /sys/class/net/d0 ]]; then ip link del d0 || true; fi
	fi
	ip -batch - <<EOF || { say "cannot configure $nic"; exit 125; }
addr add $ip/$prefix dev $nic
link set $nic up
EOF
	if ((!cx)); then
		rdma link add "$dev" type "$kind" netdev "$nic" ||
			{ say "rdma link add $dev type $kind netdev $nic failed"; exit 125; }
	fi
	local g1 g2 g3 g4
	IFS=. read -r g1 g2 g3 g4 <<<"$ip"
	printf -v want_gid '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$g1" "$g2" "$g3" "$g4"
	local port=/sys/class/infiniband/$dev/ports/1 wait_s=${DOORBELL_VM_RXE_WAIT:-60}
	gid=
	for ((t = 0; t < wait_s * 10; t++)); do
		state=
		read -r state <"$port/state" 2>/dev/null || true
		if [[ $state == *ACTIVE* ]]; then
			for g in "$port"/gids/*; do
				a=
				read -r a <"$g" 2>/dev/null || true
				if [[ $a == "$want_gid" ]]; then gid=${g##*/}; break; fi
			done
			[[ -n $gid ]] && break
		fi
		sleep 0.1
	done
	[[ -n $gid ]] || { say "$dev on $nic not ACTIVE with GID $want_gid after ${wait_s}s"; exit 125; }
	echo "doorbell-twohost-$role" >/proc/sys/kernel/hostname
	export DOORBELL_VM_HOST=$role DOORBELL_VM_NETDEV=$nic DOORBELL_VM_IPV4=$ip \
		DOORBELL_VM_PEER_IPV4=$peer DOORBELL_VM_GID_INDEX=$gid DOORBELL_VM_IBDEV=$dev
	exec "$@"
}
if [[ ${1:-} == --in-guest ]]; then
	shift
	in_guest "$@"
fi

# ---------------------------------------------------------------------------
# Host side.
out=${DOORBELL_VM_OUT_DIR:-}
pass=()
timeout_s=${DOORBELL_VM_TIMEOUT:-900}
distro=${DOORBELL_VM_DISTRO:-bookworm}
grace=60
mem=1G
smp=1
wire=dgram
console=
verbose=0
cx=
while (($#)); do
	case "$1" in
	--out) out=${2:?--out needs a directory}; shift ;;
	--out=*) out=${1#*=} ;;
	--share) pass+=(--share "${2:?--share needs a directory}"); shift ;;
	--share=*) pass+=(--share "${1#*=}") ;;
	--env) pass+=(--env "${2:?--env needs NAME=VALUE}"); shift ;;
	--env=*) pass+=(--env "${1#*=}") ;;
	--keep-stock) pass+=(--keep-stock) ;;
	--distro) distro=${2:?--distro needs bookworm, trixie or sid}; shift ;;
	--distro=*) distro=${1#*=} ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--timeout=*) timeout_s=${1#*=} ;;
	--grace) grace=${2:?}; shift ;;
	--grace=*) grace=${1#*=} ;;
	--mem) mem=${2:?}; shift ;;
	--mem=*) mem=${1#*=} ;;
	--smp) smp=${2:?}; shift ;;
	--smp=*) smp=${1#*=} ;;
	--wire) wire=${2:?}; shift ;;
	--wire=*) wire=${1#*=} ;;
	--console) console=${2:?}; shift ;;
	--console=*) console=${1#*=} ;;
	--cx) cx=$(realpath "${2:?--cx needs a directory}"); shift ;;
	-v | --verbose) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) say "unknown option '$1' (commands go after --)"; usage >&2; exit 2 ;;
	esac
	shift
done
(($#)) || { usage >&2; exit 2; }
[[ $timeout_s =~ ^[0-9]+$ && $timeout_s -gt 0 ]] || { say "bad --timeout '$timeout_s'"; exit 2; }
[[ $grace =~ ^[0-9]+$ ]] || { say "bad --grace '$grace'"; exit 2; }
[[ $wire == dgram || $wire == socket ]] || { say "bad --wire '$wire' (dgram or socket)"; exit 2; }
case "$distro" in
bookworm | trixie | sid) ;;
*) say "unknown --distro '$distro' (bookworm, trixie or sid)"; exit 2 ;;
esac

cmd_a=() cmd_b=()
while (($#)) && [[ $1 != ::: ]]; do cmd_a+=("$1"); shift; done
if (($#)); then
	shift
	cmd_b=("$@")
else
	cmd_b=("${cmd_a[@]}")
fi
((${#cmd_a[@]} && ${#cmd_b[@]})) || { say "empty command"; usage >&2; exit 2; }

# One output directory for both guests (run.sh would make one each).
out_is_tmp=0
if [[ -z $out ]]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/doorbell-vm2-out.XXXXXX")
	out_is_tmp=1
fi
mkdir -p "$out"
out=$(realpath "$out")

# Prepare once, before the guests race for prepare.sh's lock.
prep=(--distro "$distro")
[[ $verbose == 1 ]] && prep+=(-v)
"$here/prepare.sh" "${prep[@]}" >/dev/null || { say "prepare.sh failed"; exit 125; }

# Two free UDP ports on 127.0.0.1 (QEMU binds them; a race with another
# process taking one in between shows as a QEMU bind error, exit 125).
free_udp_ports() {
	local used p q n=0
	used=$(ss -Hulnt 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u)
	while :; do
		p=$((20000 + (RANDOM % 20000) * 2))
		q=$((p + 1))
		if ! grep -qx -e "$p" -e "$q" <<<"$used"; then
			echo "$p $q"
			return
		fi
		((++n < 100)) || { say "no free UDP ports"; exit 125; }
	done
}
read -r port_a port_b < <(free_udp_ports)

netdev_for() { # own-port peer-port
	case "$wire" in
	dgram) echo "dgram,id=wire0,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2" ;;
	socket) echo "socket,id=wire0,udp=127.0.0.1:$2,localaddr=127.0.0.1:$1" ;;
	esac
}

roles=(a b)
wrappers=()
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/doorbell-vm2.XXXXXX")
# shellcheck disable=SC2317 # invoked by trap
cleanup() {
	local f p
	for f in "$tmpd"/pid.*; do
		[[ -s $f ]] || continue
		p=$(cat "$f")
		if kill -0 "$p" 2>/dev/null; then kill -TERM "$p" 2>/dev/null || true; fi
	done
	for p in "${wrappers[@]}"; do [[ -n $p ]] && wait "$p" 2>/dev/null; done
	rm -rf "$tmpd"
	if ((out_is_tmp)); then
		if rmdir "$out" 2>/dev/null; then :; else say "output kept in $out"; fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$SECONDS
for i in 0 1; do
	r=${roles[i]}
	R=${r^^}
	if [[ $r == a ]]; then
		mine=$port_a theirs=$port_b mac=$mac_a cmd=("${cmd_a[@]}")
	else
		mine=$port_b theirs=$port_a mac=$mac_b cmd=("${cmd_b[@]}")
	fi
	args=(--out "$out" --distro "$distro" --timeout "$timeout_s" --mem "$mem"
		--smp "$smp" "${pass[@]}")
	[[ -n $console ]] && args+=(--console "$console.$r")
	[[ $verbose == 1 ]] && args+=(-v)
	if [[ -n $cx ]]; then
		qargs=${DOORBELL_VM_QEMU_ARGS:-}
		args+=(--vfio-user "$cx/$r.sock" --share "$cx" --env "DOORBELL_VM_CX_DIR=$cx")
		in=("$here/../guest/mlx5/guest-cx.sh" -- "$here/run2.sh" --in-guest "$r" --cx)
	else
		qargs="${DOORBELL_VM_QEMU_ARGS:-} -netdev $(netdev_for "$mine" "$theirs") -device virtio-net-pci,netdev=wire0,mac=$mac"
		in=("$here/run2.sh" --in-guest "$r")
	fi
	# run.sh (its pid in pid.X, to stop it), stdout and stderr prefixed;
	# its status in rc.X.
	(
		set +e # keep going after a failed pipeline: its status is wanted
		(
			echo "$BASHPID" >"$tmpd/pid.$r"
			exec env DOORBELL_VM_QEMU_ARGS="$qargs" DOORBELL_VM_OUT_DIR='' DOORBELL_VM_NO_APT=1 \
				"$here/run.sh" "${args[@]}" -- "${in[@]}" -- "${cmd[@]}" 2>&1
		) | sed -u "s/^/$R| /"
		echo "${PIPESTATUS[0]}" >"$tmpd/rc.$r"
	) &
	wrappers[i]=$!
done

# Wait for both; once one fails, give the other --grace seconds.
deadline=
declare -A rc
while :; do
	running=0
	for i in 0 1; do
		r=${roles[i]}
		[[ -n ${wrappers[i]} ]] || continue
		if kill -0 "${wrappers[i]}" 2>/dev/null; then
			running=1
			continue
		fi
		wait "${wrappers[i]}" 2>/dev/null || true
		wrappers[i]=
		rc[$r]=125
		if [[ -s $tmpd/rc.$r ]]; then rc[$r]=$(cat "$tmpd/rc.$r"); fi
		if ((rc[$r] != 0)) && [[ -z $deadline ]]; then
			deadline=$((SECONDS + grace))
		fi
	done
	((running)) || break
	if [[ -n $deadline ]] && ((SECONDS >= deadline)); then
		for i in 0 1; do
			r=${roles[i]}
			if [[ -n ${wrappers[i]} && -s $tmpd/pid.$r ]]; then
				say "${r^^} still running ${grace}s after the other failed: stopping it"
				kill -TERM "$(cat "$tmpd/pid.$r")" 2>/dev/null || true
			fi
		done
		deadline=$((SECONDS + 3600))
	fi
	sleep 0.5
done
rc_a=${rc[a]:-125} rc_b=${rc[b]:-125}
echo "run2: A exit $rc_a, B exit $rc_b ($((SECONDS - t0))s)"
((rc_a)) && exit "$rc_a"
exit "$rc_b"
