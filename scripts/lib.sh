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
