#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The tree's layering, read from its #include lines (lint's layers check):
#   core     providers/doorbell/core includes no backend's header, so a
#            new backend touches no core file (docs/new-backend.md);
#   product  nothing under providers/ includes a simulator's or a test's
#            header (sim/, tests/ are never shipped);
#   engine   sim/mlx5/engine includes, from outside itself, only the
#            device's formats (mlx5/mlx5_hw.h): it knows no provider and
#            no front end;
#   pci      sim/mlx5/pci and sim/vfio-user include no header of the
#            in-process front end (sim/mlx5/model): the PCI function
#            links no fake kernel.
# Prints one "layer FILE:LINE: HEADER" line per finding; exit 1 on any.
#
# Usage: scripts/ci/layers.sh [ROOT]   (default: this repository)
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$root" || exit 2

# includes DIR...: "FILE:LINE: HEADER" for each #include "HEADER" in the
# C sources and headers under DIR.
includes() {
	find "$@" -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | sort |
		xargs -r grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
		sed -E 's/^([^:]+:[0-9]+):[^"]*"([^"]+)".*/\1: \2/'
}

found=0
# finding RULE LINE...: report the lines (FILE:LINE: HEADER) under RULE.
finding() {
	local rule=$1 l
	shift
	for l in "$@"; do
		printf 'layer %s %s\n' "$rule" "$l"
		found=1
	done
}

# A header in a folder other than core/ and abi/ is a backend's.
mapfile -t bad < <(includes providers/doorbell/core |
	grep -E ': [a-z0-9_]+/' | grep -vE ': (core|abi)/')
finding core "${bad[@]}"

mapfile -t bad < <(includes providers |
	grep -E ': (m5m_|m5model|m5t_|cx_|cx\.h|vfu|it_|check\.h|rxe_fake)')
finding product "${bad[@]}"

# The engine's own headers, and the device's formats: nothing else.
mapfile -t bad < <(includes sim/mlx5/engine |
	while read -r at h; do
		[[ $h == mlx5/mlx5_hw.h || -f sim/mlx5/engine/$h ]] ||
			echo "$at $h"
	done)
finding engine "${bad[@]}"

mapfile -t bad < <(includes sim/mlx5/pci sim/vfio-user |
	grep -E ': (m5m_front\.h|mlx5/mlx5\.h|core/)')
finding pci "${bad[@]}"

exit "$found"
