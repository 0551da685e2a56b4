#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Host side of the package take-over test: build the .deb (lintian clean)
# and an RPM whose %_libdir is Debian's multiarch libdir (so that Debian's
# libibverbs finds the provider; the scriptlets are the same as in the
# real RPM), then run tests/guest/package-takeover.sh in the guest with the
# stock provider visible.  Prints the guest's PASS/FAIL/SKIP lines; exits
# with the guest test's status (124/125: guest timeout/failure).
#
# Usage: tests/package/run-takeover.sh [--no-rpm] [--worktree]
#   --worktree  build the RPM's Source0 from the work tree, not HEAD
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
with_rpm=1
rpm_args=()
while (($#)); do
	case $1 in
	--no-rpm) with_rpm=0 ;;
	--worktree) rpm_args+=(--worktree) ;;
	*) echo "run-takeover: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
deb=$(scripts/build-deb.sh)
args=("$deb")
if ((with_rpm)); then
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	rpm=$(scripts/build-rpm.sh "${rpm_args[@]}" --out "$top/build/rpm-debian-libdir" -- \
		--define "_libdir /usr/lib/$multiarch")
	args+=("$rpm")
fi
exec tests/vm/run.sh --keep-stock --timeout 1500 -- \
	tests/guest/package-takeover.sh "${args[@]}"
