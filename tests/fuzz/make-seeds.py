#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Write the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/.

Each seed is a small input in the byte layout its harness reads (see the
fuzz_*.c files: little-endian integers taken from the front, in order),
naming one situation worth starting from.  The files are committed; run
this again after changing a harness's input layout.

Usage: tests/fuzz/make-seeds.py [CORPUS_DIR]
"""
import os
import struct
import sys


class In:
    """An input, built in the order the harness consumes it."""

    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b += struct.pack("<B", v & 0xFF)
        return self

    def u16(self, v):
        self.b += struct.pack("<H", v & 0xFFFF)
        return self

    def u32(self, v):
        self.b += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def u64(self, v):
        self.b += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        return self

    def raw(self, data):
        self.b += data
        return self

    def length(self, v):
        """fz_len: selector 2 then a u16, or selector 3 then a u32."""
        if v < 0x10000:
            return self.u8(2).u16(v)
        return self.u8(3).u32(v)


# ---------------------------------------------------------------- cq_ring
CQE = struct.Struct("<QIIIIIIIIHHBBBB")  # struct ib_uverbs_wc
assert CQE.size == 48


def cqe(wr_id=0, status=0, opcode=0, byte_len=0, qp_num=0x11, kflags=0):
    # wr_id status opcode vendor_err byte_len imm qp_num src_qp wc_flags
    # pkey_index slid sl dlid_path_bits port_num reserved
    return CQE.pack(wr_id, status, opcode, 0, byte_len, 0, qp_num, 0,
                    kflags, 0, 0, 0, 0, 1, 0)


def cq_header(sane=True, log2=6, slots_log2=3, lock=True, own=0,
              prod=None, wc_flags=0x3FF, mode_extra=0):
    """mode, log2, msel, ring bytes, own, [producer], wc_flags."""
    mode = (1 if sane else 0) | (32 if lock else 0) | mode_extra
    i = In().u8(mode).u8(log2 - 6).u8(slots_log2)
    ring = (1 << slots_log2) << log2
    i.raw(bytes(min(ring, 512)))
    i.u32(own)
    if not sane:
        i.u32(prod if prod is not None else own)
    return i.u64(wc_flags)


def cq_seeds():
    s = {}
    # Sane kernel: 5 CQEs, poll 2, then 3 through cq_ex (wraps at slot 7).
    i = cq_header(own=6)
    i.u8(0).u8(0).u8(5)                      # produce 5
    for n in range(5):
        i.raw(cqe(opcode=128, byte_len=64 * n, kflags=0b11))
    i.u8(1).u8(4)                            # poll_cq(2)
    i.u8(2).u8(1)                            # cq_ex, comp_mask 0
    i.u8(2).u8(2).u8(2).u8(0)                # next, next, next, end
    s["sane-poll-and-cq-ex-wrap"] = i
    # Insane kernel: a producer index with garbage high bits and a CQE
    # with every flag bit set.
    i = cq_header(sane=False, own=1, prod=0xFFFF0005)
    i.u8(0).u8(1).u32(3).raw(cqe(kflags=0xFFFF, status=0xFFFFFFFF))
    i.u32(0xDEAD0007)
    i.u8(1).u8(23)                           # poll_cq(21)
    s["insane-producer-high-bits"] = i
    # Bad geometry: a mask that is not 2^n - 1 (raw mask via mode bit 2).
    i = In().u8(1 | 4).u8(1).u8(0).u32(6)
    s["bad-mask-not-power-of-two"] = i
    # A mapping one slot short of what the header claims (map_len sel 2).
    i = In().u8(1 | (2 << 3)).u8(1).u8(4).u8(128)
    s["map-one-slot-short"] = i
    # cq_ex with comp_mask set, then the kernel producing during a poll.
    i = cq_header(own=0, slots_log2=2)
    i.u8(0).u8(0).u8(2).raw(cqe(wr_id=1)).raw(cqe(wr_id=2))
    i.u8(2).u8(0).u8(5)                      # comp_mask 6: EINVAL
    i.u8(2).u8(1).u8(1).u8(0).u8(1).raw(cqe())  # produce 1 while polling
    i.u8(2).u8(2).u8(2).u8(0)
    s["cq-ex-comp-mask-and-produce-while-polling"] = i
    return s


# ---------------------------------------------------------------- send_wr
RC, UC, UD = 0, 1, 2
STATE_RTS, STATE_RESET = 0, 7   # indexes into the harness's states[]
SEND, SEND_IMM, WRITE, READ, CMP_SWP, FETCH_ADD = 2, 3, 0, 4, 5, 6
FLAGS_SIGNALED, FLAGS_INLINE, FLAGS_INLINE_SIGNALED = 1, 2, 3


def qp_header(qtype, max_sge, max_inline, slots_log2, state=STATE_RTS,
              own=0, sane=True, lock=True, inline_bytes=None):
    cfg = qtype | (0 if sane else 0x80) | (0x10 if lock else 0)
    i = In().u8(cfg).u8(max_sge).u16(max_inline).u8(slots_log2)
    i.u8(state).u32(own)
    data = inline_bytes if inline_bytes is not None else \
        bytes((7 * k) & 0xFF for k in range(max_inline))
    return i.raw(data[:max_inline])


def send_wr(i, opcode, flags_sel, sges, qtype, inline=None, wr_id=1,
            union=None):
    """One WR: sges is a list of (length, lkey, addr_or_offset); inline is
    the QP's max_inline for an inline WR (the offset is read only for an
    SGE whose length fits it)."""
    i.u64(wr_id).u8(opcode).u8(flags_sel).u8(len(sges)).u32(0x01020304)
    for length, lkey, where in sges:
        i.length(length).u32(lkey)
        if inline is not None:
            if length <= inline:
                i.u16(where)
        else:
            i.u64(where)
    if qtype == UD:
        a, qpn, qkey = union or (1, 0x42, 0x1111)
        i.u8(a).u32(qpn).u32(qkey)
    else:
        kind, args = union or (0, (0x7F0000001000, 0x55))
        i.u8(kind)
        if kind == 0:
            i.u64(args[0]).u32(args[1])
        elif kind == 1:
            addr, aligned, cmp_add, swap, rkey = args
            i.u64(addr).u8(1 if aligned else 0).u64(cmp_add).u64(swap)
            i.u32(rkey)
        elif kind == 3:                 # MW bind: m selects MW, MR, length
            m, rkey, addr, length, access = args
            i.u8(m).u32(rkey).u64(addr)
            if m & 8:
                i.u64(length)
            i.u32(access)
    return i


def send_seeds():
    s = {}
    # The fast path: one plain signaled SEND with one SGE, four rounds.
    i = qp_header(RC, 2, 64, 3)
    for r in range(4):
        i.u8(0)
        send_wr(i, SEND, FLAGS_SIGNALED, [(4096, 7, 0x10000)], RC, wr_id=r)
        i.u8(0).u8(1)                        # consume 1, no state change
    s["rc-single-send-fast-path"] = i
    # A list: inline gather of 2 SGEs, an RDMA write, an inline too long.
    i = qp_header(RC, 4, 64, 3)
    i.u8(2)
    send_wr(i, SEND, FLAGS_INLINE_SIGNALED, [(24, 0, 0), (40, 0, 8)], RC,
            inline=64)
    send_wr(i, WRITE, FLAGS_SIGNALED, [(100, 1, 0x2000), (28, 2, 0x3000)], RC)
    send_wr(i, SEND, FLAGS_INLINE, [(65, 0, 0)], RC, inline=64)
    s["rc-list-inline-then-too-long"] = i
    # UD: an AH of the QP's PD, then one of another PD.
    i = qp_header(UD, 1, 0, 2)
    i.u8(1)
    send_wr(i, SEND_IMM, FLAGS_SIGNALED, [(1024, 3, 0x4000)], UD,
            union=(1, 0x99, 0x11111111))
    send_wr(i, SEND, FLAGS_SIGNALED, [(8, 3, 0x4000)], UD,
            union=(2, 0x99, 0x11111111))
    s["ud-ah-right-pd-then-wrong-pd"] = i
    # Atomics: aligned, then unaligned; and a ring of 2 slots overflowing.
    i = qp_header(RC, 1, 0, 1)
    i.u8(2)
    atom = (1, (0x1000, True, 5, 6, 0x77))
    send_wr(i, CMP_SWP, FLAGS_SIGNALED, [(8, 1, 0x5000)], RC, union=atom)
    send_wr(i, FETCH_ADD, FLAGS_SIGNALED, [(8, 1, 0x5000)], RC, union=atom)
    send_wr(i, FETCH_ADD, FLAGS_SIGNALED, [(8, 1, 0x5000)], RC,
            union=(1, (0x1004, False, 5, 6, 0x77)))
    s["rc-atomics-full-ring"] = i
    # UC refuses RDMA READ; a QP in RESET refuses everything.
    i = qp_header(UC, 2, 32, 3, state=STATE_RESET)
    i.u8(1)
    send_wr(i, READ, FLAGS_SIGNALED, [(16, 1, 0x6000)], UC)
    send_wr(i, WRITE, FLAGS_SIGNALED, [(16, 1, 0x6000)], UC)
    s["uc-read-refused-in-reset"] = i
    # MW binds: with an MR, then an unbind (no MR, length 0), then a
    # window of another context.
    i = qp_header(RC, 1, 0, 3)
    i.u8(2)
    BIND = 8
    send_wr(i, BIND, FLAGS_SIGNALED, [], RC,
            union=(3, (1 | 4 | 8, 0x101, 0x7000, 4096, 0xF)))
    send_wr(i, BIND, FLAGS_SIGNALED, [], RC,
            union=(3, (1, 0x102, 0, 0, 0)))
    send_wr(i, BIND, FLAGS_SIGNALED, [], RC,
            union=(3, (3 | 4, 0x103, 0x7000, 0, 0xF)))
    s["rc-mw-bind-unbind-foreign"] = i
    return s


# ----------------------------------------------------------------- wr_api
B_WRITE, B_WRITE_IMM, B_READ, B_CMP, B_FADD, B_BIND, B_LINV, B_SEND, \
    B_SEND_IMM, B_SEND_INV = range(10)
S_UD, S_SGE, S_SGE_LIST, S_INLINE, S_INLINE_LIST = range(5)


def wr_header(qtype, max_sge, max_inline, slots_log2, state=0, sane=True):
    cfg = qtype | (0 if sane else 0x80) | 0x10
    i = In().u8(cfg).u8(max_sge).u16(max_inline).u8(slots_log2)
    i.u8(state).u32(0)
    return i.raw(bytes((3 * k + 1) & 0xFF for k in range(max_inline)))


def builder(i, which, flags=2, addr=0x1000, wr_id=9, aligned=True, bind=None):
    i.u8(0).u8(which).u32(0x33).u32(0x44).u64(addr).u64(5).u64(6)
    i.u64(wr_id).u8(0).u8(flags)
    if which in (B_CMP, B_FADD):
        i.u8(1 if aligned else 0)
    if which == B_BIND:
        i.u8(bind if bind is not None else 1 | 4 | 8)
    return i


def setter_sge(i, length=128):
    return i.u8(100).u8(S_SGE).u32(1).length(length).u64(0x8000)


def setter_sge_list(i, lengths):
    i.u8(100).u8(S_SGE_LIST).u8(len(lengths))
    for n in lengths:
        i.u64(0x9000).length(n).u32(2)
    return i


def setter_inline_list(i, lengths, max_inline):
    i.u8(100).u8(S_INLINE_LIST).u8(len(lengths))
    for n in lengths:
        i.u8(0).length(n)
        if n <= max_inline:              # the offset is read if it fits
            i.u16(0)
    return i


def wr_seeds():
    s = {}
    # RC: write + SGE, send + inline list, read + SGE list; complete.
    i = wr_header(RC, 4, 64, 3)
    i.u8(6)
    builder(i, B_WRITE)
    setter_sge(i)
    builder(i, B_SEND)
    setter_inline_list(i, [10, 20], 64)
    builder(i, B_READ)
    setter_sge_list(i, [4096, 4096])
    i.u8(0)                                  # complete
    i.u8(0).u8(1)                            # consume, no state change
    s["rc-write-send-read-complete"] = i
    # An inline list longer than max_inline: the session is refused whole.
    i = wr_header(RC, 2, 32, 3)
    i.u8(4)
    builder(i, B_SEND)
    setter_sge(i, 8)
    builder(i, B_SEND_IMM)
    setter_inline_list(i, [16, 17], 32)
    i.u8(0)
    s["rc-inline-list-too-long-refuses-session"] = i
    # UD: send + set_ud_addr with the QP's AH, then with another PD's; abort.
    i = wr_header(UD, 1, 0, 2)
    i.u8(4)
    builder(i, B_SEND)
    i.u8(100).u8(S_UD).u8(1).u32(0x12).u32(0x34)
    builder(i, B_SEND_IMM)
    i.u8(100).u8(S_UD).u8(2).u32(0x12).u32(0x34)
    i.u8(255)                                # abort
    s["ud-ah-then-abort"] = i
    # Atomics (unaligned refused) and an MW bind without an MR.
    i = wr_header(RC, 1, 0, 1)
    i.u8(3)
    builder(i, B_CMP, aligned=True)
    builder(i, B_FADD, addr=0x1003, aligned=False)
    builder(i, B_BIND, bind=1 | 8)
    i.u8(0)
    s["rc-atomic-unaligned-and-bind-without-mr"] = i
    # The same, all valid: the WQEs are checked field by field.
    i = wr_header(RC, 1, 0, 3)
    i.u8(6)
    builder(i, B_CMP, aligned=True)
    setter_sge(i, 8)
    builder(i, B_FADD, aligned=True)
    setter_sge(i, 8)
    builder(i, B_BIND, bind=1 | 4 | 8)
    builder(i, B_LINV)
    i.u8(0)
    s["rc-atomics-bind-local-inv-complete"] = i
    # A 2-slot ring: the second builder finds it full (ENOMEM).
    i = wr_header(UC, 2, 16, 1)
    i.u8(3)
    builder(i, B_WRITE_IMM)
    builder(i, B_SEND_INV)
    builder(i, B_LINV)                       # not on UC either
    i.u8(0)
    s["uc-ring-full-enomem"] = i
    return s


# --------------------------------------------------------------- ring_map
def ring_map_seeds():
    s = {}
    # rxe_ring_check: a CQ ring that fits exactly, then one byte short.
    size = 384 + 8 * 64
    s["check-cq-fits"] = In().u8(1).u8(6).u8(3).u64(size).u8(0)
    s["check-one-byte-short"] = In().u8(1).u8(6).u8(3).u64(size - 1).u8(0)
    # A 2^40 slot size and a mask of all ones (raw words).
    s["check-huge-words"] = In().u8(1 | 2 | 4).u32(40).u32(0xFFFFFFFF) \
        .u64(0xFFFFFFFFFFFFFFFF).u8(4).u64(1)
    # rxe_ring_map on the memfd: an SQ ring the header fills exactly,
    # producer side, indices with high bits.
    s["map-sq-exact"] = In().u8(0).u8(32).u8(3).u8(3).u32(0xABC00005) \
        .u32(2).u16(0).u8(1).u8(2).u16(64)
    # A mapping at an unaligned offset (mmap refuses it).
    s["map-unaligned-offset"] = In().u8(0).u8(16 | 8).u8(0).u8(2) \
        .u32(0).u32(0).u16(4096).u64(100).u8(0)
    return s


# ----------------------------------------------------------------- libver
def libver_seeds():
    odd = b"\x01"       # first byte odd: the harness prefixes the real dir
    return {
        "debian-12": In().raw(odd + b"1.14.44.0"),
        "plain-name": In().raw(b"\x00libibverbs.so.1.14.50.3"),
        "unversioned": In().raw(b"\x00/usr/lib/libibverbs.so.1"),
        "other-library": In().raw(b"\x00/usr/lib/libmlx5.so.1.24.44.0"),
        "huge-major": In().raw(odd + b"1.14.99999999999999999999.0"),
        "trailing-junk": In().raw(odd + b"1.14.44.0x"),
    }


# -------------------------------------------------------------- mlx5_cqe
# fuzz_mlx5_cqe.c: header, per-QP bytes, then operations (see setup() and
# run_op() there).  Opcodes of IBV_WR_*: WRITE 0, SEND 2, READ 4, ...
M5_POST_SEND, M5_POST_RECV, M5_POST_SRQ, M5_DEVICE, M5_POLL, M5_CQ_EX = \
    0, 1, 2, 3, 5, 6
M5_DESTROY = 0xF8
M5_SQ, M5_RQ, M5_SRQ = 0, 1, 2
M5_OK, M5_ERR = 0, 7                     # the device's status selector
M5_FLUSH = 3                             # index of WR_FLUSH_ERR in synd[]


def m5_header(sane=True, ncqe_log=3, cisel=0, srq=None, qps=()):
    """srq: None or (log2 WQEs - 1, 64-byte WQEs); qps: per QP a dict."""
    i = In().u8((1 if sane else 0) | 2 | 4).u8(ncqe_log - 1).u8(cisel)
    if cisel & 3 == 2:
        i.u32(0)
    srqc = 0
    if srq is not None:
        srqc = 1 | (srq[0] << 1) | (8 if srq[1] else 0)
    i.u8(srqc).u8(len(qps) - 1)
    for q in qps:
        cfg = (1 if q.get("ud") else 0) | (2 if q.get("srq") else 0) | \
            (4 if q.get("send_other") else 0) | \
            (8 if q.get("recv_other") else 0) | \
            (16 if q.get("sig_all") else 0) | (q.get("bbs_log", 0) << 5)
        sq_start = q.get("sq_start")      # None: a new SQ; else (sel, bb)
        sqc = q.get("sq_log", 2) | ((sq_start[0] << 2) if sq_start else 0)
        rqc = q.get("rq_log", 2) | (q.get("rq_start", 0) << 3)
        i.u8(cfg).u8(sqc).u8(rqc)
        if sq_start:
            if sq_start[0] & 3 == 2:
                i.u32(0x12345678)
            i.u16(sq_start[1])
        if srq is None or not q.get("srq"):
            if q.get("rq_start", 0) & 3 == 2:
                i.u32(0x9abc)
    return i


def m5_send(i, qi, wrs):
    """wrs: (flags, opcode selector, [lengths]); flags 1 signaled."""
    i.u8(M5_POST_SEND).u8(qi).u8(len(wrs) - 1)
    for flags, op, lens in wrs:
        i.u8(flags).u8(op).u8(len(lens))
        for n in lens:
            i.u8(n)
    return i


def m5_recv(i, qi, wrs, srq=False):
    """wrs: lists of SGE lengths (in 16-byte units)."""
    if srq:
        i.u8(M5_POST_SRQ).u8(len(wrs) - 1)
    else:
        i.u8(M5_POST_RECV).u8(qi).u8(len(wrs) - 1)
    for lens in wrs:
        i.u8(len(lens))
        for n in lens:
            i.u8(n)
    return i


def m5_dev_bytes(i, which, qi, comps):
    """The sane device's bytes; comps: (status, [SRQ pick]) per CQE."""
    i.u8(which).u8(qi).u8(len(comps) - 1)
    for c in comps:
        status = c[0]
        if which == M5_SRQ:
            i.u8(c[1])
        i.u8(status | (c[2] << 3 if len(c) > 2 else 0))
        if which != M5_SQ:
            i.u32(0x400).u32(0x1000042)  # byte_cnt/imm word, source
        if status == M5_ERR:
            i.u8(M5_FLUSH).u8(0x44)
    return i


def m5_dev(i, which, qi, comps):
    return m5_dev_bytes(i.u8(M5_DEVICE), which, qi, comps)


def m5_poll(i, nwc):
    return i.u8(M5_POLL).u8(nwc + 2)


def mlx5_seeds():
    s = {}
    # RC: SEND (signaled), WRITE (not), READ (signaled); two receives; the
    # device completes both SQ WRs and both receives; poll_cq(8).
    i = m5_header(qps=[{}])
    m5_send(i, 0, [(1, 2, [64]), (0, 0, [32]), (1, 4, [128])])
    m5_recv(i, 0, [[4], [2, 2]])
    m5_dev(i, M5_SQ, 0, [(M5_OK,), (M5_OK,)])
    m5_dev(i, M5_RQ, 0, [(M5_OK, None, 0), (M5_OK, None, 1)])
    m5_poll(i, 8)
    s["sane-rc-send-write-read-recv"] = i
    # An SRQ of 8 WQEs shared by an RC and a UD QP; receives complete out
    # of order; start/next/end_poll with the device writing meanwhile.
    i = m5_header(srq=(2, False), qps=[{"srq": True},
                                       {"srq": True, "ud": True,
                                        "bbs_log": 1}])
    m5_recv(i, 0, [[1], [2], [3]], srq=True)
    m5_recv(i, 0, [[1], [], [4]], srq=True)
    m5_dev(i, M5_SRQ, 0, [(M5_OK, 3), (M5_OK, 0), (M5_OK, 2)])
    i.u8(M5_CQ_EX).u8(1)
    i.u8(2).u8(1)
    m5_dev_bytes(i, M5_SRQ, 1, [(M5_OK, 1, 2), (M5_OK, 0, 1)])
    i.u8(2).u8(2).u8(2).u8(0)
    m5_poll(i, 4)
    s["sane-srq-two-qps-out-of-order-cq-ex"] = i
    # Two CQEs in the ring, the consumer index just before the 24-bit
    # record wraps, an SQ that has run to its 16-bit and 32-bit wraps,
    # two-WQEBB WQEs: rounds of post, complete, poll.
    i = m5_header(ncqe_log=1, cisel=3 | (4 << 2),
                  qps=[{"bbs_log": 1, "sq_log": 1, "sq_start": (1, 0xFFFD),
                        "rq_start": 1}])
    for r in range(12):
        # A two-WQEBB SEND_IMM (4 SGEs), then a one-WQEBB SEND.
        m5_send(i, 0, [(1, 3, [40, 8, 8, 8]) if r & 1 else (1, 2, [8])])
        m5_recv(i, 0, [[1]])
        m5_dev(i, M5_SQ, 0, [(M5_OK,)])
        m5_dev(i, M5_RQ, 0, [(M5_OK, None, r & 3)])
        if r % 3:
            m5_poll(i, 1 + r % 3)
        else:
            i.u8(M5_CQ_EX).u8(1).u8(2).u8(0)
    s["sane-wraps-24bit-ci-16bit-wqe-counter"] = i
    # Error CQEs (flush) on the SQ and RQ, then QP 0 destroyed with its
    # CQEs and the SRQ QP's in the ring: m5_cq_clean keeps QP 1's.
    i = m5_header(srq=(1, True), qps=[{"sig_all": True}, {"srq": True}])
    m5_send(i, 0, [(0, 2, [16]), (0, 5, [8])])
    m5_recv(i, 0, [[1], [1]])
    m5_recv(i, 1, [[1], [1]], srq=True)
    m5_dev(i, M5_SQ, 0, [(M5_OK,), (M5_ERR,)])
    m5_dev(i, M5_RQ, 0, [(M5_ERR,)])
    m5_dev(i, M5_SRQ, 1, [(M5_OK, 1)])
    m5_poll(i, 1)
    i.u8(M5_DESTROY).u8(0)
    m5_poll(i, 8)
    s["sane-flush-errors-then-destroy-qp"] = i
    # A lying device: a CQE for a QP of another CQ, then one naming the
    # SRQ's user index, an unknown one, a stale counter, format bits, raw
    # bytes, an owner byte; polls and a cq_ex session between.
    i = m5_header(sane=False, srq=(1, False),
                  qps=[{}, {"srq": True}, {"send_other": True,
                                            "recv_other": True}])
    m5_send(i, 0, [(1, 2, [8]), (1, 2, [8])])
    m5_recv(i, 0, [[1]])
    m5_recv(i, 0, [[1], [1]], srq=True)
    # CQEs at the consumer's slots (kind 2, near): (uidx selector, extra
    # uidx byte, counter selector, pick, CQE opcode selector).
    def lie(k, usel, csel, pick, cqe_op, kind=2, sel=0x80):
        i.u8(M5_DEVICE).u8(kind).u8(sel).u8(k)
        i.u8(usel)
        if usel % 6 in (3, 4):
            i.u8(1)
        i.u8(csel).u8(pick)
        if csel % 6 >= 4:
            i.u16(0)
        i.u8(0).u8(5).u8(0x22).u32(8).u8(cqe_op)
    lie(0, 18, 0, 0, 0)     # QP 2's user index (its CQs are others)
    lie(1, 2, 2, 1, 2)      # the SRQ's user index, an SRQ WQE's counter
    lie(2, 4, 0, 0, 0)      # an index never allocated
    lie(3, 0, 3, 7, 0)      # QP 0, a counter no WQE ever had
    lie(4, 0, 0, 0, 0)      # QP 0, WR 0: true
    m5_poll(i, 5)
    lie(0, 0, 0, 0, 0)      # WR 0 again: retired
    lie(1, 1, 2, 0, 2)      # QP 1 on the SRQ, an SRQ WQE: true
    lie(2, 1, 2, 0, 6)      # the same WQE again, as RESP_ERR
    lie(3, 0, 0, 1, 0, sel=0x80 | 0x60 | 2)   # WR 1 with format bits
    m5_poll(i, 3)
    # Raw bytes into slot 1, an owner byte into slot 0, then cq_ex.
    i.u8(M5_DEVICE).u8(0).u8(0).u16(1).raw(bytes(range(64)))
    i.u8(M5_DEVICE).u8(1).u8(1).u16(0).u8(0x21)
    i.u8(M5_CQ_EX).u8(1).u8(2).u8(2).u8(0)
    m5_poll(i, 17)
    s["insane-other-cq-srq-uidx-unknown-stale-format-raw"] = i
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    targets = {
        "fuzz_cq_ring": cq_seeds(),
        "fuzz_send_wr": send_seeds(),
        "fuzz_wr_api": wr_seeds(),
        "fuzz_ring_map": ring_map_seeds(),
        "fuzz_libver": libver_seeds(),
        "fuzz_mlx5_cqe": mlx5_seeds(),
    }
    for target, seeds in targets.items():
        d = os.path.join(top, target)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            if old.startswith("seed-"):
                os.unlink(os.path.join(d, old))
        for name, data in seeds.items():
            with open(os.path.join(d, "seed-" + name), "wb") as f:
                f.write(bytes(data.b))
        print(f"{d}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
