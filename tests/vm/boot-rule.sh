#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# run.sh's one boot rule, each side broken on purpose (two short guests):
#   - a kernel that panics before the guest init starts (rdinit= a missing
#     file: no root to mount) is booted exactly once more, and run.sh still
#     exits 125 when the second boot dies the same way;
#   - a kernel that panics after the guest init started (the command writes
#     c to /proc/sysrq-trigger) is not booted again: exit 125 at once.
# Usage: tests/vm/boot-rule.sh [run.sh options]
# Prints PASS/FAIL per case; exit 1 on a FAIL.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# reboots NAME EXPECTED-REBOOTS RC: run.sh exited 125 after that many.
reboots() {
	local n
	n=$(grep -c 'booting once more' "$log")
	if (($3 == 125 && n == $2)); then
		pass "$1"
		return
	fi
	fail "$1" "run.sh exit $3, $n reboots (want 125 and $2)"
	sed 's/^/    /' "$log" | tail -n 20
}

DOORBELL_VM_APPEND="rdinit=/nonexistent" "$here/run.sh" "$@" --timeout 120 \
	-- true >"$log" 2>&1
reboots vm_kernel_dead_before_init_boots_once_more 1 $?
"$here/run.sh" "$@" --timeout 120 -- sh -c 'echo c >/proc/sysrq-trigger' \
	>"$log" 2>&1
reboots vm_kernel_dead_after_init_is_not_booted_again 0 $?
exit "$db_failed"
