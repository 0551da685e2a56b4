#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The documents that state the rdma-core releases doorbell serves, or their
# private ABI versions (PABIs), against the one place these are written,
# providers/doorbell/abi/releases.txt (the build, the packages and the C
# tests read it; prose cannot, so it is checked here):
#   - a range of releases "N to M", "N–M", "N-M", "N..M" or "N … M" that
#     spans about all of them (N <= first + 1 and M >= last - 1) must be
#     exactly first to last: after a release is added, every "34 to 65"
#     left behind is named;
#   - a package dependency stated as "libibverbs1 (<< N~)" has N = last + 1;
#   - a file that names a provider file -rdmavN.so of a later PABI names
#     those of all PABIs, and a list "34, 57, ... and 65" that starts with
#     the first PABI lists exactly the PABIs.
# Usage: release-range.sh [FILE...]  (default: the README, docs/, man/,
# debian/control, redhat/ and tests/unit/golden/README.md of this checkout)
# Prints PASS/FAIL per file; exit 1 on a FAIL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
# shellcheck source=scripts/ci/releases.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/ci/releases.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export LC_ALL=C
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
	files=("$top/README.md" "$top"/docs/*.md "$top"/man/*.[1-9]
		"$top/debian/control" "$top/redhat/doorbell.spec"
		"$top/tests/unit/golden/README.md")
fi
pabis=" ${db_pabis[*]} "
failed=0

for f in "${files[@]}"; do
	[[ -f $f ]] || continue
	name=${f#"$top"/}
	bad=()
	# Ranges: two two-digit numbers joined by to, -, en dash, .. or ...
	while IFS=: read -r line text; do
		read -r n m _ <<<"$(grep -oE '[0-9]+' <<<"$text" | tr '\n' ' ')"
		if ((n <= db_first + 1 && m >= db_last - 1)) &&
			((n != db_first || m != db_last)); then
			bad+=("line $line says '$text', not $db_first to $db_last")
		fi
	done < <({ grep -noE '(^|[^0-9.v])[0-9]{2} ?(to|-|–|\.\.|…) ?[0-9]{2}([^0-9.]|\.([^0-9]|$)|$)' \
		"$f" || true; } | sed -E 's/^([0-9]+):[^0-9]*/\1:/; s/[^0-9]*$//')
	# The upper bound of the package dependency on libibverbs1.
	while IFS=: read -r line n; do
		((n == db_last + 1)) ||
			bad+=("line $line says libibverbs1 (<< $n~), not << $((db_last + 1))~")
	done < <({ grep -noE 'libibverbs1 \(<< [0-9]+' "$f" || true; } |
		sed -E 's/^([0-9]+):.*<< /\1:/')
	# Provider file names of later PABIs: all of them or none.
	named=" $({ grep -oE 'rdmav[0-9]+' "$f" || true; } | sed 's/rdmav//' |
		sort -un | tr '\n' ' ')"
	if [[ $named != " " && $named != " ${db_pabis[0]} " &&
		$named != "$pabis" ]]; then
		named=${named# } pabis_=${pabis# }
		bad+=("names -rdmav{${named% }}.so, not -rdmav{${pabis_% }}.so")
	fi
	# Lists that start with the first PABI.
	while IFS=: read -r line text; do
		list=" $(grep -oE '[0-9]+' <<<"$text" | tr '\n' ' ')"
		[[ $list == "$pabis" ]] ||
			bad+=("line $line lists '$text', not the PABIs${pabis% }")
	done < <({ grep -noE "(^|[^0-9])${db_pabis[0]}(, [0-9]{2})+(,? and [0-9]{2})?" \
		"$f" || true; } | sed -E 's/^([0-9]+):[^0-9]*/\1:/')
	if [[ ${#bad[@]} -eq 0 ]]; then
		pass docs_state_the_releases_of_releases_txt "$name"
	else
		for b in "${bad[@]}"; do
			fail docs_state_the_releases_of_releases_txt "$name: $b"
		done
		failed=1
	fi
done
exit $failed
