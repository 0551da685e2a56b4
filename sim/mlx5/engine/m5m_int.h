/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The software ConnectX's insides, shared by its files: the object layout,
 * the internal calls between the parts, and (at the end) the small API the
 * model self-tests use to drive the CQ/EQ/vector machinery with no backend.
 */
#ifndef DOORBELL_TESTS_M5M_INT_H
#define DOORBELL_TESTS_M5M_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mlx5/mlx5_hw.h"
#include "m5model.h"
#include "m5m_arm.h"
#include "m5m_eng.h"

/* Not in mlx5_hw.h: async EQE types only the model raises. */
enum {
	M5M_EVENT_COMM_EST = 0x02,
	M5M_EVENT_WQ_INVAL_REQ = 0x10,
	M5M_EVENT_WQ_ACCESS = 0x11,
	M5M_EVENT_SRQ_LAST_WQE = 0x13,
	M5M_EVENT_SRQ_LIMIT = 0x14,
};

#define M5M_MAX_PORTS	     2
#define M5M_MAX_COMP_VECTORS 64
#define M5M_MAX_SYS_PAGES    64
#define M5M_MAX_WQE_BYTES    (M5_MAX_DS * M5_DS_UNIT)
#define M5M_LOG_LEN	     24
#define M5M_FIRE_FIFO	     8
#define M5M_QPN_BASE	     0x40
#define M5M_CQN_BASE	     0x20
#define M5M_SRQN_BASE	     0x30
#define M5M_MAX_MSG	     (1u << 30)
/* MLX5_OPCODE_UMR: on a user QP, libmlx5's memory window bind and local
 * invalidate; the device's umr op (m5m_eng.h) runs it. */
#define M5M_OPCODE_UMR 0x25
/* ds of such a WQE at least: ctrl, UMR ctrl (48 bytes), mkey (64 bytes) */
#define M5M_UMR_MIN_DS 8
/* WQEs per queue: ALLOC_UCONTEXT's max_send_wqebb and max_recv_wr. */
#define M5M_MAX_WR	    (1u << 15)
#define M5M_GRH_BYTES	    40
#define M5M_EQ_UPDATE_EVERY 128 /* MLX5_NUM_SPARE_EQE */

/* A handle table: handle = base + slot index. */
struct m5m_tab {
	void **slot;
	uint32_t cap;
	uint32_t base;
	uint32_t live;
};

/*
 * A UAR object (dynamic UARs): one page the fake kernel allocated, its
 * device-wide page id, the mmap offset it answered, and the BlueFlame
 * half due next on each of its registers.
 */
#define M5M_UOBJ_REGS 64 /* bfregs of a 64 KB page: 16 UARs, 4 each */
struct m5m_uobj {
	struct m5m_uobj *next;
	uint32_t handle;
	uint32_t page_id; /* of its first 4 KB UAR */
	uint32_t type;	  /* MLX5_IB_UAPI_UAR_ALLOC_TYPE_* */
	uint64_t mmap_offset;
	void *page;
	unsigned int maps;
	unsigned int users; /* QPs and CQs created on it */
	bool destroyed;	    /* mapped still, but no longer the kernel's */
	uint8_t half[M5M_UOBJ_REGS];
};

struct m5m_ctx {
	struct m5m_dev *dev;
	struct ibv_context *ibctx;
	struct m5m_ctx *next;
	int async_wfd;	     /* the kernel's end; the context reads */
	uint32_t tot_bfregs; /* bfregs in kernel numbering */
	uint32_t low_lat;    /* dedicated ("high") bfregs, the last ones */
	uint32_t uars_per_page;
	uint32_t num_sys_pages;
	uint32_t bf_reg_size;
	uint8_t cqe_version;
	void *page[M5M_MAX_SYS_PAGES]; /* model-owned UAR pages */
	unsigned int maps[M5M_MAX_SYS_PAGES];
	uint16_t *bfreg_users; /* per bfreg (kernel numbering) */
	uint8_t *bf_half;      /* per bfreg: the half written next */
	bool dyn_uar;	       /* granted MLX5_LIB_CAP_DYN_UAR */
	struct m5m_uobj *uobjs;
	uint32_t next_uar_handle;
	void *clock_page; /* the internal timer's page, if mapped */
	bool closed;
};

struct m5m_pd {
	uint32_t pdn;
	struct m5m_dev *dev; /* the engine's device */
	struct m5m_ctx *ctx;
	unsigned int users;
};

/*
 * An XRC domain (the fake kernel's; the PCI function keeps its own):
 * opened anew, or shared by every opener of one inode.  opens counts the
 * handles, users the XRC SRQs and target QPs in it.
 */
struct m5m_xrcd {
	uint32_t xrcdn;
	dev_t st_dev; /* the inode that names it, if any (shared) */
	ino_t st_ino;
	bool shared;
	unsigned int opens;
	unsigned int users;
};

struct m5m_mr {
	uint32_t key; /* lkey == rkey */
	struct m5m_pd *pd;
	uint8_t *host; /* host address of iova */
	uint64_t iova;
	uint64_t len;
	int access;
	void *map; /* dmabuf: the model's mapping */
	size_t map_len;
};

struct m5m_chan {
	struct ibv_comp_channel *ch;
	int wfd;
	unsigned int users;
	struct m5m_chan *next;
};

struct m5m_eq;

struct m5m_cq {
	uint32_t cqn;
	struct m5m_dev *dev;
	struct m5m_ctx *ctx; /* NULL for a self-test CQ */
	struct ibv_cq *ibcq;
	uint64_t user_handle; /* what the channel carries */
	uint8_t *buf;
	uint32_t ncqe;
	__be32 *dbrec;
	/* arming and moderation: the rule the PCI function runs too */
	struct m5m_arm arm;
	uint32_t arm_sn;
	uint64_t arm_time;
	bool armed_once;
	bool fired_since_arm;
	uint64_t chan_base;		  /* channel bytes when it fired */
	uint64_t fire_ref[M5M_FIRE_FIFO]; /* latency reference times */
	unsigned int fire_head, fire_tail;
	struct m5m_eq *eq;
	struct m5m_chan *chan;
	struct m5m_uobj *uobj; /* dynamic UARs: the UAR arms go through */
	uint32_t uar_page;
	int chan_wfd; /* -1: no channel */
	int chan_rfd; /* the reader's end, if the model knows */
	bool oi;
	bool overrun;
	unsigned int users; /* QPs and SRQs */
	uint64_t events;
	uint64_t comp_reported; /* channel events written */
	uint64_t async_reported;
	/* a split CQE waiting for its op_own */
	bool split_pending;
	uint32_t split_slot;
	uint8_t split_op_own;
};

struct m5m_srq {
	uint32_t srqn;
	struct m5m_dev *dev; /* the engine's device */
	struct m5m_ctx *ctx;
	struct m5m_pd *pd;
	struct ibv_srq *ibsrq;
	uint8_t *buf;
	__be32 *dbrec;
	uint32_t nwqe;
	uint32_t shift;
	uint32_t max_sge;
	uint32_t uidx;
	uint16_t head; /* the device's next WQE */
	uint16_t consumed;
	uint32_t limit;
	bool limit_armed;
	/* An XRC SRQ: its domain and its own CQ (NULL for other SRQs). */
	uint32_t xrcd;
	struct m5m_cq *cq;
	unsigned int users;
	uint64_t async_reported;
};

/* A receive WQE the device took, ready to scatter into. */
struct m5m_rwqe {
	uint16_t counter; /* CQE wqe_counter */
	unsigned int nsge;
	struct {
		uint32_t len;
		uint32_t lkey;
		uint64_t addr;
	} sge[M5_MAX_DS];
};

/* A send WQE decoded from the mlx5_hw.h layouts. */
struct m5m_wqe {
	uint8_t raw[M5M_MAX_WQE_BYTES + 64];
	uint16_t idx;
	uint8_t opmod;
	uint8_t opcode;
	uint32_t qpn;
	uint8_t ds;
	uint8_t fm_ce_se;
	__be32 imm;
	unsigned int nbb;
	const struct m5_av *av;
	/* RoCE UD (m5m_wire_req.c): the packet's 40-byte GRH; NULL: the
	 * receive builds one from av */
	const uint8_t *grh;
	uint16_t pkey;	   /* ... and its BTH's P_Key */
	uint32_t xrc_srqn; /* XRC INI: the XRC segment's SRQ */
	bool has_raddr;
	uint64_t raddr;
	uint32_t rkey;
	bool has_atomic;
	uint64_t swap_add;
	uint64_t compare;
	bool is_inline;
	uint32_t inl_len;
	const uint8_t *inl;
	unsigned int nsge;
	const struct m5_data_seg *sge;
};

/*
 * The slow device (m5m_slow.c): a WQE executed at the responder and not yet
 * completed, with the response (READ data, atomic original) that lands in
 * the requester's memory when it does.
 */
struct m5m_fly {
	struct m5m_fly *next;
	struct m5m_wqe w; /* as the device read it to execute it */
	uint32_t byte_cnt;
	uint32_t resp_len;
	uint8_t *resp; /* NULL: nothing to land */
	/* On the wire (m5m_wire_req.c): its PSNs, and responses received */
	uint32_t psn, npsn;
	uint32_t got;
	/* A READ or atomic: 1 + the response it was asked again for when one
	 * after it came (0: none since its last request). */
	uint32_t gap;
	bool done; /* a READ's or atomic's response is all here */
};

/* An RC or UC responder's packet state on the wire (m5m_wire_rsp.c). */
struct m5m_rsp {
	uint32_t msn;
	bool nak_sent; /* a sequence NAK for rq_psn went out */
	uint8_t in;    /* a message under way: a SEND, a WRITE, or none (0) */
	bool imm_inv;
	uint32_t first_psn;
	uint8_t *buf; /* a SEND's bytes so far */
	uint32_t len, cap;
	uint64_t va; /* a WRITE's RETH, and how far it got */
	uint32_t rkey, dma_len, off;
	struct {
		bool valid;
		uint32_t psn;
		uint64_t orig;
	} atom[16]; /* atomics answered, for duplicates: as many as a
		     * requester may have unanswered (log_max_ra_res_qp 4) */
	unsigned int atom_next;
};

struct m5m_qp {
	uint32_t qpn;
	struct m5m_dev *dev; /* the engine's device */
	struct m5m_ctx *ctx;
	struct m5m_pd *pd;
	struct ibv_qp *ibqp;
	enum ibv_qp_type type;
	enum ibv_qp_state state;
	struct m5m_cq *scq, *rcq;
	struct m5m_srq *srq;
	uint8_t *buf; /* the model's; the engine goes through ops->qp_buf */
	__be32 *dbrec;
	uint8_t *sq;
	uint32_t sq_bbs;
	uint8_t *rq;
	uint32_t rq_cnt;
	uint32_t rq_shift;
	uint32_t uidx;
	uint32_t xrcd;	 /* XRC TGT: the domain of the SRQs it delivers to */
	uint32_t bfregn; /* kernel numbering */
	uint32_t bfreg_index;  /* uar * 4 + k, as returned */
	struct m5m_uobj *uobj; /* dynamic UARs: the UAR it was created on */
	uint32_t uar_page;     /* ... and that UAR's page id */
	uint16_t sq_hw;	       /* next WQEBB the device reads */
	/*
	 * A BlueFlame payload the device runs in place of the SQ's WQEBBs
	 * [bf_idx, bf_idx + bf_nbb) (m5m_sq_slot); NULL when none.
	 */
	const uint8_t *bf_wqe;
	uint16_t bf_idx, bf_nbb;
	uint16_t db_pi;	   /* SND dbrec at the last doorbell */
	uint16_t snd_seen; /* SND dbrec at the last store */
	bool in_sq_run;
	/* slow device: the next WQEBB to execute, ahead of sq_hw by fly */
	uint16_t sq_exec;
	struct m5m_fly *fly, **fly_tail; /* executed, in SQ order */
	struct m5m_fly *fly_cur;	 /* the one m5m_exec is running */
	uint16_t rq_hw;			 /* next receive WQE */
	uint16_t rq_seen;		 /* RCV dbrec at the last store */
	bool sq_sig_all;
	struct ibv_qp_cap cap;
	/* attributes from modify_qp */
	uint32_t dest_qpn;
	uint32_t qkey;
	uint32_t sq_psn, rq_psn;
	int access;	  /* what the responder takes (m5m_kqp.c) */
	int access_asked; /* qp_access_flags as last modified */
	uint8_t port;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t retry_cnt;
	uint8_t timeout;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	enum ibv_mtu mtu;
	uint16_t pkey_index;
	struct ibv_ah_attr ah;
	/*
	 * A parked message: the WQE at sq_hw waits for an RNR timer, or for
	 * the local ACK timeout when no responder answered (no_ack).
	 */
	bool parked;
	bool no_ack;
	uint32_t park_dst; /* the responder's QPN */
	unsigned int rnr_used;
	unsigned int retry_used; /* ACK timeouts of the WQE at sq_hw */
	uint64_t park_until;
	bool comm_est_sent;
	bool last_wqe_sent;
	uint64_t async_reported;
	/*
	 * RoCE (m5m_wire_req.c, m5m_wire_rsp.c): messages leave as packets
	 * through ops->wire_tx; the timer resends from wire_from, after an
	 * RNR NAK's wait (wire_rnr) or the local ACK timeout.
	 */
	bool wire;
	uint32_t wire_qpn; /* its number in a packet (QP1: 1, QP0: 0) */
	bool wire_rnr;
	uint64_t wire_due; /* 0: no timer */
	uint32_t wire_from;
	uint32_t wire_nak; /* 1 + the PSN the last sequence NAK named */
	struct m5m_rsp *rsp;
};

struct m5m_ah {
	uint32_t handle;
	struct m5m_pd *pd;
};

enum m5m_eq_state {
	M5M_EQ_ARMED = 0x9,
	M5M_EQ_FIRED = 0xa,
};

struct m5m_eq {
	struct m5m_dev *dev;
	unsigned int eqn;
	unsigned int vec;
	uint32_t nent;
	struct m5_eqe *ring;
	uint32_t pi; /* device: EQEs written */
	uint32_t ci; /* device: from the last doorbell */
	enum m5m_eq_state st;
	bool overrun;
	uint32_t kci; /* the kernel handler's consumer index */
};

struct m5m_vec {
	int efd;
	uint32_t int_period;
	bool held; /* an interrupt waits for the window's end */
	bool dup_pending;
	bool ever;
	uint64_t last_irq;
	struct m5m_vec_stats st;
};

/* A CQE held back by the DELAY_CQE fault. */
struct m5m_delayed {
	struct m5m_delayed *next;
	struct m5m_cq *cq;
	uint32_t cqn;
	bool sol;
	struct m5_cqe64 cqe;
};

struct m5m_dev {
	struct m5m_config cfg;
	const struct m5m_eng_ops *ops; /* the engine's seam (m5m_eng.h) */
	void *ops_arg;
	unsigned int id;
	struct m5m_dev *next;
	uint64_t now;
	bool strict;
	bool quiet;
	uint64_t violations;
	/* WQEs of a QP its timer runs per tick (m5m_slow.c); 0: at doorbells */
	unsigned int slow;
	unsigned int fault[M5M_FAULT_COUNT];
	struct m5m_stats st;
	/*
	 * What the in-process front end (the fake kernel and its UARs) frees
	 * with the device: set when a context opens, so NULL on a device
	 * only the PCI function drives (sim/mlx5/pci links no fake kernel).
	 */
	void (*kernel_fini)(struct m5m_dev *dev);
	struct m5m_ctx *ctxs;
	struct m5m_tab pds, mrs, cqs, qps, srqs, ahs, xrcds;
	uint8_t mr_tag;
	struct m5m_chan *chans;
	struct m5m_eq *eqs; /* [0] async, [1 + i] comp vector i */
	unsigned int neqs;
	struct m5m_vec *vecs; /* [0] async, then comp */
	unsigned int nvecs;
	struct m5m_delayed *delayed, **delayed_tail;
	unsigned int splits;	   /* CQs with a split CQE pending */
	uint8_t kuar[M5_UAR_SIZE]; /* the kernel's UAR (EQ doorbells) */
	struct m5m_ibdev *ibdevs;  /* the front end's (m5m_open.c) */
	void (*hook)(void *arg, const struct m5m_event_info *ev);
	void *hook_arg;
	pthread_t irq_thread;
	bool irq_thread_on;
	int irq_stop_fd;
	uint64_t guid;
	uint64_t data_writes; /* for cfg.corrupt_write */
	uint8_t mac[6];
	uint32_t next_uar_page; /* device-wide UAR page ids */
	/* The ODP page fault on an SRQ WQE mlx5_ib has yet to handle. */
	struct {
		bool pending;
		uint32_t qpn, srqn;
		uint16_t wqe;
	} pfault;
};

/* m5m_dev.c: the lock, the device list, handle tables */
/* The internal timer now (M5M_CORE_CLOCK_KHZ, m5model.h). */
uint64_t m5m_timer(const struct m5m_dev *dev);
void m5m_lock(void);
void m5m_unlock(void);
struct m5m_dev *m5m_devices(void);
uint32_t m5m_tab_add(struct m5m_tab *t, void *obj);
void *m5m_tab_get(const struct m5m_tab *t, uint32_t handle);
void m5m_tab_del(struct m5m_tab *t, uint32_t handle);
/* Forget a context whose UARs were all unmapped (it closed). */
void m5m_ctx_maybe_closed(struct m5m_ctx *c);

/* m5m_fault.c: checks, reports, the seam log */
struct m5m_dump {
	const struct m5m_wqe *wqe;
	const struct m5_cqe64 *cqe;
};
void m5m_violation(struct m5m_dev *dev, const struct m5m_dump *d,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define m5m_check(dev, cond, ...)                                              \
	((cond) ? true : (m5m_violation((dev), NULL, __VA_ARGS__), false))
bool m5m_fault_take(struct m5m_dev *dev, enum m5m_fault f);
void m5m_log_event(const char *what, const void *addr, uint64_t val);
void m5m_dump_wqe(const struct m5m_wqe *w);
void m5m_dump_cqe(const struct m5_cqe64 *cqe);
/* Write to a pipe whose reader may be gone, without SIGPIPE. */
int m5m_fd_write(int fd, const void *buf, size_t len);

/* m5m_clock.c */
void m5m_step_locked(struct m5m_dev *dev);
void m5m_step_all(void);

/* m5m_uar.c: address decoding (*uobj NULL: a static page) */
struct m5m_ctx *m5m_uar_owner(const void *addr, unsigned int *page, size_t *off,
			      struct m5m_uobj **uobj);
void m5m_dbrec_register(__be32 *rec, int kind, void *obj);
void m5m_dbrec_unregister(__be32 *rec);
/* The device goes away: the calling thread's protocol state forgets it. */
void m5m_seq_forget(struct m5m_dev *dev);
enum {
	M5M_DBR_QP, /* word 0 RCV, word 1 SND */
	M5M_DBR_CQ, /* word 0 CI, word 1 ARM */
	M5M_DBR_SRQ,
};

/* m5m_mr.c: the model's keys */
struct m5m_mr *m5m_mr_find(struct m5m_dev *dev, uint32_t key);
bool m5m_mr_covers(const struct m5m_mr *mr, uint64_t addr, uint64_t len);
bool m5m_pd_in_use(struct m5m_dev *dev, struct m5m_pd *pd);

/* m5m_eng.c: the engine's calls through the seam (m5m_eng.h) */
int m5m_xlate(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
	      uint64_t len, int access, uint8_t **host, uint64_t *run);
int m5m_rinval(const struct m5m_pd *pd, uint32_t key);
int m5m_umr(const struct m5m_qp *qp, const struct m5m_wqe *w);
void *m5m_sq_slot(const struct m5m_qp *qp, uint16_t idx);
void *m5m_rq_slot(const struct m5m_qp *qp, uint16_t idx);
void *m5m_srq_slot(const struct m5m_srq *srq, uint16_t idx);
void m5m_cqe_post(struct m5m_qp *qp, struct m5m_cq *cq,
		  const struct m5_cqe64 *cqe, bool sol);

/*
 * m5m_dma.c: keys and DMA.  access is IBV_ACCESS_* bits (0: local read).
 * m5m_dma_local: 0 or LOCAL_PROT_ERR; m5m_dma_remote also checks the
 * responder QP's access and skips the key of a zero-length range (0 or
 * REMOTE_ACCESS_ERR).  m5m_dma_to/from copy (0 or -1); m5m_dma_move
 * copies a remote range (s) into a local one (d), overlap allowed (0,
 * LOCAL_PROT_ERR for d, REMOTE_ACCESS_ERR for s).
 */
int m5m_dma_local(const struct m5m_pd *pd, uint32_t lkey, uint64_t addr,
		  uint64_t len, int access);
int m5m_dma_remote(const struct m5m_qp *dst, uint32_t rkey, uint64_t addr,
		   uint64_t len, int access);
int m5m_dma_to(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
	       const void *src, uint64_t len, int access);
int m5m_dma_from(const struct m5m_pd *pd, uint32_t key, uint64_t addr,
		 void *dst, uint64_t len, int access);
int m5m_dma_move(const struct m5m_pd *dpd, uint32_t dkey, uint64_t daddr,
		 int daccess, const struct m5m_pd *spd, uint32_t skey,
		 uint64_t saddr, int saccess, uint64_t len);

/* m5m_wqe.c: decoding and format checks; true if the WQE is sound */
bool m5m_wqe_decode(struct m5m_qp *qp, uint16_t idx, struct m5m_wqe *w);
uint16_t m5m_snd_dbrec(const struct m5m_qp *qp);
uint16_t m5m_rcv_dbrec(const struct m5m_qp *qp);

/* m5m_send.c: the send engine */
#define M5M_PARKED 0x100 /* m5m_exec: the WQE waits (RNR, the wire) */
void m5m_sq_run(struct m5m_qp *qp);
bool m5m_receiving(const struct m5m_qp *q);
int m5m_gather(struct m5m_qp *qp, const struct m5m_wqe *w, uint8_t **msg,
	       uint32_t *len);
uint64_t m5m_mtu_bytes(enum ibv_mtu mtu);
/* The bytes a WQE sends: its inline data and its data segments'. */
uint64_t m5m_wqe_bytes(const struct m5m_wqe *w);
/* The packets (PSNs) a message of len bytes takes on a path of mtu. */
uint32_t m5m_npkt(uint64_t len, enum ibv_mtu mtu);
/*
 * The requester's retries of the WQE at the head: one more RNR retry
 * (rnr_retry; 7: for ever), one more after the local ACK timeout
 * (retry_cnt); false, the count reset, once they are spent.  The time
 * that timeout ends, 4.096 us << timeout from now (0: never).
 */
bool m5m_rnr_retry(struct m5m_qp *qp);
bool m5m_ack_retry(struct m5m_qp *qp);
uint64_t m5m_ack_deadline(const struct m5m_qp *qp);
/*
 * m5m_wire_req.c, m5m_wire_rsp.c: RC, UC and UD over RoCE.  m5m_wire_send
 * sends the WQE qp->fly_cur holds (0, a syndrome, or M5M_PARKED); UD
 * too, one packet to the WQE's AV.  m5m_wire_rx takes a packet (BTH
 * onwards, no ICRC) addressed to qp (UD: grh, the GRH area's bytes);
 * m5m_wire_timer runs when dev->now reaches qp->wire_due.
 * m5m_wire_reads_full: w is a READ or atomic, and max_rd_atomic of them
 * wait for their responses already (w waits in the SQ).
 */
int m5m_wire_send(struct m5m_qp *qp, const struct m5m_wqe *w,
		  uint32_t *byte_cnt);
bool m5m_wire_reads_full(const struct m5m_qp *qp, const struct m5m_wqe *w);
void m5m_wire_rx(struct m5m_qp *qp, const uint8_t *pkt, size_t len,
		 const uint8_t *grh);
void m5m_wire_timer(struct m5m_qp *qp);
void m5m_wire_free(struct m5m_qp *qp);
void m5m_wire_tx(struct m5m_qp *qp, const struct m5_av *av, uint8_t op,
		 uint8_t se, uint32_t psn, bool ackreq, const void *ext,
		 size_t ext_len, const uint8_t *pay, uint32_t pay_len);
void m5m_wire_rsp_in(struct m5m_qp *qp, const uint8_t *pkt, size_t len);
bool m5m_psn_le(uint32_t a, uint32_t b);
/* Run up to budget WQEs of the SQ (flushing in ERR whatever the budget). */
void m5m_sq_go(struct m5m_qp *qp, unsigned int budget);
/*
 * m5m_slow.c: the slow device's tick for one QP: complete what earlier
 * ticks executed, then execute up to dev->slow WQEs; busy while work is
 * left for a tick.  The rest serve m5m_send.c.
 */
void m5m_sq_tick(struct m5m_qp *qp);
bool m5m_sq_busy(const struct m5m_qp *qp);
void m5m_fly_complete(struct m5m_qp *qp);
/* Complete the oldest WQE in flight; false if it failed (QP in ERR). */
bool m5m_fly_complete_one(struct m5m_qp *qp);
void m5m_fly_drop(struct m5m_qp *qp);
bool m5m_fly_fenced(const struct m5m_qp *qp, const struct m5m_wqe *w);
struct m5m_fly *m5m_fly_new(struct m5m_qp *qp);
void m5m_fly_free(struct m5m_fly *f);
void m5m_fly_add(struct m5m_qp *qp, struct m5m_fly *f, uint32_t byte_cnt);
/* 0 if the WQE's data segments take a response (LOCAL_WRITE), else
 * the requester syndrome. */
int m5m_sge_writable(struct m5m_qp *qp, const struct m5m_wqe *w);
int m5m_fly_read(struct m5m_qp *qp, const struct m5m_qp *dst,
		 const struct m5m_wqe *w, uint32_t len);
int m5m_fly_hold(struct m5m_qp *qp, const void *resp, uint32_t len);
/* A send doorbell as it reached a bfreg: 8 bytes, or a BlueFlame copy. */
struct m5m_db {
	struct m5m_ctx *c;
	struct m5m_qp *qp;
	unsigned int uar;      /* UAR index in the context; dynamic: page id */
	unsigned int reg;      /* offset in that UAR */
	struct m5m_uobj *uobj; /* dynamic UARs: the object written */
	unsigned int sub;      /* ... and the 4 KB UAR in it */
	const uint8_t *bytes;
	unsigned int len;
	bool bf;
	const void *src, *sq_start, *sq_end; /* BlueFlame source */
};
void m5m_send_doorbell(const struct m5m_db *db);

/* m5m_recv.c: the receive side and the fabric */
enum m5m_rx {
	M5M_RX_OK,
	M5M_RX_RNR,  /* no receive WQE (RC) */
	M5M_RX_DROP, /* UD: silently lost */
};
/* Deliver a message; sets *synd (requester syndrome) on error. */
enum m5m_rx m5m_deliver(struct m5m_qp *src, const struct m5m_wqe *w,
			struct m5m_qp *dst, const uint8_t *msg, uint32_t len,
			uint8_t *synd);
/* Would dst take a receive-consuming message now?  (RNR fault counts.) */
enum m5m_rx m5m_rx_check(struct m5m_qp *dst);
bool m5m_av_grh(struct m5m_dev *dev, const struct m5_av *av);
unsigned int m5m_av_sgid_index(const struct m5_av *av);
struct m5m_qp *m5m_qp_find(struct m5m_dev *dev, uint32_t qpn);
struct m5m_srq *m5m_srq_find(struct m5m_dev *dev, uint32_t srqn);
void m5m_rq_posted(struct m5m_qp *qp);
void m5m_srq_posted(struct m5m_srq *srq);
void m5m_odp_work(struct m5m_dev *dev);
uint32_t m5m_rnr_timer_us(uint8_t code);
/* The timer of a parked message (RNR or ACK timeout) ran out: retry. */
void m5m_rnr_expire(struct m5m_qp *qp);

/* m5m_qperr.c: errors, flushes, async events */
void m5m_qp_to_err(struct m5m_qp *qp);
/* A UD QP's send error: SQE, the SQ flushed, receives go on. */
void m5m_qp_to_sqe(struct m5m_qp *qp);
void m5m_qp_flush(struct m5m_qp *qp);
void m5m_async_qp(struct m5m_qp *qp, uint8_t type);
void m5m_async_srq(struct m5m_srq *srq, uint8_t type);

/* m5m_cq.c: CQEs, arming and moderation */
void m5m_cqe_req(struct m5m_qp *qp, const struct m5m_wqe *w, uint32_t byte_cnt);
void m5m_cqe_req_err(struct m5m_qp *qp, uint16_t idx, uint8_t opcode,
		     uint8_t synd);
struct m5m_resp {
	uint8_t opcode; /* M5_CQE_RESP_* */
	uint32_t byte_cnt;
	__be32 imm;
	bool se;
	uint32_t src_qpn;
	uint16_t slid;
	uint8_t sl;
	bool grh;
	uint16_t pkey; /* QP1 from a wire: the packet's P_Key */
};
void m5m_cqe_resp(struct m5m_qp *qp, uint16_t counter,
		  const struct m5m_resp *r);
void m5m_cqe_resp_err(struct m5m_qp *qp, uint16_t counter, uint8_t synd);
/* The same with a vendor syndrome (0 in m5m_cqe_resp_err). */
void m5m_cqe_resp_err_vendor(struct m5m_qp *qp, uint16_t counter, uint8_t synd,
			     uint8_t vendor);
void m5m_cq_write(struct m5m_cq *cq, const struct m5_cqe64 *cqe, bool sol);
void m5m_cq_arm(struct m5m_cq *cq, uint32_t val);
void m5m_cq_try_fire(struct m5m_cq *cq);
uint64_t m5m_cq_deadline(const struct m5m_cq *cq);
void m5m_cq_split_finish(struct m5m_cq *cq);
/*
 * The device's part of a resize (MODIFY_CQ op_mod 1): end the old ring
 * with a RESIZE CQE and go on in buf (ncqe CQEs); EINVAL (BAD_PARAM) if
 * the unpolled CQEs and the RESIZE CQE do not fit in the old or new ring.
 */
int m5m_cq_resize(struct m5m_cq *cq, uint8_t *buf, uint32_t ncqe);
void m5m_cq_flush_delayed(struct m5m_dev *dev);
struct m5m_cq *m5m_cq_new(struct m5m_dev *dev, uint8_t *buf, uint32_t ncqe,
			  __be32 *dbrec, unsigned int comp_vector);
void m5m_cq_free(struct m5m_cq *cq);
struct m5m_cq *m5m_cq_find(struct m5m_dev *dev, uint32_t cqn);

/* m5m_kcq.c: helpers the QP commands share */
int m5m_uidx_check(const struct m5m_ctx *c, uint32_t uidx);
void m5m_wait_acked(struct m5m_dev *dev, pthread_mutex_t *mx,
		    pthread_cond_t *cv, const uint32_t *done1, uint64_t want1,
		    const uint32_t *done2, uint64_t want2, const char *what,
		    uint32_t num);

/* m5m_eq.c: EQs, MSI-X, the kernel handler, channels */
int m5m_eq_init(struct m5m_dev *dev);
void m5m_eq_fini(struct m5m_dev *dev);
void m5m_eqe_write(struct m5m_eq *eq, uint8_t type, uint32_t data6,
		   uint32_t data0, uint8_t res_type);
void m5m_kuar_write32(struct m5m_dev *dev, unsigned int off, uint32_t val);
uint64_t m5m_vec_deadline(const struct m5m_vec *v);
void m5m_vec_timer(struct m5m_dev *dev, struct m5m_vec *v);
struct m5m_chan *m5m_chan_find(struct m5m_dev *dev,
			       const struct ibv_comp_channel *ch);
void m5m_async_write(struct m5m_ctx *c, uint64_t element, uint32_t type);

/* --- Self-test API: drive CQ/EQ/vector machinery with no backend ---------- */
/*
 * A CQ with a model-owned ring and dbrec, on completion vector vec; the
 * test plays the provider.  handle is what its channel events carry;
 * chan_fd < 0 means no channel, otherwise it is the write end of a pipe.
 */
struct m5m_tcq {
	struct m5m_cq *cq;
	uint32_t ci; /* the test's consumer index */
	uint32_t sn; /* the test's arm sequence number */
};
struct m5m_tcq *m5m_test_cq_create(struct m5m_dev *dev, uint32_t ncqe,
				   unsigned int vec, uint64_t handle,
				   int chan_wfd);
void m5m_test_cq_destroy(struct m5m_tcq *t);
/* The device writes a receive CQE (SE bit if solicited). */
void m5m_test_cqe(struct m5m_tcq *t, bool solicited);
/* Poll up to n CQEs, checking ownership; updates the CI dbrec. */
unsigned int m5m_test_poll(struct m5m_tcq *t, unsigned int n);
/* Arm as the provider would (dbrec, then the doorbell at the device). */
void m5m_test_arm(struct m5m_tcq *t, bool solicited);
/* The provider's cq_event: sn++. */
void m5m_test_event(struct m5m_tcq *t);
void m5m_test_modify(struct m5m_tcq *t, uint16_t count, uint16_t period);
int m5m_test_cq_state(struct m5m_tcq *t);

#endif /* DOORBELL_TESTS_M5M_INT_H */
