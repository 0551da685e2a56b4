#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Cross-build doorbell for arm64 in build-arm64/ (the guest of
# "tests/vm/run.sh --arch arm64" sees the checkout): the provider and
# doorbell-itest, with Debian 12's aarch64 cross compiler and the arm64
# libibverbs-dev of multiarch (cmake/toolchains/arm64.cmake).  Adds the
# arm64 architecture to dpkg and installs the packages when missing (root).
# Prints the build directory.
#
# Usage: scripts/build-arm64.sh [CMAKE_ARGS...]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/apt-lib.sh
. "$here/apt-lib.sh"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[[ $(id -u) == 0 ]] || { echo "build-arm64.sh: need root: dpkg --add-architecture arm64" >&2; exit 1; }
	dpkg --add-architecture arm64
fi
install_missing build-arm64.sh gcc-aarch64-linux-gnu libibverbs-dev:arm64 >&2
DOORBELL_BUILD_DIR=${DOORBELL_BUILD_DIR:-$top/build-arm64} "$here/build.sh" \
	--target doorbell-rdmav34 --target doorbell-itest \
	-DCMAKE_TOOLCHAIN_FILE="$top/cmake/toolchains/arm64.cmake" "$@"
