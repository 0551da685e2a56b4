# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
ibv_cq_ex: the fields read with IBV_WC_STANDARD_FLAGS against what was
sent, start_poll/next_poll/end_poll batches, the create flags the device
lacks (EOPNOTSUPP) and IBV_CREATE_CQ_ATTR_SINGLE_THREADED.
"""

import errno

from pyverbs.cq import PollCqAttr

from helpers import (CQEX, GRH_SIZE, IMM, CqInitAttrEx, PyverbsRDMAError,
                     VerbsTestCase, e, pattern, poll, poll_cqex)


class CqExFields(VerbsTestCase):

    def test_rc_fields(self):
        """Every opcode's completion read field by field on both sides."""
        a, b = self.pair(e.IBV_QPT_RC, buf_size=65536, cq_ex=True,
                         separate_cqs=True)
        d1 = pattern(1500, 1)
        a.write(0, d1)
        b.post_recv(0, 2000, wr_id=101)
        b.post_recv(4000, 4000, wr_id=102)
        b.post_recv(8000, 0, wr_id=103)
        a.post_send(e.IBV_WR_SEND, 0, 1500, wr_id=1)
        a.post_send(e.IBV_WR_SEND_WITH_IMM, 0, 3333, wr_id=2, imm=IMM)
        a.post_send(e.IBV_WR_RDMA_WRITE_WITH_IMM, 0, 777, wr_id=3,
                    imm=IMM + 1, rkey=b.mr.rkey, raddr=b.addr(20000))
        a.post_send(e.IBV_WR_RDMA_WRITE, 0, 5, wr_id=4, rkey=b.mr.rkey,
                    raddr=b.addr(30000))
        a.post_send(e.IBV_WR_RDMA_READ, 40000, 4097, wr_id=5,
                    rkey=b.mr.rkey, raddr=b.addr(0))
        a.post_send(e.IBV_WR_ATOMIC_FETCH_AND_ADD, 50000, 8, wr_id=6,
                    rkey=b.mr.rkey, raddr=b.addr(60000), compare_add=1)
        a.post_send(e.IBV_WR_ATOMIC_CMP_AND_SWP, 50008, 8, wr_id=7,
                    rkey=b.mr.rkey, raddr=b.addr(60000), compare_add=1,
                    swap=2)
        sends = poll_cqex(a.scq, 7)
        want = [(1, e.IBV_WC_SEND), (2, e.IBV_WC_SEND),
                (3, e.IBV_WC_RDMA_WRITE), (4, e.IBV_WC_RDMA_WRITE),
                (5, e.IBV_WC_RDMA_READ), (6, e.IBV_WC_FETCH_ADD),
                (7, e.IBV_WC_COMP_SWAP)]
        for c, (wr_id, op) in zip(sends, want):
            self.assertComp(c, wr_id=wr_id, opcode=op, qp_num=a.qpn)
        self.assertEqual(sends[4].byte_len, 4097)
        recvs = poll_cqex(b.rcq, 3)
        self.assertComp(recvs[0], wr_id=101, opcode=e.IBV_WC_RECV,
                        byte_len=1500, qp_num=b.qpn, flags=0)
        self.assertComp(recvs[1], wr_id=102, opcode=e.IBV_WC_RECV,
                        byte_len=3333, qp_num=b.qpn, imm=IMM,
                        flags=e.IBV_WC_WITH_IMM)
        self.assertComp(recvs[2], wr_id=103,
                        opcode=e.IBV_WC_RECV_RDMA_WITH_IMM, byte_len=777,
                        qp_num=b.qpn, imm=IMM + 1, flags=e.IBV_WC_WITH_IMM)
        self.assertEqual(b.read(0, 1500), d1)

    def test_ud_fields(self):
        """read_src_qp, GRH flag and the GRH in byte_len on UD."""
        a, b = self.pair(e.IBV_QPT_UD, cq_ex=True, separate_cqs=True)
        b.post_recv(0, GRH_SIZE + 500, wr_id=1)
        b.post_recv(1000, GRH_SIZE + 500, wr_id=2)
        a.post_send(e.IBV_WR_SEND, 0, 321, wr_id=11, peer=b)
        a.post_send(e.IBV_WR_SEND_WITH_IMM, 0, 1, wr_id=12, imm=IMM,
                    peer=b)
        for c, wr_id in zip(poll_cqex(a.scq, 2), (11, 12)):
            self.assertComp(c, wr_id=wr_id, opcode=e.IBV_WC_SEND,
                            qp_num=a.qpn)
        r1, r2 = poll_cqex(b.rcq, 2)
        self.assertComp(r1, wr_id=1, opcode=e.IBV_WC_RECV,
                        byte_len=GRH_SIZE + 321, qp_num=b.qpn, src_qp=a.qpn,
                        grh=True, flags=0)
        self.assertComp(r2, wr_id=2, opcode=e.IBV_WC_RECV,
                        byte_len=GRH_SIZE + 1, qp_num=b.qpn, src_qp=a.qpn,
                        grh=True, imm=IMM, flags=e.IBV_WC_WITH_IMM)

    def test_error_completion(self):
        """status and wr_id of a failed WR (bad rkey) through the CQEX."""
        a, b = self.pair(e.IBV_QPT_RC, cq_ex=True, separate_cqs=True)
        a.post_send(e.IBV_WR_RDMA_WRITE, 0, 16, wr_id=0xbad,
                    rkey=b.mr.rkey ^ 0x5a00, raddr=b.addr(0))
        c, = poll_cqex(a.scq)
        self.assertComp(c, status=e.IBV_WC_REM_ACCESS_ERR, wr_id=0xbad)


class CqExPolling(VerbsTestCase):

    def test_empty_start_poll(self):
        a = self.node(cq_ex=True)
        for _ in range(3):
            self.assertEqual(a.scq.start_poll(PollCqAttr()), errno.ENOENT)

    def test_batches(self):
        """
        20 completions read in batches of at most 7 (start_poll, next_poll
        x6, end_poll): each once, in order, then ENOENT.
        """
        a, b = self.pair(e.IBV_QPT_RC, cq_ex=True, separate_cqs=True)
        for i in range(20):
            b.post_recv(0, 64, wr_id=i)
        for i in range(20):
            a.post_send(e.IBV_WR_SEND, 0, i, wr_id=1000 + i)
        poll_cqex(a.scq, 20)
        seen = []
        while len(seen) < 20:
            seen.extend(c.wr_id for c in poll_cqex(b.rcq, min(7, 20 -
                                                             len(seen))))
        self.assertEqual(seen, list(range(20)))
        self.assertEqual(b.rcq.start_poll(PollCqAttr()), errno.ENOENT)


class CqExCreate(VerbsTestCase):

    def create(self, **kw):
        ctx = self.context()
        return CQEX(ctx, CqInitAttrEx(**kw))

    def expect_eopnotsupp(self, **kw):
        with self.assertRaises(PyverbsRDMAError) as cm:
            self.create(**kw)
        self.assertEqual(cm.exception.error_code, errno.EOPNOTSUPP)

    def test_completion_timestamp_refused(self):
        for flag in (e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
                     e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK):
            with self.subTest(flag=flag):
                self.expect_eopnotsupp(
                    cqe=16, wc_flags=e.IBV_WC_STANDARD_FLAGS | flag)

    def test_ignore_overrun_refused(self):
        self.expect_eopnotsupp(cqe=16, wc_flags=e.IBV_WC_STANDARD_FLAGS,
                               comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
                               flags=e.IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

    def test_single_threaded(self):
        """A SINGLE_THREADED CQEX works for send and receive."""
        a, b = self.pair(e.IBV_QPT_RC, cq_ex=True,
                         cq_flags=e.IBV_CREATE_CQ_ATTR_SINGLE_THREADED)
        data = pattern(2000, 3)
        a.write(0, data)
        for i in range(5):
            b.post_recv(4096, 2000, wr_id=i)
            a.post_send(e.IBV_WR_SEND, 0, 2000, wr_id=100 + i)
            self.assertComp(poll(a.scq)[0], wr_id=100 + i,
                            opcode=e.IBV_WC_SEND)
            self.assertComp(poll(b.rcq)[0], wr_id=i, byte_len=2000,
                            opcode=e.IBV_WC_RECV)
            self.assertEqual(b.read(4096, 2000), data)

    def test_standard_flags_subsets(self):
        """Each single standard flag is accepted."""
        for bit in range(64):
            flag = 1 << bit
            if flag & e.IBV_WC_STANDARD_FLAGS:
                with self.subTest(flag=flag):
                    self.create(cqe=8, wc_flags=flag).close()
