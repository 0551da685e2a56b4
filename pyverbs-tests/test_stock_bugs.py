# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
One test per bug of the stock librxe (rdma-core v44, Debian 12), named by
the behaviour that must hold.  Each fails on the stock provider and passes
on doorbell.  Steps that crash or wedge the stock provider run in a forked
child (helpers.run_in_child), so a crash is a failure and not the end of
the run.
"""

import errno
import resource
import time

from pyverbs.cq import PollCqAttr
from pyverbs.qp import DataBuffer

from helpers import (MR, MW, MWBindInfo, Node, PyverbsRDMAError, SendWR,
                     TIMEOUT, VerbsTestCase, assert_no_completion, connect,
                     drain, e, inc_rkey, pattern, poll, run_in_child)

WR_OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE |
          e.IBV_QP_EX_WITH_BIND_MW)


def _pair(**kw):
    """A connected RC pair for a child process (no test case to own it)."""
    a = Node(separate_cqs=True, **kw)
    b = Node(separate_cqs=True, **kw)
    connect(a, b)
    return a, b


def _null_mr_bind_info(node, length):
    """A bind_info whose mr is NULL: MWBindInfo of a deregistered MR."""
    dead = MR(node.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    dead.close()
    return MWBindInfo(dead, node.addr(0), length, e.IBV_ACCESS_REMOTE_WRITE)


class StockBugs(VerbsTestCase):

    def assertChildOk(self, res):
        if res.kind == 'signal':
            self.fail(f'the child process crashed: {res.detail}')
        if res.kind != 'ok':
            self.fail(f'the child process failed: {res.detail}')
        return res.value

    # ---- a. WITH_INV, not IP_CSUM_OK ------------------------------------

    def test_send_with_invalidate_completion_reports_with_inv(self):
        """
        The receive completion of a send with invalidate has
        IBV_WC_WITH_INV and not IBV_WC_IP_CSUM_OK (the kernel's
        IB_WC_WITH_INVALIDATE is bit 2, libibverbs' IP_CSUM_OK), read
        through ibv_poll_cq and through ibv_wc_read_wc_flags.
        """
        for cq_ex in (False, True):
            with self.subTest(cq_ex=cq_ex):
                a, b = self.pair(e.IBV_QPT_RC, separate_cqs=True,
                                 cq_ex=cq_ex)
                mw = self.mw(b, e.IBV_MW_TYPE_2)
                wr = SendWR(wr_id=1, opcode=e.IBV_WR_BIND_MW)
                wr.set_bind_wr(mw, MWBindInfo(b.mr, b.addr(0), 4096,
                                              e.IBV_ACCESS_REMOTE_WRITE))
                b.qp.post_send(wr)
                self.assertComp(poll(b.scq)[0], wr_id=1)
                rkey = wr.rkey
                b.post_recv(0, 256, wr_id=2)
                a.post_send(e.IBV_WR_SEND_WITH_INV, 0, 100, wr_id=3,
                            inv_rkey=rkey)
                self.assertComp(poll(a.scq)[0], wr_id=3)
                rc, = poll(b.rcq)
                self.assertComp(rc, wr_id=2, opcode=e.IBV_WC_RECV,
                                byte_len=100)
                self.assertTrue(rc.wc_flags & e.IBV_WC_WITH_INV,
                                f'no IBV_WC_WITH_INV in {rc.wc_flags:#x}')
                self.assertFalse(rc.wc_flags & e.IBV_WC_IP_CSUM_OK,
                                 f'IBV_WC_IP_CSUM_OK in {rc.wc_flags:#x}')
                self.assertEqual(rc.wc_flags & ~e.IBV_WC_GRH,
                                 e.IBV_WC_WITH_INV)
                self.assertEqual(rc.imm_data, rkey)

    # ---- b. cq_ex consumer index never passes the producer --------------

    @staticmethod
    def _cq_ex_rounds():
        a = Node(cq_ex=True, separate_cqs=True)
        b = Node(separate_cqs=True)
        connect(a, b)
        cq = a.scq
        attr = PollCqAttr()

        def round_trip(want):
            """
            Rounds of start_poll, next_poll until ENOENT, end_poll until
            want completions were seen (or the deadline, or obvious
            garbage); every start_poll that returned 0 gets its end_poll.
            """
            seen = []
            deadline = time.monotonic() + min(TIMEOUT, 10)
            while len(seen) < want and time.monotonic() < deadline:
                ret = cq.start_poll(attr)
                if ret == errno.ENOENT:
                    time.sleep(0.001)
                    continue
                try:
                    if ret != 0:
                        seen.append(('start_poll', ret))
                        break
                    seen.append((cq.wr_id, cq.status))
                    while len(seen) < want + 8:
                        ret = cq.poll_next()
                        if ret == errno.ENOENT:
                            break
                        if ret != 0:
                            seen.append(('next_poll', ret))
                            break
                        seen.append((cq.wr_id, cq.status))
                finally:
                    cq.end_poll()
            return seen

        def empty_checks():
            """start_poll on a CQ with nothing new, a few times."""
            out = []
            for _ in range(5):
                ret = cq.start_poll(attr)
                if ret == 0:
                    out.append((cq.wr_id, cq.status))
                    cq.end_poll()
                else:
                    out.append(ret)
                time.sleep(0.02)
            return out

        for i in range(3):
            b.post_recv(0, 64, wr_id=i)
        a.post_send(e.IBV_WR_SEND, 0, 8, wr_id=1)
        a.post_send(e.IBV_WR_SEND, 0, 8, wr_id=2)
        poll(b.rcq, 2)
        time.sleep(0.05)    # let both send completions land
        first = round_trip(2)
        empty1 = empty_checks()
        a.post_send(e.IBV_WR_SEND, 0, 8, wr_id=3)
        poll(b.rcq)
        second = round_trip(1)
        empty2 = empty_checks()
        return {'first': first, 'empty1': empty1, 'second': second,
                'empty2': empty2}

    def test_cq_ex_poll_never_passes_producer(self):
        """
        start_poll, next_poll until ENOENT, end_poll: a following
        start_poll finds nothing (ENOENT) until new completions arrive, and
        then exactly those.  Stock v44 advanced its index on ENOENT and again
        in end_poll, past the producer, and read garbage or lost CQEs.
        """
        r = self.assertChildOk(run_in_child(self._cq_ex_rounds))
        ok = e.IBV_WC_SUCCESS
        self.assertEqual(r['first'], [(1, ok), (2, ok)], r)
        self.assertEqual(r['empty1'], [errno.ENOENT] * 5, r)
        self.assertEqual(r['second'], [(3, ok)], r)
        self.assertEqual(r['empty2'], [errno.ENOENT] * 5, r)

    # ---- c. wr_set_sge_list / wr_set_inline_data_list lengths -------------

    def wr_pair(self):
        return self.pair(e.IBV_QPT_RC, buf_size=65536, separate_cqs=True,
                         send_ops=WR_OPS, max_inline=256, max_send_sge=4)

    def test_wr_set_sge_list_sums_every_element(self):
        """A three-SGE send through ibv_wr_set_sge_list delivers all bytes."""
        a, b = self.wr_pair()
        parts = [(0, 100), (1000, 3000), (8000, 17)]
        data = b''
        for off, n in parts:
            chunk = pattern(n, off)
            a.write(off, chunk)
            data += chunk
        b.fill(20000, len(data) + 64)
        b.post_recv(20000, len(data) + 64, wr_id=1)
        qp = a.qp
        qp.wr_start()
        qp.wr_id = 2
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_send()
        qp.wr_set_sge_list(len(parts), [a.sge(o, n) for o, n in parts])
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], wr_id=2)
        rc, = poll(b.rcq)
        self.assertComp(rc, wr_id=1, byte_len=len(data))
        self.assertEqual(b.read(20000, len(data)), data)

    def test_wr_set_sge_list_rdma_write_sums_every_element(self):
        a, b = self.wr_pair()
        parts = [(0, 4096), (5000, 1), (6000, 999)]
        data = b''
        for off, n in parts:
            chunk = pattern(n, off + 1)
            a.write(off, chunk)
            data += chunk
        b.fill(30000, len(data) + 64)
        qp = a.qp
        qp.wr_start()
        qp.wr_id = 3
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_rdma_write(b.mr.rkey, b.addr(30000))
        qp.wr_set_sge_list(len(parts), [a.sge(o, n) for o, n in parts])
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], wr_id=3)
        self.assertEqual(b.read(30000, len(data)), data)
        self.assertEqual(b.read(30000 + len(data), 64), b'\xee' * 64)

    def test_wr_set_inline_data_list_sums_every_element(self):
        """A valid three-buffer inline list delivers the concatenation."""
        a, b = self.wr_pair()
        bufs = [(0, 5), (100, 17), (300, 40)]
        data = b''
        for off, n in bufs:
            chunk = pattern(n, off + 2)
            a.write(off, chunk)
            data += chunk
        b.fill(0, 200)
        b.post_recv(0, 200, wr_id=1)
        qp = a.qp
        qp.wr_start()
        qp.wr_id = 2
        # IBV_SEND_INLINE too: stock librxe needs it (a separate bug), and
        # this test is about the length.
        qp.wr_flags = e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE
        qp.wr_send()
        qp.wr_set_inline_data_list(
            len(bufs), [DataBuffer(a.addr(o), n) for o, n in bufs])
        qp.wr_complete()
        self.assertComp(poll(a.scq)[0], wr_id=2)
        rc, = poll(b.rcq)
        self.assertComp(rc, wr_id=1, byte_len=len(data))
        self.assertEqual(b.read(0, len(data)), data)

    def test_wr_set_inline_data_list_overflow_fails(self):
        """
        An inline list whose elements each fit but whose sum exceeds
        max_inline_data makes wr_complete fail, and nothing is sent.
        """
        a, b = self.wr_pair()
        max_inline = a.caps.max_inline_data
        half = max_inline // 2 + 1
        b.post_recv(0, 4096, wr_id=1)
        qp = a.qp
        qp.wr_start()
        qp.wr_id = 2
        qp.wr_flags = e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE
        qp.wr_send()
        qp.wr_set_inline_data_list(2, [DataBuffer(a.addr(0), half),
                                       DataBuffer(a.addr(4096), half)])
        with self.assertRaises(PyverbsRDMAError,
                               msg=f'{2 * half} inline bytes, max '
                                   f'{max_inline}: wr_complete succeeded'):
            qp.wr_complete()
        assert_no_completion(self, a.scq, what='send completion')
        assert_no_completion(self, b.rcq, what='receive completion')

    # ---- d. binding a MW with bind_info.mr == NULL -----------------------

    @staticmethod
    def _bind_null_mr_post_send():
        a, b = _pair()
        mw = MW(b.pd, e.IBV_MW_TYPE_2)
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_BIND_MW)
        wr.set_bind_wr(mw, _null_mr_bind_info(b, 4096))
        try:
            b.qp.post_send(wr)
            err = 0
        except PyverbsRDMAError as ex:
            err = ex.error_code
        comps = [(c.wr_id, c.status) for c in drain(b.scq, 0.3)]
        return {'err': err, 'comps': comps}

    @staticmethod
    def _bind_null_mr_wr_api():
        a, b = _pair(send_ops=WR_OPS)
        mw = MW(b.pd, e.IBV_MW_TYPE_2)
        qp = b.qp
        qp.wr_start()
        qp.wr_id = 1
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_bind_mw(mw, inc_rkey(mw.rkey), _null_mr_bind_info(b, 4096))
        try:
            qp.wr_complete()
            err = 0
        except PyverbsRDMAError as ex:
            err = ex.error_code
        comps = [(c.wr_id, c.status) for c in drain(b.scq, 0.3)]
        return {'err': err, 'comps': comps}

    def test_bind_mw_without_mr_refused_by_post_send(self):
        """
        IBV_WR_BIND_MW with bind_info.mr == NULL and a nonzero length is
        refused with EINVAL by ibv_post_send (stock dereferences the NULL
        MR and crashes: run in a child).
        """
        r = self.assertChildOk(run_in_child(self._bind_null_mr_post_send))
        self.assertEqual(r['err'], errno.EINVAL, r)
        self.assertEqual(r['comps'], [], r)

    def test_bind_mw_without_mr_refused_by_wr_complete(self):
        """The same through ibv_wr_bind_mw: wr_complete fails with EINVAL."""
        r = self.assertChildOk(run_in_child(self._bind_null_mr_wr_api))
        self.assertEqual(r['err'], errno.EINVAL, r)
        self.assertEqual(r['comps'], [], r)

    # ---- e. a failed resize_cq leaves the CQ usable -----------------------
    # A resize the kernel refuses (below the pending CQEs, beyond max_cqe)
    # is in test_cq.py: stock v44 returns before touching its ring there
    # and passes.  Its bug is a refused *mapping* after the kernel resized.

    @staticmethod
    def _resize_remap_fails():
        a, b = _pair(cqe=16)
        for i in range(8):
            b.post_recv(64 * i, 64, wr_id=i)
        for i in range(5):
            a.post_send(e.IBV_WR_SEND, 0, 8, wr_id=i)
        poll(a.scq, 5)
        with open('/proc/self/status') as f:
            vm = next(int(line.split()[1]) * 1024 for line in f
                      if line.startswith('VmSize:'))
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        max_cqe = b.ctx.query_device().max_cqe
        # Room for the interpreter, not for a ring of max_cqe CQEs (> 2 MiB).
        resource.setrlimit(resource.RLIMIT_AS, (vm + (3 << 19), hard))
        try:
            b.rcq.resize(max_cqe)
            err = 0
        except PyverbsRDMAError as ex:
            err = ex.error_code
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        try:
            n, wcs = b.rcq.poll(16)
            polled, poll_err = [w.wr_id for w in wcs], 0
        except PyverbsRDMAError as ex:
            polled, poll_err = None, ex.error_code
        return {'err': err, 'polled': polled, 'poll_err': poll_err}

    def test_resize_cq_failed_remap_leaves_cq_usable(self):
        """
        A resize the kernel accepts but whose new ring cannot be mapped
        (RLIMIT_AS) fails with an error; once memory is back, the next
        poll maps the ring and returns every pending completion.  Stock
        v44 sets its queue pointer to NULL and its next poll segfaults.
        """
        r = self.assertChildOk(run_in_child(self._resize_remap_fails))
        self.assertNotEqual(r['err'], 0,
                            f'resize_cq succeeded under RLIMIT_AS: {r}')
        self.assertEqual(r['poll_err'], 0, r)
        self.assertEqual(r['polled'], list(range(5)), r)
