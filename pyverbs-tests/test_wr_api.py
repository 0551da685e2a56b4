# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
The ibv_wr_* send API (QPEx): every builder and setter rxe can run, batches,
wr_abort, a bad WR refusing its whole batch, and the send_ops_flags that
must be refused.  Multi-element set_sge_list / set_inline_data_list are
in test_stock_bugs (stock librxe v44 gets their lengths wrong).
"""

import errno
import struct

from pyverbs.qp import DataBuffer

from helpers import (_DEVICE, GRH_SIZE, GUARD, IMM, MWBindInfo, Node,
                     PyverbsRDMAError, VerbsTestCase, assert_no_completion,
                     d, e, inc_rkey, pattern, poll, u64)

RC_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM |
          e.IBV_QP_EX_WITH_SEND_WITH_INV | e.IBV_QP_EX_WITH_RDMA_WRITE |
          e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | e.IBV_QP_EX_WITH_RDMA_READ |
          e.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
          e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
          e.IBV_QP_EX_WITH_LOCAL_INV | e.IBV_QP_EX_WITH_BIND_MW)
UC_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM |
          e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
          e.IBV_QP_EX_WITH_BIND_MW)
UD_OPS = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM
SIGNALED = e.IBV_SEND_SIGNALED
BUF = 256 * 1024


def start(qp, wr_id, flags=SIGNALED):
    qp.wr_id = wr_id
    qp.wr_flags = flags


class WrApiRC(VerbsTestCase):
    """a and b are RC QPEx with every RC builder enabled."""

    def setUp(self):
        super().setUp()
        self.a, self.b = self.pair(e.IBV_QPT_RC, buf_size=BUF,
                                   separate_cqs=True, send_ops=RC_OPS,
                                   max_inline=128)

    def recv_check(self, data, wr_id, imm=None, off=0):
        b = self.b
        rc, = poll(b.rcq)
        self.assertComp(rc, opcode=e.IBV_WC_RECV, wr_id=wr_id,
                        byte_len=len(data), qp_num=b.qpn, imm=imm,
                        flags=e.IBV_WC_WITH_IMM if imm is not None else 0)
        self.assertEqual(b.read(off, len(data)), data)
        self.assertEqual(b.read(off + len(data), len(GUARD)), GUARD)

    def test_send_set_sge(self):
        a, b, qp = self.a, self.b, self.a.qp
        for size in (1, 4096, 65537):
            with self.subTest(size=size):
                data = pattern(size, 1)
                a.write(0, data)
                b.fill(0, size + 64)
                b.post_recv(0, size + 64, wr_id=size)
                qp.wr_start()
                start(qp, 0x100 + size)
                qp.wr_send()
                qp.wr_set_sge(a.sge(0, size))
                qp.wr_complete()
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND,
                                wr_id=0x100 + size, qp_num=a.qpn)
                self.recv_check(data, size)

    def test_send_imm(self):
        a, b, qp = self.a, self.b, self.a.qp
        data = pattern(3000, 2)
        a.write(0, data)
        b.fill(0, 3064)
        b.post_recv(0, 3064, wr_id=7)
        qp.wr_start()
        start(qp, 8)
        qp.wr_send_imm(IMM)
        qp.wr_set_sge(a.sge(0, len(data)))
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND, wr_id=8)
        self.recv_check(data, 7, imm=IMM)

    def inline_sends(self, flags):
        a, b, qp = self.a, self.b, self.a.qp
        for size in (1, 50, a.caps.max_inline_data):
            with self.subTest(size=size):
                data = pattern(size, 3)
                a.write(1000, data)
                b.fill(0, size + 64)
                b.post_recv(0, size + 64, wr_id=size)
                qp.wr_start()
                start(qp, size, flags)
                qp.wr_send()
                qp.wr_set_inline_data(a.addr(1000), size)
                qp.wr_complete()
                a.fill(1000, size, 0)   # copied at post time
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND,
                                wr_id=size)
                self.recv_check(data, size)

    def test_send_set_inline_data(self):
        """
        wr_set_inline_data without IBV_SEND_INLINE in wr_flags: the inline
        setters act like that flag (ibv_wr_post(3)).
        """
        self.inline_sends(SIGNALED)

    def test_send_set_inline_data_with_inline_flag(self):
        self.inline_sends(SIGNALED | e.IBV_SEND_INLINE)

    def test_send_set_inline_data_list_one_buffer(self):
        a, b, qp = self.a, self.b, self.a.qp
        data = pattern(77, 4)
        a.write(500, data)
        b.fill(0, 200)
        b.post_recv(0, 200, wr_id=1)
        qp.wr_start()
        start(qp, 2)
        qp.wr_send()
        qp.wr_set_inline_data_list(1, [DataBuffer(a.addr(500), 77)])
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND, wr_id=2)
        self.recv_check(data, 1)

    def test_send_set_sge_list_one_sge(self):
        a, b, qp = self.a, self.b, self.a.qp
        data = pattern(5000, 5)
        a.write(8192, data)
        b.fill(0, 5064)
        b.post_recv(0, 5064, wr_id=1)
        qp.wr_start()
        start(qp, 2)
        qp.wr_send()
        qp.wr_set_sge_list(1, [a.sge(8192, 5000)])
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND, wr_id=2)
        self.recv_check(data, 1)

    def test_rdma_write(self):
        a, b, qp = self.a, self.b, self.a.qp
        for size in (1, 1025, 65537):
            with self.subTest(size=size):
                data = pattern(size, 6)
                a.write(0, data)
                b.fill(4096, size + 64)
                qp.wr_start()
                start(qp, size)
                qp.wr_rdma_write(b.mr.rkey, b.addr(4096))
                qp.wr_set_sge(a.sge(0, size))
                qp.wr_complete()
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_RDMA_WRITE,
                                wr_id=size)
                self.assertEqual(b.read(4096, size), data)
                self.assertEqual(b.read(4096 + size, 64), GUARD)

    def test_rdma_write_imm(self):
        a, b, qp = self.a, self.b, self.a.qp
        data = pattern(4097, 7)
        a.write(0, data)
        b.fill(0, 4097 + 64)
        b.post_recv(0, 0, wr_id=3)
        qp.wr_start()
        start(qp, 4)
        qp.wr_rdma_write_imm(b.mr.rkey, b.addr(0), IMM)
        qp.wr_set_sge(a.sge(0, len(data)))
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_RDMA_WRITE, wr_id=4)
        rc, = poll(b.rcq)
        self.assertComp(rc, opcode=e.IBV_WC_RECV_RDMA_WITH_IMM, wr_id=3,
                        byte_len=len(data), imm=IMM, flags=e.IBV_WC_WITH_IMM)
        self.assertEqual(b.read(0, len(data)), data)
        self.assertEqual(b.read(len(data), 64), GUARD)

    def test_rdma_read(self):
        a, b, qp = self.a, self.b, self.a.qp
        for size in (1, 1023, 65537):
            with self.subTest(size=size):
                data = pattern(size, 8)
                b.write(100, data)
                a.fill(0, size + 64)
                qp.wr_start()
                start(qp, size)
                qp.wr_rdma_read(b.mr.rkey, b.addr(100))
                qp.wr_set_sge(a.sge(0, size))
                qp.wr_complete()
                self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_RDMA_READ,
                                wr_id=size, byte_len=size)
                self.assertEqual(a.read(0, size), data)
                self.assertEqual(a.read(size, 64), GUARD)

    def test_atomics(self):
        a, b, qp = self.a, self.b, self.a.qp
        b.write(64, struct.pack('=Q', 1000))
        qp.wr_start()
        start(qp, 1)
        qp.wr_atomic_fetch_add(b.mr.rkey, b.addr(64), 24)
        qp.wr_set_sge(a.sge(0, 8))
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_FETCH_ADD, wr_id=1)
        self.assertEqual(u64(a.read(0, 8)), 1000)
        self.assertEqual(u64(b.read(64, 8)), 1024)
        qp.wr_start()
        start(qp, 2)
        qp.wr_atomic_cmp_swp(b.mr.rkey, b.addr(64), 1024, 0xabcdef)
        qp.wr_set_sge(a.sge(8, 8))
        start(qp, 3)
        qp.wr_atomic_cmp_swp(b.mr.rkey, b.addr(64), 1024, 5)
        qp.wr_set_sge(a.sge(16, 8))
        qp.wr_complete()
        c1, c2 = poll(a.scq, 2)
        self.assertComp(c1, opcode=e.IBV_WC_COMP_SWAP, wr_id=2)
        self.assertComp(c2, opcode=e.IBV_WC_COMP_SWAP, wr_id=3)
        self.assertEqual(u64(a.read(8, 8)), 1024)
        self.assertEqual(u64(a.read(16, 8)), 0xabcdef)
        self.assertEqual(u64(b.read(64, 8)), 0xabcdef)

    def bind_type2(self, node, off, length, same_key=False, wr_id=0xb1):
        """
        Bind a new type 2 MW with wr_bind_mw; return (mw, rkey).  The key is
        the next one, or with same_key the MW's own: the kernel checks a
        bind's MW key against the key it holds, and ibv_mw.rkey of a type 2
        MW never changes, so only a window bound with its own key can be
        bound again through ibv_wr_bind_mw.
        """
        mw = self.mw(node, e.IBV_MW_TYPE_2)
        rkey = mw.rkey if same_key else inc_rkey(mw.rkey)
        self.rebind(node, mw, rkey, off, length, wr_id)
        return mw, rkey

    def rebind(self, node, mw, rkey, off, length, wr_id=0xb2,
               status=e.IBV_WC_SUCCESS):
        qp = node.qp
        qp.wr_start()
        start(qp, wr_id)
        qp.wr_bind_mw(mw, rkey, MWBindInfo(node.mr, node.addr(off), length,
                                           e.IBV_ACCESS_REMOTE_WRITE))
        qp.wr_complete()
        c, = poll(node.scq)
        self.assertComp(c, status=status, wr_id=wr_id,
                        opcode=e.IBV_WC_BIND_MW if status == 0 else None)

    def remote_write(self, rkey, off, size=16, wr_id=0x77):
        a, b, qp = self.a, self.b, self.a.qp
        data = pattern(size, rkey)
        a.write(0, data)
        qp.wr_start()
        start(qp, wr_id)
        qp.wr_rdma_write(rkey, b.addr(off))
        qp.wr_set_sge(a.sge(0, size))
        qp.wr_complete()
        c, = poll(a.scq)
        return c, data

    def test_bind_mw_then_write(self):
        b = self.b
        mw, rkey = self.bind_type2(b, 4096, 4096)
        c, data = self.remote_write(rkey, 4096 + 100)
        self.assertComp(c, opcode=e.IBV_WC_RDMA_WRITE)
        self.assertEqual(b.read(4196, len(data)), data)

    def test_send_inv(self):
        """
        wr_send_inv invalidates b's type 2 MW: b can bind it again (a type
        2 bind needs a free, i.e. invalidated, MW) and writes work again.
        """
        a, b, qp = self.a, self.b, self.a.qp
        mw, rkey = self.bind_type2(b, 0, 4096, same_key=True)
        data = pattern(300, 9)
        a.write(0, data)
        b.fill(8192, 364)
        b.post_recv(8192, 364, wr_id=1)
        qp.wr_start()
        start(qp, 2)
        qp.wr_send_inv(rkey)
        qp.wr_set_sge(a.sge(0, 300))
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], opcode=e.IBV_WC_SEND, wr_id=2)
        rc, = poll(b.rcq)
        self.assertComp(rc, opcode=e.IBV_WC_RECV, wr_id=1, byte_len=300)
        self.assertEqual(rc.imm_data, rkey)   # invalidated_rkey
        self.assertEqual(b.read(8192, 300), data)
        # Free again: binding it once more succeeds.
        self.rebind(b, mw, rkey, 0, 4096)
        self.assertComp(self.remote_write(rkey, 0)[0])

    def test_local_inv(self):
        b = self.b
        mw, rkey = self.bind_type2(b, 0, 4096)
        self.assertComp(self.remote_write(rkey, 0)[0])
        qp = b.qp
        qp.wr_start()
        start(qp, 0x11)
        qp.wr_local_inv(rkey)
        qp.wr_complete()
        self.assertComp(poll(b.scq)[0], opcode=e.IBV_WC_LOCAL_INV, wr_id=0x11)
        c, _ = self.remote_write(rkey, 0)
        self.assertComp(c, status=e.IBV_WC_REM_ACCESS_ERR)

    def test_batch_of_mixed_wrs(self):
        """One wr_start..wr_complete with five WRs of four kinds."""
        a, b, qp = self.a, self.b, self.a.qp
        d1, d2, d3 = pattern(100, 10), pattern(2000, 11), pattern(64, 12)
        a.write(0, d1)
        a.write(1000, d2)
        a.write(5000, d3)
        b.write(20000, struct.pack('=Q', 5))
        b.fill(0, 164)
        b.fill(10000, 2064)
        b.post_recv(0, 164, wr_id=21)
        b.post_recv(30000, 8, wr_id=22)
        qp.wr_start()
        start(qp, 1)
        qp.wr_send()
        qp.wr_set_sge(a.sge(0, 100))
        start(qp, 2)
        qp.wr_rdma_write(b.mr.rkey, b.addr(10000))
        qp.wr_set_sge(a.sge(1000, 2000))
        start(qp, 3, 0)   # unsignaled, but sq_sig_all is set
        qp.wr_atomic_fetch_add(b.mr.rkey, b.addr(20000), 2)
        qp.wr_set_sge(a.sge(3000, 8))
        start(qp, 4)
        qp.wr_send_imm(0xfeed)
        qp.wr_set_inline_data(a.addr(5000), 0)
        start(qp, 5)
        qp.wr_rdma_read(b.mr.rkey, b.addr(10000))
        qp.wr_set_sge(a.sge(40000, 2000))
        qp.wr_complete()
        cs = poll(a.scq, 5)
        self.assertEqual([c.wr_id for c in cs], [1, 2, 3, 4, 5])
        self.assertEqual([c.opcode for c in cs],
                         [e.IBV_WC_SEND, e.IBV_WC_RDMA_WRITE,
                          e.IBV_WC_FETCH_ADD, e.IBV_WC_SEND,
                          e.IBV_WC_RDMA_READ])
        for c in cs:
            self.assertComp(c)
        r1, r2 = poll(b.rcq, 2)
        self.assertComp(r1, wr_id=21, byte_len=100, flags=0)
        self.assertComp(r2, wr_id=22, byte_len=0, imm=0xfeed,
                        flags=e.IBV_WC_WITH_IMM)
        self.assertEqual(b.read(0, 100), d1)
        self.assertEqual(b.read(10000, 2000), d2)
        self.assertEqual(b.read(12000, 64), GUARD)
        self.assertEqual(u64(a.read(3000, 8)), 5)
        self.assertEqual(u64(b.read(20000, 8)), 7)
        self.assertEqual(a.read(40000, 2000), d2)

    def marker(self, wr_id=0x99, size=123):
        """Post one good send; return its data."""
        a, qp = self.a, self.a.qp
        data = pattern(size, wr_id)
        a.write(60000, data)
        qp.wr_start()
        start(qp, wr_id)
        qp.wr_send()
        qp.wr_set_sge(a.sge(60000, size))
        qp.wr_complete()
        return data

    def check_only_marker(self, data, wr_id=0x99):
        a, b = self.a, self.b
        sc, = poll(a.scq)
        self.assertComp(sc, wr_id=wr_id, opcode=e.IBV_WC_SEND)
        rc, = poll(b.rcq)
        self.assertComp(rc, wr_id=1, byte_len=len(data))
        self.assertEqual(b.read(0, len(data)), data)
        assert_no_completion(self, a.scq, what='send completion')
        assert_no_completion(self, b.rcq, what='receive completion')

    def test_wr_abort_posts_nothing(self):
        a, b, qp = self.a, self.b, self.a.qp
        a.write(0, pattern(50, 13))
        b.post_recv(0, 1000, wr_id=1)
        b.post_recv(1000, 1000, wr_id=2)
        qp.wr_start()
        start(qp, 0x1)
        qp.wr_send()
        qp.wr_set_sge(a.sge(0, 50))
        start(qp, 0x2)
        qp.wr_rdma_write(b.mr.rkey, b.addr(5000))
        qp.wr_set_sge(a.sge(0, 50))
        qp.wr_abort()
        b.fill(5000, 50)
        self.check_only_marker(self.marker())
        self.assertEqual(b.read(5000, 50), GUARD[:50])

    def test_wr_complete_refuses_batch_with_bad_wr(self):
        """
        A batch whose third WR is bad: wr_complete fails and no WR of the
        batch runs (this provider refuses the whole batch).  Bad WRs: inline
        data over max_inline, and an atomic to an unaligned address.
        """
        a, b, qp = self.a, self.b, self.a.qp
        max_inline = a.caps.max_inline_data

        def inline_overflow():
            qp.wr_send()
            qp.wr_set_inline_data(a.addr(0), max_inline + 1)

        def unaligned_atomic():
            qp.wr_atomic_fetch_add(b.mr.rkey, b.addr(20004), 1)
            qp.wr_set_sge(a.sge(3000, 8))

        for bad in (inline_overflow, unaligned_atomic):
            with self.subTest(bad=bad.__name__):
                a.write(0, pattern(1000, 14))
                b.fill(5000, 100)
                b.write(20000, bytes(16))
                b.post_recv(0, 1000, wr_id=1)
                b.post_recv(1000, 1000, wr_id=2)
                qp.wr_start()
                start(qp, 0x1)
                qp.wr_send()
                qp.wr_set_sge(a.sge(0, 40))
                start(qp, 0x2)
                qp.wr_rdma_write(b.mr.rkey, b.addr(5000))
                qp.wr_set_sge(a.sge(0, 50))
                start(qp, 0x3)
                bad()
                start(qp, 0x4)
                qp.wr_send()
                qp.wr_set_sge(a.sge(0, 60))
                with self.assertRaises(PyverbsRDMAError):
                    qp.wr_complete()
                self.check_only_marker(self.marker())
                self.assertEqual(b.read(5000, 50), GUARD[:50])
                self.assertEqual(b.read(20000, 16), bytes(16))
                # take the receive left over from this round
                self.marker(0x98, 10)
                poll(a.scq)
                poll(b.rcq)


class WrApiUD(VerbsTestCase):

    def test_set_ud_addr(self):
        a, b = self.pair(e.IBV_QPT_UD, separate_cqs=True, send_ops=UD_OPS,
                         max_inline=128)
        qp = a.qp
        d1, d2 = pattern(500, 15), pattern(60, 16)
        a.write(0, d1)
        a.write(1000, d2)
        b.fill(0, 4096)
        b.post_recv(0, GRH_SIZE + 600, wr_id=1)
        b.post_recv(2000, GRH_SIZE + 100, wr_id=2)
        qp.wr_start()
        start(qp, 11)
        qp.wr_send()
        qp.wr_set_ud_addr(a.ah, b.qpn, 0x11111111)
        qp.wr_set_sge(a.sge(0, 500))
        start(qp, 12)
        qp.wr_send_imm(IMM)
        qp.wr_set_ud_addr(a.ah, b.qpn, 0x11111111)
        qp.wr_set_inline_data(a.addr(1000), 60)
        qp.wr_complete()
        s1, s2 = poll(a.scq, 2)
        self.assertComp(s1, wr_id=11, opcode=e.IBV_WC_SEND)
        self.assertComp(s2, wr_id=12, opcode=e.IBV_WC_SEND)
        r1, r2 = poll(b.rcq, 2)
        self.assertComp(r1, wr_id=1, byte_len=GRH_SIZE + 500, src_qp=a.qpn,
                        grh=True, flags=0)
        self.assertComp(r2, wr_id=2, byte_len=GRH_SIZE + 60, src_qp=a.qpn,
                        grh=True, imm=IMM, flags=e.IBV_WC_WITH_IMM)
        self.assertEqual(b.read(GRH_SIZE, 500), d1)
        self.assertEqual(b.read(2000 + GRH_SIZE, 60), d2)

    def test_wrong_qkey_is_dropped(self):
        a, b = self.pair(e.IBV_QPT_UD, separate_cqs=True, send_ops=UD_OPS)
        qp = a.qp
        b.post_recv(0, 1000, wr_id=1)
        qp.wr_start()
        start(qp, 1)
        qp.wr_send()
        qp.wr_set_ud_addr(a.ah, b.qpn, 0x2222)
        qp.wr_set_sge(a.sge(0, 10))
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], wr_id=1)
        assert_no_completion(self, b.rcq, what='receive with a wrong Q_Key')


class WrApiUC(VerbsTestCase):

    def test_uc_send_and_write(self):
        a, b = self.pair(e.IBV_QPT_UC, buf_size=16384, separate_cqs=True,
                         send_ops=UC_OPS)
        qp = a.qp
        d1, d2 = pattern(3000, 17), pattern(5000, 18)
        a.write(0, d1)
        a.write(4096, d2)
        b.fill(0, 8192)
        b.post_recv(0, 3064, wr_id=1)
        b.post_recv(0, 0, wr_id=2)
        qp.wr_start()
        start(qp, 1)
        qp.wr_send()
        qp.wr_set_sge(a.sge(0, 3000))
        start(qp, 2)
        qp.wr_rdma_write_imm(b.mr.rkey, b.addr(3064), 42)
        qp.wr_set_sge(a.sge(4096, 5000))
        qp.wr_complete()
        self.assertEqual([c.opcode for c in poll(a.scq, 2)],
                         [e.IBV_WC_SEND, e.IBV_WC_RDMA_WRITE])
        r1, r2 = poll(b.rcq, 2)
        self.assertComp(r1, wr_id=1, byte_len=3000, opcode=e.IBV_WC_RECV)
        self.assertComp(r2, wr_id=2, byte_len=5000, imm=42,
                        opcode=e.IBV_WC_RECV_RDMA_WITH_IMM)
        self.assertEqual(b.read(0, 3000), d1)
        self.assertEqual(b.read(3064, 5000), d2)


class SendOpsFlags(VerbsTestCase):
    """send_ops_flags the device cannot run make QP creation fail."""

    def create(self, qp_type, ops):
        return Node(qp_type=qp_type, send_ops=ops)

    def expect_eopnotsupp(self, qp_type, ops):
        try:
            n = self.create(qp_type, ops)
        except PyverbsRDMAError as ex:
            self.assertEqual(ex.error_code, errno.EOPNOTSUPP, str(ex))
            return
        n.close()
        self.fail(f'QP type {qp_type} created with send_ops_flags {ops:#x}')

    def test_atomic_write_refused(self):
        """On RC only where the kernel has it (Linux 6.2+: device cap bit
        40, tests/guest/itest/features.c checks its bytes)."""
        ctx = d.Context(name=_DEVICE)
        try:
            caps = ctx.query_device_ex().device_cap_flags_ex
        finally:
            ctx.close()
        ops = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_ATOMIC_WRITE
        for t in (e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD):
            with self.subTest(qp_type=t):
                if t == e.IBV_QPT_RC and caps & (1 << 40):
                    self.create(t, ops).close()
                    continue
                self.expect_eopnotsupp(t, ops)

    def test_tso_refused(self):
        for t in (e.IBV_QPT_RC, e.IBV_QPT_UD):
            with self.subTest(qp_type=t):
                self.expect_eopnotsupp(
                    t, e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_TSO)

    def test_ops_outside_qp_type_refused(self):
        self.expect_eopnotsupp(e.IBV_QPT_UC, e.IBV_QP_EX_WITH_RDMA_READ)
        self.expect_eopnotsupp(e.IBV_QPT_UD, e.IBV_QP_EX_WITH_RDMA_WRITE)
        self.expect_eopnotsupp(e.IBV_QPT_UD,
                               e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

    def test_supported_sets_accepted(self):
        for t, ops in ((e.IBV_QPT_RC, RC_OPS), (e.IBV_QPT_UC, UC_OPS),
                       (e.IBV_QPT_UD, UD_OPS)):
            with self.subTest(qp_type=t):
                self.create(t, ops).close()
