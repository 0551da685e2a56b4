#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the doorbell RPM from redhat/doorbell.spec into build/rpm and print
# the path of the binary RPM on stdout (the build log goes to
# build/rpm/build.log, shown on failure).
#
# Source0 (doorbell-VERSION.tar.gz, top folder doorbell-VERSION/) is made
# with "git archive" of HEAD: uncommitted changes are NOT in the RPM.  With
# --worktree the tarball is the work tree instead (tracked files as they
# are now plus untracked, not ignored ones), through a temporary git index;
# nothing is committed and the real index is not touched.
#
# On Debian (rpm provides rpmbuild) the build dependencies of the spec are
# not RPMs that rpm knows of, so rpmbuild runs with --nodeps; Debian's
# libibverbs-dev, cmake, gcc, make and pkg-config are installed with apt
# instead (as root) when missing.  On an RPM distribution the spec's
# BuildRequires are checked as usual.
#
# Usage: scripts/build-rpm.sh [--worktree] [--out DIR] [-- RPMBUILD_ARGS...]
#   e.g. scripts/build-rpm.sh -- --define '_libdir /usr/lib/x86_64-linux-gnu'
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
worktree=0
out=$top/build/rpm
extra=()
while (($#)); do
	case $1 in
	--worktree) worktree=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--) shift; extra=("$@"); break ;;
	-h | --help) sed -n '3,/^set -e/{/^set -e/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	*) echo "build-rpm: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "build-rpm: $*" >&2; }

# shellcheck source=scripts/apt-lib.sh
. "$top/scripts/apt-lib.sh"

nodeps=()
if command -v dpkg-query >/dev/null && [[ -e /etc/debian_version ]]; then
	install_missing build-rpm rpm git gzip cmake gcc make pkg-config libibverbs-dev
	nodeps=(--nodeps)
fi
command -v rpmbuild >/dev/null || { say "rpmbuild not found"; exit 1; }

spec=$top/redhat/doorbell.spec
# Source1: the releases served (the spec reads it while it is parsed).
releases=$top/providers/doorbell/abi/releases.txt
version=$(rpmspec -q --srpm --qf '%{version}\n' \
	--define "_sourcedir ${releases%/*}" "$spec" 2>/dev/null | head -n1)
cmake_version=$(sed -nE 's/^project\(doorbell VERSION ([0-9.]+).*/\1/p' "$top/CMakeLists.txt")
if [[ -z $version || $version != "$cmake_version" ]]; then
	say "spec Version '$version' differs from CMakeLists.txt's '$cmake_version'"
	exit 1
fi

mkdir -p "$out"/{SOURCES,SPECS,BUILD,RPMS,SRPMS}
tarball=$out/SOURCES/doorbell-$version.tar.gz
prefix=doorbell-$version/
if ((worktree)); then
	idx=$(mktemp)
	trap 'rm -f "$idx"' EXIT
	rm -f "$idx"
	# A private index: HEAD, then every change and untracked file of the
	# work tree (git add -A honours .gitignore, so build/ stays out).
	GIT_INDEX_FILE=$idx git -C "$top" read-tree HEAD
	GIT_INDEX_FILE=$idx git -C "$top" add -A .
	tree=$(GIT_INDEX_FILE=$idx git -C "$top" write-tree)
	git -C "$top" archive --format=tar --prefix="$prefix" "$tree" | gzip -n >"$tarball"
	say "Source0 from the work tree (tree $tree)"
else
	git -C "$top" archive --format=tar --prefix="$prefix" HEAD | gzip -n >"$tarball"
	say "Source0 from HEAD ($(git -C "$top" rev-parse --short HEAD)); uncommitted changes are not included"
fi
cp "$spec" "$out/SPECS/"
cp "$releases" "$out/SOURCES/"

log=$out/build.log
if ! timeout 1800 rpmbuild -bb "${nodeps[@]}" \
	--define "_topdir $out" \
	"${extra[@]}" "$out/SPECS/doorbell.spec" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	say "rpmbuild failed (log: $log)"
	exit 1
fi
rpm=$(sed -n 's/^Wrote: \(.*\/doorbell-[0-9].*\.rpm\)$/\1/p' "$log" | grep -v -- '-debug' | tail -n1)
[[ -n $rpm && -f $rpm ]] || { say "no RPM written (log: $log)"; exit 1; }
echo "$rpm"
