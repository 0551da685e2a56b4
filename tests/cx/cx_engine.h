/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The ConnectX data path on the model's WQE/CQE engine
 * (tests/model/mlx5/device/m5m_eng.h): guest memory is a buffer at guest
 * physical address 0, an MKEY translates through a table of guest page
 * addresses (an MTT), QP and CQ buffers are lists of guest pages (PAS),
 * doorbell records guest addresses.  Kept to what the engine needs, so
 * that cx_mkey.c and cx_qp.c can fill it from their objects.
 */
#ifndef DOORBELL_TESTS_CX_ENGINE_H
#define DOORBELL_TESTS_CX_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "m5m_int.h"

#define CXE_PAGE     4096u
#define CXE_MAX_OBJS 16

/* An MKEY: [iova, iova + len) on the pages of mtt (iova's page first). */
struct cxe_mkey {
	uint32_t key;
	uint32_t pdn;
	uint64_t iova;
	uint64_t len;
	int access; /* IBV_ACCESS_* */
	unsigned int npages;
	const uint64_t *mtt; /* guest physical page addresses */
};

struct cxe_cq {
	struct m5m_cq m; /* the engine's view */
	uint32_t ncqe;	 /* power of two */
	uint32_t pi;	 /* CQEs written, free-running */
	const uint64_t *pas;
	unsigned int npages;
};

struct cxe_qp_attr {
	uint32_t qpn;
	enum ibv_qp_type type; /* IBV_QPT_RC or IBV_QPT_UD */
	uint32_t pdn;
	struct cxe_cq *scq, *rcq;
	uint32_t rq_cnt;   /* receive WQEs, power of two */
	uint32_t rq_shift; /* log2 of the receive WQE stride */
	uint32_t sq_bbs;   /* send WQEBBs, power of two */
	uint64_t dbr;	   /* guest address of the doorbell record */
	const uint64_t *pas;
	unsigned int npages;
};

struct cxe_qp {
	struct m5m_qp m; /* the engine's view */
	const uint64_t *pas;
	unsigned int npages;
};

struct cxe {
	struct m5m_dev *dev; /* the engine's state (lenient, quiet) */
	uint8_t *mem;	     /* guest memory, guest physical 0 */
	uint64_t mem_len;
	const struct cxe_mkey *mkeys[CXE_MAX_OBJS];
	struct m5m_pd pds[CXE_MAX_OBJS];
	unsigned int npds;
	struct cxe_qp *qps[CXE_MAX_OBJS];
	uint64_t events; /* affiliated async events raised */
	uint8_t last_event;
};

int cxe_init(struct cxe *e, uint8_t *mem, uint64_t mem_len);
void cxe_fini(struct cxe *e);
/* Host address of guest [gpa, gpa + len), or NULL outside guest memory. */
void *cxe_gpa(const struct cxe *e, uint64_t gpa, uint64_t len);
int cxe_mkey_add(struct cxe *e, const struct cxe_mkey *mk);
void cxe_cq_init(struct cxe *e, struct cxe_cq *cq, uint32_t ncqe,
		 const uint64_t *pas, unsigned int npages);
/* NULL if the doorbell record is outside guest memory. */
struct cxe_qp *cxe_qp_create(struct cxe *e, const struct cxe_qp_attr *a);
void cxe_qp_destroy(struct cxe *e, struct cxe_qp *qp);
/* RESET to RTS in one step: peer (RC), Q_Key (UD), responder access. */
void cxe_qp_rts(struct cxe_qp *qp, uint32_t dest_qpn, uint32_t qkey,
		int access);
/* A send doorbell: run the SQ up to the SND doorbell record. */
void cxe_sq_doorbell(struct cxe *e, struct cxe_qp *qp);

#endif /* DOORBELL_TESTS_CX_ENGINE_H */
