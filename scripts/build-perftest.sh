#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Build perftest without direct verbs, so that RDMAV_DRIVERS decides which
# provider serves an mlx5 device.  Debian's perftest links libmlx5 (and
# libefa) for mlx5dv/efadv: libmlx5 then registers itself when the program
# starts, before libibverbs reads RDMAV_DRIVERS, and serves every ConnectX
# whatever the environment says, so doorbell can never serve Debian's
# ib_send_bw on a ConnectX.  This builds the same perftest from Debian's
# source package (sid's, the newest) with the direct-verbs headers hidden
# from its configure: plain verbs only, as it runs on Soft-RoCE.  The
# source comes through a private apt configuration whose deb-src lines
# reuse the host's own archive URIs; nothing is installed but the build
# dependencies.  Prints the directory holding ib_send_bw and the others.
#
# Usage: scripts/build-perftest.sh     (DOORBELL_BUILD_DIR: under its build/)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=scripts/apt-lib.sh
. "$top/scripts/apt-lib.sh"
out=${DOORBELL_BUILD_DIR:-$top/build}/perftest-nodv
if [[ -x $out/ib_send_bw ]] && ! ldd "$out/ib_send_bw" | grep -q libmlx5; then
	echo "$out"
	exit 0
fi
install_missing build-perftest librdmacm-dev libibumad-dev libpci-dev \
	libibverbs-dev gcc make >&2 || die "could not install perftest's build dependencies"

work=$(mktemp -d)
chmod 755 "$work" # apt fetches as its own user
trap 'rm -rf "$work"' EXIT
# The host's archive URIs (deb822 or one-line sources), as deb-src of sid.
uris=$({ cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
	awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
	{ grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list || true; } |
	awk '{ print $2 }')
uri=$(grep -v -e security -e '^$' <<<"$uris" | head -n 1)
[[ -n $uri ]] || die "no Debian archive URI in /etc/apt/sources.list*"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri sid main" >"$work/sources.list"
cat >"$work/apt.conf" <<EOF
Dir::Etc::SourceList "$work/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::State::Lists "$work/lists";
Dir::Cache "$work/cache";
EOF
export APT_CONFIG=$work/apt.conf
apt-get update -qq >&2 || die "apt-get update (deb-src sid) failed"
# Only the upstream tarball is used (apt checks it against the Sources
# index); the archive here answers 404 for some of a package's other files
# (the .dsc), so apt-get's status is not the test, the tarball is.
for try in 1 2 3; do
	(cd "$work/src" && apt-get source -qq --download-only perftest >/dev/null 2>&1) || true
	tars=("$work"/src/perftest_*.orig.tar.*)
	orig=${tars[0]}
	[[ ! -e $orig ]] || break
	((try < 3)) || die "apt-get source perftest gave no upstream tarball"
	sleep 5
done
tar -C "$work" -xf "$orig"
dirs=("$work"/perftest-*/)
srcdir=${dirs[0]}
# configure probes the direct-verbs headers by compiling them: these
# shadows fail those probes, and the cache variables its library checks.
mkdir -p "$work/nodv/infiniband"
for h in mlx5dv efadv hnsdv; do
	echo '#error "perftest built without direct verbs (scripts/build-perftest.sh)"' \
		>"$work/nodv/infiniband/$h.h"
done
(cd "$srcdir" && CPPFLAGS=-I$work/nodv ac_cv_lib_mlx5_mlx5dv_create_qp=no \
	ac_cv_lib_efa_efadv_create_qp_ex=no ac_cv_lib_efa_efadv_create_driver_qp=no \
	./configure -q >"$work/configure.log" 2>&1 && make -s -j"$(nproc)" >"$work/make.log" 2>&1) ||
	{ tail -n 20 "$work/configure.log" "$work/make.log" >&2; die "perftest did not build"; }
mkdir -p "$out"
for p in ib_send_bw ib_send_lat ib_write_bw ib_write_lat ib_read_bw ib_read_lat ib_atomic_bw ib_atomic_lat; do
	install -m 0755 "$srcdir/$p" "$out/$p"
done
! ldd "$out/ib_send_bw" | grep -qE 'libmlx5|libefa' || die "perftest still links a direct-verbs library"
echo "$out"
