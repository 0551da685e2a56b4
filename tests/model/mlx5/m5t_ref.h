/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The reference encoder the mlx5 cross-check and property tests hold the
 * backend's bytes against: send WQEs, receive and SRQ WQEs and UD address
 * vectors, built from a verbs WR with the inline helpers and struct layouts
 * of <infiniband/mlx5dv.h> only (never with backend code or mlx5_hw.h).
 */
#ifndef DOORBELL_TESTS_M5T_REF_H
#define DOORBELL_TESTS_M5T_REF_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* The largest WQE the reference builds: 63 units of 16 bytes ... */
#define M5T_REF_MAX_WQE 1008
/* ... and the buffer it builds one in (room for a header overrun). */
#define M5T_REF_BUF (M5T_REF_MAX_WQE + 144)

/* The fields of a UD address vector, as an AH's attributes give them. */
struct m5t_av_info {
	uint8_t stat_rate_sl;
	uint8_t fl_mlid;
	uint16_t rlid; /* IB: DLID; RoCE v2: UDP source port; v1: 0 */
	uint8_t rmac[6];
	uint8_t tclass;
	uint8_t hop_limit;
	uint32_t grh_gid_fl;
	uint8_t rgid[16];
};

/* An AH the reference knows, with the AV it must produce. */
struct m5t_ah_info {
	struct ibv_ah *ah;
	struct m5t_av_info av;
};

/* What the reference needs to know of the QP a send WR goes to. */
struct m5t_sq_info {
	uint32_t qpn;
	bool ud;
	bool sig_all;
	const struct m5t_ah_info *ahs; /* UD: the AHs WRs may name */
	unsigned int nahs;
};

/* mlx5's static-rate code of an ibv_rate (IBTA 1.3 table 224). */
uint8_t m5t_ref_rate(enum ibv_rate rate);
/* The RoCE v2 UDP source port a non-zero flow label selects. */
uint16_t m5t_ref_sport(uint32_t flow_label);
/*
 * The AV of an AH on a port of link layer eth with GID type type; dmac is
 * the kernel's answer (RoCE), sport the UDP source port (RoCE v2).
 */
void m5t_ref_av(struct m5t_av_info *av, const struct ibv_ah_attr *attr,
		bool eth, enum ibv_gid_type type, const uint8_t *dmac,
		uint16_t sport);

/*
 * The send WQE of wr at SQ index pi, into out (16-byte aligned,
 * M5T_REF_BUF bytes), with the generic mlx5dv helpers (x86 false) or
 * their mlx5dv_x86_* forms.  Inline data is read from the SGEs now.
 * Returns the WQE's length (ds * 16), or 0 for a WR it cannot encode.
 */
unsigned int m5t_ref_send(uint8_t *out, const struct m5t_sq_info *q,
			  uint16_t pi, const struct ibv_send_wr *wr, bool x86);
/* Both forms; false (and a line printed) if they differ. */
bool m5t_ref_send_both(uint8_t *out, unsigned int *len,
		       const struct m5t_sq_info *q, uint16_t pi,
		       const struct ibv_send_wr *wr);

/*
 * The scatter list of a receive WQE with room for max_gs segments: one
 * data segment per non-empty SGE, then the terminator if there is room.
 * Returns the bytes the provider writes.
 */
unsigned int m5t_ref_recv(uint8_t *out, const struct ibv_recv_wr *wr,
			  unsigned int max_gs, bool x86);
bool m5t_ref_recv_both(uint8_t *out, unsigned int *len,
		       const struct ibv_recv_wr *wr, unsigned int max_gs);
/* An SRQ WQE's next segment pointing at WQE next. */
void m5t_ref_srq_next(uint8_t *out, uint16_t next);
/* x86 forms available in this build (else the generic ones stand in). */
bool m5t_ref_have_x86(void);

/* --- Rings ---------------------------------------------------------------- */

/* Copy len bytes into a ring of ring_len bytes at off, wrapping. */
void m5t_ring_put(uint8_t *ring, size_t ring_len, size_t off, const void *src,
		  size_t len);
/* Copy len bytes out of a ring at off, wrapping. */
void m5t_ring_get(void *dst, const uint8_t *ring, size_t ring_len, size_t off,
		  size_t len);
/*
 * Compare two rings; on a difference print what, the offset, and the 16
 * bytes around it from both.  True if equal.
 */
bool m5t_ring_same(const char *what, const uint8_t *got, const uint8_t *want,
		   size_t len);

#endif /* DOORBELL_TESTS_M5T_REF_H */
