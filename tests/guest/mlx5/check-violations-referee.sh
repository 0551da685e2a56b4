#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# In the guest, after tests/guest/mlx5/guest-cx.sh found mlx5_0: the device's
# verdict on a provider (with-provider.sh's cx_[doorbell_]no_violations_
# lines, from cx-server --stats) must be able to fail.  A deliberately
# broken writer, run as every check is, through with-provider.sh: python
# (ctypes) with libmlx5 makes a CQ and, through mlx5dv, arms it as a provider that
# forgets the doorbell record would: the arm word (REQ_NOT_SOL, consumer
# index 0, the CQ's number) written to the CQ's UAR at 0x20, the record's
# arm word at +4 left 0 (rule cq_arm_not_dbrec, docs/connectx-device.md).
#   cx_violations_referee_catches_a_bad_arm: with-provider.sh FAILs that
#     process's cx_no_violations_ line, naming cq_arm_not_dbrec, and exits 1.
# Then the rule broken on purpose is named in $DOORBELL_CX_STATS/expected,
# which scripts/cx.sh subtracts from the server's verdict at exit.
# Exit status: 1 if the referee missed it.
#
# Usage: check-violations-referee.sh   (scripts/cx.sh -- tests/guest/mlx5/check-violations-referee.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../../scripts/lib.sh"	# pass, fail
name=cx_violations_referee_catches_a_bad_arm
if [[ -z ${DOORBELL_CX_STATS:-} ]]; then
	fail "$name" "no DOORBELL_CX_STATS: the device's verdict is not shared (scripts/cx.sh)"
	exit 1
fi
out=$("$here/with-provider.sh" libmlx5 /usr/bin/python3 -c '
import ctypes, struct, sys
P, U32, U64 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64
v = ctypes.CDLL("libibverbs.so.1")
m = ctypes.CDLL("libmlx5.so.1")
v.ibv_get_device_list.restype = ctypes.POINTER(P)
v.ibv_get_device_name.restype, v.ibv_get_device_name.argtypes = ctypes.c_char_p, [P]
v.ibv_open_device.restype, v.ibv_open_device.argtypes = P, [P]
v.ibv_create_cq.restype = P
v.ibv_create_cq.argtypes = [P, ctypes.c_int, P, P, ctypes.c_int]
v.ibv_destroy_cq.argtypes = v.ibv_close_device.argtypes = [P]
class DvCq(ctypes.Structure):  # struct mlx5dv_cq, mlx5dv.h
	_fields_ = [("buf", P), ("dbrec", P), ("cqe_cnt", U32), ("cqe_size", U32),
		    ("cq_uar", P), ("cqn", U32), ("comp_mask", U64)]
n = ctypes.c_int()
devs = v.ibv_get_device_list(ctypes.byref(n))
dev = [devs[i] for i in range(n.value) if v.ibv_get_device_name(devs[i]) == b"mlx5_0"][0]
ctx = v.ibv_open_device(dev)
cq = v.ibv_create_cq(ctx, 8, None, None, 0)
dv = DvCq()
obj = (P * 14)()  # struct mlx5dv_obj: {in, out} of qp, cq, srq, rwq, dm, ah, pd
obj[2], obj[3] = cq, ctypes.addressof(dv)
MLX5DV_OBJ_CQ = 1 << 1
assert m.mlx5dv_init_obj(obj, U64(MLX5DV_OBJ_CQ)) == 0
REQ_NOT_SOL = 1 << 24
# Big-endian hi (sn 0, command, ci 0) then the CQ number, in one 8-byte
# store, as libmlx5 rings it; the record at dbrec + 4 is not written.
word = struct.pack(">II", REQ_NOT_SOL, dv.cqn)
U64.from_address(dv.cq_uar + 0x20).value = int.from_bytes(word, sys.byteorder)
v.ibv_destroy_cq(cq)
v.ibv_close_device(ctx)
' 2>&1)
status=$?
caught=$(grep -m 1 '^FAIL cx_no_violations_' <<<"$out")
if ((status != 0)) && [[ $caught == *"cq_arm_not_dbrec 1"* ]]; then
	echo "cq_arm_not_dbrec 1 check-violations-referee" >>"$DOORBELL_CX_STATS/expected"
	pass "$name" "${caught#FAIL }"
	exit 0
fi
fail "$name" "exit $status: $(tr '\n' ' ' <<<"$out")"
exit 1
