# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
Data integrity over every opcode rxe runs, through the legacy post_send,
for message sizes from 1 B to 1 MiB: the received bytes exactly, the bytes
next to them untouched, and the completion fields on both sides.
"""

import struct

from helpers import (GRH_SIZE, GUARD, IMM, SIZES, MWBindInfo, SendWR,
                     VerbsTestCase, assert_no_completion, e, pattern,
                     poll, u64)

BIG = (1 << 20) + 8192
GUARD_LEN = len(GUARD)


class RCIntegrity(VerbsTestCase):
    """a is the requester, b the responder, both RC."""

    def setUp(self):
        super().setUp()
        self.a, self.b = self.pair(e.IBV_QPT_RC, buf_size=BIG,
                                   separate_cqs=True)

    def check_area(self, node, off, data, what):
        got = node.read(off, len(data))
        if got != data:
            first = next(i for i, (x, y) in enumerate(zip(got, data))
                         if x != y)
            self.fail(f'{what}: {len(data)} bytes differ from byte {first}')
        self.assertEqual(node.read(off + len(data), GUARD_LEN), GUARD,
                         f'{what}: bytes after the message were written')

    def send_one(self, size, opcode, imm=None):
        a, b = self.a, self.b
        data = pattern(size, opcode)
        a.write(0, data)
        b.fill(0, size + GUARD_LEN)
        b.post_recv(0, size + GUARD_LEN, wr_id=0x1000 + size)
        a.post_send(opcode, 0, size, wr_id=size, imm=imm)
        sc, = poll(a.scq)
        rc, = poll(b.rcq)
        self.assertComp(sc, opcode=e.IBV_WC_SEND, wr_id=size,
                        qp_num=a.qpn)
        self.assertComp(rc, opcode=e.IBV_WC_RECV, wr_id=0x1000 + size,
                        byte_len=size, qp_num=b.qpn, imm=imm,
                        flags=e.IBV_WC_WITH_IMM if imm is not None else 0)
        self.check_area(b, 0, data, f'send {size}')

    def test_send(self):
        for size in SIZES:
            with self.subTest(size=size):
                self.send_one(size, e.IBV_WR_SEND)

    def test_send_with_imm(self):
        for size in SIZES:
            with self.subTest(size=size):
                self.send_one(size, e.IBV_WR_SEND_WITH_IMM, imm=IMM + size)

    def test_send_multi_sge(self):
        """A send gathered from three SGEs, scattered into two."""
        a, b = self.a, self.b
        parts = [(0, 100), (4096, 3000), (20000, 70000)]
        data = b''
        for off, n in parts:
            chunk = pattern(n, off)
            a.write(off, chunk)
            data += chunk
        b.fill(0, 200000)
        b.post_recv(sges=[b.sge(0, 1000), b.sge(100000, 90000)], wr_id=9)
        a.post_send(e.IBV_WR_SEND, sges=[a.sge(o, n) for o, n in parts],
                    wr_id=8)
        sc, = poll(a.scq)
        rc, = poll(b.rcq)
        self.assertComp(sc, opcode=e.IBV_WC_SEND, wr_id=8)
        self.assertComp(rc, opcode=e.IBV_WC_RECV, wr_id=9,
                        byte_len=len(data), flags=0)
        self.assertEqual(b.read(0, 1000), data[:1000])
        self.check_area(b, 100000, data[1000:], 'second scatter SGE')

    def test_send_inline(self):
        a, b = self.a, self.b
        for size in (1, 7, 33, a.caps.max_inline_data):
            with self.subTest(size=size):
                data = pattern(size, 77)
                a.write(0, data)
                b.fill(0, size + GUARD_LEN)
                b.post_recv(0, size + GUARD_LEN, wr_id=size)
                a.post_send(e.IBV_WR_SEND, 0, size, wr_id=size, inline=True)
                # The data was copied at post time.
                a.fill(0, size, 0)
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND)
                self.assertComp(poll(b.rcq)[0], opcode=e.IBV_WC_RECV,
                                byte_len=size, wr_id=size)
                self.check_area(b, 0, data, f'inline send {size}')

    def write_one(self, size, opcode, imm=None):
        a, b = self.a, self.b
        data = pattern(size, opcode + 100)
        a.write(0, data)
        b.fill(0, size + GUARD_LEN)
        if imm is not None:
            b.post_recv(0, 0, wr_id=0x2000 + size)
        a.post_send(opcode, 0, size, wr_id=size, imm=imm,
                    rkey=b.mr.rkey, raddr=b.addr(0))
        sc, = poll(a.scq)
        self.assertComp(sc, opcode=e.IBV_WC_RDMA_WRITE, wr_id=size,
                        qp_num=a.qpn)
        if imm is not None:
            rc, = poll(b.rcq)
            self.assertComp(rc, opcode=e.IBV_WC_RECV_RDMA_WITH_IMM,
                            wr_id=0x2000 + size, byte_len=size,
                            qp_num=b.qpn, imm=imm, flags=e.IBV_WC_WITH_IMM)
        self.check_area(b, 0, data, f'write {size}')

    def test_rdma_write(self):
        for size in SIZES:
            with self.subTest(size=size):
                self.write_one(size, e.IBV_WR_RDMA_WRITE)

    def test_rdma_write_with_imm(self):
        for size in SIZES:
            with self.subTest(size=size):
                self.write_one(size, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                               imm=IMM ^ size)

    def test_rdma_read(self):
        a, b = self.a, self.b
        for size in SIZES:
            with self.subTest(size=size):
                data = pattern(size, 555)
                b.write(0, data)
                a.fill(0, size + GUARD_LEN)
                a.post_send(e.IBV_WR_RDMA_READ, 0, size, wr_id=size,
                            rkey=b.mr.rkey, raddr=b.addr(0))
                sc, = poll(a.scq)
                self.assertComp(sc, opcode=e.IBV_WC_RDMA_READ, wr_id=size,
                                byte_len=size, qp_num=a.qpn)
                self.check_area(a, 0, data, f'read {size}')

    OFFSETS = (0, 8, 4096 - 8, (1 << 20) - 8)

    def atomic(self, opcode, off, compare_add, swap=0):
        a, b = self.a, self.b
        a.fill(0, 8 + GUARD_LEN)
        a.post_send(opcode, 0, 8, wr_id=off, rkey=b.mr.rkey,
                    raddr=b.addr(off), compare_add=compare_add, swap=swap)
        sc, = poll(a.scq)
        want = (e.IBV_WC_COMP_SWAP if opcode == e.IBV_WR_ATOMIC_CMP_AND_SWP
                else e.IBV_WC_FETCH_ADD)
        self.assertComp(sc, opcode=want, wr_id=off, byte_len=8,
                        qp_num=a.qpn)
        self.assertEqual(a.read(8, GUARD_LEN), GUARD)
        return u64(a.read(0, 8))

    def test_atomic_cmp_swap(self):
        b = self.b
        for off in self.OFFSETS:
            with self.subTest(offset=off):
                old, new = 0x0123456789abcdef + off, 0xfedcba9876543210 - off
                b.fill(off - 8 if off else off + 8, 8, 0x55)
                b.write(off, struct.pack('=Q', old))
                # Matching compare: swapped, the old value comes back.
                self.assertEqual(self.atomic(e.IBV_WR_ATOMIC_CMP_AND_SWP,
                                             off, old, new), old)
                self.assertEqual(u64(b.read(off, 8)), new)
                # Wrong compare: unchanged, the current value comes back.
                self.assertEqual(self.atomic(e.IBV_WR_ATOMIC_CMP_AND_SWP,
                                             off, old, 7), new)
                self.assertEqual(u64(b.read(off, 8)), new)
                nb = off - 8 if off else off + 8
                self.assertEqual(b.read(nb, 8), b'\x55' * 8,
                                 'atomic wrote next to its target')

    def test_atomic_fetch_add(self):
        b = self.b
        for off in self.OFFSETS:
            with self.subTest(offset=off):
                old = 0xffffffffffffff00 + off % 256
                b.write(off, struct.pack('=Q', old))
                self.assertEqual(self.atomic(e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                                             off, 0x1234), old)
                # 64-bit wrap-around
                self.assertEqual(u64(b.read(off, 8)),
                                 (old + 0x1234) & (2**64 - 1))
                self.assertEqual(self.atomic(e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                                             off, 1),
                                 (old + 0x1234) & (2**64 - 1))

    def test_send_with_invalidate(self):
        """
        Each size invalidates a fresh type 2 MW that b bound; the data and
        the completion are checked here (the IBV_WC_WITH_INV flag is the
        subject of test_stock_bugs), and at the end a write through the
        last invalidated key must fail.
        """
        a, b = self.a, self.b
        rkey = None
        for size in SIZES:
            with self.subTest(size=size):
                mw = self.mw(b, e.IBV_MW_TYPE_2)
                info = MWBindInfo(b.mr, b.addr(0), 4096,
                                  e.IBV_ACCESS_REMOTE_WRITE)
                bind = SendWR(wr_id=0xb1, opcode=e.IBV_WR_BIND_MW)
                bind.set_bind_wr(mw, info)
                b.qp.post_send(bind)
                self.assertComp(poll(b.scq)[0], opcode=e.IBV_WC_BIND_MW,
                                wr_id=0xb1)
                rkey = bind.rkey
                data = pattern(size, 4242)
                a.write(0, data)
                b.fill(0, size + GUARD_LEN)
                b.post_recv(0, size + GUARD_LEN, wr_id=size)
                a.post_send(e.IBV_WR_SEND_WITH_INV, 0, size, wr_id=size,
                            inv_rkey=rkey)
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND,
                                wr_id=size)
                rc, = poll(b.rcq)
                self.assertComp(rc, opcode=e.IBV_WC_RECV, wr_id=size,
                                byte_len=size, qp_num=b.qpn)
                # ibv_wc.invalidated_rkey shares the union with imm_data
                self.assertEqual(rc.imm_data, rkey)
                self.check_area(b, 0, data, f'send with invalidate {size}')
        a.post_send(e.IBV_WR_RDMA_WRITE, 0, 8, wr_id=1, rkey=rkey,
                    raddr=b.addr(0))
        self.assertComp(poll(a.scq)[0], status=e.IBV_WC_REM_ACCESS_ERR,
                        wr_id=1)


class UCIntegrity(VerbsTestCase):

    def setUp(self):
        super().setUp()
        self.a, self.b = self.pair(e.IBV_QPT_UC, buf_size=BIG,
                                   separate_cqs=True)

    def test_send(self):
        a, b = self.a, self.b
        for size in SIZES:
            with self.subTest(size=size):
                data = pattern(size, 31)
                a.write(0, data)
                b.fill(0, size + GUARD_LEN)
                b.post_recv(0, size + GUARD_LEN, wr_id=size)
                a.post_send(e.IBV_WR_SEND_WITH_IMM if size & 1 else
                            e.IBV_WR_SEND, 0, size, wr_id=size,
                            imm=IMM if size & 1 else None)
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND,
                                wr_id=size, qp_num=a.qpn)
                self.assertComp(poll(b.rcq)[0], opcode=e.IBV_WC_RECV,
                                wr_id=size, byte_len=size, qp_num=b.qpn,
                                imm=IMM if size & 1 else None,
                                flags=e.IBV_WC_WITH_IMM if size & 1 else 0)
                self.assertEqual(b.read(0, size), data)
                self.assertEqual(b.read(size, GUARD_LEN), GUARD)

    def test_rdma_write(self):
        a, b = self.a, self.b
        for size in SIZES:
            with self.subTest(size=size):
                data = pattern(size, 32)
                a.write(0, data)
                b.fill(0, size + GUARD_LEN)
                imm = IMM - size if size & 1 else None
                if imm is not None:
                    b.post_recv(0, 0, wr_id=size)
                a.post_send(e.IBV_WR_RDMA_WRITE_WITH_IMM if imm else
                            e.IBV_WR_RDMA_WRITE, 0, size, wr_id=size,
                            imm=imm, rkey=b.mr.rkey, raddr=b.addr(0))
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_RDMA_WRITE,
                                wr_id=size, qp_num=a.qpn)
                if imm is not None:
                    self.assertComp(poll(b.rcq)[0],
                                    opcode=e.IBV_WC_RECV_RDMA_WITH_IMM,
                                    wr_id=size, byte_len=size, imm=imm,
                                    flags=e.IBV_WC_WITH_IMM)
                else:
                    # No completion at b: a send behind the write on the
                    # same QP tells when the data has landed.  (UC drops a
                    # send that finds no receive: post that first.)
                    b.post_recv(BIG - 16, 8, wr_id=0xf)
                    a.post_send(e.IBV_WR_SEND, BIG - 8, 1, wr_id=0xf)
                    poll(a.scq)
                    poll(b.rcq)
                self.assertEqual(b.read(0, size), data)
                self.assertEqual(b.read(size, GUARD_LEN), GUARD)


class UDIntegrity(VerbsTestCase):
    """Sizes up to the path MTU; the payload lands after the 40 B GRH."""

    def setUp(self):
        super().setUp()
        self.a, self.b = self.pair(e.IBV_QPT_UD, buf_size=8192,
                                   separate_cqs=True)
        mtu = self.a.ctx.query_port(1).active_mtu
        self.mtu = 128 << mtu   # IBV_MTU_256 = 1
        gid = self.a.ctx.query_gid(1, self.a.gid_index).gid
        self.ipv4 = gid.startswith('0000:0000:0000:0000:0000:ffff:')

    def test_send(self):
        a, b = self.a, self.b
        for size in sorted({1, 7, 64, 1000, 1023, self.mtu}):
            for imm in (None, IMM + size):
                with self.subTest(size=size, imm=imm):
                    data = pattern(size, 40)
                    a.write(0, data)
                    b.fill(0, GRH_SIZE + size + GUARD_LEN)
                    b.post_recv(0, GRH_SIZE + size + GUARD_LEN, wr_id=size)
                    a.post_send(e.IBV_WR_SEND if imm is None else
                                e.IBV_WR_SEND_WITH_IMM, 0, size, wr_id=size,
                                imm=imm, peer=b)
                    self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND,
                                    wr_id=size, qp_num=a.qpn)
                    self.assertComp(
                        poll(b.rcq)[0], opcode=e.IBV_WC_RECV, wr_id=size,
                        byte_len=GRH_SIZE + size, qp_num=b.qpn,
                        src_qp=a.qpn, imm=imm, grh=True,
                        flags=0 if imm is None else e.IBV_WC_WITH_IMM)
                    self.assertEqual(b.read(GRH_SIZE, size), data)
                    self.assertEqual(b.read(GRH_SIZE + size, GUARD_LEN),
                                     GUARD)
                    if self.ipv4:
                        # RoCE v2 over IPv4: an IPv4 header ends the GRH area
                        self.assertEqual(b.read(20, 1)[0] >> 4, 4)

    def test_send_larger_than_mtu_is_dropped(self):
        """
        C10-93.1.1: a UD message longer than the MTU emits no packet and
        no error; the receive posted at b stays for the next message.
        """
        a, b = self.a, self.b
        b.post_recv(0, 4096 + GRH_SIZE, wr_id=1)
        a.post_send(e.IBV_WR_SEND, 0, self.mtu + 1, wr_id=2, peer=b)
        self.assertComp(poll(a.scq)[0], wr_id=2)
        assert_no_completion(self, b.rcq,
                             what='receive of an oversize UD send')
        data = pattern(100, 41)
        a.write(0, data)
        a.post_send(e.IBV_WR_SEND, 0, 100, wr_id=3, peer=b)
        self.assertComp(poll(a.scq)[0], wr_id=3)
        self.assertComp(poll(b.rcq)[0], wr_id=1, byte_len=GRH_SIZE + 100)
        self.assertEqual(b.read(GRH_SIZE, 100), data)
