#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The guest command of scripts/test.sh's trixie and sid stages: in one
# distribution guest (tests/vm/run.sh --distro D --keep-stock),
# distro-suite.sh with the Debian 12 build and the native one, then the
# Debian 12 .deb's take-over and removal (package-takeover.sh, its names
# prefixed D_).  Exit 1 if either exited non-zero, so that a suite that
# died without a FAIL line still makes the stage red.
#
# Usage: tests/guest/distro-stage.sh BUILD_DIR D DEB NATIVE_DIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: distro-stage.sh BUILD_DIR D DEB NATIVE_DIR} d=${2:?} deb=${3:?}
native=${4-}
rc=0
"$here/distro-suite.sh" "$build" "$native" || rc=1
echo "== $d: the Debian 12 .deb take-over and removal"
"$here/package-takeover.sh" "$deb" | sed -uE "s/^(PASS|FAIL|SKIP) /\1 ${d}_/" || rc=1
exit "$rc"
