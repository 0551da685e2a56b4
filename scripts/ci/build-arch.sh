#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Cross-build doorbell for ARCH (arm64, s390x, ...: any architecture with
# a toolchain file in cmake/toolchains/) in build-ARCH/, for the guest of
# "tests/vm/run.sh --arch ARCH" (which sees the checkout): the provider and
# doorbell-itest, with Debian 12's cross compiler (the toolchain file's
# db_triplet) and the multiarch libibverbs-dev:ARCH.  Adds ARCH to dpkg and
# installs the packages when missing (root).  Prints the build directory.
#
# Usage: scripts/ci/build-arch.sh ARCH [CMAKE_ARGS...]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)	# scripts/
top=$(dirname "$here")
# shellcheck source=scripts/apt-lib.sh
. "$here/apt-lib.sh"
arch=${1:?usage: build-arch.sh ARCH [CMAKE_ARGS...]}
shift
tc=$top/cmake/toolchains/$arch.cmake
[[ -f $tc ]] || { echo "build-arch.sh: no toolchain file $tc" >&2; exit 2; }
triplet=$(sed -n 's/^set(db_triplet \([^ )]*\))$/\1/p' "$tc")
[[ -n $triplet ]] || { echo "build-arch.sh: $tc sets no db_triplet" >&2; exit 2; }
list=$(cross_packages build-arch.sh "$arch" "$triplet") || exit 1
mapfile -t pkgs <<<"$list"
install_missing build-arch.sh "${pkgs[@]}" >&2
DOORBELL_BUILD_DIR=${DOORBELL_BUILD_DIR:-$top/build-$arch} "$here/build.sh" \
	--target doorbell-rdmav34 --target doorbell-itest \
	-DCMAKE_TOOLCHAIN_FILE="$tc" "$@"
