#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: run COMMAND with
# PROVIDER serving mlx5_0, the same device and kernel either way (issue #20:
# doorbell side by side with libmlx5).
#   libmlx5   the distribution's stock libmlx5: RDMAV_DRIVERS and
#             DOORBELL_MLX5 unset; COMMAND's result lines are named
#             PASS cx_NAME (from PASS cx_NAME or PASS NAME: doorbell-itest's
#             names).
#   doorbell  doorbell's mlx5 backend: libdoorbell preloaded (LD_PRELOAD:
#             it registers before a libmlx5 that the process loads, as
#             rdma-core's tests.utils does through mlx5dv, and serves
#             first), RDMAV_DRIVERS at the build's libdoorbell,
#             DOORBELL_MLX5=1, and the distribution's mlx5.driver hidden for
#             COMMAND's time; COMMAND's result lines are renamed PASS
#             cx_doorbell_NAME (from PASS cx_NAME or PASS NAME:
#             doorbell-itest's names).
# Either way the provider is proven in the processes that ran COMMAND: the
# witness (tests/lib/served-witness.c, preloaded into every process of
# COMMAND) records which library's driver and poll_cq served each context
# on mlx5_0, and after COMMAND one line, PASS|FAIL cx_[doorbell_]served_CMD
# (CMD: COMMAND's name and its -k filter), requires every one to be
# libmlx5's, or libdoorbell's, and at least one (tests/guest/served-lib.sh).
# Both run perftest from the build's perftest-nodv/ (scripts/build-perftest.sh)
# when it is there: Debian's perftest links libmlx5, which then serves
# mlx5_0 first, so through doorbell the witness would fail it; libmlx5's
# runs use the same binaries.
# And the device's own verdict on those processes: with DOORBELL_CX_STATS
# (scripts/cx.sh: the folder where cx-server keeps its violation lines
# live), one line after COMMAND (before the served line, which proves its
# provider too), PASS|FAIL cx_[doorbell_]no_violations_CMD,
# fails if the total of the device's rules broken grew while COMMAND ran
# (docs/connectx-device.md, "The engine's checks"), with the rules that did.
# DOORBELL_SERVED_DEVS (default mlx5_0): the devices the served line
# covers; with more than one, one line each, the device's name appended.
# Before COMMAND one line, "    (witness: each process below, checked
# by the next served line)", marks where the rows that line covers begin
# (scripts/side-by-side-table.sh).
# Exit status: COMMAND's (1 if the witness found another provider or none).
#
# Usage: with-provider.sh libmlx5|doorbell COMMAND [ARGS...]
# DOORBELL_PROVIDER_BUILD: the build whose libdoorbell serves (default: the
# checkout's build/; not DOORBELL_BUILD_DIR, which stage cx points at an
# ASan build for the device server: an ASan provider cannot load into
# perftest).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail
# shellcheck source=tests/guest/served-lib.sh
. "$top/tests/guest/served-lib.sh"
build=${DOORBELL_PROVIDER_BUILD:-$top/build}
prov=${1:?usage: with-provider.sh libmlx5|doorbell COMMAND [ARGS...]}
shift
(($#)) || { echo "with-provider.sh: no COMMAND" >&2; exit 2; }
driver=/etc/libibverbs.d/mlx5.driver
perftest=$build/perftest-nodv
[[ ! -x $perftest/ib_send_bw ]] || export PATH=$perftest:$PATH
# The served check's name: COMMAND's and the value of its -k.
what=$(basename "$1" .sh)
args=("$@")
for ((i = 1; i < ${#args[@]}; i++)); do
	[[ ${args[i - 1]} == -k ]] && what+=_${args[i]}
done
what=${what//[^A-Za-z0-9_]/_}
what=${what%_}
mark="    (witness: each process below, checked by the next served line)"
stats=${DOORBELL_CX_STATS:+$DOORBELL_CX_STATS/violations}
read -ra devs <<<"${DOORBELL_SERVED_DEVS:-mlx5_0}"

# NAME PROVIDER: served_check of each device; 1 if any failed.
served_all() {
	local d r=0
	if ((${#devs[@]} == 1)); then
		served_check "$1" "${devs[0]}" "$2"
		return
	fi
	for d in "${devs[@]}"; do
		served_check "$1_$d" "$d" "$2" || r=1
	done
	return "$r"
}

# The device's total of rules broken so far ("violations: N", cx-server
# --stats); empty without the file.
violations() {
	[[ -n $stats && -r $stats ]] && awk 'NR == 1 { print $2 }' "$stats"
}

# NAME BEFORE: PASS or FAIL NAME by the total since BEFORE.
violations_check() {
	local now
	[[ -n $2 ]] || return 0
	now=$(violations)
	if [[ $now == "$2" ]]; then
		pass "$1" "the device counted no violation"
		return 0
	fi
	fail "$1" "the device counted $((now - $2)) violations: $(grep -v '^violations: [0-9]' "$stats" | paste -sd';' -)"
	return 1
}

case $prov in
libmlx5)
	unset RDMAV_DRIVERS DOORBELL_MLX5
	[[ -e $driver ]] || { fail cx_libmlx5_visible "no $driver"; exit 1; }
	served_begin "$build" ||
		{ fail "cx_served_$what" "no witness in $build (tests/lib/served-witness.c)"; exit 1; }
	trap 'rm -f "$DOORBELL_WITNESS_LOG"' EXIT
	echo "$mark"
	before=$(violations)
	"$@" | sed -u -E 's/^(PASS|FAIL|SKIP) (cx_)?/\1 cx_/'
	rc=${PIPESTATUS[0]}
	unset LD_PRELOAD
	violations_check "cx_no_violations_$what" "$before" || rc=1
	served_all "cx_served_$what" libmlx5 || rc=1
	exit "$rc"
	;;
doorbell) ;;
*) echo "with-provider.sh: no provider '$prov' (libmlx5 or doorbell)" >&2; exit 2 ;;
esac

export RDMAV_DRIVERS=$build/lib/libdoorbell DOORBELL_MLX5=1
served_begin "$build" "$build/lib/libdoorbell-rdmav34.so" ||
	{ fail "cx_doorbell_served_$what" "no witness in $build (tests/lib/served-witness.c)"; exit 1; }
hidden=
# shellcheck disable=SC2317 # the EXIT trap calls it
restore() {
	rm -f "$DOORBELL_WITNESS_LOG"
	[[ -n $hidden && ! -e $driver ]] && mv "$hidden" "$driver"
}
trap restore EXIT
if [[ -e $driver ]]; then
	hidden=$(mktemp /run/mlx5.driver.XXXXXX)
	mv "$driver" "$hidden"
fi
echo "$mark"
before=$(violations)
"$@" | sed -u -E 's/^(PASS|FAIL|SKIP) (cx_)?/\1 cx_doorbell_/'
rc=${PIPESTATUS[0]}
unset LD_PRELOAD
violations_check "cx_doorbell_no_violations_$what" "$before" || rc=1
served_all "cx_doorbell_served_$what" libdoorbell || rc=1
exit "$rc"
