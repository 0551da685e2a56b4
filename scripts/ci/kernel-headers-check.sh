#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Check that a build compiled every kernel uAPI header it used from the
# tree's kernel-headers/ (one named Linux release, kernel-headers/README.md)
# and none from the build host: no dependency list of any object in
# BUILD_DIR may name an <rdma/...> header outside kernel-headers/ (such as
# /usr/include/rdma/ from linux-libc-dev).  The dependency lists are the
# compiler's: the *.d files the Makefile generator keeps next to the
# objects, or "ninja -t deps" for a Ninja build.
#
# As a control, the provider's rxe objects must list
# kernel-headers/rdma/rdma_user_rxe.h: a build without dependency lists, or
# one that took the header from elsewhere, fails too.
#
# Prints "PASS|FAIL build_uses_only_tree_kernel_headers"; exits 1 on FAIL.
# Run by ctest (unit_build_uses_only_tree_kernel_headers, also in the
# package builds) and by scripts/lint.sh after its clang build.
#
# Usage: scripts/ci/kernel-headers-check.sh BUILD_DIR [NAME]
#   NAME: the test name printed (default build_uses_only_tree_kernel_headers)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:?usage: kernel-headers-check.sh BUILD_DIR [NAME]}
name=${2:-build_uses_only_tree_kernel_headers}
kh=$(realpath "$top/kernel-headers")

# refuse WHY: the one FAIL line, and exit 1.
refuse() {
	fail "$name" "$*"
	exit 1
}
[[ -d $build ]] || refuse "no build directory $build"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
deps=$work/deps
# One "OBJECT: header" line per dependency, whatever the generator.
if [[ -f $build/build.ninja ]]; then
	command -v ninja >/dev/null || refuse "a Ninja build, but no ninja to read its deps"
	ninja -C "$build" -t deps 2>/dev/null |
		awk '/^[^ \t].*: #deps/ { obj = $1; sub(/:$/, "", obj); next }
		     NF == 1 { print obj ": " $1 }' >"$deps"
else
	# make syntax: "obj: dep dep \", continued on the next lines.
	# shellcheck disable=SC2016 # an awk program, not shell expansions
	find "$build" -name '*.o.d' -type f -print0 |
		xargs -0 -r awk '{
			for (i = 1; i <= NF; i++)
				if ($i != "\\" && $i !~ /:$/)
					print FILENAME ": " $i
		}' >"$deps"
fi
[[ -s $deps ]] || refuse "no dependency lists found in $build (built yet? Makefile or Ninja generator?)"
nobj=$(cut -d: -f1 "$deps" | sort -u | wc -l)

# Headers are named as the compiler opened them: absolute, or relative to
# the directory it ran in.  Check those in an rdma/ directory.
bad=$work/bad
: >"$bad"
# Those already under kernel-headers/ are fine without a look.
awk -v kh="$kh/" '$NF ~ /(^|\/)rdma\/[^\/]+\.h$/ && index($NF, kh) != 1' "$deps" |
	while IFS= read -r line; do
		obj=${line%%: *}
		hdr=${line#*: }
		real=$(realpath -m "$hdr")
		if [[ $hdr != /* ]]; then
			# Relative to the compiler's directory: one of the
			# object's ancestors up to the build directory.
			dir=$(dirname "$obj")
			while [[ $dir == "$build"* ]]; do
				real=$(realpath -m "$dir/$hdr")
				[[ $real == "$kh"/* ]] && break
				dir=$(dirname "$dir")
			done
		fi
		[[ $real == "$kh"/* ]] || echo "${obj#"$build"/}: $real" >>"$bad"
	done
if [[ -s $bad ]]; then
	sed 's/^/    /' "$bad" | head -n 20 >&2
	refuse "$(cut -d: -f1 "$bad" | sort -u | wc -l) of $nobj objects include <rdma/...> headers from outside $kh, e.g. $(head -n1 "$bad")"
fi
# The control: the rxe backend's objects name the tree's rdma_user_rxe.h.
if ! grep -Eq 'rxe[^ ]*\.o(\.d)?: .*/rdma/rdma_user_rxe\.h$' "$deps"; then
	refuse "no rxe object lists rdma/rdma_user_rxe.h: the dependency lists are incomplete"
fi
pass "$name"
