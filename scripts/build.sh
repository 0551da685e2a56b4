#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Configure and build doorbell in build/ (the guest sees the checkout).
# Prints the build directory; shows the compiler's output only on failure.
# --provider-only: build the provider alone, not the tests (scripts/demo.sh).
# --target T: build target T (repeatable) instead of all.
#
# Usage: scripts/build.sh [--provider-only | --target T...] [CMAKE_ARGS...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DOORBELL_BUILD_DIR:-$top/build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
target=()
if [[ ${1:-} == --provider-only ]]; then
	target=(--target doorbell-rdmav34)
	shift
fi
while [[ ${1:-} == --target ]]; do
	target+=(--target "${2:?--target needs a target}")
	shift 2
done
# An existing build is configured again only when CMAKE_ARGS are given:
# cmake --build reconfigures by itself when a CMakeLists.txt changed (an
# up-to-date tree then costs only the build tool's walk: minutes less in
# a TCG guest over 9p, tests/guest/mlx5/check-mlx5-validate.sh).
configure() {
	[[ -e $build/CMakeCache.txt ]] && (($# == 0)) && return 0
	cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
}
if ! { configure "$@" &&
       cmake --build "$build" -j "$(nproc)" "${target[@]}"; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "doorbell: build failed" >&2
	exit 1
fi
echo "$build"
