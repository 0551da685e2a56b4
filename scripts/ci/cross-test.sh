#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The build's ctest entries on other architectures, under qemu-user: each
# ARCH is configured with the toolchain file of cmake/toolchains/ named ARCH (Debian's cross gcc,
# the multiarch libibverbs-dev:ARCH), the targets the tests run are built,
# and ctest runs every entry through qemu-ARCH-static
# (docs/architectures.md).
#
# Usage: scripts/ci/cross-test.sh [--native BUILD] [--deps-only] [ARCH...]
#   ARCH: arm64 ppc64el s390x (all of them by default)
#   --deps-only: install what the run needs (below), then exit
#   --native BUILD: an amd64 build directory (scripts/build.sh); its ctest
#                   entries name the targets to build, and each ARCH must
#                   list the same test names.  Default: build/.
# Prints "PASS|FAIL|SKIP ARCH_<test>" per test and
# "PASS|FAIL ARCH_lists_the_amd64_test_names"; exit 1 on a FAIL.
# Builds in build-cross/ARCH.  Installs what it needs with apt (root):
# dpkg --add-architecture ARCH, gcc-<triplet>, libibverbs-dev:ARCH,
# qemu-user-static.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)	# scripts/
top=$(dirname "$here")
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
# shellcheck source=scripts/apt-lib.sh
. "$here/apt-lib.sh"

declare -A triplet=(
	[arm64]=aarch64-linux-gnu
	[ppc64el]=powerpc64le-linux-gnu
	[s390x]=s390x-linux-gnu
)
all=(arm64 ppc64el s390x)
native=$top/build
archs=()
deps_only=0
while (($#)); do
	case $1 in
	--native) native=${2:?--native needs a build directory}; shift ;;
	--deps-only) deps_only=1 ;;
	-h | --help) sed -n '3,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	*)
		[[ -n ${triplet[$1]:-} ]] || {
			echo "cross-test.sh: unknown architecture $1 (${all[*]})" >&2
			exit 2
		}
		archs+=("$1") ;;
	esac
	shift
done
((${#archs[@]})) || archs=("${all[@]}")
[[ -f $native/CTestTestfile.cmake ]] || ((deps_only)) || {
	echo "cross-test.sh: no amd64 build in $native (scripts/build.sh)" >&2
	exit 2
}

pkgs=(qemu-user-static)
for a in "${archs[@]}"; do
	more=$(cross_packages cross-test.sh "$a" "${triplet[$a]}") || exit 1
	mapfile -t -O "${#pkgs[@]}" pkgs <<<"$more"
done
install_missing cross-test.sh "${pkgs[@]}" || exit 1
((deps_only)) && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The test names of a build directory, sorted.
test_names() {
	(cd "$1" && ctest -N) | sed -nE 's/^ *Test +#[0-9]+: ([^ ]+)$/\1/p' | sort
}
test_names "$native" >"$work/native.names"
# The targets the amd64 entries run: every file of the build directory a
# test command names (programs, the provider module) is a target's output,
# named after the target (lib<target>.so for the module).
mapfile -t targets < <((cd "$native" && ctest -N -V) |
	grep -oE "$native/[^ \"']+" | while read -r f; do
		[[ -f $f && ( -x $f || $f == *.so ) ]] || continue
		f=${f##*/}
		[[ $f == lib*.so ]] && f=${f#lib} && f=${f%.so}
		echo "$f"
	done | sort -u)
((${#targets[@]})) || {
	echo "cross-test.sh: no test program found in $native's ctest entries" >&2
	exit 2
}

failed=0
for a in "${archs[@]}"; do
	b=$top/build-cross/$a log=$work/$a.log
	echo "cross-test.sh: $a: building ${#targets[@]} targets in $b" >&2
	# Of those, the ones this architecture has (libmlx5-bench: x86_64 only;
	# its test is a SKIP entry here).
	if ! { cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_TOOLCHAIN_FILE="$top/cmake/toolchains/$a.cmake" \
		-DDOORBELL_WERROR=ON &&
		mapfile -t have < <(cmake --build "$b" --target help |
			sed -n 's/^\.\.\. \([^ ]*\).*/\1/p' |
			grep -Fx -f <(printf '%s\n' "${targets[@]}")) &&
		cmake --build "$b" -j 2 --target "${have[@]}"; } >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		fail "${a}_builds_warning_free"
		failed=1
		continue
	fi
	pass "${a}_builds_warning_free"
	(cd "$b" && ctest -j 2 --timeout 600 -V) >"$log" 2>&1
	rc=$?
	# The tests' own lines, named for the architecture.
	sed -nE "s/^[0-9]+: (PASS|FAIL|SKIP) /\1 ${a}_/p" "$log"
	# An entry that failed without a FAIL line (a crash under qemu, a
	# script error): named, with the last lines of its output.
	if ((rc != 0)); then
		failed=1
		grep -E '^[[:space:]]+[0-9]+ - [^ ]+ \(' "$log" |
			grep -v '(Skipped)$' | while read -r num _ name _; do
				grep -q "^$num: FAIL " "$log" && continue
				grep "^$num: " "$log" | tail -n 5 | sed 's/^/    /' >&2
				fail "${a}_ctest_${name}_passes" "failed without a FAIL line"
			done
	fi
	test_names "$b" >"$work/$a.names"
	lacking=$(comm -23 "$work/native.names" "$work/$a.names" | tr '\n' ' ')
	extra=$(comm -13 "$work/native.names" "$work/$a.names" | tr '\n' ' ')
	n=$(wc -l <"$work/$a.names")
	if [[ -z $lacking && -z $extra ]]; then
		pass "${a}_lists_the_amd64_test_names" "the same $n entries"
	else
		fail "${a}_lists_the_amd64_test_names" "missing: ${lacking:-none}; extra: ${extra:-none}"
		failed=1
	fi
done
exit $failed
