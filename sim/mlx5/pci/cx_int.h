/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The software ConnectX's internals, shared by its files:
 *	cx_pci.c	configuration space
 *	cx_bar.c	BAR0: the initialization segment and the UAR pages
 *	cx_cmd.c	the command queue: layouts, mailboxes, dispatch
 *	cx_hca.c	HCA lifecycle commands (ENABLE_HCA .. TEARDOWN_HCA, UARs)
 *	cx_caps.c	what QUERY_HCA_CAP answers, what SET_HCA_CAP may change
 *	cx_eq.c		EQs: CREATE/DESTROY_EQ, EQE writing, arm/fire, MSI-X
 *	cx_mad.c	MAD_IFC: the port's subnet management attributes
 *	cx_obj.c	PD, XRCD, transport domain: numbers handed out
 *	cx_port.c	QUERY_HCA_VPORT_CONTEXT: the port, as the HCA sees it
 *	cx_mkey.c	CREATE_MKEY/DESTROY_MKEY: PA, MTT and KLM memory keys
 *	cx_mw.c		memory windows: libmlx5's UMR WQEs on a user QP
 *	cx_pas.c	the page list of a queue's create command
 *	cx_cq.c		CQs: CREATE/DESTROY/QUERY/MODIFY_CQ, arm doorbell, CQE writing
 *	cx_srq.c	SRQs: the XRC_SRQ and RMP command families
 *	cx_qp.c		QPs: CREATE/DESTROY/QUERY_QP and the state machine
 *	cx_engine.c	the data path: the model's WQE/CQE engine on these objects
 *	cx_bf.c		BlueFlame: a UAR half's writes assembled, doorbell or copy
 *	cx_sq.c		Ethernet SQs: CREATE/MODIFY/DESTROY_SQ, their WQEs
 *	cx_eth*.c	the Ethernet port (cx-server --eth): cx_eth.h
 */
#ifndef DOORBELL_TESTS_CX_INT_H
#define DOORBELL_TESTS_CX_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cx.h"
#include "m5m_arm.h"

/* Command status (mlx5 device.h MLX5_CMD_STAT_*). */
enum {
	CX_OK = 0x0,
	CX_BAD_OP = 0x2,
	CX_BAD_PARAM = 0x3,
	CX_BAD_SYS_STATE = 0x4,
	CX_BAD_RES = 0x5,
	CX_BAD_QP_STATE = 0x10,
	CX_LIM = 0x8,
	CX_NO_RES = 0xf,
	CX_BAD_INP_LEN = 0x50,
	CX_BAD_OUTP_LEN = 0x51,
};

/* Opcodes (mlx5_ifc.h MLX5_CMD_OP_*). */
enum {
	CX_OP_QUERY_HCA_CAP = 0x100,
	CX_OP_QUERY_ADAPTER = 0x101,
	CX_OP_INIT_HCA = 0x102,
	CX_OP_TEARDOWN_HCA = 0x103,
	CX_OP_ENABLE_HCA = 0x104,
	CX_OP_DISABLE_HCA = 0x105,
	CX_OP_QUERY_PAGES = 0x107,
	CX_OP_MANAGE_PAGES = 0x108,
	CX_OP_SET_HCA_CAP = 0x109,
	CX_OP_QUERY_ISSI = 0x10a,
	CX_OP_SET_ISSI = 0x10b,
	CX_OP_CREATE_MKEY = 0x200,
	CX_OP_DESTROY_MKEY = 0x202,
	CX_OP_CREATE_EQ = 0x301,
	CX_OP_DESTROY_EQ = 0x302,
	CX_OP_CREATE_CQ = 0x400,
	CX_OP_DESTROY_CQ = 0x401,
	CX_OP_QUERY_CQ = 0x402,
	CX_OP_MODIFY_CQ = 0x403,
	CX_OP_ALLOC_UAR = 0x802,
	CX_OP_DEALLOC_UAR = 0x803,
	CX_OP_ALLOC_PD = 0x800,
	CX_OP_DEALLOC_PD = 0x801,
	CX_OP_QUERY_HCA_VPORT_CONTEXT = 0x762,
	CX_OP_ACCESS_REG = 0x805,
	CX_OP_ALLOC_XRCD = 0x80e,
	CX_OP_DEALLOC_XRCD = 0x80f,
	CX_OP_ALLOC_TRANSPORT_DOMAIN = 0x816,
	CX_OP_DEALLOC_TRANSPORT_DOMAIN = 0x817,
	CX_OP_CREATE_QP = 0x500,
	CX_OP_DESTROY_QP = 0x501,
	CX_OP_RST2INIT_QP = 0x502,
	CX_OP_INIT2RTR_QP = 0x503,
	CX_OP_RTR2RTS_QP = 0x504,
	CX_OP_RTS2RTS_QP = 0x505,
	CX_OP_SQERR2RTS_QP = 0x506,
	CX_OP_2ERR_QP = 0x507,
	CX_OP_2RST_QP = 0x50a,
	CX_OP_QUERY_QP = 0x50b,
	CX_OP_INIT2INIT_QP = 0x50e,
	CX_OP_MAD_IFC = 0x50d,
	CX_OP_CREATE_XRC_SRQ = 0x705,
	CX_OP_DESTROY_XRC_SRQ = 0x706,
	CX_OP_QUERY_XRC_SRQ = 0x707,
	CX_OP_ARM_XRC_SRQ = 0x708,
	CX_OP_CREATE_RMP = 0x90c,
	CX_OP_MODIFY_RMP = 0x90d,
	CX_OP_DESTROY_RMP = 0x90e,
	CX_OP_QUERY_RMP = 0x90f,
	CX_OP_CREATE_SQ = 0x904,
	CX_OP_MODIFY_SQ = 0x905,
	CX_OP_DESTROY_SQ = 0x906,
};

/* EQE types (mlx5 device.h MLX5_EVENT_TYPE_*). */
enum {
	CX_EVENT_COMP = 0x00,
	CX_EVENT_CQ_ERROR = 0x04,
	CX_EVENT_CMD = 0x0a,
};

/*
 * The one InfiniBand port, as MAD_IFC's PortInfo (cx_mad.c) and
 * QUERY_HCA_VPORT_CONTEXT (cx_port.c) both report it: ACTIVE and LinkUp
 * with LID 1, the subnet manager at LID 1 (there is no fabric to wait
 * for), GUIDs under Mellanox's OUI (the function claims to be a
 * ConnectX-5) ending in "cx"; the port GUID is the next one.
 */
enum {
	CX_PORT_LID = 1,
	CX_PORT_SM_LID = 1,
	CX_PORT_STATE_ACTIVE = 4,
	CX_PORT_PHYS_LINK_UP = 5,
	CX_PORT_SUBNET_TIMEOUT = 18,
};
#define CX_NODE_GUID 0x0002c90300006378ull
#define CX_PORT_GUID (CX_NODE_GUID + 1)
/* NodeDescription (cx_mad.c), the NODE_DESC register (cx_eth_vport.c) */
#define CX_NODE_DESC "doorbell software ConnectX (sim/mlx5/pci)"

/* A capability field (cx_caps.c, cx_eth_caps.c): mlx5_ifc.h bit offset. */
struct cx_cap {
	uint16_t off;
	uint8_t width;
	bool settable; /* SET_HCA_CAP may lower it (or turn it off) */
	uint32_t val;
};

enum cx_hca_state { CX_HCA_DISABLED, CX_HCA_ENABLED, CX_HCA_INITIALIZED };

enum {
	CX_MAX_EQ = 16,
	CX_EQ_MAX_PAS = 256,
	CX_MAX_UAR = 256,
	CX_FIRST_UAR = 4, /* pages 0-3: init segment, MSI-X table and PBA */
	CX_CAP_BYTES = 0x1000,
	CX_CAP_TYPES = 0x20,
	/* 32 command entries (the most mlx5_core takes) of 64 bytes. */
	CX_CMDQ_LOG_SZ = 5,
	CX_CMDQ_LOG_STRIDE = 6,
	/* cx_obj.c: PD, XRCD, transport domain; up to 1024 of each */
	CX_OBJ_KINDS = 3,
	CX_OBJ_PD = 0,	       /* index in obj_used */
	CX_MAX_MKEY = 1 << 14, /* cx_caps.c log_max_mkey */
	CX_FIRST_MKEY = 2, /* cx_mkey.c: index 1 would be MLX5_INVALID_LKEY */
	CX_OBJ_MAX = 1024,
	CX_MAX_CQ = 1 << 10, /* cx_caps.c log_max_cq */
	CX_MAX_SRQ = 1 << 8, /* cx_caps.c log_max_srq */
	CX_MAX_QP = 1 << 10, /* cx_caps.c log_max_qp */
	CX_QPC_BYTES = 0xe8,
	CX_OBJ_XRCD = 1,
	CX_OBJ_TD = 2, /* transport domains */
};

struct cx_eq {
	bool valid, armed;
	uint8_t eqn;
	uint8_t log_size, log_page_size, page_offset;
	uint32_t uar, intr;
	uint32_t pc, ci; /* producer and consumer counters, 24 bits */
	uint64_t mask[4];
	uint32_t npas;
	uint64_t pas[CX_EQ_MAX_PAS];
};

/* CQ states (mlx5 device.h MLX5_CQ_STATE_*): FIRED is also "not armed". */
enum { CX_CQ_ARMED = 0x9, CX_CQ_FIRED = 0xa };

/*
 * Where a queue (CQ, QP, SRQ/RMP) starts in its first page: mlx5_ib's
 * page_offset counts sixty-fourths of the queue's page of 4 KiB << LPS
 * (mem.c, mlx5_umem_find_best_quantized_pgoff), not 64-byte units.
 */
static inline uint64_t cx_queue_start(uint8_t lps, uint32_t page_offset)
{
	return (uint64_t)page_offset * (((uint64_t)CX_PAGE << lps) / 64);
}

/* A queue's extent for cx_take_pas() (cx_pas.c). */
struct cx_queue_geo {
	uint64_t bytes; /* the queue's size; 0: no pages */
	uint8_t lps;	/* pages of 4 KiB << lps */
	uint32_t page_offset;
	bool write; /* the device writes the queue (CQ, RQ) */
};

struct cx_cq {
	bool valid, oi, cc, overrun;
	uint8_t cqe_sz, log_size, log_page_size, page_offset, period_mode;
	uint8_t arm_sn; /* sn of the last arm doorbell */
	uint32_t uar, eqn;
	uint64_t events;     /* completion events raised since CREATE_CQ */
	uint64_t sn_advance; /* sum over its arms of (sn - last sn) & 3 */
	uint32_t pc;	     /* producer counter, 24 bits */
	/* arming and moderation (arm.pi follows pc): the engine's rule */
	struct m5m_arm arm;
	uint64_t dbr; /* doorbell record: ci at +0, arm at +4 */
	uint32_t npas;
	uint64_t *pas;
};

/*
 * A shared receive queue, made by CREATE_XRC_SRQ (xrc) or CREATE_RMP:
 * 2^log_size receive WQEs of 2^log_stride bytes (a linked list) in the
 * guest pages PAS, the doorbell record (the WQE counter) at dbr.
 */
struct cx_srq {
	bool valid, xrc, wq_sig;
	uint8_t log_size, log_stride, log_page_size, page_offset;
	uint32_t pd, xrcd, cqn, user_index, lwm;
	uint64_t dbr;
	uint32_t npas;
	uint64_t *pas;
};

/* QP states and service types (mlx5_ifc.h MLX5_QPC_STATE_*, _ST_*). */
enum {
	CX_QP_RST = 0x0,
	CX_QP_INIT = 0x1,
	CX_QP_RTR = 0x2,
	CX_QP_RTS = 0x3,
	CX_QP_SQER = 0x4,
	CX_QP_ERR = 0x6,
};
enum {
	CX_ST_RC = 0x0,
	CX_ST_UC = 0x1,
	CX_ST_UD = 0x2,
	CX_ST_XRC = 0x3, /* XRC INI (with an SQ) and XRC TGT (no_sq) */
	CX_ST_QP0 = 0x7,
	CX_ST_QP1 = 0x8,
	CX_ST_REG_UMR = 0xc,
};

/*
 * A QP: the geometry CREATE_QP gave (the RQ, 2^log_rq_size WQEs of
 * 2^log_rq_stride bytes, then the SQ, 2^log_sq_size 64-byte basic blocks,
 * in the guest pages PAS; rq_type 1: the receives come from SRQ srqn),
 * the objects it names, its state, and qpc: the context as the state
 * commands last set each attribute (QUERY_QP answers it).
 */
struct cx_qp {
	bool valid, no_sq;
	uint8_t st, state, rq_type, log_rq_size, log_rq_stride, log_sq_size;
	uint8_t log_page_size, page_offset;
	uint32_t pd, uar, cqn_snd, cqn_rcv, srqn, user_index;
	uint32_t xrcd; /* XRC TGT: the domain of the SRQs it delivers to */
	uint64_t dbr;  /* doorbell record: RQ counter at +0, SQ at +4 */
	uint32_t npas;
	uint64_t *pas;
	uint16_t umr_ci; /* the UMR QP: the next WQE cx_umr.c runs */
	uint8_t qpc[CX_QPC_BYTES];
};

struct cx_mkey {
	bool valid, free, umr_en, length64;
	bool en_rinval; /* a SEND with Invalidate may free it */
	uint8_t mode, access, variant,
		log_page_size; /* access: a rw rr lw lr */
	uint32_t pd, qpn;
	uint32_t nmtt;	  /* entries of mtt[] held (the rest are not present) */
	uint32_t mtt_cap; /* entries the key was made for (octowords * 2) */
	uint64_t start, len;
	uint64_t *mtt;
	/* KLM mode (a memory window): its one entry, the key and address of
	 * the window's first byte (cx_mw.c binds it) */
	uint32_t klm_key;
	uint64_t klm_addr;
};

struct cx_cmd;

/* An Ethernet SQ (cx_sq.c); SQN CX_MAX_QP + its index. */
enum { CX_MAX_SQ = 16 /* cx_caps.c log_max_sq */ };
struct cx_sq {
	bool valid;
	uint8_t state, log_sz, lps; /* MLX5_SQC_STATE_*; WQEBBs; pages */
	uint32_t cqn, uar, page_offset;
	uint32_t pd, tisn; /* tisn 0: none (no sends) */
	uint64_t dbr;
	uint64_t *pas;
	uint32_t npas;
	uint16_t hw; /* the next WQE the device runs */
};

int cx_sq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_sq_reset(struct cx *cx);
/*
 * A send doorbell (LEN 8) or BlueFlame copy B rung on UAR: false if it
 * names no SQ (a QP's, for cx_engine.c), else the SQ ran up to it.
 */
bool cx_sq_doorbell(struct cx *cx, uint32_t uar, const uint8_t *b,
		    uint32_t len);

/* The BlueFlame half being assembled (cx_bf.c). */
enum {
	CX_BF_HALF = 0x100, /* (1 << log_bf_reg_size) / 2 */
	CX_BF_REGS = 4,	    /* bfregs in a UAR page's upper half */
};
struct cx_bf {
	bool open;		 /* a write at a half's start is held */
	uint32_t page, off;	 /* UAR page, offset of the half */
	uint32_t got, need;	 /* bytes arrived; ds * 16 (capped) */
	uint64_t since_ns;	 /* when the last of them arrived */
	uint8_t buf[CX_BF_HALF]; /* the payload */
	uint8_t last[CX_MAX_UAR][CX_BF_REGS]; /* 1 + half last rung, 0 none */
};

void cx_bf_write(struct cx *cx, uint32_t page, uint32_t off, const uint8_t *b,
		 uint32_t len);
/* Resolve a held write now (a write elsewhere, a command came). */
void cx_bf_flush(struct cx *cx);
/* Resolve a held write whose wait ran out; ns to the next, or -1. */
int64_t cx_bf_timers(struct cx *cx);
void cx_bf_reset(struct cx *cx);
/* A UAR page handed out anew: its bfregs start on either half. */
void cx_bf_uar_fresh(struct cx *cx, uint32_t page);

struct cx {
	struct cx_host host;
	uint8_t config[CX_CONFIG_SIZE];
	/* Initialization segment. */
	uint32_t cmdq_h, cmdq_l;
	uint64_t t0_ns;
	/* Function state. */
	enum cx_hca_state state;
	uint16_t issi;
	uint32_t port_caps; /* PortInfo CapabilityMask, set through PCAP */
	uint8_t uar_used[CX_MAX_UAR];
	uint8_t cap_cur[CX_CAP_TYPES][CX_CAP_BYTES];
	struct cx_eq eq[CX_MAX_EQ];
	uint8_t obj_used[CX_OBJ_KINDS][CX_OBJ_MAX / 8];
	struct cx_mkey mkey[CX_MAX_MKEY];
	struct cx_cq cq[CX_MAX_CQ];
	struct cx_srq srq[CX_MAX_SRQ];
	struct cx_qp qp[CX_MAX_QP];
	uint32_t cq_db_hi[CX_MAX_UAR]; /* first dword of a split CQ doorbell */
	struct cx_eng *eng;	       /* the data path (cx_engine.c) */
	struct cx_eth *eth;	       /* the Ethernet port; NULL: InfiniBand */
	struct cx_bf bf;
	struct cx_sq sq[CX_MAX_SQ];
};

/* A command handler: IN/OUT are the whole input and output (headers too). */
struct cx_cmd {
	const uint8_t *in;
	uint32_t inlen;
	uint8_t *out;
	uint32_t outlen;
};

uint64_t cx_now_ns(void);
/*
 * The internal timer: nanoseconds since the device started (its
 * device_frequency_khz is 1 GHz).  The init segment shows it, and each
 * completion CQE carries it.
 */
uint64_t cx_timer(const struct cx *cx);
void cx_trace(struct cx *cx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void *cx_dma(struct cx *cx, uint64_t addr, uint64_t len, bool write);
/* Q's page list from the command's input at byte AT: a status, and on
 * CX_OK a calloc'd *PAS of *NPAS pages (at least one slot). */
int cx_take_pas(struct cx *cx, const struct cx_cmd *c, uint32_t at,
		const struct cx_queue_geo *q, uint64_t **pas, uint32_t *npas);
/* Host address of bytes [OFF, OFF + LEN) of a queue on pages PAS (NPAS of
 * 4 KiB << LPS, from PAGE_OFFSET); NULL past its pages, across a page end,
 * or where the guest's memory is not (cx_dma). */
void *cx_queue_at(struct cx *cx, const uint64_t *pas, uint32_t npas,
		  uint8_t lps, uint32_t page_offset, uint64_t off, uint64_t len,
		  bool write);

void cx_pci_init(struct cx *cx);
void cx_cmd_doorbell(struct cx *cx, uint32_t bits);
int cx_cmd_exec(struct cx *cx, struct cx_cmd *c);
/* CX_BAD_INP_LEN, CX_BAD_OUTP_LEN or CX_BAD_SYS_STATE when the command's
 * input or output is shorter than IN or OUT bytes, or the function is
 * below STATE; else CX_OK.  Every command's first check. */
int cx_cmd_need(const struct cx *cx, const struct cx_cmd *c, uint32_t in,
		uint32_t out, enum cx_hca_state state);
int cx_hca_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_hca_reset(struct cx *cx);
void cx_caps_init(struct cx *cx);
int cx_caps_query(struct cx *cx, struct cx_cmd *c);
int cx_caps_set(struct cx *cx, struct cx_cmd *c);
int cx_eq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_eq_doorbell(struct cx *cx, uint32_t uar, uint32_t off, uint32_t val);
/* Post an EQE of TYPE with 28 bytes of event data to the EQ mapping it. */
bool cx_eq_post(struct cx *cx, uint8_t type, uint8_t sub_type, const void *data,
		unsigned int len);
/* The same to EQ EQN, whatever its mask (completion EQs take none). */
bool cx_eq_post_to(struct cx *cx, uint32_t eqn, uint8_t type, uint8_t sub_type,
		   const void *data, unsigned int len);
bool cx_eq_takes(struct cx *cx, uint8_t type);
void cx_eq_reset(struct cx *cx);
int cx_mad_exec(struct cx *cx, struct cx_cmd *c);
/* cx_eth.c: whether OP is an Ethernet port's command; run it (BAD_OP on
 * InfiniBand); the port's state made (false: no memory), emptied, freed. */
bool cx_eth_op(uint16_t op);
int cx_eth_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
bool cx_eth_init(struct cx *cx);
/* ACCESS_REG of an Ethernet port's register REG (cx_eth_vport.c): its
 * status, or -1 when the function has no such register. */
int cx_eth_reg(struct cx *cx, uint32_t reg, const struct cx_cmd *c);
void cx_eth_reset(struct cx *cx);
void cx_eth_free(struct cx *cx);
int cx_obj_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
int cx_port_exec(struct cx *cx, struct cx_cmd *c);
int cx_mkey_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
/*
 * A UMR WQE's UMR ctrl segment: its flags and the mkey_mask bits
 * (MLX5_WQE_UMR_CTRL_FLAG_*, MLX5_MKEY_MASK_*), for cx_umr.c (the UMR QP)
 * and cx_mw.c (window binds on a user QP).
 */
#define CX_UMR_INLINE	      (1 << 7)
#define CX_UMR_MASK_LEN	      (1ull << 0)
#define CX_UMR_MASK_PAGE_SIZE (1ull << 1)
#define CX_UMR_MASK_START     (1ull << 6)
#define CX_UMR_MASK_PD	      (1ull << 7)
#define CX_UMR_MASK_KEY	      (1ull << 13)
#define CX_UMR_MASK_QPN	      (1ull << 14)
#define CX_UMR_MASK_LR	      (1ull << 17)
#define CX_UMR_MASK_LW	      (1ull << 18)
#define CX_UMR_MASK_RR	      (1ull << 19)
#define CX_UMR_MASK_RW	      (1ull << 20)
#define CX_UMR_MASK_A	      (1ull << 21)
#define CX_UMR_MASK_FREE      (1ull << 29)

/* A send doorbell of the UMR QP QPN: run its WQEs up to the doorbell
 * record (cx_umr.c). */
void cx_umr_doorbell(struct cx *cx, uint32_t qpn);
void cx_mkey_reset(struct cx *cx);
/* cx_mkey.access bits, and the access modes (mkc.access_mode). */
enum {
	CX_MKEY_LR = 1 << 0,
	CX_MKEY_LW = 1 << 1,
	CX_MKEY_RR = 1 << 2,
	CX_MKEY_RW = 1 << 3,
	CX_MKEY_A = 1 << 4,
	CX_MKEY_MODE_PA = 0,
	CX_MKEY_MODE_MTT = 1,
	CX_MKEY_MODE_KLM = 2,
};
/*
 * The data path's one rule for a key: host address *HOST of byte ADDR of
 * KEY and how many bytes *RUN stay contiguous on the host, for LEN bytes
 * with access bits WANT (CX_MKEY_*; WRITE for a write); -1 when the key is
 * not valid, free, of another variant, of another PD than PDN (any PD for
 * PDN CX_ANY_PD), lacks an access bit, or any byte of the range is past
 * the key, its translation or the guest's memory.  A KLM key (a bound
 * window) translates through the key its entry names, which needs local
 * read, and local write for a write (any other KLM key there: -1).
 */
#define CX_ANY_PD UINT32_MAX
int cx_mkey_xlate(struct cx *cx, uint32_t pdn, uint32_t key, uint64_t addr,
		  uint64_t len, int want, bool write, uint8_t **host,
		  uint64_t *run);
/* The valid MKEY KEY (index << 8 | variant), or NULL. */
struct cx_mkey *cx_mkey_get(struct cx *cx, uint32_t key);
int cx_mkey_rinval(struct cx *cx, uint32_t pdn, uint32_t key);
/* The MKEY of index KEY >> 8 whatever its variant (a UMR names a window
 * so: libmlx5 gives its first rkey), or NULL. */
struct cx_mkey *cx_mkey_at(struct cx *cx, uint32_t key);
/* A UMR WQE W (DS 16-byte units) on user QP QPN of PD PDN: 0 or the
 * syndrome of its error CQE (cx_mw.c). */
int cx_mw_umr(struct cx *cx, uint32_t qpn, uint32_t pdn, const uint8_t *w,
	      unsigned int ds);
/* Start, variant, QPN, free and access from a UMR WQE's MKC, as MASK says
 * (cx_umr.c, cx_mw.c). */
void cx_mkey_take(struct cx_mkey *k, const uint8_t *mkc, uint64_t mask);
/* Whether entries [AT, AT + N) are within MTT key K's room. */
bool cx_mkey_fits(const struct cx_mkey *k, uint64_t at, uint32_t n);
/*
 * Entries [AT, AT + N) of key K's translation become MTT (a UMR WQE's
 * load, cx_umr.c): false unless cx_mkey_fits().
 */
bool cx_mkey_load(struct cx_mkey *k, uint64_t at, uint32_t n,
		  const uint64_t *mtt);
int cx_cq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
/* CQ CQN, or NULL when there is none. */
struct cx_cq *cx_cq_get(struct cx *cx, uint32_t cqn);
/* Whether the PD or XRCD number N is allocated (cx_obj.c). */
bool cx_obj_used(const struct cx *cx, unsigned int kind, uint32_t n);
int cx_srq_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_srq_reset(struct cx *cx);
/* Whether SRQN is an SRQ of either family (cx_srq.c). */
bool cx_srq_valid(const struct cx *cx, uint32_t srqn);
int cx_qp_exec(struct cx *cx, uint16_t opcode, struct cx_cmd *c);
void cx_qp_reset(struct cx *cx);
void cx_cq_reset(struct cx *cx);
/*
 * A 64-bit CQ doorbell on UAR page UAR: HI is sn << 28 | cmd | ci, LO cqn;
 * checked against the arm rules (cx_cq.c arm_checked()) first.
 */
void cx_cq_doorbell(struct cx *cx, uint32_t uar, uint32_t hi, uint32_t lo);
/*
 * For the data path: write the 64-byte CQE image CQE (its owner bit is
 * set here) at CQ CQN's producer counter and raise the completion event if
 * the CQ is armed for it (SOLICITED: a solicited or error CQE).  A CQ with
 * no room (the consumer index in its doorbell record says the next slot
 * is unpolled) takes nothing and gets a CQ error event (overrun), unless
 * created with oi.  Returns CX_OK, CX_BAD_RES (no such CQ) or CX_LIM (no
 * room).
 */
int cx_cq_push(struct cx *cx, uint32_t cqn, const uint8_t *cqe, bool solicited);
/*
 * Raise the moderated completion events whose cq_period has run out; the
 * nanoseconds until the next one is due, or -1 when none waits.
 */
int64_t cx_cq_timers(struct cx *cx);

#endif
