#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The side-by-side benchmark (docs/performance.md): in one boot of the
# Soft-RoCE guest, perftest through the stock provider and through doorbell,
# alternating, for ROUNDS rounds; callgrind instruction counts per post and
# per polled completion; medians, ratios, and a latency plot.
# Usage: scripts/bench.sh [ROUNDS [ITERS]]     (defaults 3 and 2000)
# Writes build/bench/results.{md,json} and build/bench/latency.png.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
rounds=${1:-3}
iters=${2:-2000}
scripts/deps.sh valgrind python3-matplotlib
build=$(scripts/build.sh)
out=$build/bench
rm -rf "$out"
mkdir -p "$out"
tests/vm/prepare.sh
tests/vm/run.sh --keep-stock --out "$out" --timeout 3600 -- \
	tests/bench/guest-bench.sh "$build" "$out" "$rounds" "$iters"
/usr/bin/python3 tests/bench/report.py "$out"
echo "doorbell: results in $out/results.md, plot in $out/latency.png"
