#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Inside one guest boot (run with tests/vm/run.sh --keep-stock, so that the
# stock provider serves rxe0 unless RDMAV_DRIVERS names doorbell): the same
# perftest workloads through the stock provider and through doorbell,
# alternating which goes first, for ROUNDS rounds; then callgrind counts.
# Writes raw outputs to OUT/raw and counts to OUT/callgrind.txt.  Each run
# proves its provider in the processes that ran it (the witness,
# tests/guest/served-lib.sh): "PASS|FAIL bench_served_..." after it, and a
# count whose process another provider served is "unsupported".
# Usage: guest-bench.sh BUILD_DIR OUT ROUNDS ITERS
set -uo pipefail
build=${1:?} out=${2:?} rounds=${3:-3} iters=${4:-2000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"	# pass, fail, skip
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/../guest/lib/pair-lib.sh"
# shellcheck source=tests/guest/served-lib.sh
. "$here/../guest/served-lib.sh"
# want PROV: the library that must serve PROV's column.
want() { [[ $1 == doorbell ]] && echo libdoorbell || echo librxe; }
mkdir -p "$out/raw"
pt=(-d "$dev" -x "$gid" -F -n "$iters")
result='^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'

workload() {
	case $1 in
	write_lat) echo ib_write_lat -H ;;
	send_lat) echo ib_send_lat -H ;;
	send_bw_64) echo ib_send_bw -s 64 ;;
	write_bw_64) echo ib_write_bw -s 64 ;;
	send_bw_64k) echo ib_send_bw -s 65536 ;;
	write_bw_64k) echo ib_write_bw -s 65536 ;;
	esac
}

run_one() {
	local round=$1 prov=$2 w=$3 cmd log
	read -r -a cmd <<<"$(workload "$w")"
	log=$out/raw/$round-$prov-$w
	served_begin "$build" || { fail bench_served "no witness in $build"; exit 1; }
	pair_tries "$round-$prov-$w" "$log.server" "$log.txt" "$result" \
		bench_try "$prov" "$log.server" "$log.txt" "${cmd[@]}" "${pt[@]}"
	unset LD_PRELOAD
	rm -f "$log.server"
	# A column another provider served has no numbers: its output goes.
	served_check "bench_served_${round}_${prov}_$w" "$dev" "$(want "$prov")" ||
		{ rc_c=1; mv "$log.txt" "$log.not-served"; }
	rm -f "$DOORBELL_WITNESS_LOG"
	echo "    round $round $prov $w: client exit $rc_c, server exit $rc_s"
}

# bench_try PROVIDER SRV_LOG CLI_LOG CMD...: one try, through PROVIDER.
# shellcheck disable=SC2317 # called by pair_tries
bench_try() {
	local prov=$1
	shift
	if [[ $prov == doorbell ]]; then
		RDMAV_DRIVERS=$build/lib/libdoorbell run_pair "$@"
	else
		run_pair "$@"
	fi
}

for ((round = 1; round <= rounds; round++)); do
	if ((round % 2)); then order=(stock doorbell); else order=(doorbell stock); fi
	for w in write_lat send_lat send_bw_64 write_bw_64 send_bw_64k write_bw_64k; do
		for prov in "${order[@]}"; do
			run_one "$round" "$prov" "$w"
		done
	done
done

# counts LABEL [ARGS]: one line "LABEL post N poll N", or "LABEL unsupported".
counts() {
	local label=$1 c
	shift
	served_begin "$build" || { echo "$label unsupported"; return; }
	if c=$("$here/insn-guard.sh" "$build" "$@" 2>/dev/null |
		awk '$1 == "post_send64" { p = $2 } $1 == "poll_1" { q = $2 }
		     END { if (p == "" || q == "") exit 1
			   print "post", p, "poll", q }') &&
		LD_PRELOAD='' served_check "bench_served_counts_${label// /_}" "$dev" \
			"$(want "${label%% *}")" >&2; then
		echo "$label $c"
	else
		echo "$label unsupported"
	fi
	unset LD_PRELOAD
	rm -f "$DOORBELL_WITNESS_LOG"
}
{
	counts "stock default"
	counts "stock td" -t
	RDMAV_DRIVERS=$build/lib/libdoorbell counts "doorbell default"
	RDMAV_DRIVERS=$build/lib/libdoorbell counts "doorbell td" -t
} >"$out/callgrind.txt"
cat "$out/callgrind.txt"
