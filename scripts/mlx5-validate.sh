#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Validate doorbell's ConnectX (mlx5) backend on real hardware.
#
# The mlx5 backend has only been verified against the software ConnectX in
# tests/model/mlx5 (ctest -R mlx5_).  Run this on a host with a ConnectX-4 or later
# bound to mlx5_ib, Debian 12 or newer, as root, and send the output (it ends
# with "N passed, N failed, N skipped") to the project.  Nothing is installed
# system-wide except Debian packages; libmlx5 keeps serving every other
# process: doorbell is selected only in the commands this script runs, with
# RDMAV_DRIVERS (so libibverbs tries doorbell first) and DOORBELL_MLX5=1 (the
# opt-in that lets doorbell take an mlx5 device at all).
#
# Usage: scripts/mlx5-validate.sh [-d DEV] [-g GID_INDEX] [-a ADDR] [-n ITERS]
#   -d DEV     RDMA device (default: the first one whose driver is mlx5)
#   -g GIDX    GID index for RoCE (default 3: RoCE v2 over IPv4 on Debian)
#   -a ADDR    address the perftest/pingpong client connects to (127.0.0.1)
#   -n ITERS   iterations of step 5's ib_write_lat (default 10000; its
#              ib_send_bw runs ten times as many)
# What runs, each side by side through doorbell and, for reference, libmlx5:
#   1. ibv_devinfo through doorbell (the DOORBELL_DEBUG line must name mlx5);
#   2. perftest and pingpong pairs on the device, in loopback
#      (tests/guest/apps.sh: RC/UD send, write, read, atomics, latency, event
#      mode, SRQ, several QPs, post lists, UC send and write),
#      perftest built without libmlx5 when it can be (scripts/build-perftest.sh);
#   3. doorbell's integration tests (tests/guest/itest), every byte checked;
#   4. the drain after ERR (tests/guest/mlx5/hw_drain_after_err.c):
#      modify_qp(ERR), then a marker WR, whose flush completion must come,
#      through doorbell and libmlx5 alike;
#   3 and 4 prove who served in the processes that ran them
#   (itest_served, drain_served, libmlx5_drain_served), as 5 and 6 do;
#   5. XRC (ibv_xsrq_pingpong) and completion timestamps (ibv_rc_pingpong
#      -t -c, the device's timer moving between receive completions),
#      through libmlx5 and then doorbell, each proven served
#      (PROV_xsrq_pingpong_served, PROV_rc_pingpong_ts_served);
#   6. ib_write_lat and ib_send_bw through libmlx5 and then doorbell, to
#      compare typical latency and message rate; each column's provider is
#      proven in the processes that ran it (compare_NAME_PROV_served).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
dev='' gid=3 addr=127.0.0.1 iters=10000
while getopts "d:g:a:n:h" opt; do
	case $opt in
	d) dev=$OPTARG ;;
	g) gid=$OPTARG ;;
	a) addr=$OPTARG ;;
	n) iters=$OPTARG ;;
	h) sed -n '3,/^set /s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	*) echo "usage: scripts/mlx5-validate.sh [-d DEV] [-g GID] [-a ADDR] [-n ITERS] (-h: help)" >&2; exit 2 ;;
	esac
done
[[ $iters =~ ^[1-9][0-9]{0,6}$ ]] || die "-n wants a count of iterations, 1 to 9999999"
results=$(mktemp)
logs=$(mktemp -d)
trap 'rm -rf "$results" "$logs"' EXIT
record() { tee -a "$results"; }
finish() {
	local p f s
	p=$(grep -c '^PASS ' "$results")
	f=$(grep -c '^FAIL ' "$results")
	s=$(grep -c '^SKIP ' "$results")
	echo "$p passed, $f failed, $s skipped"
	((f == 0))
	exit $?
}

if [[ -z $dev ]]; then
	for d in /sys/class/infiniband/*; do
		[[ -e $d ]] || continue
		if readlink "$d/device/driver" 2>/dev/null | grep -q mlx5_core; then
			dev=${d##*/}
			break
		fi
	done
fi
if [[ -z $dev ]]; then
	skip mlx5_device_present "no RDMA device driven by mlx5 here" |
		record
	finish
fi
if [[ ! -e /sys/class/infiniband/$dev ]]; then
	fail mlx5_device_present "no /sys/class/infiniband/$dev" | record
	finish
fi
echo "== device $dev, GID index $gid"

DEBIAN_FRONTEND=noninteractive apt-get install -y -q cmake gcc pkg-config \
	libibverbs-dev ibverbs-utils ibverbs-providers perftest >/dev/null ||
	echo "note: apt-get failed; using what is installed"
if ! build=$(DOORBELL_BUILD_DIR=$top/build-mlx5-validate "$top/scripts/build.sh"); then
	fail doorbell_builds | record
	finish
fi
pass doorbell_builds | record

export RDMAV_DRIVERS=$build/lib/libdoorbell DOORBELL_MLX5=1 DOORBELL_DEBUG=1
# Into a file first: grep -q on a pipe quits at the DOORBELL_DEBUG line, and
# with pipefail the SIGPIPE this gives tee (ibv_devinfo still writing) failed
# the check on a device doorbell did serve.
if ibv_devinfo -d "$dev" >"$logs/devinfo" 2>&1 &&
	grep -q "serving the device with the mlx5 backend" "$logs/devinfo"; then
	pass devinfo_served_by_doorbell_mlx5 | record
else
	fail devinfo_served_by_doorbell_mlx5 | record
	sed 's/^/    /' "$logs/devinfo" | head -20
	finish
fi

# Debian's perftest links libmlx5 (mlx5dv), whose driver then serves the
# device whatever RDMAV_DRIVERS says: a perftest of plain verbs, built from
# Debian's source package (scripts/build-perftest.sh, which needs the
# archive), goes first on PATH, for doorbell and libmlx5 alike.
if pt=$(DOORBELL_BUILD_DIR=$build "$top/scripts/build-perftest.sh" 2>"$logs/perftest"); then
	PATH=$pt:$PATH
	pass perftest_without_libmlx5_builds | record
else
	skip perftest_without_libmlx5_builds "scripts/build-perftest.sh failed ($(tail -n 1 "$logs/perftest")); Debian's perftest runs on libmlx5 alone" |
		record
fi

echo "== applications through doorbell"
# DOORBELL_APPS_STOCK_FAILED (tests/guest/apps.sh): pairs that failed
# through libmlx5 on this device; their failure here is a SKIP.
DOORBELL_VM_IBDEV=$dev DOORBELL_VM_GID_INDEX=$gid DOORBELL_VM_IPV4=$addr \
	DOORBELL_EXPECT_BACKEND=mlx5 \
	"$top/tests/guest/apps.sh" | record

# shellcheck source=tests/guest/served-lib.sh
. "$top/tests/guest/served-lib.sh"
# witnessed NAME WANT CMD...: CMD with the witness (tests/guest/served-lib.sh)
# preloaded, then PASS NAME if every context its processes opened on the
# device was served by WANT (libdoorbell, libmlx5), FAIL NAME otherwise:
# who served, proven in the processes that ran the check.
witnessed() {
	local name=$1 want=$2
	shift 2
	(
		if ! served_begin "$build"; then
			fail "$name" "no witness in $build"
			exit 1
		fi
		echo "    (witness: each process below, checked by the next served line)"
		"$@"
		unset LD_PRELOAD
		served_check "$name" "$dev" "$want"
		rm -f "$DOORBELL_WITNESS_LOG"
	)
}

echo "== integration tests through doorbell (bytes checked)"
witnessed itest_served libdoorbell \
	timeout 900 "$build/tests/guest/itest/doorbell-itest" -d "$dev" -g "$gid" |
	record

echo "== drain after ERR: a marker WR posted in ERR is flushed"
drain=$build/tests/guest/mlx5/doorbell-mlx5-drain
witnessed drain_served libdoorbell timeout 60 "$drain" -d "$dev" -g "$gid" |
	record
# The same through libmlx5: what doorbell must match.
(unset RDMAV_DRIVERS DOORBELL_MLX5
 witnessed drain_served libmlx5 timeout 60 "$drain" -d "$dev" -g "$gid" |
	sed 's/^\(PASS\|FAIL\) /\1 libmlx5_/' | record)

# shellcheck source=tests/guest/lib/pair-lib.sh
. "$top/tests/guest/lib/pair-lib.sh"

echo "== XRC and completion timestamps: libmlx5, then doorbell"
# shellcheck disable=SC2317 # xsrq and stamps: called by witnessed
# xsrq PROV: ibv_xsrq_pingpong (XRC domains, SRQs, send and receive QPs).
xsrq() {
	run_pair "$logs/xsrq.$1.s" "$logs/xsrq.$1.c" \
		ibv_xsrq_pingpong -d "$dev" -g "$gid" -p 18600 -n 20
	xsrq_verdict "${1}_xsrq_pingpong" "$logs/xsrq.$1.s" "$logs/xsrq.$1.c"
}
# shellcheck disable=SC2317
# stamps PROV: ibv_rc_pingpong -t -c: completion timestamps, data checked,
# and the device's timer moved between every two receive completions.
stamps() {
	run_pair "$logs/ts.$1.s" "$logs/ts.$1.c" \
		ibv_rc_pingpong -d "$dev" -g "$gid" -p 18601 -n 200 -t -c
	pingpong_verdict "${1}_rc_pingpong_ts" "$logs/ts.$1.s" "$logs/ts.$1.c" &&
		pingpong_stamped "${1}_rc_pingpong_ts_stamped" "$logs/ts.$1.s" "$logs/ts.$1.c"
}
for prov in libmlx5 doorbell; do
	(
		want=libdoorbell
		[[ $prov == libmlx5 ]] && { unset RDMAV_DRIVERS DOORBELL_MLX5; want=libmlx5; }
		witnessed "${prov}_xsrq_pingpong_served" "$want" xsrq "$prov"
		witnessed "${prov}_rc_pingpong_ts_served" "$want" stamps "$prov"
	) | record
done

echo "== side by side: libmlx5, then doorbell"
# Each column proves its provider in the processes that ran it
# (witnessed: PASS|FAIL compare_NAME_PROV_served).
compare() {
	local name=$1 prov provs=(stock doorbell) want
	shift
	# A program linked with libmlx5 (Debian's perftest: mlx5dv) has
	# libmlx5's driver registered at load, before RDMAV_DRIVERS' doorbell:
	# libmlx5 serves the device there, so doorbell has no numbers to give.
	if ldd "$(command -v "$1")" 2>/dev/null | grep -q 'libmlx5\.so'; then
		provs=(stock)
		skip "compare_${name}_doorbell" "$1 links libmlx5, which serves the device in doorbell's place" |
			record
	fi
	for prov in "${provs[@]}"; do
		want=libdoorbell
		[[ $prov == stock ]] && want=libmlx5
		(
			[[ $prov == stock ]] && unset RDMAV_DRIVERS DOORBELL_MLX5
			witnessed "compare_${name}_${prov}_served" "$want" \
				run_pair "$logs/$name.$prov.s" "$logs/$name.$prov.c" "$@"
		) | record
		echo "    $name $prov:"
		grep -E '^[[:space:]]+[0-9]+[[:space:]]+[0-9]+' \
			"$logs/$name.$prov.c" | sed 's/^/      /'
	done
}
compare write_lat ib_write_lat -d "$dev" -x "$gid" -F -n "$iters"
compare send_bw ib_send_bw -d "$dev" -x "$gid" -F -n $((iters * 10)) -s 64
finish
