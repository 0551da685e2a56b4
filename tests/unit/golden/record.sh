#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Records, for each rdma-core major, the libibverbs private-ABI facts that
# providers/doorbell/abi/epochs.c encodes, measured from that release's own
# headers: tests/unit/golden/rdma-core-<major>.txt (format: README.md).
#
# usage: record.sh GIT_DIR [MAJOR...]
#        record.sh --tarball RELEASE_TARBALL MAJOR
#   GIT_DIR  a clone or mirror of github.com/linux-rdma/rdma-core (the tool
#            `fetch github:linux-rdma/rdma-core` gives one); only read.
#   MAJOR    the releases to record (default: all those of
#            providers/doorbell/abi/releases.txt).
#   RELEASE_TARBALL  an rdma-core release source tarball of MAJOR (such as
#            Debian's rdma-core_NN.0.orig.tar.gz, `apt-get source
#            --download-only rdma-core`), for a release whose tag the
#            mirror lacks.
# Release NN is read from tag vNN.0; when that tag does not exist, from
# master, but only if master's CMakeLists.txt says PACKAGE_VERSION "NN.0".
# Writes into the directory of this script; needs gcc, python3 (the tag's
# own buildlib/make_abi_structs.py) and awk.  x86_64 only (LP64 sizes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"
# shellcheck source=scripts/ci/releases.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/ci/releases.sh"

usage="usage: record.sh GIT_DIR [MAJOR...] | --tarball RELEASE_TARBALL MAJOR"
[[ $# -ge 1 ]] || die "$usage"
[[ $(uname -m) == x86_64 ]] || die "the recorded sizes are x86_64 ones"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball='' tree='' gitdir=''
if [[ $1 == --tarball ]]; then
	[[ $# -eq 3 && -f $2 ]] || die "$usage"
	tarball=$2
	mkdir "$work/tarball"
	tar -xf "$tarball" -C "$work/tarball"
	tree=$(find "$work/tarball" -mindepth 1 -maxdepth 1 -type d)
	[[ $(wc -l <<<"$tree") -eq 1 && -f $tree/libibverbs/driver.h ]] ||
		die "$tarball: not one rdma-core source tree"
	shift 2
else
	gitdir=$1
	shift
	git --git-dir="$gitdir" rev-parse -q --verify 'master^{commit}' \
		>/dev/null || die "$gitdir: not an rdma-core git directory"
fi
majors=("$@")
if [[ ${#majors[@]} -eq 0 ]]; then
	mapfile -t majors < <(seq "$db_first" "$db_last")
fi

g() {
	git --git-dir="$gitdir" "$@"
}

# The text of file $2 at revision $1 (of the tarball's tree: $1 unused).
src_show() {
	if [[ -n $tree ]]; then
		cat "$tree/$2"
	else
		g show "$1:$2"
	fi
}

# Copies directories $3... of revision $1 into directory $2.
src_export() {
	local rev=$1 dir=$2
	shift 2
	if [[ -n $tree ]]; then
		(cd "$tree" && tar -c "$@") | tar -x -C "$dir"
	else
		g archive "$rev" "$@" | tar -x -C "$dir"
	fi
}

# The value of set(NAME "VALUE") in a CMakeLists.txt on stdin.
cmake_set() {
	sed -nE 's/^[[:space:]]*set\('"$1"'[[:space:]]+"?([^")]*)"?\).*/\1/p' |
		head -n1
}

# The member names of struct verbs_context_ops in driver.h on stdin, in
# declaration order (each member is "type (*name)(args);").
ops_names() {
	awk '/^struct verbs_context_ops \{/ { on = 1; next }
	     on && /^\};/ { exit }
	     on { print }' |
		tr '\n' ' ' | grep -oE '\(\*[[:space:]]*[A-Za-z_0-9]+[[:space:]]*\)' |
		tr -d '(*) '
}

# Parameter count of function $1 in a gcc -aux-info file $2: the top-level
# commas of its prototype's parameter list, plus one.
arg_count() {
	awk -v fn="$1" '
	{
		i = index($0, " " fn " (")
		if (!i || $0 !~ /^\/\* .*\*\/ extern /)
			next
		s = substr($0, i + length(fn) + 2)
		d = 0; n = 1
		for (k = 1; k <= length(s); k++) {
			c = substr(s, k, 1)
			if (c == "(") d++
			else if (c == ")") { d--; if (!d) break }
			else if (c == "," && d == 1) n++
		}
		print n; found++
	}
	END { if (found != 1) exit 1 }' "$2"
}

# Builds an include tree for git revision $1 in $2 the way rdma-core's build
# lays it out: infiniband/ = libibverbs/*.h (+ ib_user_ioctl_verbs.h),
# rdma/ = kernel-headers/rdma, kernel-abi/ = make_abi_structs.py output,
# ccan/ and util/ as they are, and a config.h shim with the release's values.
include_tree() {
	local rev=$1 dir=$2 pkg=$3 pabi=$4 h abi
	mkdir -p "$dir/src" "$dir/inc/infiniband" "$dir/inc/kernel-abi"
	src_export "$rev" "$dir/src" libibverbs ccan util kernel-headers buildlib
	cp "$dir"/src/libibverbs/*.h "$dir/inc/infiniband/"
	cp "$dir/src/kernel-headers/rdma/ib_user_ioctl_verbs.h" \
		"$dir/inc/infiniband/"
	cp -r "$dir/src/kernel-headers/rdma" "$dir/src/ccan" "$dir/src/util" \
		"$dir/inc/"
	# Only the kernel-abi/ headers the libibverbs headers include (a
	# missing one fails the probe's build: there is no installed copy).
	mapfile -t abi < <(sed -nE 's|^#include <kernel-abi/([^>]+)>.*|\1|p' \
		"$dir"/src/libibverbs/*.h | sort -u)
	for h in "${abi[@]}"; do
		python3 "$dir/src/buildlib/make_abi_structs.py" \
			"$dir/src/kernel-headers/rdma/$h" "$dir/inc/kernel-abi/$h"
	done
	cat >"$dir/inc/config.h" <<EOF
/* Shim for rdma-core's generated config.h: only what the headers use. */
#define HAVE_STATEMENT_EXPR 1
#define HAVE_BUILTIN_TYPES_COMPATIBLE_P 1
#define HAVE_TYPEOF 1
#define HAVE_ISBLANK 1
#define HAVE_BUILTIN_CLZ 1
#define HAVE_BUILTIN_CLZL 1
#define HAVE_FUNC_ATTRIBUTE_ALWAYS_INLINE 1
#define HAVE_FUNC_ATTRIBUTE_SYMVER 1
#define HAVE_FULL_SYMBOL_VERSIONS 1
#define PACKAGE_VERSION "$pkg"
#define IBVERBS_PABI_VERSION $pabi
#define SIZEOF_LONG 8
#define VERBS_IOCTL_ONLY 0
#define VERBS_WRITE_ONLY 0
EOF
}

record() {
	local major=$1 rev commit cm pkg pabi minor dir out ops n i from
	if [[ -n $tree ]]; then
		# A GitHub archive's top directory ends in the abbreviated commit.
		rev=${tarball##*/}
		commit=$(sed -nE 's/.*-([0-9a-f]{7,40})$/\1/p' <<<"${tree##*/}")
		commit=${commit:-unknown}
		from="# from the release tarball $rev, sha256 $(sha256sum <"$tarball" | cut -d' ' -f1)."
	else
		rev=v$major.0
		if ! g rev-parse -q --verify "refs/tags/$rev^{commit}" \
			>/dev/null; then
			rev=master
			pkg=$(g show "$rev:CMakeLists.txt" |
				cmake_set PACKAGE_VERSION)
			[[ $pkg == "$major.0" ]] ||
				die "no tag v$major.0, and master is $pkg, not $major.0"
		fi
		commit=$(g rev-parse "$rev^{commit}")
		from="# from git revision $rev of linux-rdma/rdma-core."
	fi
	cm=$(src_show "$rev" CMakeLists.txt)
	pkg=$(cmake_set PACKAGE_VERSION <<<"$cm")
	pabi=$(cmake_set IBVERBS_PABI_VERSION <<<"$cm")
	[[ $pkg == "$major."* ]] || die "$rev: PACKAGE_VERSION is $pkg"
	[[ $pabi =~ ^[0-9]+$ ]] || die "$rev: no IBVERBS_PABI_VERSION"
	minor=$(src_show "$rev" libibverbs/CMakeLists.txt |
		sed -nE 's/^[[:space:]]*1 1\.([0-9]+)\.\$\{PACKAGE_VERSION\}.*/\1/p')
	[[ $minor =~ ^[0-9]+$ ]] || die "$rev: no libibverbs 1 1.NN line"

	dir=$work/$major
	include_tree "$rev" "$dir" "$pkg" "$pabi"
	mapfile -t ops < <(src_show "$rev" libibverbs/driver.h | ops_names)
	[[ ${#ops[@]} -gt 0 ]] || die "$rev: no struct verbs_context_ops"

	{
		cat <<'EOF'
#include <stddef.h>
#include <stdio.h>
#include <infiniband/driver.h>
#define OP(m) \
	printf("op %s %zu\n", #m, offsetof(struct verbs_context_ops, m))
int main(void)
{
	printf("ops_size %zu\n", sizeof(struct verbs_context_ops));
	printf("vctx_size %zu\n", sizeof(struct verbs_context));
	printf("vctx_context_off %zu\n", offsetof(struct verbs_context, context));
	printf("qp_ex_size %zu\n", sizeof(struct ibv_qp_ex));
	printf("vqp_comp_mask_off %zu\n", offsetof(struct verbs_qp, comp_mask));
	printf("vqp_xrcd_off %zu\n", offsetof(struct verbs_qp, xrcd));
	printf("vqp_size %zu\n", sizeof(struct verbs_qp));
	printf("sysfs_abi_ver_off %zu\n",
	       offsetof(struct verbs_sysfs_dev, abi_ver));
EOF
		for i in "${ops[@]}"; do
			printf '\tOP(%s);\n' "$i"
		done
		printf '\treturn 0;\n}\n'
	} >"$dir/probe.c"
	gcc -std=gnu11 -w -I"$dir/inc" -aux-info "$dir/aux.txt" \
		-o "$dir/probe" "$dir/probe.c"
	# Every rdma-core header must come from the tree of $rev.
	if gcc -std=gnu11 -I"$dir/inc" -M "$dir/probe.c" |
		grep -qE '/usr/(local/)?include/(infiniband|rdma)/'; then
		die "$rev: the probe used an installed rdma header"
	fi

	out=$here/rdma-core-$major.txt
	{
		echo "# rdma-core $major: libibverbs private-ABI facts, x86_64."
		echo "# Recorded by tests/unit/golden/record.sh (see README.md)"
		echo "# with $(gcc --version | head -n1),"
		echo "$from"
		echo "major $major"
		echo "ref $rev"
		echo "commit $commit"
		echo "package_version $pkg"
		echo "pabi $pabi"
		echo "ibverbs_minor $minor"
		"$dir/probe" | awk '
			$1 == "op" { if ($3 % 8) exit 1; print "op", $2, $3 / 8; next }
			$1 == "ops_size" { if ($2 % 8) exit 1
				print; print "nslots", $2 / 8; next }
			{ print }'
		for i in reg_dmabuf_mr get_context create_cq_ex create_qp_ex2; do
			n=$(arg_count "ibv_cmd_$i" "$dir/aux.txt") ||
				die "$rev: no single prototype of ibv_cmd_$i"
			echo "args_$i $n"
		done
	} >"$out.tmp"
	# The parsed names must fill the table exactly: one per slot.
	n=$(awk '$1 == "nslots" { print $2 }' "$out.tmp")
	[[ $n -eq ${#ops[@]} ]] ||
		die "$rev: ${#ops[@]} op names for $n slots"
	[[ $(awk '$1 == "op" { print $3 }' "$out.tmp" | sort -un | wc -l) \
		-eq $n ]] || die "$rev: two ops share a slot"
	mv "$out.tmp" "$out"
	echo "rdma-core $major: $rev $commit pabi $pabi, $n slots"
}

for m in "${majors[@]}"; do
	[[ $m =~ ^[0-9]+$ ]] || die "$m: not a major number"
	record "$m"
done
