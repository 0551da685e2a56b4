/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Objects of the ConnectX (mlx5_ib) backend.
 *
 * Scope: ConnectX-4 and later through mlx5_ib, static UARs (no dynamic UAR
 * objects, no DEVX), CQE version 1 with 64-byte CQEs, RC and UD QPs with
 * SEND, SEND_IMM, RDMA_WRITE(_IMM), RDMA_READ and the two atomics, inline
 * data, through ibv_post_send or the ibv_wr_* API, receive queues and SRQs.
 * Everything else answers EOPNOTSUPP.
 *
 * Selecting this backend for a device is opt-in (DOORBELL_MLX5=1, see
 * doorbell(7)): it is verified against the software ConnectX in
 * tests/mlx5/model, not yet on hardware.
 */
#ifndef DOORBELL_MLX5_H
#define DOORBELL_MLX5_H

#include <pthread.h>

#include "core/doorbell.h"
#include "core/lock.h"
#include "mlx5/mlx5_hw.h"
#include "mlx5/mlx5_seam.h"

/* What GET_CONTEXT asks for (libmlx5 asks the same). */
#define M5_TOTAL_BFREGS	  16
#define M5_LOW_LAT_BFREGS 4
#define M5_MAX_UAR_PAGES  64
/* User indexes are 24 bits; the kernel reads this one as "none". */
#define M5_UIDX_NONE 0xffffffu

/* A QP or SRQ as found from a CQE's user index (CQE version 1). */
enum m5_rsc_type {
	M5_RSC_QP,
	M5_RSC_SRQ,
};

struct m5_rsc {
	enum m5_rsc_type type;
	uint32_t uidx; /* 24 bits, sent at create */
};

/* A BlueFlame register ("bfreg"), where send doorbells are written. */
struct m5_bf {
	void *reg;	       /* UAR + 0x800 + k * bf_reg_size */
	unsigned int offset;   /* the half written next: 0 or buf_size */
	unsigned int buf_size; /* bf_reg_size / 2; 0 when BF is not used */
	unsigned int uuarn;    /* the bfreg index the kernel knows */
	bool need_lock;	       /* shared by QPs that may run in parallel */
	struct db_lock lock;
};

/* A page of doorbell records, carved into cache-line slots. */
struct m5_dbrec_page {
	struct m5_dbrec_page *next;
	void *page;
	unsigned int nslots;
	unsigned int used;
	uint64_t free_mask[4]; /* bit set: slot free (<= 256 slots) */
};

struct m5_context {
	struct db_context core;
	/* from GET_CONTEXT */
	uint32_t bf_reg_size;
	uint32_t tot_bfregs;
	uint32_t cache_line_size;
	uint32_t max_sq_desc_sz;
	uint32_t max_rq_desc_sz;
	uint32_t max_send_wqebb;
	uint32_t max_recv_wr;
	uint32_t max_srq_recv_wr;
	uint32_t num_uars_per_page;
	uint32_t log_uar_size;
	uint8_t cqe_version;
	uint8_t cmds_supp_uhw;
	uint8_t eth_min_inline;
	bool atomic_cap; /* the device does host-endian atomics */
	/* UARs: the mapped system pages and the bfregs in them */
	void *uar[M5_MAX_UAR_PAGES];
	unsigned int num_uar_pages;
	size_t uar_map_len;
	struct m5_bf *bfs; /* 4 per UAR (k = 0, 1 used), by bfreg index */
	unsigned int num_bfs;
	/* doorbell records */
	pthread_mutex_t dbrec_mutex;
	struct m5_dbrec_page *dbrec_pages;
	/* user index -> QP or SRQ, for CQE parsing */
	pthread_mutex_t uidx_mutex;
	struct m5_rsc **uidx_table[256]; /* 256 pages of 65536 */
	uint32_t uidx_hint;		 /* no free index below this one */
	/* port link layer, cached at open: UD AV encoding differs */
	uint8_t num_ports;
	uint8_t link_layer[2];
	uint8_t port_flags[2];	  /* IBV_QPF_GRH_REQUIRED */
	_Atomic uint32_t max_cqe; /* device max_cqe, 0 until queried */
};

struct m5_cq {
	struct verbs_cq vcq;
	void *buf; /* ncqe CQEs of 64 bytes */
	size_t buf_len;
	__be32 *dbrec;
	uint32_t cqn;
	uint32_t cons_index; /* free-running, 24 bits reported */
	uint32_t ncqe;	     /* a power of two */
	uint32_t arm_sn;     /* 2 bits used; ++ per delivered event */
	void *arm_reg;	     /* the CQ's UAR + M5_CQ_DOORBELL */
	struct db_lock lock;
	struct m5_rsc *last_rsc; /* cache for the uidx lookup */
	bool single_threaded;
	struct ibv_wc ex_wc; /* ibv_cq_ex: the CQE shown */
};

/* A send queue, receive queue or SRQ ring. */
struct m5_wq {
	void *buf;	    /* the first WQE */
	void *qend;	    /* one past the last byte */
	uint64_t *wrid;	    /* per WQE (SQ: per first WQEBB) */
	uint32_t *wqe_head; /* SQ: head after posting this WQE */
	uint32_t wqe_cnt;   /* WQEs (RQ, SRQ) or WQEBBs (SQ) */
	uint32_t wqe_shift;
	uint32_t max_post; /* WRs that fit */
	uint32_t max_gs;   /* SGEs per WQE */
	uint32_t head;	   /* WRs posted */
	/*
	 * WRs completed.  SQ and RQ: written by the CQ poller, read by the
	 * poster, so atomic (release store, acquire load: see mlx5_poll.c).
	 * SRQ: the free list's tail, under the SRQ lock.
	 */
	_Atomic uint32_t tail;
	uint32_t cur_post; /* SQ: WQEBBs posted, free-running */
	struct db_lock lock;
};

/*
 * wqe_head[] of the WQEBBs after a WQE's first (post_send): far from every
 * head value, so a CQE that names one retires nothing.
 */
#define M5_NOT_A_WQE_START 0x80000000u

struct m5_qp {
	struct verbs_qp vqp;
	struct m5_rsc rsc;
	void *buf; /* RQ at 0, SQ after it */
	size_t buf_len;
	__be32 *dbrec;
	struct m5_wq sq;
	struct m5_wq rq; /* empty when the QP has an SRQ */
	struct m5_bf *bf;
	uint32_t max_inline_data;
	uint32_t opcode_mask;	/* 1 << IBV_WR_* allowed */
	uint8_t sq_signal_bits; /* CQ_UPDATE when sq_sig_all */
	bool has_srq;
	struct m5_wr *wr; /* ibv_wr_* state (mlx5_wr.c); NULL without it */
};

struct m5_srq {
	struct verbs_srq vsrq;
	struct m5_rsc rsc;
	struct m5_wq wq; /* head, tail: the free list's ends */
	__be32 *dbrec;
	size_t buf_len;
	uint32_t srqn;
	uint16_t counter; /* WQEs posted, for the dbrec */
};

struct m5_ah {
	struct ibv_ah ibv_ah;
	struct m5_av av; /* copied into each UD send WQE */
	bool kern_ah;	 /* RoCE: the kernel holds one too */
};

static inline struct m5_context *to_m5ctx(struct ibv_context *ibctx)
{
	return container_of(to_db_ctx(ibctx), struct m5_context, core);
}

static inline struct m5_cq *to_m5cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct m5_cq, vcq.cq);
}

static inline struct m5_qp *to_m5qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct m5_qp, vqp.qp);
}

static inline struct m5_srq *to_m5srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct m5_srq, vsrq.srq);
}

static inline struct m5_ah *to_m5ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct m5_ah, ibv_ah);
}

static inline struct m5_qp *m5_rsc_qp(struct m5_rsc *rsc)
{
	return container_of(rsc, struct m5_qp, rsc);
}

static inline struct m5_srq *m5_rsc_srq(struct m5_rsc *rsc)
{
	return container_of(rsc, struct m5_srq, rsc);
}

/*
 * The SQ-full test of ibv_post_send and of the ibv_wr_* API (libmlx5's
 * mlx5_wq_overflow): nreq WRs built since the last ring, is there room
 * for one more?  *tail is reloaded only when the SQ looks full.  max_post
 * counts WRs, each at most wqe_size (mlx5_qp.c), not WQEBBs.
 */
static inline bool m5_sq_full(struct m5_wq *sq, uint32_t *tail,
			      unsigned int nreq)
{
	if (__builtin_expect(sq->head - *tail + nreq >= sq->max_post, 0)) {
		/* Acquire: pairs with the poller's release of the retired. */
		*tail = atomic_load_explicit(&sq->tail, memory_order_acquire);
		return sq->head - *tail + nreq >= sq->max_post;
	}
	return false;
}

extern const struct db_backend db_mlx5_backend;

/* mlx5_context.c: open and close, ops table */
/* mlx5_uar.c: UAR mapping and bfregs */
int m5_map_uars(struct m5_context *ctx);
void m5_unmap_uars(struct m5_context *ctx);

/* mlx5_buf.c: queue buffers, doorbell records, user indexes */
void *m5_buf_alloc(size_t len);
void m5_buf_free(void *buf, size_t len);
__be32 *m5_dbrec_alloc(struct m5_context *ctx);
void m5_dbrec_free(struct m5_context *ctx, __be32 *rec);
/* Give rsc a free 24-bit user index (rsc->uidx); 0 or ENOMEM. */
int m5_uidx_alloc(struct m5_context *ctx, struct m5_rsc *rsc);
/* Lock-free: the QP or SRQ of a CQE's user index, or NULL. */
struct m5_rsc *m5_uidx_find(struct m5_context *ctx, uint32_t uidx);
void m5_uidx_free(struct m5_context *ctx, uint32_t uidx);
/* The locks and sanity of the fields above; the release at close. */
void m5_buf_ctx_init(struct m5_context *ctx);
void m5_buf_ctx_fini(struct m5_context *ctx);

/* mlx5_verbs.c: device, port, PD, MR */
int m5_query_device_ex(struct ibv_context *ctx,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size);
int m5_query_port(struct ibv_context *ctx, uint8_t port,
		  struct ibv_port_attr *attr);
struct ibv_pd *m5_alloc_pd(struct ibv_context *ctx);
int m5_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *m5_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			 uint64_t hca_va, int access);
struct ibv_mr *m5_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
				uint64_t iova, int fd, int access);
int m5_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *m5_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);

/* mlx5_cq.c: CQ life cycle, moderation, arming, events */
struct ibv_cq_ex *m5_create_cq_ex(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr);
int m5_destroy_cq(struct ibv_cq *ibcq);
int m5_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr);
int m5_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void m5_cq_event(struct ibv_cq *ibcq);
/* Drop the CQEs of a QP or SRQ being destroyed or reset. */
void m5_cq_clean(struct m5_cq *cq, uint32_t uidx, struct m5_srq *srq);

/* mlx5_poll.c */
int m5_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc);
/* Install the ibv_cq_ex polling functions (start/next/end_poll, read_*). */
void m5_cq_set_ex_ops(struct m5_cq *cq);
/*
 * Give SRQ WQE ctr back to the free list if it is outstanding (its wr_id
 * to *wr_id unless NULL); false if it is not: a device's lie.
 */
bool m5_srq_take_back(struct m5_srq *srq, uint16_t ctr, uint64_t *wr_id);

/* mlx5_qp.c */
struct ibv_qp *m5_create_qp_ex(struct ibv_context *ctx,
			       struct ibv_qp_init_attr_ex *attr);
int m5_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask);
int m5_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		struct ibv_qp_init_attr *init_attr);
int m5_destroy_qp(struct ibv_qp *ibqp);

/* mlx5_send.c */
int m5_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
/*
 * post_send's WQE builder for mlx5_wr.c: build a checked WR (inl: its
 * inline length) at cur_post as the nreq-th of a list, *ctrl its WQE;
 * returns its ds.  m5_sq_ring: the dbrec and doorbell for nreq WQEs, ctrl
 * and ds those of the last.  Both under the SQ lock.
 */
unsigned int m5_sq_build(struct m5_qp *qp, const struct ibv_send_wr *wr,
			 uint32_t inl, unsigned int nreq,
			 struct m5_ctrl_seg **ctrl);
void m5_sq_ring(struct m5_qp *qp, unsigned int nreq,
		const struct m5_ctrl_seg *ctrl, unsigned int ds);

/* mlx5_wr.c: the ibv_wr_* API (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) */
/* The send_ops_flags a QP of this type may ask for. */
uint64_t m5_wr_ops_supported(uint32_t opcode_mask);
/* Its state, once the SQ is sized; 0 or ENOMEM.  m5_qp_fini_wr frees it. */
int m5_qp_init_wr(struct m5_qp *qp, uint64_t send_ops_flags);
void m5_qp_fini_wr(struct m5_qp *qp);
/* The functions in qp_ex, once the kernel has created the QP. */
void m5_qp_set_wr_ops(struct m5_qp *qp);

/* mlx5_recv.c */
int m5_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad_wr);
int m5_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

/* mlx5_srq.c */
struct ibv_srq *m5_create_srq_ex(struct ibv_context *ctx,
				 struct ibv_srq_init_attr_ex *attr);
int m5_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask);
int m5_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int m5_destroy_srq(struct ibv_srq *ibsrq);
/* Give an SRQ WQE back to the free list (called under the CQ's lock). */
void m5_srq_free_wqe(struct m5_srq *srq, uint16_t idx);

/* mlx5_ah.c */
struct ibv_ah *m5_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int m5_destroy_ah(struct ibv_ah *ibah);

#endif /* DOORBELL_MLX5_H */
