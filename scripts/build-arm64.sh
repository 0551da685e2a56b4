#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Cross-build doorbell for arm64 in build-arm64/: scripts/build-arch.sh arm64.
# Prints the build directory.
#
# Usage: scripts/build-arm64.sh [CMAKE_ARGS...]
exec "$(dirname "${BASH_SOURCE[0]}")/build-arch.sh" arm64 "$@"
