// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * XRC over the model.  The fake kernel's XRC domains (core/kcmd.h's
 * seam, which core/xrcd.c calls once the backend serves XRC): opened
 * anew or through a file's inode, one domain per inode, with the errors
 * uverbs gives (EINVAL for O_EXCL on an existing domain or a missing
 * attribute, ENOENT without O_CREAT); XRC SRQs of the fake kernel
 * (mlx5/mlx5_seam.h's m5k_create_srq), in a domain and on a CQ of their
 * own, which they keep from going (EBUSY), numbered as ibv_get_srq_num
 * reports; XRC target QPs (m5k_create_qp): a kernel object of a domain,
 * no PD, CQ or buffer, that keeps its domain; an XRC initiator has no
 * receive queue.  Then the mlx5 backend's XRC end to end: an initiator's
 * SENDs, through ibv_post_send and through ibv_wr_set_xrc_srqn, land in
 * the XRC SRQ they name, byte for byte, and complete on that SRQ's CQ,
 * found through the CQE's user index (the SRQ's; the QP is the target).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "m5model.h"
#include "check.h"
#include "core/kcmd.h"
#include "m5t_verbs.h"
#include "mlx5/mlx5.h"

struct xr_rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
};

static int xr_open(struct xr_rig *r)
{
	r->dev = m5m_dev_create(NULL);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	return r->ctx ? 0 : -1;
}

/* The kernel command's answer: 0 or a positive errno. */
static int xr_xrcd(struct ibv_context *ctx, struct verbs_xrcd *x, int fd,
		   int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return db_k_open_xrcd(ctx, x, &a);
}

/* A new empty file, unlinked: its inode names a domain. */
static int xr_tmpfile(void)
{
	char name[] = "/tmp/doorbell-xrcd-XXXXXX";
	int fd = mkstemp(name);

	if (fd >= 0)
		unlink(name);
	return fd;
}

static void xrcd_opens_anew_or_by_inode(void)
{
	struct ibv_xrcd_init_attr bad = { .comp_mask = IBV_XRCD_INIT_ATTR_FD };
	struct verbs_xrcd own = {}, own2 = {}, a = {}, b = {}, x = {};
	struct xr_rig r = {};
	int fd = xr_tmpfile(), other = xr_tmpfile();

	CHECK(fd >= 0 && other >= 0);
	if (xr_open(&r) || fd < 0 || other < 0)
		goto out;
	CHECK_EQ(xr_xrcd(r.ctx, &own, -1, 0), 0);
	CHECK_EQ(own.xrcd.context, r.ctx);
	/* fd -1 is a domain of its own each time. */
	CHECK_EQ(xr_xrcd(r.ctx, &own2, -1, O_CREAT), 0);
	CHECK(own2.handle != own.handle);
	CHECK_EQ(db_k_open_xrcd(r.ctx, &x, &bad), EINVAL);
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, 0), ENOENT);
	CHECK_EQ(xr_xrcd(r.ctx, &a, fd, O_CREAT), 0);
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, O_CREAT | O_EXCL), EINVAL);
	/* The inode names the domain: a second open shares it. */
	CHECK_EQ(xr_xrcd(r.ctx, &b, fd, 0), 0);
	CHECK_EQ(b.handle, a.handle);
	CHECK_EQ(xr_xrcd(r.ctx, &x, other, 0), ENOENT);
	CHECK_EQ(db_k_close_xrcd(&b), 0);
	CHECK_EQ(db_k_close_xrcd(&a), 0);
	/* The last close took the domain: the inode names none now. */
	CHECK_EQ(xr_xrcd(r.ctx, &x, fd, 0), ENOENT);
	CHECK_EQ(db_k_close_xrcd(&own), 0);
	CHECK_EQ(db_k_close_xrcd(&own2), 0);
	CHECK_EQ(db_k_close_xrcd(&own2), EINVAL);
out:
	m5t_dev_close(r.dev, r.ctx);
	if (fd >= 0)
		close(fd);
	if (other >= 0)
		close(other);
}

/*
 * ibv_open_qp's domain must be of the context that opens: another
 * context's domain handle would name one of this context's to the kernel
 * (EINVAL before any command).  The model's targets take no second handle
 * (EOPNOTSUPP from its kernel); the guest's doorbell-itest checks the real
 * kernel's.
 */
static void xrc_open_qp_takes_a_domain_of_its_own_context(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 2,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_context *ctx2 = NULL;
	struct ibv_xrcd *x1 = NULL, *x2 = NULL;
	struct xr_rig r = {};

	if (xr_open(&r))
		goto out;
	ctx2 = m5m_open(r.dev);
	x1 = ibv_open_xrcd(r.ctx, &xa);
	x2 = ctx2 ? ibv_open_xrcd(ctx2, &xa) : NULL;
	CHECK(x1 && x2);
	if (!x1 || !x2)
		goto out;
	oa.xrcd = x1;
	errno = 0;
	CHECK(!ibv_open_qp(ctx2, &oa));
	CHECK_EQ(errno, EINVAL);
	oa.xrcd = x2;
	errno = 0;
	CHECK(!ibv_open_qp(ctx2, &oa));
	CHECK_EQ(errno, EOPNOTSUPP);
out:
	if (x2)
		CHECK_EQ(ibv_close_xrcd(x2), 0);
	if (x1)
		CHECK_EQ(ibv_close_xrcd(x1), 0);
	if (ctx2)
		CHECK_EQ(ibv_close_device(ctx2), 0);
	m5t_dev_close(r.dev, r.ctx);
}

/* An XRC SRQ of 8 WQEs of one SGE through the fake kernel's command. */
static int xr_ksrq(struct ibv_context *ctx, struct verbs_srq *srq,
		   struct ibv_pd *pd, struct ibv_xrcd *xrcd, struct ibv_cq *cq,
		   void *buf, __be32 *dbrec)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 7, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct mlx5_ib_create_srq req = {
		.buf_addr = (uintptr_t)buf,
		.db_addr = (uintptr_t)dbrec,
		.uidx = 5,
	};
	struct mlx5_ib_create_srq_resp resp = {};
	int ret;

	if (!cq)
		a.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
	ret = m5k_create_srq(ctx, srq, &a, &req, &resp);
	if (!ret)
		CHECK_EQ(srq->srq_num, resp.srqn);
	return ret;
}

static void xrc_srq_lives_in_its_domain_on_its_cq(void)
{
	struct verbs_srq srq = {}, none = {};
	struct verbs_xrcd x = {};
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	struct xr_rig r = {};
	__be32 *dbrec = NULL;
	void *buf = NULL;

	if (xr_open(&r) || posix_memalign(&buf, 4096, 8 * 32) ||
	    posix_memalign((void **)&dbrec, 64, 64))
		goto out;
	memset(dbrec, 0, 64);
	pd = ibv_alloc_pd(r.ctx);
	cq = ibv_create_cq(r.ctx, 8, NULL, NULL, 0);
	CHECK(pd && cq);
	CHECK_EQ(xr_xrcd(r.ctx, &x, -1, 0), 0);
	if (!pd || !cq)
		goto out;
	CHECK_EQ(xr_ksrq(r.ctx, &none, pd, &x.xrcd, NULL, buf, dbrec), EINVAL);
	CHECK_EQ(xr_ksrq(r.ctx, &srq, pd, &x.xrcd, cq, buf, dbrec), 0);
	CHECK_EQ(srq.srq_type, IBV_SRQT_XRC);
	CHECK_EQ(srq.xrcd, &x);
	CHECK(srq.srq_num != 0);
	/* The SRQ keeps its domain and its CQ. */
	CHECK_EQ(db_k_close_xrcd(&x), EBUSY);
	CHECK_EQ(ibv_destroy_cq(cq), EBUSY);
	CHECK_EQ(m5k_destroy_srq(&srq.srq), 0);
	CHECK_EQ(db_k_close_xrcd(&x), 0);
	CHECK_EQ(ibv_destroy_cq(cq), 0);
	cq = NULL;
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	m5t_dev_close(r.dev, r.ctx);
	free(buf);
	free(dbrec);
}

static void xrc_target_is_a_kernel_object_of_its_domain(void)
{
	struct mlx5_ib_create_qp req = { .uidx = 9 }, rq = { .uidx = 10 };
	struct mlx5_ib_create_qp_resp resp = {};
	struct verbs_qp *tgt = calloc(1, 1024), *ini = calloc(1, 1024);
	struct verbs_xrcd x = {};
	struct xr_rig r = {};
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = &x.xrcd,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};

	CHECK(tgt && ini);
	if (!tgt || !ini || xr_open(&r))
		goto out;
	CHECK_EQ(xr_xrcd(r.ctx, &x, -1, 0), 0);
	/* No domain, or a queue asked for: refused. */
	a.comp_mask = 0;
	CHECK_EQ(m5k_create_qp(r.ctx, tgt, &a, &req, &resp), EINVAL);
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	rq.rq_wqe_count = 8;
	rq.rq_wqe_shift = 4;
	CHECK_EQ(m5k_create_qp(r.ctx, tgt, &a, &rq, &resp), EINVAL);
	CHECK_EQ(m5k_create_qp(r.ctx, tgt, &a, &req, &resp), 0);
	CHECK(tgt->qp.qp_num != 0);
	CHECK_EQ(tgt->qp.qp_type, IBV_QPT_XRC_RECV);
	CHECK(!tgt->qp.pd && !tgt->qp.send_cq && !tgt->qp.recv_cq);
	CHECK_EQ(m5k_modify_qp(&tgt->qp, &qa,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS),
		 0);
	CHECK_EQ(db_k_close_xrcd(&x), EBUSY);
	/* An initiator with a receive queue: refused. */
	ia.pd = ibv_alloc_pd(r.ctx);
	ia.send_cq = ibv_create_cq(r.ctx, 8, NULL, NULL, 0);
	CHECK(ia.pd && ia.send_cq);
	if (ia.pd && ia.send_cq)
		CHECK_EQ(m5k_create_qp(r.ctx, ini, &ia, &rq, &resp), EINVAL);
	if (ia.send_cq)
		ibv_destroy_cq(ia.send_cq);
	if (ia.pd)
		ibv_dealloc_pd(ia.pd);
	CHECK_EQ(m5k_destroy_qp(&tgt->qp), 0);
	CHECK_EQ(db_k_close_xrcd(&x), 0);
out:
	m5t_dev_close(r.dev, r.ctx);
	free(tgt);
	free(ini);
}

/* The XRC objects of one context: INI -> TGT -> the SRQ on srq_cq. */
struct xr_e2e {
	struct xr_rig r;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *srq_cq;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *ini, *tgt;
	struct ibv_mr *mr;
	char buf[2][64]; /* [0] sent from, [1] received into */
	uint32_t srqn;
};

static int xr_e2e_open(struct xr_e2e *e)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};

	if (xr_open(&e->r))
		return -1;
	e->pd = ibv_alloc_pd(e->r.ctx);
	e->send_cq = ibv_create_cq(e->r.ctx, 16, NULL, NULL, 0);
	e->srq_cq = ibv_create_cq(e->r.ctx, 16, NULL, NULL, 0);
	e->xrcd = ibv_open_xrcd(e->r.ctx, &xa);
	e->mr = e->pd ? ibv_reg_mr(e->pd, e->buf, sizeof(e->buf),
				   IBV_ACCESS_LOCAL_WRITE)
		      : NULL;
	if (!e->pd || !e->send_cq || !e->srq_cq || !e->xrcd || !e->mr)
		return -1;
	sa.pd = e->pd;
	sa.xrcd = e->xrcd;
	sa.cq = e->srq_cq;
	e->srq = ibv_create_srq_ex(e->r.ctx, &sa);
	if (!e->srq || ibv_get_srq_num(e->srq, &e->srqn))
		return -1;
	ia.pd = e->pd;
	ia.send_cq = e->send_cq;
	e->ini = ibv_create_qp_ex(e->r.ctx, &ia);
	ta.xrcd = e->xrcd;
	e->tgt = ibv_create_qp_ex(e->r.ctx, &ta);
	if (!e->ini || !e->tgt)
		return -1;
	return m5t_rc_connect(e->r.dev, e->ini, e->tgt->qp_num, 7) ||
			       m5t_rc_connect(e->r.dev, e->tgt, e->ini->qp_num,
					      7)
		       ? -1
		       : 0;
}

static void xr_e2e_close(struct xr_e2e *e)
{
	if (e->tgt)
		CHECK_EQ(ibv_destroy_qp(e->tgt), 0);
	if (e->ini)
		CHECK_EQ(ibv_destroy_qp(e->ini), 0);
	if (e->srq)
		CHECK_EQ(ibv_destroy_srq(e->srq), 0);
	if (e->xrcd)
		CHECK_EQ(ibv_close_xrcd(e->xrcd), 0);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->srq_cq)
		ibv_destroy_cq(e->srq_cq);
	if (e->send_cq)
		ibv_destroy_cq(e->send_cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	m5t_dev_close(e->r.dev, e->r.ctx);
}

static void xr_post_srq_recv(struct xr_e2e *e, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf[1],
		.length = sizeof(e->buf[1]),
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	memset(e->buf[1], 0, sizeof(e->buf[1]));
	CHECK_EQ(ibv_post_srq_recv(e->srq, &wr, &bad), 0);
}

/* The send completed, and the receive on the SRQ's CQ holds msg. */
static void xr_check_arrived(struct xr_e2e *e, uint64_t send_id,
			     uint64_t recv_id, const char *msg)
{
	struct ibv_wc wc;

	CHECK_EQ(m5t_poll_one(e->send_cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, send_id);
	CHECK_EQ(m5t_poll_one(e->srq_cq, &wc), 1);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, recv_id);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.qp_num, e->tgt->qp_num);
	CHECK_EQ(wc.byte_len, strlen(msg) + 1);
	CHECK(!memcmp(e->buf[1], msg, strlen(msg) + 1));
}

static void xrc_sends_land_in_the_named_srq_in_both_apis(void)
{
	const char *m1 = "through ibv_post_send", *m2 = "through ibv_wr_*";
	struct xr_e2e e = {};
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct ibv_sge sge = {};
	struct ibv_qp_ex *qpx;

	CHECK_EQ(xr_e2e_open(&e), 0);
	if (check_failed)
		goto out;
	CHECK(e.srqn != 0);
	xr_post_srq_recv(&e, 0x51);
	strcpy(e.buf[0], m1);
	sge = (struct ibv_sge){ .addr = (uintptr_t)e.buf[0],
				.length = strlen(m1) + 1,
				.lkey = e.mr->lkey };
	wr.wr_id = 0x11;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = e.srqn;
	CHECK_EQ(ibv_post_send(e.ini, &wr, &bad), 0);
	xr_check_arrived(&e, 0x11, 0x51, m1);

	xr_post_srq_recv(&e, 0x52);
	strcpy(e.buf[0], m2);
	qpx = ibv_qp_to_qp_ex(e.ini);
	CHECK(qpx && qpx->wr_set_xrc_srqn);
	if (!qpx || !qpx->wr_set_xrc_srqn)
		goto out;
	ibv_wr_start(qpx);
	qpx->wr_id = 0x12;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, e.srqn);
	ibv_wr_set_sge(qpx, e.mr->lkey, (uintptr_t)e.buf[0], strlen(m2) + 1);
	CHECK_EQ(ibv_wr_complete(qpx), 0);
	xr_check_arrived(&e, 0x12, 0x52, m2);
out:
	xr_e2e_close(&e);
}

static const struct check_test tests[] = {
	CHECK_TEST(xrcd_opens_anew_or_by_inode),
	CHECK_TEST(xrc_srq_lives_in_its_domain_on_its_cq),
	CHECK_TEST(xrc_target_is_a_kernel_object_of_its_domain),
	CHECK_TEST(xrc_sends_land_in_the_named_srq_in_both_apis),
	CHECK_TEST(xrc_open_qp_takes_a_domain_of_its_own_context),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_xrc_", tests);
}
