# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
Shared receive queues: the limit event (IBV_EVENT_SRQ_LIMIT_REACHED on the
async fd, waited for with select and a deadline) and resizing with
receives already posted.
"""

from helpers import (PyverbsRDMAError, SrqAttr, VerbsTestCase,
                     async_event_pending, connect, e,
                     open_context_with_async_fd, pattern, poll,
                     wait_async_event)


class SRQTests(VerbsTestCase):

    def setUp(self):
        super().setUp()
        # b's context is opened here, so its async event fd is known.
        ctx, self.async_fd = open_context_with_async_fd()
        self._contexts.append(ctx)
        self.ctx = ctx

    def make_pair(self, max_wr):
        """a sends to b, whose QP takes its receives from an SRQ."""
        b = self.node(ctx=self.ctx, srq_wr=max_wr, separate_cqs=True,
                      buf_size=65536)
        a = self.node(separate_cqs=True, buf_size=65536)
        connect(a, b)
        return a, b, b.srq

    def test_limit_event(self):
        a, b, srq = self.make_pair(16)
        for i in range(8):
            b.post_recv(i * 1024, 1024, wr_id=i)
        srq.modify(SrqAttr(srq_limit=4), e.IBV_SRQ_LIMIT)
        self.assertEqual(srq.query().srq_limit, 4)
        self.assertFalse(async_event_pending(self.async_fd),
                         'an async event before any receive was used')
        # 8 -> 4 receives left: not below the limit yet.
        for i in range(4):
            a.post_send(e.IBV_WR_SEND, 0, 100, wr_id=i)
        poll(a.scq, 4)
        self.assertEqual([c.wr_id for c in poll(b.rcq, 4)], [0, 1, 2, 3])
        self.assertFalse(async_event_pending(self.async_fd, 0.2),
                         'SRQ limit event with 4 receives left, limit 4')
        # 3 left: below the limit.
        a.post_send(e.IBV_WR_SEND, 0, 100, wr_id=4)
        poll(a.scq)
        self.assertEqual(poll(b.rcq)[0].wr_id, 4)
        wait_async_event(self.ctx, self.async_fd,
                         e.IBV_EVENT_SRQ_LIMIT_REACHED)
        # The limit is one-shot: it is disarmed now.
        self.assertEqual(srq.query().srq_limit, 0)
        a.post_send(e.IBV_WR_SEND, 0, 100, wr_id=5)
        poll(a.scq)
        poll(b.rcq)
        self.assertFalse(async_event_pending(self.async_fd, 0.2),
                         'a second SRQ limit event without re-arming')

    def test_limit_above_max_wr_refused(self):
        a, b, srq = self.make_pair(8)
        max_wr = srq.query().max_wr
        with self.assertRaises(PyverbsRDMAError):
            srq.modify(SrqAttr(srq_limit=max_wr + 1), e.IBV_SRQ_LIMIT)

    def test_resize_keeps_posted_receives(self):
        """
        6 receives posted in an SRQ of 8, resized to 64: all 6 are still
        there, in order, and 10 more fit.
        """
        a, b, srq = self.make_pair(8)
        old = srq.query().max_wr
        for i in range(6):
            b.fill(i * 2048, 2048)
            b.post_recv(i * 2048, 2048, wr_id=100 + i)
        srq.modify(SrqAttr(max_wr=64), e.IBV_SRQ_MAX_WR)
        new = srq.query().max_wr
        self.assertGreaterEqual(new, 64)
        self.assertGreater(new, old)
        for i in range(6, 16):
            b.fill(i * 2048, 2048)
            b.post_recv(i * 2048, 2048, wr_id=100 + i)
        for i in range(16):
            data = pattern(1000 + i, i)
            a.write(i * 2048, data)
            a.post_send(e.IBV_WR_SEND, i * 2048, len(data), wr_id=i)
        poll(a.scq, 16)
        rs = poll(b.rcq, 16)
        self.assertEqual([c.wr_id for c in rs], list(range(100, 116)))
        for i, c in enumerate(rs):
            self.assertComp(c, byte_len=1000 + i, qp_num=b.qpn)
            self.assertEqual(b.read(i * 2048, 1000 + i), pattern(1000 + i, i))

    def test_srq_full(self):
        """Posting more than max_wr receives fails; those posted work."""
        a, b, srq = self.make_pair(4)
        max_wr = srq.query().max_wr
        n = 0
        with self.assertRaises(PyverbsRDMAError):
            for n in range(max_wr + 1):
                b.post_recv(0, 64, wr_id=n)
        self.assertEqual(n, max_wr)
        a.post_send(e.IBV_WR_SEND, 0, 8, wr_id=1)
        poll(a.scq)
        self.assertEqual(poll(b.rcq)[0].wr_id, 0)
