# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
Legacy CQs: resizing with completions pending keeps them, and a resize the
kernel refuses leaves the CQ as it was (pending completions still polled,
new ones arrive).
"""

from helpers import (PyverbsRDMAError, VerbsTestCase, assert_no_completion,
                     e, poll)


class CQResize(VerbsTestCase):

    def pending(self, n, cqe):
        a, b = self.pair(e.IBV_QPT_RC, separate_cqs=True, cqe=cqe)
        for i in range(n + 3):
            b.post_recv(64 * i, 64, wr_id=i)
        for i in range(n):
            a.post_send(e.IBV_WR_SEND, 0, i + 1, wr_id=i)
        # A receive CQE is posted before the send is acked.
        poll(a.scq, n)
        return a, b

    def check(self, a, b, n):
        got = poll(b.rcq, n)
        self.assertEqual([c.wr_id for c in got], list(range(n)))
        for i, c in enumerate(got):
            self.assertComp(c, byte_len=i + 1, opcode=e.IBV_WC_RECV)
        assert_no_completion(self, b.rcq, 0.1)
        for i in range(n, n + 3):
            a.post_send(e.IBV_WR_SEND, 0, 1, wr_id=i)
        poll(a.scq, 3)
        self.assertEqual([c.wr_id for c in poll(b.rcq, 3)],
                         [n, n + 1, n + 2])

    def test_grow_keeps_pending(self):
        a, b = self.pending(10, 16)
        b.rcq.resize(500)
        self.assertGreaterEqual(b.rcq.cqe, 500)
        self.check(a, b, 10)

    def test_shrink_keeps_pending(self):
        a, b = self.pending(5, 200)
        b.rcq.resize(16)
        self.assertGreaterEqual(b.rcq.cqe, 16)
        self.assertLess(b.rcq.cqe, 200)
        self.check(a, b, 5)

    def test_failed_resize_below_pending_keeps_cq_usable(self):
        a, b = self.pending(10, 32)
        with self.assertRaises(PyverbsRDMAError):
            b.rcq.resize(4)
        self.check(a, b, 10)

    def test_failed_resize_beyond_max_keeps_cq_usable(self):
        a, b = self.pending(6, 32)
        max_cqe = b.ctx.query_device().max_cqe
        with self.assertRaises(PyverbsRDMAError):
            b.rcq.resize(max_cqe + 1)
        self.check(a, b, 6)

    def test_cqe_rounding(self):
        a = self.node(cqe=100, with_qp=False)
        self.assertGreaterEqual(a.scq.cqe, 100)
