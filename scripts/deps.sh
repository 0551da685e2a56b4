#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Install what building and running doorbell needs on Debian 12 (as root).
set -euo pipefail
pkgs=(cmake gcc make pkg-config libibverbs-dev ibverbs-utils perftest valgrind
      rdma-core ibverbs-providers iproute2)
# shellcheck source=scripts/apt-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-lib.sh"
install_missing doorbell "${pkgs[@]}" "$@"
