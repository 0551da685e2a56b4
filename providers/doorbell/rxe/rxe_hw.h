/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The rdma_rxe user/kernel formats of Linux 6.1 that the rxe backend depends
 * on: the shared ring header, the WQE and CQE slots, and the driver data
 * appended to uverbs commands.  The structs come from the system's
 * <rdma/rdma_user_rxe.h>; this header pins every layout we rely on.
 */
#ifndef DOORBELL_RXE_HW_H
#define DOORBELL_RXE_HW_H

#include <stddef.h>
/* <netinet/in.h> must come before the uapi header, which pulls <linux/in.h>. */
#include <netinet/in.h>
#include <rdma/rdma_user_rxe.h>

#include "abi/verbs_pabi34.h"

/* Kernel ABI version rxe reports in sysfs (rxe.h RXE_UVERBS_ABI_VERSION). */
#define RXE_KABI_VERSION 2

/* Shared ring header: indices sit in separate cache lines. */
_Static_assert(offsetof(struct rxe_queue_buf, log2_elem_size) == 0, "ring");
_Static_assert(offsetof(struct rxe_queue_buf, index_mask) == 4, "ring");
_Static_assert(offsetof(struct rxe_queue_buf, producer_index) == 128, "ring");
_Static_assert(offsetof(struct rxe_queue_buf, consumer_index) == 256, "ring");
_Static_assert(offsetof(struct rxe_queue_buf, data) == 384, "ring");

_Static_assert(sizeof(struct mminfo) == 16, "mminfo");
_Static_assert(sizeof(struct rxe_sge) == 16, "rxe_sge");
_Static_assert(sizeof(struct rxe_sge) == sizeof(struct ibv_sge),
	       "SGEs are copied verbatim");
_Static_assert(offsetof(struct rxe_sge, length) ==
			       offsetof(struct ibv_sge, length) &&
		       offsetof(struct rxe_sge, lkey) ==
			       offsetof(struct ibv_sge, lkey),
	       "SGEs are copied verbatim");

/* Send WQE. */
_Static_assert(sizeof(struct rxe_send_wr) == 144, "rxe_send_wr");
_Static_assert(offsetof(struct rxe_send_wr, opcode) == 12, "send_wr.opcode");
_Static_assert(offsetof(struct rxe_send_wr, send_flags) == 16, "send_flags");
_Static_assert(offsetof(struct rxe_send_wr, ex) == 20, "send_wr.ex");
_Static_assert(offsetof(struct rxe_send_wr, wr) == 24, "send_wr.wr");
_Static_assert(offsetof(struct rxe_send_wr, wr.atomic.rkey) == 48, "atomic");
_Static_assert(offsetof(struct rxe_send_wr, wr.ud.ah_num) == 36, "ud.ah_num");
_Static_assert(offsetof(struct rxe_send_wr, wr.mw.rkey) == 48, "mw.rkey");
_Static_assert(offsetof(struct rxe_send_wqe, status) == 144, "wqe.status");
_Static_assert(offsetof(struct rxe_send_wqe, iova) == 152, "wqe.iova");
_Static_assert(offsetof(struct rxe_send_wqe, ssn) == 176, "wqe.ssn");
_Static_assert(offsetof(struct rxe_send_wqe, dma) == 184, "wqe.dma");
_Static_assert(sizeof(struct rxe_send_wqe) == 208, "send WQE header");
_Static_assert(offsetof(struct rxe_dma_info, sge) == 24, "dma.sge");
_Static_assert(offsetof(struct rxe_dma_info, inline_data) == 24, "inline");

/*
 * RDMA FLUSH and ATOMIC WRITE (Linux 6.2 and 6.3; not in 6.1): the WQE
 * fields rxe reads for them.  rdma_user_rxe.h puts both in existing unions,
 * so no size or older offset moved.
 */
_Static_assert(offsetof(struct rxe_send_wr, wr.flush.remote_addr) == 24,
	       "flush.remote_addr");
_Static_assert(offsetof(struct rxe_send_wr, wr.flush.length) == 32,
	       "flush.length");
_Static_assert(offsetof(struct rxe_send_wr, wr.flush.rkey) == 36, "flush.rkey");
_Static_assert(offsetof(struct rxe_send_wr, wr.flush.type) == 40, "flush.type");
_Static_assert(offsetof(struct rxe_send_wr, wr.flush.level) == 41,
	       "flush.level");
_Static_assert(offsetof(struct rxe_send_wr, wr.rdma.remote_addr) == 24 &&
		       offsetof(struct rxe_send_wr, wr.rdma.rkey) == 32,
	       "rdma");
_Static_assert(offsetof(struct rxe_dma_info, atomic_wr) == 24, "atomic_wr");

/*
 * Their names in libibverbs and the kernel.  rdma-core 44's verbs.h, which
 * doorbell builds against, has the ATOMIC WRITE names but none of FLUSH's
 * (rdma-core 45), so the backend uses these, checked against the kernel
 * uAPI and, where it has them, verbs.h.
 */
enum {
	RXE_WR_FLUSH = 14,		       /* IBV_WR_FLUSH */
	RXE_WR_ATOMIC_WRITE = 15,	       /* IBV_WR_ATOMIC_WRITE */
	RXE_WC_FLUSH = 8,		       /* IBV_WC_FLUSH */
	RXE_WC_ATOMIC_WRITE = 9,	       /* IBV_WC_ATOMIC_WRITE */
	RXE_QP_EX_WITH_FLUSH = 1 << 11,	       /* IBV_QP_EX_WITH_FLUSH */
	RXE_QP_EX_WITH_ATOMIC_WRITE = 1 << 12, /* IBV_QP_EX_WITH_ATOMIC_WRITE */
	RXE_ACCESS_FLUSH_GLOBAL = 1 << 8,      /* IBV_ACCESS_FLUSH_GLOBAL */
	RXE_ACCESS_FLUSH_PERSISTENT = 1 << 9,  /* IBV_ACCESS_FLUSH_PERSISTENT */
	RXE_FLUSH_GLOBAL = 1, /* enum ibv_placement_type, a bit mask */
	RXE_FLUSH_PERSISTENT = 2,
	RXE_FLUSH_RANGE = 0, /* enum ibv_selectivity_level */
	RXE_FLUSH_MR = 1,
	RXE_ATOMIC_WRITE_LEN = 8, /* bytes of an ATOMIC WRITE */
};

/* device_cap_flags_ex bits (IB_UVERBS_DEVICE_*). */
#define RXE_DEV_FLUSH_GLOBAL	 (1ULL << 38)
#define RXE_DEV_FLUSH_PERSISTENT (1ULL << 39)
#define RXE_DEV_ATOMIC_WRITE	 (1ULL << 40)

/* Values of different enum types, compared as ints. */
#define RXE_SAME(a, b) ((long long)(a) == (long long)(b))
_Static_assert(RXE_SAME(RXE_WR_FLUSH, IB_UVERBS_WR_FLUSH) &&
		       RXE_SAME(RXE_WR_ATOMIC_WRITE, IB_UVERBS_WR_ATOMIC_WRITE),
	       "WR opcodes");
_Static_assert(RXE_SAME(RXE_WC_FLUSH, IB_UVERBS_WC_FLUSH) &&
		       RXE_SAME(RXE_WC_ATOMIC_WRITE, IB_UVERBS_WC_ATOMIC_WRITE),
	       "WC opcodes");
_Static_assert(RXE_SAME(RXE_WR_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE) &&
		       RXE_SAME(RXE_WC_ATOMIC_WRITE, IBV_WC_ATOMIC_WRITE) &&
		       RXE_SAME(RXE_QP_EX_WITH_ATOMIC_WRITE,
				IBV_QP_EX_WITH_ATOMIC_WRITE),
	       "verbs.h (rdma-core 44) ATOMIC WRITE names");
/*
 * RXE_ACCESS_FLUSH_* are not checked here: they are
 * IB_UVERBS_ACCESS_FLUSH_* of ib_user_ioctl_verbs.h, and libibverbs-dev
 * 44's copy of that header, which wins (kernel-headers/README.md), predates
 * them.  The access flags go to the kernel unchanged in any case.
 */
_Static_assert(RXE_SAME(RXE_FLUSH_GLOBAL, IB_FLUSH_GLOBAL) &&
		       RXE_SAME(RXE_FLUSH_PERSISTENT, IB_FLUSH_PERSISTENT) &&
		       RXE_SAME(RXE_FLUSH_RANGE, IB_FLUSH_RANGE) &&
		       RXE_SAME(RXE_FLUSH_MR, IB_FLUSH_MR),
	       "placement type and selectivity level");
_Static_assert(RXE_DEV_FLUSH_GLOBAL == IB_UVERBS_DEVICE_FLUSH_GLOBAL &&
		       RXE_DEV_FLUSH_PERSISTENT ==
			       IB_UVERBS_DEVICE_FLUSH_PERSISTENT &&
		       RXE_DEV_ATOMIC_WRITE == IB_UVERBS_DEVICE_ATOMIC_WRITE,
	       "device_cap_flags_ex bits");

/* Receive WQE. */
_Static_assert(offsetof(struct rxe_recv_wqe, dma) == 16, "recv_wqe.dma");
_Static_assert(sizeof(struct rxe_recv_wqe) == 40, "recv WQE header");

/*
 * CQE: the kernel writes a struct ib_uverbs_wc into a slot sized for its own
 * struct ib_wc; we read the uverbs layout field by field.
 */
_Static_assert(sizeof(struct ib_uverbs_wc) == 48, "ib_uverbs_wc");
_Static_assert(offsetof(struct ib_uverbs_wc, wc_flags) == 36, "wc_flags");
_Static_assert(offsetof(struct ib_uverbs_wc, port_num) == 46, "port_num");

/* Kernel enum ib_wc_flags bits found in rxe receive CQEs. */
enum {
	RXE_KWC_GRH = 1 << 0,
	RXE_KWC_WITH_IMM = 1 << 1,
	RXE_KWC_WITH_INVALIDATE = 1 << 2,
	RXE_KWC_IP_CSUM_OK = 1 << 3,
};

/* Command buffers with rxe's driver data (responses carry mmap info). */
struct rxe_cmd_create_cq_ex_resp {
	struct ib_uverbs_ex_create_cq_resp ibv;
	struct rxe_create_cq_resp drv;
};

struct rxe_cmd_resize_cq {
	struct ibv_resize_cq ibv;
};

struct rxe_cmd_resize_cq_resp {
	struct ib_uverbs_resize_cq_resp ibv;
	struct rxe_resize_cq_resp drv;
};

struct rxe_cmd_create_qp_ex_resp {
	struct ib_uverbs_ex_create_qp_resp ibv;
	struct rxe_create_qp_resp drv;
};

struct rxe_cmd_create_srq_resp {
	struct ib_uverbs_create_srq_resp ibv;
	struct rxe_create_srq_resp drv;
};

struct rxe_cmd_modify_srq {
	struct ibv_modify_srq ibv;
	struct rxe_modify_srq_cmd drv;
};

struct rxe_cmd_create_ah_resp {
	struct ib_uverbs_create_ah_resp ibv;
	struct rxe_create_ah_resp drv;
};

_Static_assert(sizeof(struct rxe_cmd_create_cq_ex_resp) == 32, "cq resp");
_Static_assert(sizeof(struct rxe_cmd_resize_cq_resp) == 24, "resize resp");
_Static_assert(sizeof(struct rxe_cmd_create_qp_ex_resp) == 72, "qp resp");
_Static_assert(offsetof(struct rxe_cmd_create_qp_ex_resp, drv.sq_mi) == 56,
	       "rq_mi precedes sq_mi");
_Static_assert(sizeof(struct rxe_cmd_create_srq_resp) == 40, "srq resp");
_Static_assert(sizeof(struct rxe_cmd_modify_srq) == 32, "modify_srq cmd");
_Static_assert(sizeof(struct rxe_cmd_create_ah_resp) == 12, "ah resp");

#endif /* DOORBELL_RXE_HW_H */
