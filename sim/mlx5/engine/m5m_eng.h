/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The seam of the WQE/CQE engine (m5m_send.c, m5m_slow.c, m5m_recv.c, m5m_wqe.c,
 * m5m_qperr.c, m5m_dma.c and the CQE builders of m5m_cq.c): everything the
 * engine asks of the device around it.  The model's own answers are in
 * m5m_eng.c (MRs are host pointers, CQEs go to its CQ machinery, events to
 * its async EQ); the software ConnectX PCI function of sim/mlx5/pci gives its
 * own (MKEY to page table to guest memory, its CQs and EQs).
 *
 * A user of the engine fills the engine objects (struct m5m_qp, m5m_srq,
 * m5m_cq, m5m_pd of m5m_int.h; docs/mlx5-model.md lists the fields) with
 * their dev pointing at a device whose ops it set, and calls m5m_sq_run()
 * after setting qp->db_pi to the SND dbrec a doorbell announced.  On a
 * slow device (dev->slow, m5m_slow.c) m5m_sq_run() only flushes; the user's
 * timer calls m5m_sq_tick() for each QP (m5m_sq_busy(): while it has work),
 * and frees a QP's WQEs in flight with m5m_fly_drop() before the QP.
 */
#ifndef DOORBELL_TESTS_M5M_ENG_H
#define DOORBELL_TESTS_M5M_ENG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct m5m_dev;
struct m5m_pd;
struct m5m_qp;
struct m5m_srq;
struct m5m_cq;
struct m5_cqe64;
struct m5m_wqe;
struct m5_av;

struct m5m_eng_ops {
	/*
	 * Key key of protection domain pd over [addr, addr + len): 0 if the
	 * key exists in pd, covers the range and grants every IBV_ACCESS_*
	 * bit of access (0: a local read); then *host is the host address of
	 * addr and *run (1 to len bytes) how far it stays contiguous.  -1
	 * otherwise (the engine picks the syndrome).  No side effects.
	 */
	int (*xlate)(void *arg, const struct m5m_pd *pd, uint32_t key,
		     uint64_t addr, uint64_t len, int access, uint8_t **host,
		     uint64_t *run);
	/*
	 * SEND with Invalidate: 0 if key exists in pd, is in use and was
	 * created with remote invalidation enabled (mkc en_rinval); the key
	 * is then free (invalid until a UMR or BIND makes it valid again).
	 * -1 otherwise, and nothing changes.
	 */
	int (*rinval)(void *arg, const struct m5m_pd *pd, uint32_t key);
	/*
	 * A UMR WQE posted on qp (a memory window bind, unbind or local
	 * invalidate, as libmlx5 writes them): 0 once applied, or the
	 * requester syndrome of its error CQE, and nothing changes.  NULL:
	 * every such WQE completes with LOCAL_QP_OP_ERR (the model has no
	 * windows).
	 */
	int (*umr)(void *arg, const struct m5m_qp *qp, const struct m5m_wqe *w);
	/*
	 * Host address of byte off of a QP's buffer (RQ first, then SQ) or
	 * an SRQ's.  The engine asks for the start of one WQE or WQEBB and
	 * reads no further than its end.
	 */
	uint8_t *(*qp_buf)(void *arg, const struct m5m_qp *qp, size_t off);
	uint8_t *(*srq_buf)(void *arg, const struct m5m_srq *srq, size_t off);
	/* Write a CQE (sol: it satisfies a solicited-only arm). */
	void (*cqe)(void *arg, struct m5m_cq *cq, const struct m5_cqe64 *cqe,
		    bool sol);
	/* An affiliated async event: num is a QPN (res_type 0) or SRQN (1). */
	void (*event)(void *arg, uint8_t type, uint32_t num, uint8_t res_type);
	/* The QP numbered qpn on this device, or NULL (loopback peers). */
	struct m5m_qp *(*qp_find)(void *arg, uint32_t qpn);
	/* The SRQ numbered srqn, or NULL (an XRC segment names it). */
	struct m5m_srq *(*srq_find)(void *arg, uint32_t srqn);
	/*
	 * A packet of a QP on the wire (qp->wire: RoCE), BTH onwards: the
	 * device frames it to the QP's address path (UD: to av, the WQE's
	 * address vector) and sends it.  NULL: no QP is on a wire.
	 */
	void (*wire_tx)(void *arg, const struct m5m_qp *qp,
			const struct m5_av *av, const uint8_t *pkt, size_t len);
};

/* Replace the model's answers (NULL ops: back to them). */
void m5m_eng_set_ops(struct m5m_dev *dev, const struct m5m_eng_ops *ops,
		     void *arg);

#endif /* DOORBELL_TESTS_M5M_ENG_H */
