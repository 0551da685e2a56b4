# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Who served, proven in the processes that ran a check: the witness
# (tests/lib/served-witness.c, LD_PRELOAD) records, in every process that
# opens a device, the library of the driver that claimed it and of its
# poll_cq.  Sourced by tests/guest/mlx5/with-provider.sh, tests/guest/demo-pair.sh,
# tests/bench/guest-bench.sh and scripts/mlx5-validate.sh.
#
#   served_witness BUILD      the witness library of BUILD (empty if not built)
#   served_begin BUILD [LIB]  export LD_PRELOAD (LIB, then the witness) and
#                             DOORBELL_WITNESS_LOG (a new file); 1 if the
#                             witness is not built
#   served_check NAME DEV WANT [LOG]
#                             PASS NAME if every context opened on DEV
#                             (LOG, default $DOORBELL_WITNESS_LOG) was
#                             served by a library whose name starts with
#                             WANT (libdoorbell, libmlx5, librxe), driver
#                             and poll_cq both, and there was one at least;
#                             FAIL NAME otherwise (none, or which process
#                             another library served).  Status 0 on PASS.
# pass, fail, skip: scripts/lib.sh's, unless the sourcing script has them
if ! declare -F pass >/dev/null; then
	# shellcheck source=scripts/lib.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
fi

served_witness() {
	local f=$1/tests/lib/libdoorbell-served-witness.so
	[[ -e $f ]] && echo "$f"
}

served_begin() {
	local w
	w=$(served_witness "$1") || return 1
	DOORBELL_WITNESS_LOG=$(mktemp /tmp/served.XXXXXX)
	export DOORBELL_WITNESS_LOG
	export LD_PRELOAD="${2:+$2 }$w${LD_PRELOAD:+ $LD_PRELOAD}"
	# An ASan-built command (stage cx's cx-cq-events) then finds its
	# runtime after the preloads: the witness interposes no allocator.
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
}

served_check() {
	local name=$1 dev=$2 want=$3 log=${4:-${DOORBELL_WITNESS_LOG:-}}
	local n=0 bad="" failed=0 pid d drv cq pids
	[[ -r $log ]] || { fail "$name" "no witness log (${log:-DOORBELL_WITNESS_LOG unset})"; return 1; }
	while read -r pid d drv cq; do
		[[ $d == "$dev" ]] || continue
		if [[ $drv == failed: ]]; then
			failed=$((failed + 1))
			continue
		fi
		n=$((n + 1))
		[[ $drv == "$want"* && $cq == "$want"* ]] ||
			bad=${bad:-"process $pid: driver $drv, poll_cq $cq"}
	done <"$log"
	pids=$(awk -v d="$dev" '$2 == d && $3 != "failed:" { print $1 }' "$log" | sort -u | wc -l)
	if [[ -n $bad ]]; then
		fail "$name" "$dev not served by $want in every process ($bad)"
		return 1
	fi
	if ((n == 0)); then
		fail "$name" "no process opened $dev ($failed opens failed)"
		return 1
	fi
	pass "$name" "$n contexts on $dev in $pids processes, each served by $want (driver and poll_cq, in the process; $failed opens failed)"
}
