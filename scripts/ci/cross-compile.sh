#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Compile (no link) the provider's sources with Debian's cross compilers,
# to prove every architecture branch of core/mmio.h and the sources around
# it build warning-free.  Nothing runs; the objects are thrown away.
#
# Usage: scripts/ci/cross-compile.sh [ARCH...]
#   ARCH: aarch64 ppc64le riscv64 s390x i686 (all of them by default)
# Prints "PASS|FAIL provider_compiles_for_ARCH" per architecture (the lint
# stage of scripts/test.sh runs it through scripts/lint.sh).
# Installs the gcc-<triplet> and libc6-dev-<arch>-cross packages it needs
# with apt (as root).
# The kernel uAPI <rdma/...> headers are the tree's kernel-headers/, first
# on the include path as in the CMake build; libibverbs' headers are the
# host's: a directory holding only /usr/include/infiniband comes next, so
# that the cross compiler's own libc and <linux/...> headers are used.  The
# compiler's dependency lists must name no <rdma/...> header from outside
# kernel-headers/ (the cross compiler's own /usr/<triplet>/include/rdma
# included).
# On i686 the mlx5 backend is left out, as the build leaves it out
# (core/mmio.h DB_HAVE_MMIO); the script checks that it is, and compiles
# the core there (rxe's static layout checks hold on 64-bit hosts only).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)	# scripts/
top=$(dirname "$here")
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail, skip
# shellcheck source=scripts/apt-lib.sh
. "$here/apt-lib.sh"

# Debian's names: the compiler's target triplet, and the architecture of
# its libc6-dev-*-cross (which brings linux-libc-dev-*-cross).
declare -A debarch=(
	[aarch64]=arm64
	[ppc64le]=ppc64el
	[riscv64]=riscv64
	[s390x]=s390x
	[i686]=i386
)
declare -A triplet=(
	[aarch64]=aarch64-linux-gnu
	[ppc64le]=powerpc64le-linux-gnu
	[riscv64]=riscv64-linux-gnu
	[s390x]=s390x-linux-gnu
	[i686]=i686-linux-gnu
)
all=(aarch64 ppc64le riscv64 s390x i686)
(($#)) && archs=("$@") || archs=("${all[@]}")
pkgs=(libibverbs-dev)
for a in "${archs[@]}"; do
	[[ -n ${triplet[$a]:-} ]] || {
		echo "cross-compile.sh: unknown architecture $a (${all[*]})" >&2
		exit 2
	}
	pkgs+=("gcc-${triplet[$a]}" "libc6-dev-${debarch[$a]}-cross")
done
install_missing cross-compile.sh "${pkgs[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"
cp -r /usr/include/infiniband "$work/include/"

src=$top/providers/doorbell
mapfile -t core < <(cd "$src" && ls abi/*.c core/*.c)
mapfile -t rxe < <(cd "$src" && ls rxe/*.c)
# mlx5_absent.c stands in for the backend where it is not built.
mlx5=()
for f in "$src"/mlx5/*.c; do
	[[ $f == */mlx5_absent.c ]] || mlx5+=("mlx5/${f##*/}")
done
flags=(-std=gnu11 -O2 -fPIC -Wall -Wextra -Werror -Wmissing-prototypes
	-Wstrict-prototypes -Wshadow -Wformat=2 -Wno-unused-parameter
	-I"$src" -I"$top/kernel-headers" -I"$work/include")
fail=0
for a in "${archs[@]}"; do
	cc=${triplet[$a]}-gcc
	files=("${core[@]}")
	with_mlx5=yes
	# 32-bit: no mlx5 (a 64-bit doorbell would be two stores), and no
	# rxe either: rxe/rxe_send.c asserts the 64-bit ibv_send_wr layout
	# it copies WR arguments from.  The core must still compile.
	if [[ $a == i686 ]]; then
		with_mlx5=no
		files+=(mlx5/mlx5_absent.c)
	else
		files+=("${rxe[@]}" "${mlx5[@]}")
	fi
	n=0 fail_before=$fail
	for f in "${files[@]}"; do
		if ! "$cc" "${flags[@]}" -MD -MF "$work/$a.d" -c "$src/$f" \
			-o "$work/$a.o"; then
			echo "cross-compile.sh: $a: $f FAILED" >&2
			fail=1
		elif stray=$(tr -s ' \\\t' '\n' <"$work/$a.d" |
			grep -E '(^|/)rdma/[^/]+\.h$' |
			grep -v "^$top/kernel-headers/rdma/"); then
			echo "cross-compile.sh: $a: $f includes $(echo "$stray" | head -n1), not kernel-headers/" >&2
			fail=1
		fi
		n=$((n + 1))
	done
	# The build must agree: DB_HAVE_MMIO is what CMake keys mlx5 on.
	have=$(echo '#include "core/mmio.h"
DB_HAVE_MMIO' | "$cc" "${flags[@]}" -E -P -x c - | tail -n 1)
	if [[ $have != "$([[ $with_mlx5 == yes ]] && echo 1 || echo 0)" ]]; then
		echo "cross-compile.sh: $a: DB_HAVE_MMIO is $have" >&2
		fail=1
	fi
	echo "cross-compile.sh: $a: $n files compiled (mlx5 $with_mlx5)"
	if ((fail_before == fail)); then
		pass "provider_compiles_for_$a"
	else
		fail "provider_compiles_for_$a"
	fi
done
exit $fail
