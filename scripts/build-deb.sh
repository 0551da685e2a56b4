#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the doorbell Debian package with dpkg-buildpackage in a temporary
# copy of the tree (the checkout stays clean), put the .deb files, .changes
# and .buildinfo in build/deb, print the path of the doorbell .deb on
# stdout, then run lintian on the .changes (both .debs): any error or
# warning fails the script.  The build log is build/deb/build.log.
#
# The copy is the work tree as it is (tracked files plus untracked, not
# ignored ones), so uncommitted changes are built.  Installs debhelper,
# lintian and the build dependencies with apt when missing (as root).
#
# Usage: scripts/build-deb.sh [--out DIR]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$top/build/deb
while (($#)); do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift ;;
	-h | --help) sed -n '3,/^set -e/{/^set -e/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
	*) echo "build-deb: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "build-deb: $*" >&2; }

# shellcheck source=scripts/apt-lib.sh
. "$top/scripts/apt-lib.sh"

# Tools, then the Build-Depends of debian/control (as Debian 12 names them).
install_missing build-deb git dpkg-dev build-essential debhelper lintian \
	cmake pkg-config libibverbs-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/doorbell
mkdir -p "$src"
# Tracked and untracked-but-not-ignored files that exist (a tracked file
# deleted in the work tree is left out), as git sees the work tree.
git -C "$top" ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[[ -e $top/$f || -L $top/$f ]] && printf '%s\0' "$f"
	done |
	tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -

mkdir -p "$out"
log=$out/build.log
(cd "$src" && dpkg-checkbuilddeps) || { say "unmet build dependencies"; exit 1; }
if ! (cd "$src" && timeout 1800 dpkg-buildpackage -b -uc -us -Jauto) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	say "dpkg-buildpackage failed (log: $log)"
	exit 1
fi
changes=$(ls "$work"/doorbell_*.changes)
# Copy what the .changes lists (the .debs and .buildinfo) and the .changes.
files=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* \(.*\)$/\1/p' "$changes")
for f in $files; do cp -f "$work/$f" "$out/"; done
cp -f "$changes" "$out/"
changes=$out/$(basename "$changes")
deb=$out/$(grep -m1 '^doorbell_.*\.deb$' <<<"$files")
[[ -f $deb ]] || { say "no doorbell .deb in $changes"; exit 1; }

# lintian on the .changes (both .debs): shown with overrides and I: tags,
# and any error or warning fails (--fail-on; overridden tags do not count,
# see debian/doorbell.lintian-overrides for the justification).
lint=$out/lintian.txt
lintian --display-info --show-overrides "$changes" >"$lint" 2>&1 || true
sed 's/^/lintian: /' "$lint" >&2
if ! lintian --fail-on error,warning "$changes" >/dev/null 2>&1 ||
	grep -qE '^[EW]: ' "$lint"; then
	say "lintian reports errors or warnings"
	exit 1
fi
echo "$deb"
