# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by check-all.sh and check-slow.sh: each check side by side.
#   both CMD...  CMD through libmlx5, then through doorbell
#                (with-provider.sh, which proves who served); rc=1 if
#                either failed
#   stamp WHAT   "    (STAMP_PREFIX WHAT: N s)", the seconds since the
#                last stamp (or since this was sourced)
both_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=${rc:-0}
both() {
	"$both_here/with-provider.sh" libmlx5 "$@" || rc=1
	"$both_here/with-provider.sh" doorbell "$@" || rc=1
}
t0=$SECONDS
stamp() { echo "    (${stamp_prefix:-}$1: $((SECONDS - t0)) s)"; t0=$SECONDS; }
