/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The ConnectX data path (cx_engine.c): the model's WQE/CQE engine
 * (sim/mlx5/engine/m5m_eng.h) run on the device's own objects.
 * The engine sees one struct m5m_qp per QP of cx_qp.c, m5m_cq per CQ of
 * cx_cq.c, m5m_srq per SRQ of cx_srq.c and m5m_pd per PD, made and
 * updated after each command that changes them (cx_eng_qp_made ...); its
 * seam answers from the device: keys are cx_mkey.c's MKEYs (PA and MTT,
 * access bits, pd) over guest memory through cx_dma(), CQEs go through
 * cx_cq_push() (arming, moderation, EQEs, MSI-X: the CQ's own state
 * machine), async events through cx_eq_post(), loopback peers are QPs
 * of the function.
 */
#ifndef DOORBELL_TESTS_CX_ENGINE_H
#define DOORBELL_TESTS_CX_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cx;

/* What the data path counted: bad guest input it ignored. */
struct cx_eng_stats {
	uint64_t doorbells; /* send doorbells that ran an SQ */
	uint64_t
		stray_doorbells; /* for no QP, or a QP not in a sending state */
	uint64_t events;	 /* affiliated async events posted */
	uint64_t cqe_lost;	 /* CQEs cx_cq_push refused (no CQ, no room) */
	/*
	 * The engine's checks (m5m_check), per rule; a ConnectX would not
	 * say, the server prints them at exit and fails on any.
	 */
	uint64_t recv_violations; /* RQ/SRQ dbrec: over-posting, bad WQE */
	uint64_t send_violations; /* while running an SQ: WQE past dbrec */
	uint64_t wqe_rewritten;	  /* slow device: WQE changed before its CQE */
	uint64_t db_not_wqe;	  /* doorbell != first 8 bytes of its WQE */
	uint64_t db_not_last;	  /* doorbell names no WQE ending at dbrec */
	uint64_t db_wrong_uar;	  /* on a UAR page not its QPC's: dropped */
	uint64_t arm_wrong_uar;	  /* CQ arm not on its CQC's UAR: dropped */
	uint64_t arm_not_dbrec;	  /* arm word != the dbrec's at +4 */
	uint64_t arm_bad_cmd;	  /* arm word with unknown command bits */
	uint64_t arm_sn_ahead;	  /* arm sn advanced past the events raised */
	uint64_t bf_payload_not_wqe; /* BlueFlame copy != the WQE in memory */
	uint64_t bf_half_reused;     /* a copy on the half rung last */
	uint64_t bf_partial;	     /* a copy torn by the bfreg's next write */
	uint64_t bf_doorbells; /* BlueFlame copies run (not a violation) */
	uint64_t violations;   /* all of the engine's, these included */
	/* slow device (m5model.h's slow_late, slow_held): it was slow */
	uint64_t slow_late, slow_held;
	/* RC/XRC requests resent after the ACK timeout (m5model.h's) */
	uint64_t ack_timeouts;
	/* RoCE (m5model.h's wire_*): packets sent, taken, resends */
	uint64_t wire_packets, wire_received, wire_resends;
};

int cx_eng_init(struct cx *cx);
void cx_eng_fini(struct cx *cx);
void cx_eng_reset(struct cx *cx);
/*
 * The engine's objects follow the device's, called by cx_qp.c and cx_srq.c
 * when a command changed them: a QP made in RST (CREATE_QP, 2RST), moved by
 * another state command, destroyed; an SRQ made fresh (CREATE_XRC_SRQ,
 * CREATE_RMP), its limit set (ARM_XRC_SRQ, MODIFY_RMP), destroyed.
 */
void cx_eng_qp_made(struct cx *cx, uint32_t qpn);
void cx_eng_qp_moved(struct cx *cx, uint32_t qpn);
void cx_eng_qp_gone(struct cx *cx, uint32_t qpn);
/* QUERY_QP: the QP's live send and receive PSNs into QPC; 0 if none. */
void cx_eng_qp_psns(struct cx *cx, uint32_t qpn, uint8_t *qpc);
void cx_eng_srq_made(struct cx *cx, uint32_t srqn);
void cx_eng_srq_limit(struct cx *cx, uint32_t srqn);
void cx_eng_srq_gone(struct cx *cx, uint32_t srqn);
/*
 * A write at offset OFF (0x800 and up) of UAR page UAR: the first eight
 * bytes of a send WQE's control segment (the doorbell, or the start of a
 * BlueFlame copy) at the start of a BlueFlame buffer name the QP whose SQ
 * runs up to its doorbell record, if UAR is the page its QPC names (else
 * dropped and counted).  LEN 8 is the doorbell; more (up to a half) is a
 * whole BlueFlame copy (assembled by cx_bf.c), which runs in place of the
 * WQE it names.
 */
void cx_eng_send_doorbell(struct cx *cx, uint32_t uar, uint32_t off,
			  const uint8_t *b, uint32_t len);
const struct cx_eng_stats *cx_eng_stats(const struct cx *cx);
/* The CQ arm doorbell's rules (cx_cq.c checks them), counted here. */
enum cx_arm_rule {
	CX_ARM_WRONG_UAR,
	CX_ARM_NOT_DBREC,
	CX_ARM_BAD_CMD,
	CX_ARM_SN_AHEAD,
};
void cx_eng_arm_violation(struct cx *cx, enum cx_arm_rule rule);
/* BlueFlame's rules (cx_bf.c checks them), counted here. */
enum cx_bf_rule {
	CX_BF_HALF_REUSED,
	CX_BF_PARTIAL,
};
void cx_eng_bf_note(struct cx *cx, enum cx_bf_rule rule);
/*
 * Prints "violations: N", one line per rule that counted and one
 * "stat: NAME N" per statistic (bf_doorbells); the total of violations
 * (with f NULL, prints nothing).
 */
uint64_t cx_eng_report(const struct cx *cx, FILE *f);
/*
 * The engine's clock follows the host's: moved to now (running the RNR
 * retries that fell due on the way, as a ConnectX's timers would, and
 * flushing the receives posted to a QP in ERR), then the nanoseconds to its
 * next timer, or -1 if none is pending.  The server calls
 * it between messages (cx_timers()).
 */
int64_t cx_eng_timers(struct cx *cx);
/*
 * RoCE: the device's QP (its index) that QPN, a packet's destination,
 * names on the wire (1: the function's QP1), or -1; a packet (BTH
 * onwards, no ICRC) for that QP from the wire (cx_roce.c), with the bytes
 * of a UD receive's GRH area.
 */
int cx_eng_wire_qp(struct cx *cx, uint32_t qpn);
void cx_eng_wire_rx(struct cx *cx, uint32_t n, const uint8_t *pkt, size_t len,
		    const uint8_t *grh);
/* Where a RoCE packet goes: a connected QP's address path, a UD AV's. */
struct cx_roce_addr {
	uint8_t sgid_index; /* into the RoCE address table */
	uint8_t dmac[6];
	uint8_t dgid[16];
	uint8_t hop_limit, tclass;
	uint32_t flow_label;
	uint16_t udp_sport; /* 0: the device picks */
};
/* cx_roce.c: QP QPN's address path; the engine's packet, framed, sent. */
void cx_roce_qp_addr(const struct cx *cx, uint32_t qpn, struct cx_roce_addr *a);
void cx_roce_tx(struct cx *cx, const struct cx_roce_addr *a, const uint8_t *pkt,
		size_t len);

#endif /* DOORBELL_TESTS_CX_ENGINE_H */
