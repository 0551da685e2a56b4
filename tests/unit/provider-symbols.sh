#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What the built module asks of the dynamic linker, read with readelf:
#   - no version need on IBVERBS_PRIVATE_* (libibverbs 57 and later define
#     another node, and dlopen would fail before our constructor runs), and
#     no undefined private function (ibv_cmd_*, verbs_*, _verbs_*) at all:
#     core/libver.c resolves them with dlvsym;
#   - public IBVERBS_1.x needs only up to IBVERBS_1.12, the newest node of
#     rdma-core 34, the oldest release served;
#   - the build's lib/ names it for every later PABI of
#     providers/doorbell/abi/releases.txt: -rdmav<PABI>.so links.
# Usage: provider-symbols.sh PROVIDER_SO
# Prints PASS/FAIL per check and the public versions needed; exit 1 on FAIL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
# shellcheck source=scripts/ci/releases.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/ci/releases.sh"
so=${1:?usage: provider-symbols.sh PROVIDER_SO}

needs=$(readelf -V -W "$so" | sed -n '/Version needs section/,$p' |
	grep -o 'Name: [^ ]*' | cut -d' ' -f2)
priv=$(grep '^IBVERBS_PRIVATE_' <<<"$needs" || true)
if [[ -z $priv ]]; then
	pass provider_needs_no_private_libibverbs_version
else
	fail provider_needs_no_private_libibverbs_version "needs ${priv//$'\n'/ }"
fi

und=$(readelf --dyn-syms -W "$so" | awk '$7 == "UND" { print $8 }' |
	sed 's/@.*//' | grep -E '^(ibv_cmd_|verbs_|_verbs_|__verbs_)' || true)
if [[ -z $und ]]; then
	pass provider_references_no_private_libibverbs_function
else
	fail provider_references_no_private_libibverbs_function \
		"undefined: ${und//$'\n'/ }"
fi

pub=$(grep '^IBVERBS_1\.' <<<"$needs" | sort -t. -k2 -n || true)
echo "public libibverbs versions needed: ${pub//$'\n'/ }"
newer=$(awk -F. '$2 > 12' <<<"$pub")
if [[ -z $newer ]]; then
	pass provider_needs_no_public_version_newer_than_rdma_core_34s
else
	fail provider_needs_no_public_version_newer_than_rdma_core_34s \
		"needs ${newer//$'\n'/ }"
fi

dir=$(dirname "$so") base=$(basename "$so") bad=''
for p in "${db_pabis[@]:1}"; do
	l=$dir/libdoorbell-rdmav$p.so
	[[ -L $l && $(readlink "$l") == "$base" ]] || bad+=" ${l##*/}"
done
if [[ -z $bad ]]; then
	pass provider_has_a_name_for_every_pabi
else
	fail provider_has_a_name_for_every_pabi "missing or wrong:$bad"
fi
exit "$db_failed"
