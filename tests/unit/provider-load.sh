#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The built provider against libibverbs copies that claim other releases:
# the host's libibverbs file copied into a scratch directory under another
# real name (libibverbs.so.1.<minor>.<major>.<n>, with the libibverbs.so.1
# link), loaded first, then the provider (tests/unit/load_provider.c).
#   - the host's own file: it registers (DOORBELL_DEBUG=1 says so);
#   - the releases just outside providers/doorbell/abi/releases.txt's range
#     (66 and 33 while it is 34 to 65): exactly one stderr line, naming
#     doorbell and the release, and no registration;
#   - a name whose release disagrees with the exports (the host's 44 exports
#     renamed 1.14.56.0, 1.15.59.0 and 1.13.44.0): refused the same way;
#   - a name of a release with the same exports but another verbs_qp layout
#     (the host's 44 as 1.14.45.0 and 1.14.43.0): refused the same way, by
#     what the library's own ibv_qp_to_qp_ex() reads (core/libver.c);
#   - the host's libmlx5 loaded first with DOORBELL_MLX5=1: one line saying
#     libmlx5 serves first (core/register.c); silent without either.
# Usage: provider-load.sh LOAD_PROVIDER_EXE PROVIDER_SO
# Cross builds (tests/unit/CMakeLists.txt) set DOORBELL_TEST_LIBIBVERBS, the
# target's libibverbs.so.1, and DOORBELL_TEST_EMULATOR, the qemu-user
# command line the program runs under.
# Prints PASS/FAIL/SKIP per case; exit 1 on a FAIL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
# shellcheck source=scripts/ci/releases.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/ci/releases.sh"
exe=${1:?usage: provider-load.sh LOAD_PROVIDER_EXE PROVIDER_SO}
prov=${2:?usage: provider-load.sh LOAD_PROVIDER_EXE PROVIDER_SO}
read -r -a emu <<<"${DOORBELL_TEST_EMULATOR:-}"
lib=${DOORBELL_TEST_LIBIBVERBS:-$(ldconfig -p | awk '!f && $1 == "libibverbs.so.1" && /x86-64|64bit/ { print $NF; f = 1 }')}
host=$(realpath "$lib" 2>/dev/null || true)
if [[ -z $host || ! -f $host ]]; then
	skip provider_load "no 64-bit libibverbs.so.1 in ldconfig's cache"
	exit 0
fi
hostname=${host##*/}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME: load the provider over a copy of the host file named NAME;
# sets out (stdout), err (stderr) and n (stderr lines).
run() {
	local dir=$work/$1
	mkdir -p "$dir"
	cp "$host" "$dir/$1"
	ln -sf "$1" "$dir/libibverbs.so.1"
	# A preload ahead of an ASan build's runtime is ours to allow (the
	# sanitize stage): ASan would refuse to start instead.
	out=$(LD_LIBRARY_PATH=$dir DOORBELL_DEBUG=${dbg:-0} \
		DOORBELL_MLX5=${mlx5:-0} LD_PRELOAD=${pre:-} \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		"${emu[@]}" "$exe" "$prov" 2>"$dir/err") || true
	err=$(cat "$dir/err")
	n=$(grep -c . "$dir/err" || true)
}


major=$(echo "$hostname" | cut -d. -f5)
dbg=1 run "$hostname"
if [[ $out == loaded && $err == *"doorbell: registered with libibverbs (rdma-core $major,"* ]]; then
	pass provider_registers_on_the_host_libibverbs
else
	fail provider_registers_on_the_host_libibverbs \
		"${hostname}: stdout '$out', stderr '$err'"
fi

refuse() { # refuse TESTNAME FILENAME RELEASE
	dbg=1 run "$2"
	if [[ $out == loaded && $n == 1 && $err == doorbell:* &&
	      $err == *"rdma-core $3"* && $err != *registered* ]]; then
		pass "$1"
	else
		fail "$1" "$2: stdout '$out', $n stderr lines: '$err'"
	fi
}
after=$((db_last + 1)) before=$((db_first - 1))
refuse "provider_refuses_rdma_core_$after" "libibverbs.so.1.14.$after.0" $after
refuse "provider_refuses_rdma_core_$before" "libibverbs.so.1.12.$before.0" \
	$before
if [[ $major == 44 ]]; then
	# The host's exports under names of releases they do not match.
	refuse provider_refuses_exports_older_than_the_name \
		libibverbs.so.1.14.56.0 56
	refuse provider_refuses_a_pabi_the_exports_lack \
		libibverbs.so.1.15.59.0 59
	refuse provider_refuses_a_minor_of_another_release \
		libibverbs.so.1.13.44.0 44
	refuse provider_refuses_44_named_45_by_its_qp_layout \
		libibverbs.so.1.14.45.0 45
	refuse provider_refuses_44_named_43_by_its_qp_layout \
		libibverbs.so.1.14.43.0 43
else
	skip provider_refuses_exports_older_than_the_name "host libibverbs is $hostname, not rdma-core 44"
fi

# libmlx5 loaded before doorbell (LD_PRELOAD here; a program that links it,
# or Python's mlx5dv): with DOORBELL_MLX5=1 exactly one line saying that
# libmlx5 serves first; silent without the opt-in, and without libmlx5.
native=$(ldconfig -p | awk '!f && $1 == "libmlx5.so.1" && /x86-64|64bit/ { print $NF; f = 1 }')
if ((${#emu[@]})) || [[ -z $native ]]; then
	why="no 64-bit libmlx5.so.1 in the ldconfig cache"
	[[ -z $native ]] || why="a cross build"
	skip provider_says_libmlx5_serves_first "$why"
else
	mlx5=1 pre=$native run "$hostname"
	if [[ $out == loaded && $n == 1 && $err == "doorbell: libmlx5.so.1 was loaded before doorbell"*"DOORBELL_MLX5=1 has no effect"*"LD_PRELOAD="* ]]; then
		pass provider_says_libmlx5_serves_first
	else
		fail provider_says_libmlx5_serves_first "stdout '$out', $n stderr lines: '$err'"
	fi
	pre=$native run "$hostname"
	if [[ $out == loaded && $n == 0 ]]; then
		pass provider_silent_with_libmlx5_without_opt_in
	else
		fail provider_silent_with_libmlx5_without_opt_in "stdout '$out', $n stderr lines: '$err'"
	fi
	mlx5=1 run "$hostname"
	if [[ $out == loaded && $n == 0 ]]; then
		pass provider_silent_with_opt_in_without_libmlx5
	else
		fail provider_silent_with_opt_in_without_libmlx5 "stdout '$out', $n stderr lines: '$err'"
	fi
fi
exit "$db_failed"
