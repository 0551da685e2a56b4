#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: the referee of
# "who served" must be able to fail.  Through doorbell (with-provider.sh),
# a process that loads libmlx5 before doorbell (as rdma-core's tests.utils
# does through mlx5dv when doorbell is not preloaded), then doorbell, then
# opens mlx5_0 with pyverbs: libmlx5 registered first and serves.
#   cx_served_witness_catches_libmlx5: with-provider.sh's served check
#     FAILs that process (the witness, tests/lib/served-witness.c, saw
#     libmlx5's driver) and exits 1;
#   cx_doorbell_says_libmlx5_serves_first: doorbell's one stderr line
#     (DOORBELL_MLX5=1 with libmlx5 loaded first, doorbell(7)) came.
# Exit status: 1 if either failed.
#
# Usage: check-served-witness.sh   (scripts/cx.sh -- tests/guest/mlx5/check-served-witness.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../../scripts/lib.sh"	# pass, fail
build=${DOORBELL_PROVIDER_BUILD:-$(cd "$here/../../.." && pwd)/build}
witness=$build/tests/lib/libdoorbell-served-witness.so
rc=0
# shellcheck disable=SC2016 # python's own text
out=$("$here/with-provider.sh" doorbell env LD_PRELOAD="$witness" /usr/bin/python3 -c '
import ctypes, sys
ctypes.CDLL("libmlx5.so.1", ctypes.RTLD_GLOBAL)
ctypes.CDLL(sys.argv[1], ctypes.RTLD_GLOBAL)
from pyverbs.device import Context
Context(name="mlx5_0").close()
' "$build/lib/libdoorbell-rdmav34.so" 2>&1)
status=$?
served=$(grep -m 1 '^FAIL cx_doorbell_served_' <<<"$out")
if ((status != 0)) && [[ $served == *"driver libmlx5"* ]]; then
	pass cx_served_witness_catches_libmlx5 "${served#FAIL }"
else
	fail cx_served_witness_catches_libmlx5 "exit $status: $(tr '\n' ' ' <<<"$out")"
	rc=1
fi
said=$(grep -c '^doorbell: libmlx5.so.1 was loaded before doorbell' <<<"$out")
if ((said == 1)); then
	pass cx_doorbell_says_libmlx5_serves_first "$(grep -m 1 '^doorbell: libmlx5' <<<"$out")"
else
	fail cx_doorbell_says_libmlx5_serves_first "$said such lines: $(tr '\n' ' ' <<<"$out")"
	rc=1
fi
exit "$rc"
