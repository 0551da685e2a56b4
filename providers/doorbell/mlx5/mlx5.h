/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Objects of the ConnectX (mlx5_ib) backend.
 *
 * Scope: ConnectX-4 and later through mlx5_ib, dynamic UARs where the kernel
 * grants them and static ones where not (no DEVX), CQE version 1 with 64-byte CQEs, RC and UD QPs with
 * SEND, SEND_IMM, RDMA_WRITE(_IMM), RDMA_READ and the two atomics, inline
 * data, through ibv_post_send or the ibv_wr_* API, receive queues and SRQs,
 * CQ moderation and resize.
 * Everything else answers EOPNOTSUPP.
 *
 * Selecting this backend for a device is opt-in (DOORBELL_MLX5=1, see
 * doorbell(7)): it is verified against the software ConnectX in
 * sim/mlx5/model, not yet on hardware.
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

/* Who a bfreg of a dynamic UAR serves (mlx5_dyn_uar.c). */
enum m5_bf_kind {
	M5_BF_STATIC,	    /* a static bfreg; the kernel picks per QP */
	M5_BF_QP_DEDICATED, /* one QP at a time, no lock */
	M5_BF_QP_SHARED,    /* the least used of them, locked */
	M5_BF_TD,	    /* a thread domain's QPs, no lock */
	M5_BF_NC,	    /* the non-cached UAR: CQ arms, doorbells only */
};

struct m5_uar_obj;

/* A BlueFlame register ("bfreg"), where send doorbells are written. */
struct m5_bf {
	void *reg;	       /* UAR + 0x800 + k * bf_reg_size */
	unsigned int offset;   /* the half written next: 0 or buf_size */
	unsigned int buf_size; /* bf_reg_size / 2; 0 when BF is not used */
	unsigned int uuarn;    /* static: the kernel's bfreg index; 0: no BF */
	bool need_lock;	       /* shared by QPs that may run in parallel */
	struct db_lock lock;
	/* dynamic UARs only */
	enum m5_bf_kind kind;
	uint32_t page_id; /* the UAR create_qp is told */
	/* QPs on it, plus its thread domain if M5_BF_TD (under uar_mutex) */
	unsigned int users;
	struct m5_uar_obj *obj; /* the UAR object it is in */
};

/* A dynamic UAR: one mlx5_ib UAR object, mapped, and its bfregs. */
struct m5_uar_obj {
	struct m5_uar_obj *next;
	struct m5k_uar k;
	void *addr;
	enum m5_bf_kind kind;
	unsigned int nbf;
	struct m5_bf bf[]; /* two per 4 KB UAR in the mapping */
};

/* A thread domain: with dynamic UARs, its own bfreg. */
struct m5_td {
	struct db_td core;
	/* Its bfreg: NULL with static UARs or without write combining. */
	struct m5_bf *bf;
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
	/* the internal timer's page (mlx5_clock.c), NULL if none */
	bool has_clock_offset;
	uint64_t clock_offset; /* in the page, from GET_CONTEXT */
	void *clock_page;
	size_t clock_page_len;
	/* UARs: the mapped system pages and the bfregs in them */
	void *uar[M5_MAX_UAR_PAGES];
	unsigned int num_uar_pages;
	size_t uar_map_len;
	struct m5_bf *bfs; /* 4 per UAR (k = 0, 1 used), by bfreg index */
	unsigned int num_bfs;
	/* dynamic UARs (tot_bfregs 0): objects allocated as QPs need them */
	bool dyn_uar;
	void *cq_uar;	      /* where CQ arms go (+ M5_CQ_DOORBELL) */
	uint32_t cq_uar_page; /* its page id, for create_cq (dynamic) */
	struct m5_uar_obj *nc_uar;
	pthread_mutex_t uar_mutex;
	struct m5_uar_obj *qp_uars; /* kept until close, as libmlx5 does */
	unsigned int qp_dedicated, qp_shared; /* bfregs of each kind */
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
	uint8_t port_flags[2]; /* IBV_QPF_GRH_REQUIRED */
	int gid_tbl_len[2];
};

/*
 * The CQE at consumer index ci if software owns it: opcode not INVALID and
 * owner bit equal to the pass parity (ci & ncqe).  The owner byte is loaded
 * with acquire so that ThreadSanitizer sees the device model's release
 * store; udma_from_device_barrier() still orders the body for real devices.
 */
static inline bool m5_cqe_sw_owned(const struct m5_cqe64 *cqe, uint32_t ncqe,
				   uint32_t ci, uint8_t *op_own)
{
	uint8_t own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

	if ((own >> M5_CQE_OPCODE_SHIFT) == M5_CQE_INVALID ||
	    (own & M5_CQE_OWNER_MASK) != !!(ci & ncqe))
		return false;
	*op_own = own;
	return true;
}

/* A queue buffer and where it came from (m5_qbuf_alloc). */
struct m5_qbuf {
	struct ibv_pd *pd; /* the parent domain whose allocator gave it */
	uint64_t type;	   /* M5_RES_TYPE_* */
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
	uint64_t ex_ts;	     /* ... and its timestamp */
	struct m5_qbuf qbuf; /* where buf came from */
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
	/*
	 * SQ: max_gs + 1 once the QP has reached RTS since its last RESET,
	 * else 0 (libmlx5's qp_state_max_gs): one compare checks both the
	 * SGE count and the state.  Kept by m5_modify_qp, not read from
	 * ibqp->state, which ibv_query_qp rewrites.
	 */
	uint32_t open_gs;
	uint32_t head; /* WRs posted */
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

/* Opcode sets, as masks of 1 << IBV_WR_<op>. */
#define M5_OP(op) (1u << IBV_WR_##op)
/* Opcodes with a remote address segment; atomics add an atomic segment. */
#define M5_OPS_RDMA                                                            \
	(M5_OP(RDMA_WRITE) | M5_OP(RDMA_WRITE_WITH_IMM) | M5_OP(RDMA_READ))
#define M5_OPS_ATOMIC (M5_OP(ATOMIC_CMP_AND_SWP) | M5_OP(ATOMIC_FETCH_AND_ADD))
#define M5_OPS_IMM    (M5_OP(RDMA_WRITE_WITH_IMM) | M5_OP(SEND_WITH_IMM))
/* Opcodes whose payload may be inline: the ones that carry data out. */
#define M5_OPS_INLINE                                                          \
	(M5_OP(RDMA_WRITE) | M5_OP(RDMA_WRITE_WITH_IMM) | M5_OP(SEND) |        \
	 M5_OP(SEND_WITH_IMM) | M5_OP(SEND_WITH_INV))

/*
 * The send flags libibverbs v44 defines.  IBV_SEND_IP_CSUM means nothing
 * on RC and UD and is ignored, as libmlx5 ignores it; a bit libibverbs
 * does not define is refused (docs/mlx5-model.md, "Answers that differ
 * from libmlx5").
 */
#define M5_SEND_FLAGS                                                          \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |             \
	 IBV_SEND_INLINE | IBV_SEND_IP_CSUM)

struct m5_qp {
	/* libibverbs' part, with room for every release's layout */
	DB_VERBS_QP(vqp);
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
	struct m5_wr *wr;    /* ibv_wr_* state (mlx5_wr.c); NULL without it */
	struct m5_qbuf qbuf; /* where buf came from */
};

struct m5_srq {
	struct verbs_srq vsrq;
	struct m5_rsc rsc;
	struct m5_wq wq; /* head, tail: the free list's ends */
	/* Per WQE, under wq.lock: posted to the device and not yet retired. */
	uint8_t *busy;
	/*
	 * The wait queue, a list from waitq_head to waitq_tail of WQEs that
	 * had an ODP page fault, kept intact while the kernel's page-fault
	 * handler may read them (libmlx5 v44 srq.c); has_waitq false when
	 * the device's max_srq_recv_wr leaves no room for one.
	 */
	bool has_waitq;
	uint16_t waitq_head, waitq_tail;
	__be32 *dbrec;
	size_t buf_len;
	uint32_t srqn;
	uint16_t counter;    /* WQEs posted, for the dbrec */
	struct m5_qbuf qbuf; /* where wq.buf came from */
};

struct m5_ah {
	struct ibv_ah ibv_ah;
	struct m5_av av; /* copied into each UD send WQE */
	bool kern_ah;	 /* RoCE: the kernel holds one too */
};

static inline struct m5_context *to_m5_ctx(struct ibv_context *ibctx)
{
	return container_of(to_db_ctx(ibctx), struct m5_context, core);
}

static inline struct m5_cq *to_m5_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct m5_cq, vcq.cq);
}

static inline struct m5_qp *to_m5_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct m5_qp, vqp.qp);
}

static inline struct m5_srq *to_m5_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct m5_srq, vsrq.srq);
}

static inline struct m5_ah *to_m5_ah(struct ibv_ah *ibah)
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
/* mlx5_clock.c: the device's internal timer */
/* Map the timer's page if GET_CONTEXT named one; no page is no error. */
void m5_clock_map(struct m5_context *ctx);
void m5_clock_unmap(struct m5_context *ctx);
int m5_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *v);

/* mlx5_uar.c: UAR mapping and bfregs */
int m5_map_uars(struct m5_context *ctx);
void m5_unmap_uars(struct m5_context *ctx);

/* mlx5_dyn_uar.c: dynamic UARs, thread domains */
/* After GET_CONTEXT granted dynamic UARs: the UAR for CQ arms; 0 or errno. */
int m5_dyn_uar_init(struct m5_context *ctx);
void m5_dyn_uar_fini(struct m5_context *ctx);
/* The bfreg for a new QP in pd; NULL with errno set. */
struct m5_bf *m5_dyn_bf_get(struct m5_context *ctx, struct ibv_pd *pd);
void m5_dyn_bf_put(struct m5_context *ctx, struct m5_bf *bf);
struct ibv_td *m5_alloc_td(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr);
int m5_dealloc_td(struct ibv_td *td);

/* mlx5_buf.c: queue buffers, doorbell records, user indexes */
void *m5_buf_alloc(size_t len);
void m5_buf_free(void *buf, size_t len);
/*
 * mlx5dv.h's MLX5DV_RES_TYPE_*: what a parent domain's allocator is told
 * a buffer is for.
 */
#define M5_RES_TYPE(n)	((uint64_t)RDMA_DRIVER_MLX5 << 32 | (n))
#define M5_RES_TYPE_QP	M5_RES_TYPE(1)
#define M5_RES_TYPE_SRQ M5_RES_TYPE(4)
#define M5_RES_TYPE_CQ	M5_RES_TYPE(5)
/*
 * A zeroed, page-aligned queue buffer of len bytes: from the allocator of
 * parent domain pd if it has one that takes it, else m5_buf_alloc.  NULL
 * with errno set on failure (ENOMEM when the allocator fails).
 */
void *m5_qbuf_alloc(struct m5_qbuf *qb, struct ibv_pd *pd, size_t len,
		    uint64_t type);
void m5_qbuf_free(struct m5_qbuf *qb, void *buf, size_t len);
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

/* mlx5_cq.c: CQ life cycle, moderation, arming, events */
struct ibv_cq_ex *m5_create_cq_ex(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr);
int m5_destroy_cq(struct ibv_cq *ibcq);
int m5_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr);
int m5_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void m5_cq_event(struct ibv_cq *ibcq);
/* Drop the CQEs of a QP or SRQ being destroyed or reset. */
void m5_cq_clean(struct m5_cq *cq, uint32_t uidx, struct m5_srq *srq);
/* The device's max_cqe, as it said at open; the hardware limit if not. */
uint32_t m5_max_cqe(struct ibv_context *ibctx);
/*
 * A ring of ncqe CQEs, each owned by hardware, from the allocator of
 * parent domain pd if it has one (m5_qbuf_alloc); NULL, errno set.
 */
void *m5_cq_ring_alloc(struct m5_qbuf *qb, struct ibv_pd *pd, uint32_t ncqe);

/* mlx5_resize.c */
int m5_resize_cq(struct ibv_cq *ibcq, int cqe);

/* mlx5_poll.c */
int m5_poll_cq(struct ibv_cq *ibcq, int nwc, struct ibv_wc *wc);
/*
 * Install the ibv_cq_ex polling functions (start/next/end_poll, read_*),
 * and the timestamp reader if wc_flags asks for it.
 */
void m5_cq_set_ex_ops(struct m5_cq *cq, uint64_t wc_flags);

/* mlx5_qp.c */
struct ibv_qp *m5_create_qp_ex(struct ibv_context *ctx,
			       struct ibv_qp_init_attr_ex *attr);
int m5_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask);
int m5_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		struct ibv_qp_init_attr *init_attr);
int m5_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *m5_open_qp(struct ibv_context *ctx,
			  struct ibv_qp_open_attr *attr);

/* mlx5_send.c */
int m5_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);
/*
 * post_send's checks and WQE builder for mlx5_wr.c.  m5_sq_check: every
 * check of ibv_post_send on a WR staged by ibv_wr_* (inline data as one
 * SGE), 0 or its errno, *inl its inline length.  m5_sq_build: build a checked WR (inl: its
 * inline length) at cur_post as the nreq-th of a list, *ctrl its WQE;
 * returns its ds.  m5_sq_ring: the dbrec and doorbell for nreq WQEs, ctrl
 * and ds those of the last.  Both under the SQ lock.
 */
int m5_sq_check(const struct m5_qp *qp, const struct ibv_send_wr *wr,
		uint32_t *inl);
unsigned int m5_sq_build(struct m5_qp *qp, const struct ibv_send_wr *wr,
			 uint32_t inl, unsigned int nreq,
			 struct m5_ctrl_seg **ctrl);
void m5_sq_ring(struct m5_qp *qp, unsigned int nreq,
		const struct m5_ctrl_seg *ctrl, unsigned int ds);

/* mlx5_wr.c: the ibv_wr_* API (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) */
/* The send_ops_flags a QP of this type may ask for. */
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
int m5_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
/*
 * Give SRQ WQE ctr back to the free list if it is outstanding (its wr_id
 * to *wr_id unless NULL); false if it is not: a device's lie.
 */
bool m5_srq_take_back(struct m5_srq *srq, uint16_t ctr, uint64_t *wr_id);
/*
 * Post SRQ WQE idx again, page-faulted (mlx5_poll.c); false if it is not
 * outstanding.  Called under the CQ's lock.
 */
bool m5_srq_repost(struct m5_srq *srq, uint16_t idx);

/* mlx5_ah.c */
struct ibv_ah *m5_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int m5_destroy_ah(struct ibv_ah *ibah);

#endif /* DOORBELL_MLX5_H */
