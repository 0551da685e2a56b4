# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""
Small helpers for the doorbell pyverbs tests: which device to use, one end
of a connection (Node), connecting two ends, posting, bounded polling of
both CQ kinds, async events with a deadline, and running a risky step in a
child process so that a crash becomes a test failure.

Every wait here has a deadline: nothing blocks without one.
"""

import ctypes
import errno
import os
import pickle
import random
import select
import signal
import socket
import struct
import sys
import time
import traceback
import unittest
from types import SimpleNamespace

# Some names are imported here for the tests to take from helpers.
import pyverbs.device as d
try:
    import pyverbs.enums as e
except ImportError:
    # rdma-core 65 replaced pyverbs.enums by pyverbs.libibverbs_enums, whose
    # constants are members of one enum class each: the tests keep using
    # e.IBV_*, from a namespace of every member of every class.
    import enum
    import pyverbs.libibverbs_enums as _enums

    e = SimpleNamespace()
    for _cls in vars(_enums).values():
        if isinstance(_cls, type) and issubclass(_cls, enum.Enum):
            for _name, _member in _cls.__members__.items():
                setattr(e, _name, _member)
    for _name, _value in vars(_enums).items():
        if _name.isupper() and isinstance(_value, int):
            setattr(e, _name, _value)
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.base import inc_rkey
from pyverbs.cq import CQ, CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR


PORT = 1
GRH_SIZE = 40
# Message sizes of the data-integrity tests: odd, around a page and an MTU
# packet, across several packets, and a large one.
SIZES = (1, 7, 64, 1023, 1025, 4096, 65537, 1 << 20)
# Upper bound of every wait for something that should happen (seconds).
TIMEOUT = float(os.environ.get('PYVERBS_TESTS_TIMEOUT', '20'))
IMM = 0x12345678
UD_QKEY = 0x11111111
GUARD = b'\xee' * 64

MR_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
             e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC |
             e.IBV_ACCESS_MW_BIND)
QP_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
             e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)

htonl = socket.htonl


def imm_of(comp):
    """The immediate data of a completion in host order."""
    return socket.ntohl(comp.imm_data)


def u64(data):
    """A native-endian 64-bit value from 8 bytes (atomics are host order)."""
    return struct.unpack('=Q', data)[0]


def pattern(size, seed):
    """size reproducible pseudo-random bytes."""
    return random.Random(seed * 1000003 + size).randbytes(size)


# -------------------------------------------------------------- the device

def _pick_device():
    name = (os.environ.get('PYVERBS_TESTS_DEV') or
            os.environ.get('DOORBELL_VM_IBDEV'))
    if name:
        return name
    try:
        devs = d.get_device_list()
    except PyverbsError:
        return None
    return devs[0].name.decode() if devs else None


_DEVICE = _pick_device()
_GID_INDEX = None


def device_name():
    return _DEVICE


def gid_index(ctx):
    """The GID to use: the harness's, else the first IPv4-mapped one."""
    global _GID_INDEX
    if _GID_INDEX is not None:
        return _GID_INDEX
    env = (os.environ.get('PYVERBS_TESTS_GID') or
           os.environ.get('DOORBELL_VM_GID_INDEX'))
    if env:
        _GID_INDEX = int(env)
        return _GID_INDEX
    tbl = ctx.query_port(PORT).gid_tbl_len
    fallback = None
    for i in range(min(tbl, 16)):
        gid = ctx.query_gid(PORT, i).gid
        if gid.startswith('0000:0000:0000:0000:0000:ffff:'):
            _GID_INDEX = i
            return i
        if fallback is None and gid.strip('0:'):
            fallback = i
    _GID_INDEX = fallback if fallback is not None else 0
    return _GID_INDEX


class _DlInfo(ctypes.Structure):
    _fields_ = [('dli_fname', ctypes.c_char_p), ('dli_fbase', ctypes.c_void_p),
                ('dli_sname', ctypes.c_char_p), ('dli_saddr', ctypes.c_void_p)]


# struct ibv_device (infiniband/verbs.h): two function pointers, two enums,
# name[64], dev_name[64], dev_path[256], ibdev_path[256]; libibverbs'
# struct verbs_device follows it with the pointer to its driver's ops.
_IBV_DEVICE_SIZE = 16 + 8 + 64 + 64 + 256 + 256


def provider_library(dev=None):
    """The file of the provider whose driver serves DEV in this process:
    where the verbs_device_ops libibverbs matched DEV to live (dladdr),
    asked of the libibverbs this process runs, not what is mapped."""
    dev = dev or _DEVICE
    try:
        ib = ctypes.CDLL('libibverbs.so.1')
        libc = ctypes.CDLL(None)
    except OSError:
        return 'unknown'
    ib.ibv_get_device_list.restype = ctypes.POINTER(ctypes.c_void_p)
    ib.ibv_get_device_list.argtypes = [ctypes.POINTER(ctypes.c_int)]
    ib.ibv_free_device_list.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    ib.ibv_get_device_name.restype = ctypes.c_char_p
    ib.ibv_get_device_name.argtypes = [ctypes.c_void_p]
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    n = ctypes.c_int()
    devs = ib.ibv_get_device_list(ctypes.byref(n))
    if not devs:
        return 'unknown'
    found = 'unknown'
    try:
        for i in range(n.value):
            if ib.ibv_get_device_name(devs[i]).decode() != dev:
                continue
            ops = ctypes.c_void_p.from_address(devs[i] + _IBV_DEVICE_SIZE)
            info = _DlInfo()
            if ops.value and libc.dladdr(ops.value, ctypes.byref(info)) \
                    and info.dli_fname:
                found = info.dli_fname.decode()
    finally:
        ib.ibv_free_device_list(devs)
    return found


class VerbsTestCase(unittest.TestCase):
    """
    Fails without a device (a run where no provider claimed the device
    must not pass by skipping everything), and with PYVERBS_TESTS_PROVIDER
    set, unless that string is in the provider library's path.  Closes
    what the test opened.
    """

    def setUp(self):
        if _DEVICE is None:
            self.fail('no RDMA device (no provider for it?)')
        want = os.environ.get('PYVERBS_TESTS_PROVIDER')
        if want and want not in _PROVIDER:
            self.fail(f'provider {_PROVIDER}, not {want}')
        self._nodes = []
        self._contexts = []
        self._mws = []

    def tearDown(self):
        # Windows first: a bound type 2 MW holds its QP, and destroying
        # that QP first makes Linux 6.1 rxe WARN (rxe_pool.c __rxe_cleanup).
        for mw in reversed(self._mws):
            try:
                mw.close()
            except PyverbsError:
                pass
        for ctx in reversed(self._contexts):
            ctx.close()
        for node in reversed(self._nodes):
            node.close()

    def mw(self, node, mw_type):
        """A memory window in node's PD, kept alive until tearDown."""
        mw = MW(node.pd, mw_type)
        self._mws.append(mw)
        return mw

    def node(self, **kw):
        n = Node(**kw)
        self._nodes.append(n)
        return n

    def context(self):
        ctx = d.Context(name=_DEVICE)
        self._contexts.append(ctx)
        return ctx

    def pair(self, qp_type=e.IBV_QPT_RC, **kw):
        """Two connected ends with the same attributes."""
        a = self.node(qp_type=qp_type, **kw)
        b = self.node(qp_type=qp_type, **kw)
        connect(a, b)
        return a, b

    def assertComp(self, c, *, status=e.IBV_WC_SUCCESS, opcode=None,
                   wr_id=None, byte_len=None, qp_num=None, src_qp=None,
                   imm=None, flags=None, grh=None):
        """
        Check a completion.  flags: the exact set of wc_flags other than
        IBV_WC_GRH (rxe reports GRH on every receive); grh: True/False to
        check GRH itself.
        """
        self.assertEqual(c.status, status, f'status of {c}')
        if opcode is not None:
            self.assertEqual(c.opcode, opcode, f'opcode of {c}')
        if wr_id is not None:
            self.assertEqual(c.wr_id, wr_id, f'wr_id of {c}')
        if byte_len is not None:
            self.assertEqual(c.byte_len, byte_len, f'byte_len of {c}')
        if qp_num is not None:
            self.assertEqual(c.qp_num, qp_num, f'qp_num of {c}')
        if src_qp is not None:
            self.assertEqual(c.src_qp, src_qp, f'src_qp of {c}')
        if imm is not None:
            self.assertTrue(c.wc_flags & e.IBV_WC_WITH_IMM, f'no IMM in {c}')
            self.assertEqual(imm_of(c), imm, f'imm_data of {c}')
        if flags is not None:
            self.assertEqual(c.wc_flags & ~e.IBV_WC_GRH, flags,
                             f'wc_flags of {c}')
        if grh is not None:
            self.assertEqual(bool(c.wc_flags & e.IBV_WC_GRH), grh,
                             f'GRH flag of {c}')


# --------------------------------------------------------------- resources

class Node:
    """
    One end: a context (own or given), PD, CQ(s), MR, optional SRQ, a QP.

    cq_ex: use CQEX (wc_flags, cq_flags) instead of CQ.  send_ops: create a
    QPEx with these IBV_QP_EX_WITH_* flags.  srq_wr: give the QP an SRQ of
    that many WRs (self.srq), in the node's PD.
    """

    def __init__(self, qp_type=e.IBV_QPT_RC, buf_size=8192, *, ctx=None,
                 cq_ex=False, wc_flags=e.IBV_WC_STANDARD_FLAGS,
                 cq_flags=None, separate_cqs=False, cqe=256, send_ops=None,
                 srq_wr=None, max_send_wr=32, max_recv_wr=32, max_send_sge=4,
                 max_recv_sge=4, max_inline=64, mr_access=MR_ACCESS,
                 qp_access=QP_ACCESS, sq_sig_all=1, with_qp=True):
        self.own_ctx = ctx is None
        self.ctx = d.Context(name=_DEVICE) if ctx is None else ctx
        try:
            self.qp_type = qp_type
            self.qp_access = qp_access
            self.gid_index = gid_index(self.ctx)
            self.pd = PD(self.ctx)
            self.scq = self.make_cq(cq_ex, cqe, wc_flags, cq_flags)
            self.rcq = (self.make_cq(cq_ex, cqe, wc_flags, cq_flags)
                        if separate_cqs else self.scq)
            self.mr = MR(self.pd, buf_size, mr_access)
            self.srq = srq = None
            if srq_wr is not None:
                self.srq = srq = SRQ(self.pd, SrqInitAttr(
                    SrqAttr(max_wr=srq_wr, max_sge=max_recv_sge)))
            self.qp = None
            self.ah = None
            self.psn = random.getrandbits(24)
            if with_qp:
                cap = QPCap(max_send_wr=max_send_wr, max_recv_wr=max_recv_wr,
                            max_send_sge=max_send_sge,
                            max_recv_sge=max_recv_sge,
                            max_inline_data=max_inline)
                if srq is not None:
                    cap.max_recv_wr = 0
                    cap.max_recv_sge = 0
                if send_ops is None:
                    ia = QPInitAttr(qp_type=qp_type, scq=self.scq,
                                    rcq=self.rcq, srq=srq, cap=cap,
                                    sq_sig_all=sq_sig_all)
                    self.qp = QP(self.pd, ia)
                else:
                    ia = QPInitAttrEx(
                        qp_type=qp_type, scq=self.scq, rcq=self.rcq, srq=srq,
                        cap=cap, sq_sig_all=sq_sig_all, pd=self.pd,
                        send_ops_flags=send_ops,
                        comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                                   e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
                    self.qp = QPEx(self.ctx, ia)
                self.qpn = self.qp.qp_num
                self.caps = self.qp.query(e.IBV_QP_CAP)[1].cap
        except BaseException:
            if self.own_ctx:
                self.ctx.close()
            raise

    def make_cq(self, cq_ex, cqe, wc_flags, cq_flags):
        if not cq_ex:
            return CQ(self.ctx, cqe, None, None, 0)
        attr = CqInitAttrEx(cqe=cqe, wc_flags=wc_flags)
        if cq_flags is not None:
            attr.comp_mask = e.IBV_CQ_INIT_ATTR_MASK_FLAGS
            attr.flags = cq_flags
        return CQEX(self.ctx, attr)

    def close(self):
        if self.own_ctx:
            self.ctx.close()

    # ---- memory (pyverbs does not check bounds: we do)
    def _check(self, off, n):
        if off < 0 or n < 0 or off + n > self.mr.length:
            raise AssertionError(f'test bug: [{off}, {off + n}) outside the '
                                 f'{self.mr.length} B buffer')

    def addr(self, off=0):
        return self.mr.buf + off

    def write(self, off, data):
        self._check(off, len(data))
        self.mr.write(data, len(data), off)

    def read(self, off, n):
        self._check(off, n)
        return self.mr.read(n, off)

    def fill(self, off, n, byte=0xee):
        self._check(off, n)
        self.mr.write(bytes([byte]) * n, n, off)

    def sge(self, off, length):
        return SGE(self.mr.buf + off, length, self.mr.lkey)

    # ---- posting
    def post_recv(self, off=0, length=0, wr_id=0, sges=None):
        if sges is None:
            sges = [self.sge(off, length)]
        wr = RecvWR(wr_id=wr_id, num_sge=len(sges), sg=sges)
        if self.srq is not None:
            self.srq.post_recv(wr)
        else:
            self.qp.post_recv(wr)

    def send_wr(self, opcode=e.IBV_WR_SEND, off=0, length=0, wr_id=0, *,
                sges=None, imm=None, rkey=None, raddr=None, inv_rkey=None,
                compare_add=None, swap=0, inline=False, signaled=True,
                peer=None):
        if sges is None:
            sges = [self.sge(off, length)] if length or opcode in (
                e.IBV_WR_SEND, e.IBV_WR_SEND_WITH_IMM,
                e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                e.IBV_WR_RDMA_READ, e.IBV_WR_SEND_WITH_INV) else []
        flags = (e.IBV_SEND_SIGNALED if signaled else 0) | \
                (e.IBV_SEND_INLINE if inline else 0)
        if sges:
            wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sges),
                        sg=sges, send_flags=flags)
        else:
            wr = SendWR(wr_id=wr_id, opcode=opcode, send_flags=flags)
        if imm is not None:
            wr.imm_data = htonl(imm)
        if inv_rkey is not None:
            # invalidate_rkey shares the union with imm_data
            wr.imm_data = inv_rkey
        if compare_add is not None:
            wr.set_wr_atomic(rkey=rkey, addr=raddr, compare_add=compare_add,
                             swap=swap)
        elif rkey is not None:
            wr.set_wr_rdma(rkey, raddr)
        if self.qp_type == e.IBV_QPT_UD:
            wr.set_wr_ud(self.ah, peer.qpn, UD_QKEY)
        return wr

    def post_send(self, *args, **kw):
        wr = self.send_wr(*args, **kw)
        self.qp.post_send(wr)
        return wr


def _ah_attr(node):
    gid = node.ctx.query_gid(PORT, node.gid_index)
    gr = GlobalRoute(dgid=gid, sgid_index=node.gid_index)
    return AHAttr(port_num=PORT, is_global=1, gr=gr,
                  dlid=node.ctx.query_port(PORT).lid)


def _to_rts(node, peer):
    t = node.qp_type
    a = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=PORT)
    a.pkey_index = 0
    mask = e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
    if t == e.IBV_QPT_UD:
        a.qkey = UD_QKEY
        mask |= e.IBV_QP_QKEY
    else:
        a.qp_access_flags = node.qp_access
        mask |= e.IBV_QP_ACCESS_FLAGS
    node.qp.modify(a, mask)

    a = QPAttr(qp_state=e.IBV_QPS_RTR, port_num=PORT)
    mask = e.IBV_QP_STATE
    if t != e.IBV_QPT_UD:
        a.path_mtu = e.IBV_MTU_1024
        a.dest_qp_num = peer.qpn
        a.rq_psn = peer.psn
        a.ah_attr = _ah_attr(node)
        mask |= (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                 e.IBV_QP_RQ_PSN)
        if t == e.IBV_QPT_RC:
            a.max_dest_rd_atomic = 4
            a.min_rnr_timer = 12
            mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    node.qp.modify(a, mask)

    a = QPAttr(qp_state=e.IBV_QPS_RTS, port_num=PORT)
    a.sq_psn = node.psn
    mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
    if t == e.IBV_QPT_RC:
        a.timeout = 14
        a.retry_cnt = 7
        a.rnr_retry = 7
        a.max_rd_atomic = 4
        mask |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                 e.IBV_QP_MAX_QP_RD_ATOMIC)
    node.qp.modify(a, mask)
    if t == e.IBV_QPT_UD:
        node.ah = AH(node.pd, attr=_ah_attr(node))


def connect(a, b):
    """Bring both QPs to RTS, each aimed at the other (UD: plus an AH)."""
    _to_rts(a, b)
    _to_rts(b, a)


# ----------------------------------------------------------------- polling

def _comp_from_wc(wc):
    return SimpleNamespace(wr_id=wc.wr_id, status=wc.status,
                           opcode=wc.opcode, byte_len=wc.byte_len,
                           imm_data=wc.imm_data, wc_flags=wc.wc_flags,
                           qp_num=wc.qp_num, src_qp=wc.src_qp)


def _comp_from_cqex(cq):
    """The fields of the CQE shown (needs IBV_WC_STANDARD_FLAGS)."""
    return SimpleNamespace(wr_id=cq.wr_id, status=cq.status,
                           opcode=cq.read_opcode(),
                           byte_len=cq.read_byte_len(),
                           imm_data=cq.read_imm_data(),
                           wc_flags=cq.read_wc_flags(),
                           qp_num=cq.read_qp_num(),
                           src_qp=cq.read_src_qp())


def poll_cq(cq, n=1, timeout=TIMEOUT):
    """Exactly n completions from a legacy CQ, or fail at the deadline."""
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < n:
        cnt, wcs = cq.poll(n - len(got))
        got.extend(_comp_from_wc(wc) for wc in wcs)
        if cnt:
            continue
        if time.monotonic() > deadline:
            raise AssertionError(
                f'timeout: {len(got)} of {n} completions after {timeout}s: '
                f'{got}')
        time.sleep(0.0005)
    return got


def poll_cqex(cq, n=1, timeout=TIMEOUT):
    """
    Exactly n completions from a CQEX with start_poll/next_poll/end_poll,
    or fail at the deadline.  end_poll is called only after a start_poll
    that returned 0.
    """
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < n:
        ret = cq.start_poll(PollCqAttr())
        if ret == errno.ENOENT:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f'timeout: {len(got)} of {n} completions after '
                    f'{timeout}s: {got}')
            time.sleep(0.0005)
            continue
        if ret != 0:
            raise AssertionError(f'start_poll returned {ret}')
        try:
            got.append(_comp_from_cqex(cq))
            while len(got) < n:
                ret = cq.poll_next()
                if ret == errno.ENOENT:
                    break
                if ret != 0:
                    raise AssertionError(f'next_poll returned {ret}')
                got.append(_comp_from_cqex(cq))
        finally:
            cq.end_poll()
    return got


def poll(cq, n=1, timeout=TIMEOUT):
    if isinstance(cq, CQEX):
        return poll_cqex(cq, n, timeout)
    return poll_cq(cq, n, timeout)


def drain(cq, wait=0.2):
    """All completions that arrive within wait seconds."""
    got = []
    deadline = time.monotonic() + wait
    while True:
        if isinstance(cq, CQEX):
            ret = cq.start_poll(PollCqAttr())
            if ret == 0:
                try:
                    got.append(_comp_from_cqex(cq))
                    while cq.poll_next() == 0:
                        got.append(_comp_from_cqex(cq))
                finally:
                    cq.end_poll()
                continue
        else:
            cnt, wcs = cq.poll(16)
            got.extend(_comp_from_wc(wc) for wc in wcs)
            if cnt:
                continue
        if time.monotonic() > deadline:
            return got
        time.sleep(0.002)


def assert_no_completion(tc, cq, wait=0.3, what='completion'):
    got = drain(cq, wait)
    tc.assertEqual(got, [], f'unexpected {what}')


# ------------------------------------------------------------ async events

def _event_fds():
    fds = set()
    for f in os.listdir('/proc/self/fd'):
        try:
            if 'infinibandevent' in os.readlink('/proc/self/fd/' + f):
                fds.add(int(f))
        except OSError:
            pass
    return fds


def open_context_with_async_fd():
    """
    A new context and its async event fd (pyverbs does not expose it): the
    one event file that opening the context added to this process.
    """
    before = _event_fds()
    ctx = d.Context(name=_DEVICE)
    new = _event_fds() - before
    if len(new) != 1:
        ctx.close()
        raise AssertionError(f'cannot tell the async event fd: {new}')
    return ctx, new.pop()


def wait_async_event(ctx, fd, expected, timeout=TIMEOUT):
    """
    Wait (select on the async fd, bounded) for an event of type expected,
    ack every event read; return the list of other event types seen.
    """
    others = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        r, _, _ = select.select([fd], [], [], max(left, 0))
        if not r:
            raise AssertionError(f'no async event {expected} within '
                                 f'{timeout}s (others: {others})')
        ev = ctx.get_async_event()
        t = ev.event_type
        ev.ack()
        if t == expected:
            return others
        others.append(t)


def async_event_pending(fd, wait=0.0):
    r, _, _ = select.select([fd], [], [], wait)
    return bool(r)


# --------------------------------------------------------- child processes

def run_in_child(fn, timeout=TIMEOUT * 2):
    """
    Run fn() in a forked child and return SimpleNamespace(kind, value,
    detail): kind 'ok' (value = fn's result), 'error' (detail = traceback),
    'signal' (value = signal number: the child crashed) or 'exit'.  A child
    that outlives the timeout is killed and makes this raise.

    fn must open its own context: the child does not touch the parent's
    verbs objects, and leaves with os._exit so no finalizer runs on them.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            try:
                res = ('ok', fn())
            except BaseException:
                res = ('error', traceback.format_exc())
                code = 1
            try:
                data = pickle.dumps(res)
            except Exception:
                data = pickle.dumps((res[0], repr(res[1])))
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([r], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError(f'child still running after {timeout}s')
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return SimpleNamespace(kind='signal', value=os.WTERMSIG(status),
                               detail=signal.Signals(
                                   os.WTERMSIG(status)).name)
    data = b''.join(chunks)
    if not data:
        return SimpleNamespace(kind='exit', value=os.WEXITSTATUS(status),
                               detail='child exited without a result')
    kind, payload = pickle.loads(data)
    if kind == 'ok':
        return SimpleNamespace(kind='ok', value=payload, detail='')
    return SimpleNamespace(kind='error', value=None, detail=payload)


_PROVIDER = 'none'
if _DEVICE is not None:
    try:
        _c = d.Context(name=_DEVICE)
        _PROVIDER = provider_library()
        if os.environ.get('PYVERBS_TESTS_QUIET') is None:
            print(f'pyverbs-tests: device {_DEVICE} port {PORT} gid '
                  f'{gid_index(_c)} provider {_PROVIDER}', file=sys.stderr)
        _c.close()
        del _c
    except PyverbsError as _ex:
        print(f'pyverbs-tests: cannot open {_DEVICE}: {_ex}', file=sys.stderr)
