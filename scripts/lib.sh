# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the repository's scripts, so that a script that stops early
# says why, in one line on stderr:
#   die MESSAGE...   prints "NAME: MESSAGE" and exits 1;
#   under "set -e", a failing command that ends the script is named by an
#   ERR trap: "NAME: stopped at line N: COMMAND (exit S)".
# Source it after "set -e" (or after set -u alone, for die only).

db_me=${0##*/}

die() {
	echo "$db_me: $*" >&2
	exit 1
}

if [[ $- == *e* ]]; then
	trap 'echo "$db_me: stopped at line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
fi

# The verdict lines every test script prints (docs/testing.md: one PASS,
# FAIL or SKIP line per behaviour, named by it):
#   pass NAME [DETAIL]   "PASS NAME[: DETAIL]"; db_passes counts them
#   fail NAME [WHY]      "FAIL NAME[: WHY]", and db_failed=1 (the script's
#                        exit status, if it ends with exit "$db_failed");
#                        db_fails counts them
#   skip NAME WHY        "SKIP NAME: WHY"
#   check NAME CMD...    CMD's status decides: PASS NAME, or FAIL NAME with
#                        the command and its status
#   step TITLE...        "== TITLE": where a part of the output begins
# All return 0, so a script under "set -e" goes on after a FAIL.
#   built NAME LOG [--] CMD...  CMD (a build), its output into LOG: PASS
#                        NAME, or LOG's last 20 lines on stderr and FAIL
#                        NAME; returns CMD's status
# shellcheck disable=SC2034 # the sourcing script's exit status
db_failed=0 db_passes=0 db_fails=0

pass() {
	echo "PASS $1${2:+: $2}"
	db_passes=$((db_passes + 1))
}

fail() {
	echo "FAIL $1${2:+: $2}"
	# shellcheck disable=SC2034 # the sourcing script's exit status
	db_failed=1
	db_fails=$((db_fails + 1))
}

skip() {
	echo "SKIP $1: $2"
}

check() {
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	if ((rc == 0)); then
		pass "$name"
	else
		fail "$name" "$* (exit $rc)"
	fi
}

step() {
	echo "== $*"
}

built() {
	local name=$1 log=$2 rc=0
	shift 2
	[[ ${1:-} == -- ]] && shift
	"$@" >"$log" 2>&1 || rc=$?
	if ((rc == 0)); then
		pass "$name"
	else
		tail -n 20 "$log" | sed 's/^/    /' >&2
		fail "$name"
	fi
	return "$rc"
}

# The test guest's RDMA link (tests/vm/README.md):
#   db_link_type   its kind, for "rdma link add DEV type KIND":
#                  $DOORBELL_VM_LINK_TYPE, else rxe (Soft-RoCE)
#   db_ibdev       the device the guest tests run on, when not told
#                  otherwise: $DOORBELL_VM_IBDEV (the guest boot,
#                  tests/vm/guest-init.sh, exports the one it made, KIND0),
#                  else rxe0
# The scripts' one default; the C programs' is tests/lib/test_ibdev.c.
db_link_type() {
	echo "${DOORBELL_VM_LINK_TYPE:-rxe}"
}

db_ibdev() {
	echo "${DOORBELL_VM_IBDEV:-rxe0}"
}

# db_violation_rules FILE: cx-server's violation lines in FILE (its log,
# or the file of its --stats) as "RULE N", one per rule that counted: not
# the total ("violations: N"), nor engine_other, which fails no run
# (docs/connectx-device.md, "The engine's checks").
db_violation_rules() {
	awk '$1 == "violations:" && NF == 3 { print $2, $3 }' "$1" 2>/dev/null
}

# db_stat FILE NAME: cx-server's statistic NAME in FILE (its log, or the
# file of its --stats), from its "stat: NAME N" line; nothing without one.
db_stat() {
	awk -v n="$2" '$1 == "stat:" && $2 == n { print $3 }' "$1" 2>/dev/null
}
