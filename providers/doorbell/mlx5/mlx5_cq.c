// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues of the mlx5 backend: creation (64-byte CQEs, CQE
 * version 1), destruction, moderation, arming, completion events, and
 * removing a QP's CQEs when the QP is reset or destroyed.  Polling is in
 * mlx5_poll.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attr.h"
#include "mlx5/mlx5.h"

/* 24-bit consumer index: at most 2^24 CQEs. */
#define M5_MAX_NCQE (1u << 24)
/* cq_period is 12 bits in the CQ context (MLX5_MAX_CQ_PERIOD). */
#define M5_MAX_CQ_PERIOD 4095

/* The device's max_cqe, as it said at open; the hardware limit if not. */
uint32_t m5_max_cqe(struct ibv_context *ibctx)
{
	int max = to_db_ctx(ibctx)->dev.orig_attr.max_cqe;

	if (max > 0 && (uint32_t)max < M5_MAX_NCQE - 1)
		return max;
	return M5_MAX_NCQE - 1;
}

/* A ring of ncqe CQEs, every one owned by hardware (opcode INVALID). */
void *m5_cq_ring_alloc(struct m5_qbuf *qb, struct ibv_pd *pd, uint32_t ncqe)
{
	struct m5_cqe64 *cqe;
	uint32_t i;

	cqe = m5_qbuf_alloc(qb, pd, (size_t)ncqe * M5_CQE_SIZE, M5_RES_TYPE_CQ);
	if (!cqe)
		return NULL;
	for (i = 0; i < ncqe; i++)
		cqe[i].op_own = M5_CQE_OP_OWN_INIT;
	return cqe;
}

static int m5_cq_buf_init(struct m5_cq *cq, uint32_t ncqe,
			  const struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_pd *pd = attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD
				    ? attr->parent_domain
				    : NULL;

	cq->ncqe = ncqe;
	cq->buf_len = (size_t)ncqe * M5_CQE_SIZE;
	cq->buf = m5_cq_ring_alloc(&cq->qbuf, pd, ncqe);
	return cq->buf ? 0 : errno;
}

static void m5_cq_free(struct m5_cq *cq)
{
	struct m5_context *ctx = to_m5_ctx(cq->vcq.cq.context);

	if (cq->dbrec)
		m5_dbrec_free(ctx, cq->dbrec);
	m5_qbuf_free(&cq->qbuf, cq->buf, cq->buf_len);
	free(cq);
}

/* The create flags the kernel is asked for: overrun ignore only. */
static uint32_t m5_cq_kernel_flags(const struct ibv_cq_init_attr_ex *attr)
{
	if (!(attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS))
		return 0;
	return attr->flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
}

/* Buffer, dbrec, then the kernel object; 0 or a positive errno. */
static int m5_cq_init(struct ibv_context *ibctx, struct m5_cq *cq,
		      const struct ibv_cq_init_attr_ex *attr)
{
	struct m5_context *ctx = to_m5_ctx(ibctx);
	struct ibv_cq_init_attr_ex kattr = *attr;
	struct mlx5_ib_create_cq req = {};
	struct mlx5_ib_create_cq_resp resp = {};
	uint32_t ncqe = db_roundup_pow2(attr->cqe + 1);
	int ret;

	ret = m5_cq_buf_init(cq, ncqe, attr);
	if (ret)
		return ret;
	cq->dbrec = m5_dbrec_alloc(ctx);
	if (!cq->dbrec)
		return ENOMEM;
	/* The device does not know the record yet: plain stores. */
	cq->dbrec[M5_CQ_SET_CI] = 0;
	cq->dbrec[M5_CQ_ARM_DB] = 0;
	req.buf_addr = (uintptr_t)cq->buf;
	req.db_addr = (uintptr_t)cq->dbrec;
	req.cqe_size = M5_CQE_SIZE;
	if (ctx->dyn_uar) {
		req.flags = MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX;
		req.uar_page_index = ctx->cq_uar_page;
	}
	/* The kernel sizes the CQ as we did: ncqe - 1 gives ncqe again. */
	kattr.cqe = ncqe - 1;
	/*
	 * Single-threaded use and parent domains are userspace notions;
	 * overrun ignore is the device's (the CQ context's oi bit).
	 */
	kattr.flags = m5_cq_kernel_flags(attr);
	kattr.comp_mask = kattr.flags ? IBV_CQ_INIT_ATTR_MASK_FLAGS : 0;
	kattr.parent_domain = NULL;
	ret = m5k_create_cq(ibctx, &kattr, &cq->vcq, &req, &resp);
	if (ret)
		return ret;
	cq->cqn = resp.cqn;
	cq->vcq.cq.cqe = ncqe - 1;
	/* The CQ context names the context's CQ UAR: static UAR 0, or the
	 * non-cached dynamic one by its page index. */
	cq->arm_reg = (char *)ctx->cq_uar + M5_CQ_DOORBELL;
	return 0;
}

/* A CQ as @attr asks; NULL with errno set on failure. */
static struct m5_cq *m5_cq_new(struct ibv_context *ibctx,
			       const struct ibv_cq_init_attr_ex *attr,
			       bool single_threaded)
{
	struct m5_cq *cq;
	int ret;

	/* The rest of @attr was checked by db_cq_attr_check. */
	if (attr->cqe > m5_max_cqe(ibctx)) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	/* For m5_cq_free before the kernel object exists. */
	cq->vcq.cq.context = ibctx;
	cq->single_threaded = single_threaded;
	db_lock_init(&cq->lock, !single_threaded);
	ret = m5_cq_init(ibctx, cq, attr);
	if (ret) {
		m5_cq_free(cq);
		errno = ret;
		return NULL;
	}
	return cq;
}

struct ibv_cq_ex *m5_create_cq_ex(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr)
{
	struct m5_cq *cq;
	bool single;
	int ret;

	ret = db_cq_attr_check(ctx, attr, &single);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = m5_cq_new(ctx, attr, single);
	if (!cq)
		return NULL;
	m5_cq_set_ex_ops(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;
}

int m5_destroy_cq(struct ibv_cq *ibcq)
{
	struct m5_cq *cq = to_m5_cq(ibcq);
	int ret;

	ret = m5k_destroy_cq(ibcq);
	if (ret)
		return ret;
	m5_cq_free(cq);
	return 0;
}

/* Moderation only: the device has cq_max_count (16 bits) and cq_period. */
int m5_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	if (attr->attr_mask != IBV_CQ_ATTR_MODERATE)
		return EINVAL;
	if (attr->moderate.cq_period > M5_MAX_CQ_PERIOD)
		return EINVAL;
	return m5k_modify_cq(ibcq, attr);
}

/*
 * Arm the CQ for one event: the arm word goes to the dbrec, then with the
 * CQ number to the UAR's CQ doorbell.  sn is the count of events taken
 * (m5_cq_event), so the device can tell a stale arm from a fresh one.
 *
 * No CQ lock, as in libmlx5 (v44 cq.c, mlx5_arm_cq): a thread may arm
 * between its own ibv_start_poll and ibv_end_poll.  What a poller running
 * meanwhile can do to the arm:
 *  - the ARM dbrec word is written only here and the SET_CI word only by
 *    the poller, so neither store undoes the other;
 *  - cons_index is read relaxed and may be behind the poller's.  The
 *    device fires for a CQE past the arm's ci, so an old ci can only give
 *    an extra event, never lose one: CQEs between the two were consumed.
 * mmio_wc_start() orders the ARM dbrec store before the doorbell write.
 */
int m5_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct m5_cq *cq = to_m5_cq(ibcq);
	uint32_t arm, sn, ci;

	sn = __atomic_load_n(&cq->arm_sn, __ATOMIC_RELAXED);
	ci = __atomic_load_n(&cq->cons_index, __ATOMIC_RELAXED);
	arm = (sn & 3) << M5_CQ_SN_SHIFT |
	      (solicited_only ? M5_CQ_DB_REQ_NOT_SOL : M5_CQ_DB_REQ_NOT) |
	      (ci & M5_CQ_CI_MASK);
	m5_dbrec_store(&cq->dbrec[M5_CQ_ARM_DB], htobe32(arm));
	/* Orders: the arm dbrec store before the UAR write. */
	mmio_wc_start();
	mmio_write64_be(cq->arm_reg, htobe64((uint64_t)arm << 32 | cq->cqn));
	/* Orders: the UAR write out of the WC buffer before we go on. */
	mmio_flush_writes();
	return 0;
}

/*
 * An event was read from the channel: the next arm carries sn + 1.  No CQ
 * lock (libmlx5's mlx5_cq_event takes none); relaxed, it orders nothing.
 */
void m5_cq_event(struct ibv_cq *ibcq)
{
	struct m5_cq *cq = to_m5_cq(ibcq);

	__atomic_fetch_add(&cq->arm_sn, 1, __ATOMIC_RELAXED);
}

static struct m5_cqe64 *m5_cq_cqe(const struct m5_cq *cq, uint32_t n)
{
	return (struct m5_cqe64 *)cq->buf + (n & (cq->ncqe - 1));
}

/* Software owns CQE n: written by the device in the pass n belongs to. */
static bool m5_cq_sw_owned(const struct m5_cq *cq, uint32_t n)
{
	uint8_t own;

	return m5_cqe_sw_owned(m5_cq_cqe(cq, n), cq->ncqe, n, &own);
}

static bool m5_cqe_is_recv(uint8_t opcode)
{
	switch (opcode) {
	case M5_CQE_RESP_WR_IMM:
	case M5_CQE_RESP_SEND:
	case M5_CQE_RESP_SEND_IMM:
	case M5_CQE_RESP_SEND_INV:
	case M5_CQE_RESP_ERR:
		return true;
	default:
		return false;
	}
}

/*
 * Does CQE n belong to uidx?  If so, and it consumed an SRQ WQE, give the
 * WQE back (a counter naming no outstanding WQE is the device's error:
 * left alone).
 */
static bool m5_cq_clean_one(struct m5_cq *cq, uint32_t n, uint32_t uidx,
			    struct m5_srq *srq)
{
	const struct m5_cqe64 *cqe = m5_cq_cqe(cq, n);
	uint16_t ctr;

	if ((be32toh(cqe->srqn_uidx) & 0xffffff) != uidx)
		return false;
	ctr = be16toh(cqe->wqe_counter);
	if (srq && m5_cqe_is_recv(cqe->op_own >> M5_CQE_OPCODE_SHIFT))
		m5_srq_take_back(srq, ctr, NULL);
	return true;
}

/*
 * Remove the CQEs of user index uidx that software owns, moving the later
 * ones down over them; each moved CQE takes the owner bit of its new slot.
 * The QP is in RESET (or going away), so the device adds none of its CQEs
 * behind our back; CQEs of other QPs that arrive meanwhile are past prod.
 */
void m5_cq_clean(struct m5_cq *cq, uint32_t uidx, struct m5_srq *srq)
{
	uint32_t prod, nfreed = 0;
	struct m5_cqe64 *dst;
	uint8_t owner;

	if (!cq)
		return;
	db_lock(&cq->lock);
	/* The cached QP may be the one going away. */
	cq->last_rsc = NULL;
	prod = cq->cons_index;
	while (prod - cq->cons_index < cq->ncqe && m5_cq_sw_owned(cq, prod))
		prod++;
	/* Orders: the owner bytes read before the CQE bodies. */
	udma_from_device_barrier();
	while (prod-- != cq->cons_index) {
		if (m5_cq_clean_one(cq, prod, uidx, srq)) {
			nfreed++;
		} else if (nfreed) {
			dst = m5_cq_cqe(cq, prod + nfreed);
			owner = dst->op_own & M5_CQE_OWNER_MASK;
			memcpy(dst, m5_cq_cqe(cq, prod), sizeof(*dst));
			dst->op_own =
				(dst->op_own & ~M5_CQE_OWNER_MASK) | owner;
		}
	}
	if (nfreed) {
		/* Relaxed: m5_req_notify_cq reads it without the lock. */
		__atomic_store_n(&cq->cons_index, cq->cons_index + nfreed,
				 __ATOMIC_RELAXED);
		/* Orders: the moved CQEs before the consumer index. */
		udma_to_device_barrier();
		m5_dbrec_store(&cq->dbrec[M5_CQ_SET_CI],
			       htobe32(cq->cons_index & M5_CQ_CI_MASK));
	}
	db_unlock(&cq->lock);
}
