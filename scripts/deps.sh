#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Install what building and running doorbell needs on Debian 12 (as root).
set -euo pipefail
pkgs=(cmake gcc make pkg-config libibverbs-dev ibverbs-utils perftest valgrind
      rdma-core ibverbs-providers iproute2)
missing=()
for p in "${pkgs[@]}" "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
((${#missing[@]})) || exit 0
if [[ $(id -u) != 0 ]]; then
	echo "doorbell: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "doorbell: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
