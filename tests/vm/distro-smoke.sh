#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Smoke test of the distribution guests (tests/vm/run.sh --distro), with the
# STOCK rxe provider of each distribution's rdma-core:
#   tests/vm/distro-smoke.sh [DISTRO...]     (default: trixie sid)
# For each DISTRO, boots one guest (run.sh --distro DISTRO --keep-stock) and
# checks: rxe0 ACTIVE, ibv_devinfo shows rxe0, an ib_send_bw pair and an
# ib_write_lat pair over rxe0 (server, then client on the guest's IPv4, -d
# rxe0 -x GID_INDEX -F), and that /usr/share/doc/rdma-core/tests (the
# rdma-core python suite) is there; prints uname -r, the libibverbs file and
# the boot timings. PASS/FAIL lines are prefixed with the distribution.
# SMOKE_TIMEOUT bounds each command (default 180 s); extra run.sh options
# can be given in DOORBELL_SMOKE_RUN_ARGS (e.g. "-v").
# Exit status: 0 if every check of every distribution passed.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# --- in the guest ------------------------------------------------------------
in_guest() {
	local d=${DOORBELL_VM_DISTRO:-?} dev
	local gid=${DOORBELL_VM_GID_INDEX:-1} ip=${DOORBELL_VM_IPV4:-10.77.0.1}
	local T=${SMOKE_TIMEOUT:-180} logs state lib
	dev=$(db_ibdev)
	logs=$(mktemp -d)
	lib=$(readlink -f "$(ldconfig -p | awk '!f && /libibverbs\.so\.1 .*x86-64/ { print $NF; f = 1 }')")
	echo "distro $d: uname -r $(uname -r), libibverbs $lib," \
		"rdma-core $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null)"

	state=$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null || true)
	if [[ $state == *ACTIVE* ]] && rdma link show "$dev/1" | grep -q 'state ACTIVE'; then
		pass "${d}_rxe0_active"
	else
		fail "${d}_rxe0_active" "port state '$state'"
	fi

	if timeout 30 ibv_devinfo -d "$dev" >"$logs/devinfo" 2>&1 &&
		grep -q "hca_id:[[:space:]]*$dev\$" "$logs/devinfo" &&
		grep -q 'PORT_ACTIVE' "$logs/devinfo"; then
		pass "${d}_ibv_devinfo_shows_rxe0"
	else
		fail "${d}_ibv_devinfo_shows_rxe0" "$(head -c 300 "$logs/devinfo" | tr '\n' ' ')"
	fi

	# pair NAME PORT CMD...: "CMD -p PORT" as server, then as client of $ip.
	pair() {
		local name=$1 port=$2 spid src=0 crc=0 i t0=$SECONDS
		shift 2
		timeout "$T" "$@" -p "$port" >"$logs/$name.s" 2>&1 &
		spid=$!
		for ((i = 0; i < 300; i++)); do
			ss -Hltn "sport = :$port" | grep -q . && break
			sleep 0.1
		done
		timeout "$T" "$@" -p "$port" "$ip" >"$logs/$name.c" 2>&1 || crc=$?
		if ((crc)); then
			sleep 5
			kill "$spid" 2>/dev/null || true
		fi
		wait "$spid" || src=$?
		# The result line: "#bytes #iterations ..." numbers.
		local res
		res=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' "$logs/$name.c" | tail -n 1 |
			tr -s ' ' | sed 's/^ //')
		if ((src == 0 && crc == 0)) && [[ -n $res ]]; then
			pass "${d}_$name" "$((SECONDS - t0)) s: $res"
		else
			fail "${d}_$name" "server rc $src, client rc $crc; client: $(tail -n 3 "$logs/$name.c" | tr '\n' ' ')"
		fi
	}
	pair ib_send_bw_pair 18600 ib_send_bw -d "$dev" -x "$gid" -F
	pair ib_write_lat_pair 18601 ib_write_lat -d "$dev" -x "$gid" -F

	if [[ -d /usr/share/doc/rdma-core/tests ]]; then
		pass "${d}_rdma_core_tests_present" "$(find /usr/share/doc/rdma-core/tests -name 'test_*.py' | wc -l) test_*.py"
	else
		fail "${d}_rdma_core_tests_present" "no /usr/share/doc/rdma-core/tests"
	fi
	rm -rf "$logs"
	return "$db_failed"
}
if [[ ${1:-} == --in-guest ]]; then
	in_guest
	exit
fi

# --- on the host ---------------------------------------------------------------
distros=("$@")
((${#distros[@]})) || distros=(trixie sid)
rc=0
for d in "${distros[@]}"; do
	log=$(mktemp)
	t0=$(date +%s.%N)
	r=0
	# shellcheck disable=SC2086 # word splitting of the extra options wanted
	"$here/run.sh" --distro "$d" --keep-stock -v ${DOORBELL_SMOKE_RUN_ARGS:-} \
		--timeout 900 -- "$here/distro-smoke.sh" --in-guest 2>"$log" || r=$?
	t1=$(date +%s.%N)
	grep -E '^doorbell-vm: (timings|error|guest|TIMEOUT|building|.* root built)' "$log" || true
	if ((r)); then
		grep -v '^\[console\]' "$log" | tail -n 20
		fail "${d}_guest_smoke" "run.sh exit $r"
		rc=1
	fi
	awk -v d="$d" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s: smoke wall time %.1fs\n", d, b - a }'
	rm -f "$log"
done
exit "$rc"
