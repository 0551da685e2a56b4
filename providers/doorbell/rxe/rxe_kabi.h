/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The rdma_rxe user/kernel formats of Linux 6.1 that the rxe backend depends
 * on: the shared ring header, the WQE and CQE slots, and the driver data
 * appended to uverbs commands.  The structs come from the system's
 * <rdma/rdma_user_rxe.h>; this header pins every layout we rely on.
 */
#ifndef DOORBELL_RXE_KABI_H
#define DOORBELL_RXE_KABI_H

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

#endif /* DOORBELL_RXE_KABI_H */
