// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Polling a CQ of the rxe backend: ibv_poll_cq and the ibv_cq_ex polling
 * API.  start_poll takes the CQ lock and shows the oldest CQE; next_poll
 * consumes it and shows the next; end_poll consumes the one shown, if any,
 * and gives the slots back.  The consumer index only moves over CQEs that
 * were shown, so it can never pass the producer.
 */
#include <errno.h>
#include <string.h>

#include "rxe/rxe.h"

/* Called with the CQ lock held: map the ring a failed resize left behind. */
static int rxe_cq_repair(struct rxe_cq *cq)
{
	struct rxe_ring ring = {};
	int ret;

	ret = rxe_ring_map(&ring, cq->vcq.cq.context->cmd_fd, &cq->lost_mi,
			   sizeof(struct ib_uverbs_wc), false);
	if (ret)
		return ret;
	rxe_ring_unmap(&cq->ring);
	cq->ring = ring;
	atomic_store_explicit(&cq->broken, false, memory_order_relaxed);
	return 0;
}

/* Kernel wc_flags bits differ from libibverbs' from bit 2 on. */
static const uint8_t rxe_wc_flag_map[16] = {
#define F(k)                                                                   \
	((((k)&RXE_KWC_GRH) ? IBV_WC_GRH : 0) |                                \
	 (((k)&RXE_KWC_WITH_IMM) ? IBV_WC_WITH_IMM : 0) |                      \
	 (((k)&RXE_KWC_WITH_INVALIDATE) ? IBV_WC_WITH_INV : 0) |               \
	 (((k)&RXE_KWC_IP_CSUM_OK) ? IBV_WC_IP_CSUM_OK : 0))
	F(0), F(1), F(2),  F(3),  F(4),	 F(5),	F(6),  F(7),
	F(8), F(9), F(10), F(11), F(12), F(13), F(14), F(15),
#undef F
};

unsigned int rxe_wc_flags(uint32_t k)
{
	/* rxe sets no bit above 3; any other bit is not passed on. */
	return rxe_wc_flag_map[k & 15];
}

/*
 * ib_uverbs_wc and ibv_wc agree field for field up to dlid_path_bits, so a
 * CQE is copied whole and only its flags are translated.
 */
#define RXE_WC_SAME(f)                                                         \
	(offsetof(struct ib_uverbs_wc, f) == offsetof(struct ibv_wc, f) &&     \
	 sizeof(((struct ib_uverbs_wc *)0)->f) ==                              \
		 sizeof(((struct ibv_wc *)0)->f))
_Static_assert(RXE_WC_SAME(wr_id) && RXE_WC_SAME(status) &&
		       RXE_WC_SAME(opcode) && RXE_WC_SAME(vendor_err) &&
		       RXE_WC_SAME(byte_len) && RXE_WC_SAME(qp_num) &&
		       RXE_WC_SAME(src_qp) && RXE_WC_SAME(wc_flags) &&
		       RXE_WC_SAME(pkey_index) && RXE_WC_SAME(slid) &&
		       RXE_WC_SAME(sl) && RXE_WC_SAME(dlid_path_bits) &&
		       offsetof(struct ib_uverbs_wc, ex.imm_data) ==
			       offsetof(struct ibv_wc, imm_data) &&
		       sizeof(struct ibv_wc) == sizeof(struct ib_uverbs_wc),
	       "a CQE is copied onto an ibv_wc whole");

void rxe_cqe_to_wc(const struct ib_uverbs_wc *cqe, struct ibv_wc *wc)
{
	/* The two bytes past dlid_path_bits are padding in ibv_wc. */
	memcpy(wc, cqe, sizeof(*wc));
	wc->wc_flags = rxe_wc_flags(cqe->wc_flags);
}

/* Out of line, so that the poll loop makes no call. */
static __attribute__((noinline)) int
rxe_poll_cq_broken(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	int ret = 0;

	db_lock(&cq->lock);
	if (atomic_load_explicit(&cq->broken, memory_order_relaxed))
		ret = rxe_cq_repair(cq);
	db_unlock(&cq->lock);
	return ret ? -EIO : rxe_poll_cq(ibcq, nwc, wc);
}

int rxe_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rxe_cq(ibcq);
	struct rxe_ring *r = &cq->ring;
	uint32_t prod, own, mask, shift;
	uint8_t *data;
	int n = 0;

	if (__builtin_expect(
		    atomic_load_explicit(&cq->broken, memory_order_relaxed), 0))
		return rxe_poll_cq_broken(ibcq, nwc, wc);
	db_lock(&cq->lock);
	/* Locals: the stores into wc[] could alias the ring's fields. */
	own = r->own;
	mask = r->mask;
	shift = r->log2_stride;
	data = r->buf->data;
	prod = rxe_ring_kprod(r);
	while (n < nwc && own != prod) {
		rxe_cqe_to_wc((void *)(data + ((size_t)own << shift)),
			      &wc[n++]);
		own = (own + 1) & mask;
	}
	if (n) {
		r->own = own;
		rxe_ring_publish_consumer(r);
	}
	db_unlock(&cq->lock);
	return n;
}

static inline struct rxe_cq *cqx_to_rxe_cq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct rxe_cq, vcq.cq_ex);
}

static void rxe_cqx_show(struct rxe_cq *cq)
{
	const struct ib_uverbs_wc *cqe = rxe_ring_slot(&cq->ring, cq->ring.own);

	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = cqe->status;
}

static int rxe_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct rxe_cq *cq = cqx_to_rxe_cq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	db_lock(&cq->lock);
	if (__builtin_expect(
		    atomic_load_explicit(&cq->broken, memory_order_relaxed),
		    0) &&
	    rxe_cq_repair(cq)) {
		db_unlock(&cq->lock);
		return EIO;
	}
	cq->kprod = rxe_ring_kprod(&cq->ring);
	if (cq->ring.own == cq->kprod) {
		/* Nothing to show: the caller must not call end_poll. */
		db_unlock(&cq->lock);
		return ENOENT;
	}
	rxe_cqx_show(cq);
	return 0;
}

static int rxe_next_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rxe_cq(cqx);
	struct rxe_ring *r = &cq->ring;

	if (!cq->cur)
		return ENOENT;
	r->own = rxe_ring_next(r, r->own);
	if (r->own == cq->kprod)
		cq->kprod = rxe_ring_kprod(r);
	if (r->own == cq->kprod) {
		cq->cur = NULL;
		return ENOENT;
	}
	rxe_cqx_show(cq);
	return 0;
}

static void rxe_end_poll(struct ibv_cq_ex *cqx)
{
	struct rxe_cq *cq = cqx_to_rxe_cq(cqx);
	struct rxe_ring *r = &cq->ring;

	if (cq->cur)
		r->own = rxe_ring_next(r, r->own);
	cq->cur = NULL;
	rxe_ring_publish_consumer(r);
	db_unlock(&cq->lock);
}

static enum ibv_wc_opcode rxe_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->opcode;
}

static uint32_t rxe_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->vendor_err;
}

static uint32_t rxe_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->byte_len;
}

static __be32 rxe_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->ex.imm_data;
}

static uint32_t rxe_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->qp_num;
}

static uint32_t rxe_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->src_qp;
}

static unsigned int rxe_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return rxe_wc_flags(cqx_to_rxe_cq(cqx)->cur->wc_flags);
}

static uint32_t rxe_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->slid;
}

static uint8_t rxe_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->sl;
}

static uint8_t rxe_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_rxe_cq(cqx)->cur->dlid_path_bits;
}

void rxe_cq_set_ex_ops(struct rxe_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = rxe_start_poll;
	cqx->next_poll = rxe_next_poll;
	cqx->end_poll = rxe_end_poll;
	cqx->read_opcode = rxe_read_opcode;
	cqx->read_vendor_err = rxe_read_vendor_err;
	cqx->read_wc_flags = rxe_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = rxe_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = rxe_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = rxe_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = rxe_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = rxe_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = rxe_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = rxe_read_dlid_path_bits;
}
