#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: issue #20's
# hardware validation, scripts/mlx5-validate.sh, its code unchanged, on the
# software ConnectX (port 1 is InfiniBand: GID index 0, -g 0).  The script
# builds doorbell itself (DOORBELL_BUILD_DIR=build-mlx5-validate
# scripts/build.sh); an in-guest TCG build takes minutes, so the host makes
# that build beforehand with the guest's own toolchain (Debian 12 guest:
# the same command on the host, whose root it shares; sid guest:
# tests/vm/root-build.sh --distro sid --as CHECKOUT/build-mlx5-validate
# OUT) and this script binds OUT at build-mlx5-validate: the script's build
# step then finds it up to date.  The guest's writes go to its tmpfs
# overlay, never to the host.
# The script's result lines are renamed PASS cx_validate_NAME; each "=="
# section and the end get the seconds since the start ("[+S s]"); then
# cx_validate_build_up_to_date: no object or library in the build was
# rewritten by the script's build step (it did not compile anything).
# Exit status: scripts/mlx5-validate.sh's (0: "N passed, 0 failed").
#
# Usage: check-mlx5-validate.sh [OUT]
#   (scripts/cx.sh --no-build -- tests/guest/mlx5/check-mlx5-validate.sh [OUT])
# Options after OUT are passed to scripts/mlx5-validate.sh (default -g 0
# -n 1000: a tenth of the side-by-side iterations, for TCG).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"	# pass, fail
dir=$top/build-mlx5-validate
if (($#)) && [[ $1 != -* ]]; then
	mkdir -p "$dir"
	mount --bind "$1" "$dir" || { fail cx_validate_build_bound "$1"; exit 1; }
	shift
fi
(($#)) || set -- -g 0 -n 1000
# Debian's perftest links libmlx5: the script uses the plain-verbs one the
# host built (scripts/build-perftest.sh) when the build has none.
[[ -e $dir/perftest-nodv || ! -d $top/build/perftest-nodv ]] ||
	ln -s "$top/build/perftest-nodv" "$dir/perftest-nodv"
[[ -e $dir/CMakeCache.txt ]] ||
	echo "  (no build in $dir: the script builds it in the guest, minutes under TCG)"
# No network here: apt sees only what is installed (the script's
# apt-get install is then a no-op in seconds, not minutes of parsing the
# host's package lists under TCG).
lists=$(mktemp -d)
mkdir "$lists/partial"
printf 'Dir::State::Lists "%s";\n' "$lists" >"$lists.conf"
export APT_CONFIG=$lists.conf
# The event-mode pairs through libmlx5 first, on the same perftest
# (with-provider.sh): those that fail there are SKIPs through doorbell
# (DOORBELL_APPS_STOCK_FAILED, tests/guest/apps.sh).  Printed, not counted.
# So the verdicts differ from the script's on hardware, where such a pair
# is a FAIL (README, docs/mlx5-side-by-side.md).
stock=$(DOORBELL_VM_IBDEV=mlx5_0 DOORBELL_VM_GID_INDEX=0 DOORBELL_EXPECT_BACKEND=stock \
	DOORBELL_APPS_ONLY='_events$' \
	"$top/tests/guest/mlx5/with-provider.sh" libmlx5 "$top/tests/guest/apps.sh" 2>&1)
sed -nE 's/^(PASS|FAIL|SKIP) cx_/  libmlx5: \1 /p' <<<"$stock"
DOORBELL_APPS_STOCK_FAILED=$(sed -nE 's/^FAIL cx_([^:]*).*/\1/p' <<<"$stock" | tr '\n' ' ')
export DOORBELL_APPS_STOCK_FAILED
marker=$(mktemp)
SECONDS=0
"$top/scripts/mlx5-validate.sh" "$@" 2>&1 | while IFS= read -r line; do
	case $line in
	PASS\ * | FAIL\ * | SKIP\ *) line="${line:0:5}cx_validate_${line:5}" ;;
	==* | [0-9]*\ passed,*) line+="   [+$SECONDS s]" ;;
	esac
	printf '%s\n' "$line"
done
rc=${PIPESTATUS[0]}
n=$(find "$dir" -newer "$marker" -type f \( -name '*.o' -o -name '*.so*' -o -name '*.a' \
	-o -perm -u+x \) | wc -l)
if ((n == 0)); then
	pass cx_validate_build_up_to_date "the build step compiled and linked nothing"
else
	fail cx_validate_build_up_to_date "the build step rewrote $n objects or programs"
	find "$dir" -newer "$marker" -type f | head -5 | sed 's/^/  /'
	((rc)) || rc=1
fi
rm -rf "$marker" "$lists" "$lists.conf"
exit "$rc"
