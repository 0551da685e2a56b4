/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Objects of the Soft-RoCE (rdma_rxe) backend. */
#ifndef DOORBELL_RXE_H
#define DOORBELL_RXE_H

#include <pthread.h>

#include "core/doorbell.h"
#include "core/lock.h"
#include "rxe/rxe_hw.h"
#include "rxe/rxe_ring.h"

#define RXE_OP(op) (1u << IBV_WR_##op)

/* Opcodes that carry data from the local SGEs to the wire. */
#define RXE_OPS_PAYLOAD                                                        \
	(RXE_OP(RDMA_WRITE) | RXE_OP(RDMA_WRITE_WITH_IMM) | RXE_OP(SEND) |     \
	 RXE_OP(SEND_WITH_IMM) | RXE_OP(SEND_WITH_INV))
#define RXE_OPS_ATOMIC                                                         \
	(RXE_OP(ATOMIC_CMP_AND_SWP) | RXE_OP(ATOMIC_FETCH_AND_ADD))
/*
 * Opcodes only the ibv_wr_* API can post (ibv_send_wr has no field for
 * ATOMIC WRITE's value or FLUSH's type and level), on kernels that have
 * them: ibv_post_send answers EOPNOTSUPP for them.
 */
#define RXE_OPS_WR_API_ONLY ((1u << RXE_WR_FLUSH) | (1u << RXE_WR_ATOMIC_WRITE))
#define RXE_SEND_FLAGS                                                         \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |             \
	 IBV_SEND_INLINE)
/* Send flags the post_send fast path takes; the rest go the long way. */
#define RXE_FAST_SEND_FLAGS                                                    \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)
/* The largest message rxe carries (RXE_MAX_MSG_SIZE, 2 GiB). */
#define RXE_MAX_MSG ((uint64_t)1 << 31)

struct rxe_cq {
	struct verbs_cq vcq;
	struct rxe_ring ring;
	struct db_lock lock;
	/* A resize lost the ring (see rxe_cq.c); read outside the lock. */
	atomic_bool broken;
	struct mminfo lost_mi; /* the ring to map when broken */
	/* ibv_cq_ex polling: the CQE between start_poll and end_poll */
	const struct ib_uverbs_wc *cur;
	uint32_t kprod; /* producer index last read */
};

/* A send or receive work queue of a QP, or an SRQ's queue. */
struct rxe_wq {
	struct rxe_ring ring;
	struct db_lock lock;
	uint32_t room; /* free slots known without a load */
	uint32_t max_sge;
	uint32_t max_inline;
};

/*
 * Take a free slot.  Free slots only grow behind our back, so the kernel's
 * index is loaded only when the count we know of runs out.
 */
static inline bool rxe_wq_claim(struct rxe_wq *wq)
{
	if (!wq->room) {
		wq->room = rxe_ring_room(&wq->ring);
		if (!wq->room)
			return false;
	}
	wq->room--;
	return true;
}

struct rxe_qp {
	/* libibverbs' part, with room for every release's layout */
	DB_VERBS_QP(vqp);
	struct rxe_wq sq;
	struct rxe_wq rq;     /* unused when the QP has an SRQ */
	uint32_t opcode_mask; /* IBV_WR_* allowed on this QP type */
	uint32_t slow_ops;    /* IBV_WR_* that need more checks */
	uint32_t fast_ops;    /* IBV_WR_* post_send's fast path takes */
	uint32_t wr_ext_ops;  /* RXE_WR_FLUSH, _ATOMIC_WRITE bits enabled */
	/* ibv_wr_* state, from wr_start to wr_complete or wr_abort */
	struct rxe_send_wqe *wr_cur; /* the WQE the setters fill, or NULL */
	uint32_t wr_first;	     /* sq.ring.own at wr_start */
	uint32_t wr_room;	     /* sq.room at wr_start */
	int wr_err;		     /* first error since wr_start */
	/* The doorbell: a POST_SEND command with no WRs, built at create. */
	int doorbell_fd;
	struct ibv_post_send doorbell_cmd;
	struct ib_uverbs_post_send_resp doorbell_resp;
};

struct rxe_srq {
	struct verbs_srq vsrq;
	struct rxe_wq rq;
	uint32_t srq_num;
};

struct rxe_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

/*
 * device_cap_flags_ex at open: what the running kernel's rxe can do beyond
 * Linux 6.1 (the RXE_DEV_* bits: FLUSH, ATOMIC WRITE).  A kernel that
 * would not say has none of it.
 */
static inline uint64_t rxe_dev_caps(struct ibv_context *ibctx)
{
	return to_db_ctx(ibctx)->dev.device_cap_flags_ex;
}

static inline struct rxe_cq *to_rxe_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct rxe_cq, vcq.cq);
}

static inline struct rxe_qp *to_rxe_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct rxe_qp, vqp.qp);
}

static inline struct rxe_srq *to_rxe_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct rxe_srq, vsrq.srq);
}

static inline struct rxe_ah *to_rxe_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct rxe_ah, ibv_ah);
}

extern const struct db_backend db_rxe_backend;

/* rxe_cq.c */
struct ibv_cq_ex *rxe_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr);
int rxe_resize_cq(struct ibv_cq *ibcq, int cqe);
int rxe_destroy_cq(struct ibv_cq *ibcq);

/* rxe_poll.c: ibv_poll_cq and the ibv_cq_ex polling API */
int rxe_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc);
void rxe_cqe_to_wc(const struct ib_uverbs_wc *cqe, struct ibv_wc *wc);
unsigned int rxe_wc_flags(uint32_t kernel_flags);
void rxe_cq_set_ex_ops(struct rxe_cq *cq, uint64_t wc_flags);

/* rxe_qp.c */
struct ibv_qp *rxe_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
int rxe_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask);
int rxe_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init_attr);
int rxe_destroy_qp(struct ibv_qp *ibqp);
int rxe_query_qp_data_in_order(struct ibv_qp *ibqp, enum ibv_wr_opcode op,
			       uint32_t flags);

/* rxe_send.c */
int rxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int rxe_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *bind);
uint32_t rxe_opcode_mask(enum ibv_qp_type type);
uint32_t rxe_slow_ops(enum ibv_qp_type type);
void rxe_ring_doorbell(struct rxe_qp *qp);

/* rxe_wr.c: the ibv_wr_* (extended QP) send API */
void rxe_qp_set_wr_ops(struct rxe_qp *qp);
/*
 * The send_ops_flags a QP of this type may ask for, given the device's
 * device_cap_flags_ex; and the RXE_WR_FLUSH/_ATOMIC_WRITE bits that a QP
 * created with send_ops_flags enables.
 */
uint64_t rxe_send_ops_flags_ok(enum ibv_qp_type type, uint64_t dev_caps);
uint32_t rxe_wr_ext_ops(enum ibv_qp_type type, uint64_t dev_caps,
			uint64_t send_ops_flags);

/* rxe_recv.c */
int rxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int rxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int rxe_post_recv_ring(struct rxe_wq *wq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

/* rxe_srq.c */
struct ibv_srq *rxe_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
int rxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask);
int rxe_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int rxe_destroy_srq(struct ibv_srq *ibsrq);

/* rxe_ah.c */
struct ibv_ah *rxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int rxe_destroy_ah(struct ibv_ah *ibah);

#endif /* DOORBELL_RXE_H */
