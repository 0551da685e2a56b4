// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * XRC targets shared between contexts (ibv_open_qp(3)): a second context
 * opens the same XRC domain through the inode of a file, opens a handle
 * on a target QP that the first context created, and brings the target
 * up through that handle.  The target outlives its creator's handle and
 * is gone with the last one.  A device without XRC is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

enum { XR_LEN = 200, XR_SEED = 0x0be1 };

struct xr {
	struct ibv_context *ctx2;
	struct ibv_xrcd *x1, *x2;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *ini, *tgt, *h2;
};

static int xr_destroy(struct it_test *t, struct xr *x)
{
	int rc = IT_PASS;

#define XR_FREE(obj, fn)                                                       \
	do {                                                                   \
		int r_ = (obj) ? fn(obj) : 0;                                  \
		if (r_ && rc == IT_PASS)                                       \
			rc = it_fail(t, #fn ": %s",                            \
				     strerror(r_ > 0 ? r_ : errno));           \
	} while (0)
	XR_FREE(x->h2, ibv_destroy_qp);
	XR_FREE(x->tgt, ibv_destroy_qp);
	XR_FREE(x->ini, ibv_destroy_qp);
	XR_FREE(x->srq, ibv_destroy_srq);
	XR_FREE(x->rcq, ibv_destroy_cq);
	XR_FREE(x->scq, ibv_destroy_cq);
	XR_FREE(x->x2, ibv_close_xrcd);
	XR_FREE(x->x1, ibv_close_xrcd);
	XR_FREE(x->ctx2, ibv_close_device);
#undef XR_FREE
	return rc;
}

/* The domain of the file @fd, opened in @ctx (NULL with errno set). */
static struct ibv_xrcd *xr_open_xrcd(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = O_CREAT,
	};

	return ibv_open_xrcd(ctx, &a);
}

/*
 * One transition of an XRC QP towards @dqpn, with the attributes Linux's
 * qp_state_table requires of its type: a target takes the responder's
 * depth and RNR timer at RTR, an initiator the requester's at RTS.
 */
static int xr_modify(struct it_test *t, struct ibv_qp *qp,
		     enum ibv_qp_type type, enum ibv_qp_state to, uint32_t dqpn)
{
	const struct it_env *env = t->env;
	struct ibv_qp_attr a = { .qp_state = to };
	int mask = IBV_QP_STATE, ret;

	if (to == IBV_QPS_INIT) {
		a.port_num = env->port;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (to == IBV_QPS_RTR) {
		a.path_mtu = env->port_attr.active_mtu;
		a.dest_qp_num = dqpn;
		a.rq_psn = it_psn(dqpn);
		a.ah_attr.dlid = env->port_attr.lid;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = env->port;
		a.ah_attr.grh.dgid = env->gid;
		a.ah_attr.grh.sgid_index = env->gidx;
		a.ah_attr.grh.hop_limit = 64;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (type == IBV_QPT_XRC_RECV) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
	} else {
		a.sq_psn = it_psn(qp->qp_num);
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	IT_EXPECT(t, !ret, "ibv_modify_qp(%s 0x%x -> state %d): %s",
		  type == IBV_QPT_XRC_RECV ? "XRC target" : "XRC initiator",
		  qp->qp_num, (int)to, strerror(ret));
	return IT_PASS;
}

/* The first context's half: a CQ, an XRC SRQ, the target, an initiator. */
static int xr_first_context(struct it_test *t, struct xr *x)
{
	struct ibv_context *ctx = t->env->ctx;
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = t->env->pd,
		.xrcd = x->x1,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = x->x1,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = t->env->pd,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};

	x->scq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	x->rcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	IT_EXPECT(t, x->scq && x->rcq, "ibv_create_cq: %s", strerror(errno));
	sa.cq = x->rcq;
	x->srq = ibv_create_srq_ex(ctx, &sa);
	IT_EXPECT(t, x->srq, "ibv_create_srq_ex(XRC): %s", strerror(errno));
	x->tgt = ibv_create_qp_ex(ctx, &ta);
	IT_EXPECT(t, x->tgt, "ibv_create_qp_ex(XRC_RECV): %s", strerror(errno));
	ia.send_cq = x->scq;
	x->ini = ibv_create_qp_ex(ctx, &ia);
	IT_EXPECT(t, x->ini, "ibv_create_qp_ex(XRC_SEND): %s", strerror(errno));
	return IT_PASS;
}

/* The second context's handle on the target, checked as open_qp fills it. */
static int xr_open_handle(struct it_test *t, struct xr *x)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = x->tgt->qp_num,
		.xrcd = x->x2,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	int ret;

	x->h2 = ibv_open_qp(x->ctx2, &oa);
	IT_EXPECT(t, x->h2, "ibv_open_qp(0x%x) in a second context: %s",
		  oa.qp_num, strerror(errno));
	IT_EXPECT(t,
		  x->h2->qp_num == x->tgt->qp_num &&
			  x->h2->context == x->ctx2 &&
			  x->h2->qp_type == IBV_QPT_XRC_RECV,
		  "the handle says QP 0x%x, type %d, context %p: want 0x%x, "
		  "XRC_RECV, %p",
		  x->h2->qp_num, x->h2->qp_type, (void *)x->h2->context,
		  x->tgt->qp_num, (void *)x->ctx2);
	ret = ibv_query_qp(x->h2, &qa, IBV_QP_STATE, &init);
	IT_EXPECT(t, !ret && qa.qp_state == IBV_QPS_RESET,
		  "ibv_query_qp on the handle: %s, state %d (want RESET)",
		  strerror(ret), ret ? -1 : (int)qa.qp_state);
	return IT_PASS;
}

/*
 * A message from the initiator lands in the SRQ through the target,
 * every byte compared.
 */
static int xr_send_lands(struct it_test *t, struct xr *x, struct it_buf *sb,
			 struct it_buf *rb)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp es = it_exp_send(0x51, IBV_WC_SEND, x->ini);
	struct ibv_wc wc;
	uint32_t srqn;

	IT_EXPECT(t, !ibv_get_srq_num(x->srq, &srqn), "ibv_get_srq_num: %s",
		  strerror(errno));
	if (it_post_srq_recv(t, x->srq, 0x52, rb, 0, XR_LEN))
		return IT_FAIL;
	it_wr(&wr, &sge, 0x51, IBV_WR_SEND, sb, 0, XR_LEN);
	wr.qp_type.xrc.remote_srqn = srqn;
	if (it_post_send(t, x->ini, &wr) ||
	    it_expect_wc(t, x->scq, &es, "the initiator's send"))
		return IT_FAIL;
	if (it_poll(t, x->rcq, &wc, 1, "the SRQ's receive"))
		return IT_FAIL;
	IT_EXPECT(t,
		  wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x52 &&
			  wc.byte_len == XR_LEN && wc.qp_num == x->h2->qp_num,
		  "receive: status %s, wr_id 0x%llx, %u bytes, QP 0x%x",
		  ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id,
		  wc.byte_len, wc.qp_num);
	return it_verify(t, rb->addr, XR_LEN, XR_SEED, 0,
			 "the bytes in the SRQ's buffer");
}

static int
xrc_target_opened_by_another_context_outlives_its_creator(struct it_test *t,
							  long arg)
{
	char path[] = "/tmp/doorbell-itest-xrcd-XXXXXX";
	struct it_buf *sb, *rb;
	struct xr x = {};
	uint32_t qpn;
	int fd, rc = IT_FAIL;

	(void)arg;
	fd = mkstemp(path);
	IT_EXPECT(t, fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	it_track_fd(t, fd);
	x.x1 = xr_open_xrcd(t->env->ctx, fd);
	if (!x.x1 && (errno == EOPNOTSUPP || errno == ENOSYS))
		return it_skip(t, "the device has no XRC (ibv_open_xrcd: %s)",
			       strerror(errno));
	IT_EXPECT(t, x.x1, "ibv_open_xrcd: %s", strerror(errno));
	sb = it_buf_new(t, XR_LEN, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, XR_LEN, IBV_ACCESS_LOCAL_WRITE, 0x5e);
	x.ctx2 = it_open_device(t->env->ctx->device->name);
	if (!sb || !rb || !x.ctx2) {
		it_fail(t, "buffers or a second context: %s", strerror(errno));
		goto out;
	}
	it_fill(sb->addr, XR_LEN, XR_SEED, 0);
	x.x2 = xr_open_xrcd(x.ctx2, fd);
	if (!x.x2) {
		it_fail(t,
			"ibv_open_xrcd of the same file in a second "
			"context: %s",
			strerror(errno));
		goto out;
	}
	if (xr_first_context(t, &x) || xr_open_handle(t, &x))
		goto out;
	/* The target up through the second context's handle. */
	if (xr_modify(t, x.h2, IBV_QPT_XRC_RECV, IBV_QPS_INIT, 0) ||
	    xr_modify(t, x.h2, IBV_QPT_XRC_RECV, IBV_QPS_RTR, x.ini->qp_num) ||
	    xr_modify(t, x.ini, IBV_QPT_XRC_SEND, IBV_QPS_INIT, 0) ||
	    xr_modify(t, x.ini, IBV_QPT_XRC_SEND, IBV_QPS_RTR, x.tgt->qp_num) ||
	    xr_modify(t, x.ini, IBV_QPT_XRC_SEND, IBV_QPS_RTS, 0))
		goto out;
	/* Its creator's handle gone, the target still receives. */
	qpn = x.tgt->qp_num;
	if (ibv_destroy_qp(x.tgt)) {
		it_fail(t, "ibv_destroy_qp of the creator's handle: %s",
			strerror(errno));
		goto out;
	}
	x.tgt = NULL;
	if (xr_send_lands(t, &x, sb, rb))
		goto out;
	/* With the last handle, the target is gone: none to open. */
	if (ibv_destroy_qp(x.h2)) {
		it_fail(t, "ibv_destroy_qp of the opened handle: %s",
			strerror(errno));
		goto out;
	}
	x.h2 = ibv_open_qp(x.ctx2, &(struct ibv_qp_open_attr){
					   .comp_mask = IBV_QP_OPEN_ATTR_NUM |
							IBV_QP_OPEN_ATTR_XRCD |
							IBV_QP_OPEN_ATTR_TYPE,
					   .qp_num = qpn,
					   .xrcd = x.x2,
					   .qp_type = IBV_QPT_XRC_RECV,
				   });
	if (x.h2) {
		it_fail(t,
			"ibv_open_qp(0x%x) succeeded after its last handle "
			"was destroyed",
			qpn);
		goto out;
	}
	rc = IT_PASS;
out:
	if (xr_destroy(t, &x))
		rc = IT_FAIL;
	return rc;
}

const struct it_case it_cases_xrc[] = {
	{ "xrc_target_opened_by_another_context_outlives_its_creator",
	  xrc_target_opened_by_another_context_outlives_its_creator, 0 },
	{ NULL, NULL, 0 },
};
