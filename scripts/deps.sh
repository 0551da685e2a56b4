#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Install what building and running doorbell needs on Debian 12 or 13 (as
# root).
# --lint: the lint stage's tools instead (clang, clang-format, shellcheck);
# scripts/lint.sh adds its cross compilers as extra PKG arguments.
#
# Usage: scripts/deps.sh [--lint] [PKG...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# libc6-dev: gcc only recommends it (a minimal Debian 13 lacks it).  git:
# the unit stage's cited-paths test makes a scratch repository.
pkgs=(cmake gcc libc6-dev make pkg-config libibverbs-dev ibverbs-utils perftest
      valgrind rdma-core ibverbs-providers iproute2 git)
if [[ ${1:-} == --lint ]]; then
	shift
	pkgs=(cmake make pkg-config libibverbs-dev clang clang-format shellcheck)
fi
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-lib.sh"
install_missing doorbell "${pkgs[@]}" "$@"
