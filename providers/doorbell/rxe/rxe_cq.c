// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Completion queues of the rxe backend: the kernel produces CQEs, we poll. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxe/rxe.h"

static int rxe_cq_init(struct ibv_context *ibctx, struct rxe_cq *cq,
		       struct ibv_cq_init_attr_ex *attr, bool single_threaded)
{
	struct ibv_create_cq_ex cmd = {};
	struct rxe_cmd_create_cq_ex_resp resp = {};
	int ret;

	ret = db_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				  &resp.ibv, sizeof(resp), 0);
	if (ret)
		return ret;
	ret = rxe_ring_map(&cq->ring, ibctx->cmd_fd, &resp.drv.mi,
			   sizeof(struct ib_uverbs_wc), false);
	if (ret) {
		db_lib.ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	/* single_threaded already counts DOORBELL_SINGLE_THREADED. */
	db_lock_init(&cq->lock, !single_threaded);
	return 0;
}

/* A CQ as the kernel sees @attr; NULL with errno set on failure. */
struct rxe_cq *rxe_cq_new(struct ibv_context *ibctx,
			  struct ibv_cq_init_attr_ex *attr,
			  bool single_threaded)
{
	struct rxe_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = rxe_cq_init(ibctx, cq, attr, single_threaded);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return cq;
}

/*
 * The old ring stays mapped until the new one is in place, so a resize the
 * kernel refuses leaves the CQ exactly as it was.
 */
int rxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_cmd_resize_cq cmd = {};
	struct rxe_cmd_resize_cq_resp resp = {};
	struct rxe_ring ring = {};
	int ret;

	if (cqe <= 0)
		return EINVAL;
	db_lock(&cq->lock);
	ret = db_lib.ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv, sizeof(cmd),
				       &resp.ibv, sizeof(resp));
	if (ret)
		goto out;
	ret = rxe_ring_map(&ring, ibcq->context->cmd_fd, &resp.drv.mi,
			   sizeof(struct ib_uverbs_wc), false);
	if (ret) {
		/*
		 * The kernel moved the CQEs to a ring we could not map (say,
		 * out of address space).  Polls report an error and try the
		 * mapping again: it is still pending in the kernel unless
		 * the kernel itself refused it.
		 */
		cq->lost_mi = resp.drv.mi;
		atomic_store_explicit(&cq->broken, true, memory_order_relaxed);
		goto out;
	}
	rxe_ring_unmap(&cq->ring);
	cq->ring = ring;
out:
	db_unlock(&cq->lock);
	return ret;
}

/* Called with the CQ lock held: map the ring a failed resize left behind. */
int rxe_cq_repair(struct rxe_cq *cq)
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

/* Out of line, so that the poll loop makes no call. */
static __attribute__((noinline)) int
rxe_poll_cq_broken(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	int ret = 0;

	db_lock(&cq->lock);
	if (atomic_load_explicit(&cq->broken, memory_order_relaxed))
		ret = rxe_cq_repair(cq);
	db_unlock(&cq->lock);
	return ret ? -EIO : rxe_poll_cq(ibcq, nwc, wc);
}

int rxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	int ret;

	ret = db_lib.ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	rxe_ring_unmap(&cq->ring);
	free(cq);
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

int rxe_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
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
