#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What each performance technique bought: builds the provider of each given
# commit (default: the commits docs/performance.md lists) and counts, in one
# guest boot, callgrind instructions per post and per polled completion with
# today's tests/bench program, for the stock provider and for each build.
# Usage: scripts/bench-history.sh [COMMIT...]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
commits=("$@")
((${#commits[@]})) || commits=(5e4ba75 77bff44 3c5e9ca 5436764 5695123 69e087a)
scripts/deps.sh valgrind
build=$(scripts/build.sh)
hist=$build/history
rm -rf "$hist"
mkdir -p "$hist"
list=$hist/providers.txt
: >"$list"
for c in "${commits[@]}"; do
	sha=$(git rev-parse --short "$c")
	git worktree add -f --detach "$hist/src-$sha" "$sha" >/dev/null 2>&1
	cmake -S "$hist/src-$sha" -B "$hist/build-$sha" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$hist/build-$sha" --target doorbell-rdmav34 >/dev/null
	git worktree remove --force "$hist/src-$sha"
	echo "$sha $hist/build-$sha/lib/libdoorbell" >>"$list"
done
tests/vm/prepare.sh
tests/vm/run.sh --keep-stock --out "$hist" -- \
	tests/bench/guest-history.sh "$build" "$list" | tee "$hist/counts.txt"
