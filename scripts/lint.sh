#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The lint stage of scripts/test.sh: every check fails on any finding.
#   paths      every repository path that text cites exists, and no text
#              names a path outside the repository (scripts/ci/cited-paths.sh);
#   format     clang-format --dry-run -Werror (the repository's .clang-format)
#              on every tracked *.c and *.h;
#   shell      shellcheck on every tracked shell script (*.sh, and files whose first line
#              is a sh or bash shebang);
#   clang      the whole tree built with clang and -Werror, and no object
#              of it compiled against an <rdma/...> header from outside
#              kernel-headers/ (scripts/ci/kernel-headers-check.sh);
#   cross      the provider's sources compiled (no link) for each of
#              cross_archs with Debian's cross compilers
#              (scripts/ci/cross-compile.sh);
#   readme     README.md, a newcomer's page, is at most 200 lines;
#   docs       no reference doc (README.md, docs/*.md; not docs/evidence/)
#              says what is true "now (at <commit>)" (docs/README.md);
#   layers     the #include lines keep the core generic, the product free
#              of sim/ and tests/, and the device engine free of providers
#              and front ends (scripts/ci/layers.sh).
# Prints PASS/FAIL <name> lines; the findings go to stderr.  Installs its
# tools with scripts/deps.sh --lint (root, Debian 12).
#
# Usage: scripts/lint.sh [CHECK...]          (default: all eight, in order)
#   DOORBELL_BUILD_DIR: where the clang build goes (default build/), under
#   lint-clang/.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cd "$top" || exit

# The cross targets: scripts/ci/cross-compile.sh's architecture names.  Add
# one here to compile for one more architecture.
# aarch64, ppc64le and s390x are built, linked and run by the cross stage
# of scripts/test.sh (scripts/ci/cross-test.sh); riscv64 (no Debian 12 archive
# to link against) stays compile-only, and i686 stays, to prove that the
# 32-bit build (no mlx5, the core's refusal to load) compiles.
cross_archs=(riscv64 i686)

build=${DOORBELL_BUILD_DIR:-$top/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# show FILE: the first 40 lines of FILE on stderr, indented.
show() { head -n 40 "$1" | sed 's/^/    /' >&2; }

shell_scripts() {
	local f
	git ls-files | while IFS= read -r f; do
		[[ -f $f ]] || continue
		if [[ $f == *.sh ]] ||
		   head -n1 "$f" | grep -qE '^#! ?(/usr)?/bin/(env +)?(ba|da)?sh\b'; then
			echo "$f"
		fi
	done
}

check_paths() {
	local out=$work/paths rc miss away
	scripts/ci/cited-paths.sh >"$out" 2>&1
	rc=$?
	miss=$(grep -c '^missing ' "$out")
	away=$(grep -c '^outside ' "$out")
	if ((rc != 0 && miss + away == 0)); then
		show "$out"
		fail lint_cited_paths_are_checked "scripts/ci/cited-paths.sh exit $rc"
		return
	fi
	if ((miss == 0)); then
		pass lint_cited_repository_paths_exist
	else
		grep '^missing ' "$out" >"$out.m"
		show "$out.m"
		fail lint_cited_repository_paths_exist \
			"$miss cited paths are not in the repository (scripts/ci/cited-paths.sh)"
	fi
	if ((away == 0)); then
		pass lint_no_text_names_a_path_outside_the_repository
	else
		grep '^outside ' "$out" >"$out.o"
		show "$out.o"
		fail lint_no_text_names_a_path_outside_the_repository \
			"$away paths outside the repository (scripts/ci/cited-paths.sh)"
	fi
}

check_format() {
	local out=$work/format lines files
	# kernel-headers/ holds Linux's files as Linux wrote them.
	git ls-files -z -- '*.c' '*.h' ':!kernel-headers/' |
		xargs -0 -r clang-format --style=file --dry-run -Werror \
		>"$out" 2>&1
	# One finding per column: count the lines and files that differ.
	lines=$(grep ': error: code should be clang-formatted' "$out" |
		cut -d: -f1,2 | sort -u | wc -l)
	files=$(grep ': error: code should be clang-formatted' "$out" |
		cut -d: -f1 | sort -u | wc -l)
	if ((lines == 0)) && ! grep -q . "$out"; then
		pass lint_c_files_match_clang_format
		return
	fi
	show "$out"
	fail lint_c_files_match_clang_format \
		"$lines lines in $files files differ from clang-format (.clang-format; clang-format -i FILE fixes one)"
}

check_shell() {
	local out=$work/shellcheck n
	mapfile -t scripts < <(shell_scripts)
	# Two shellcheck processes at a time (one per CPU), 8 scripts each.
	printf '%s\0' "${scripts[@]}" |
		xargs -0 -r -P 2 -n 8 \
			shellcheck -x -f gcc >"$out" 2>&1
	n=$(grep -c . "$out")
	if ((n == 0)); then
		pass lint_shell_scripts_are_shellcheck_clean
		return
	fi
	show "$out"
	fail lint_shell_scripts_are_shellcheck_clean \
		"$n shellcheck findings in ${#scripts[@]} scripts"
}

check_clang() {
	local dir=$build/lint-clang log=$work/clang
	if { CC=clang cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DDOORBELL_WERROR=ON &&
	     cmake --build "$dir" -j "$(nproc)"; } >"$log" 2>&1; then
		pass lint_clang_build_is_warning_free
		# Every <rdma/...> header came from kernel-headers/.
		scripts/ci/kernel-headers-check.sh "$dir" \
			lint_clang_build_uses_only_tree_kernel_headers ||
			db_failed=1
		return
	fi
	grep -E 'error|warning' "$log" >"$log.e"
	show "$log.e"
	fail lint_clang_build_is_warning_free \
		"$(grep -c 'error:' "$log") clang errors (build dir $dir)"
}

# The provider's sources compiled, not linked, for each of cross_archs
# (scripts/ci/cross-compile.sh installs the compilers and prints the lines).
check_cross() {
	local log=$work/cross
	if scripts/ci/cross-compile.sh "${cross_archs[@]}" >"$log" 2>&1; then
		grep -E '^(PASS|FAIL) ' "$log" | sed 's/^\(PASS\|FAIL\) /&lint_/'
		return
	fi
	grep -E '^(PASS|FAIL) ' "$log" | sed 's/^\(PASS\|FAIL\) /&lint_/'
	grep -v -E '^(PASS|FAIL) ' "$log" >"$log.e"
	show "$log.e"
	grep -q '^FAIL ' "$log" ||
		fail lint_provider_cross_compiles "scripts/ci/cross-compile.sh failed"
	db_failed=1
}

check_readme() {
	local n
	n=$(wc -l <README.md)
	if ((n <= 200)); then
		pass lint_readme_is_at_most_200_lines
	else
		fail lint_readme_is_at_most_200_lines "README.md has $n lines"
	fi
}

check_docs() {
	if grep -nE '\bnow,? \(?at `?[0-9a-f]{7}' README.md docs/*.md >"$work/now"; then
		show "$work/now"
		fail lint_reference_docs_say_no_now_at_a_commit \
			"$(wc -l <"$work/now") lines (evidence goes to docs/evidence/)"
	else
		pass lint_reference_docs_say_no_now_at_a_commit
	fi
}

check_layers() {
	if scripts/ci/layers.sh >"$work/layers"; then
		pass lint_includes_keep_the_layers
	else
		show "$work/layers"
		fail lint_includes_keep_the_layers \
			"$(wc -l <"$work/layers") includes across a layer"
	fi
}

checks=("$@")
((${#checks[@]})) || checks=(paths format shell clang cross readme docs layers)
for c in "${checks[@]}"; do
	case $c in
	paths | format | shell | clang | cross | readme | docs | layers) ;;
	*) die "unknown check '$c' (paths, format, shell, clang, cross, readme, docs, layers)" ;;
	esac
done
scripts/deps.sh --lint ||
	die "could not install the lint tools (see above)"
for c in "${checks[@]}"; do
	case $c in
	paths) check_paths ;;
	format) check_format ;;
	shell) check_shell ;;
	clang) check_clang ;;
	cross) check_cross ;;
	readme) check_readme ;;
	docs) check_docs ;;
	layers) check_layers ;;
	esac
done
exit "$db_failed"
