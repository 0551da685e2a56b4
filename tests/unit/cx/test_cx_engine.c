// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path (cx_engine.c) driven as mlx5_ib and libmlx5 drive it:
 * PD, MTT MKEYs, CQs and QPs made by commands, QPs moved to RTS by their
 * state commands, WQEs written into the QP's guest pages, the doorbell
 * record, then the doorbell at UAR offset 0x800.  The bytes that arrived
 * and the CQEs in the guest's CQ rings are checked against the mlx5_hw.h
 * layouts; page arithmetic here is the test's own.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cx_rig.h"

static void rc_send_across_pages_lands_and_completes_both_sides(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x40;
	const struct m5_cqe64 *c;

	t_fill(r, 0, src, 6000, 3);
	t_recv(r, 1, 8000, dst);
	t_send(r, 6000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 6000));
	t_check_req(r, 0, M5_OPCODE_SEND, 6000);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	CHECK_EQ(be32toh(c->byte_cnt), 6000);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->sop_drop_qpn) & 0xffffff, r->qpn[1]);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	/* One CQE each: the next slots are still the driver's. */
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->doorbells, 1);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_wqe, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->db_not_last, 0);
	t_rig_free(r);
}

/*
 * An inline segment (a 12-byte header, padded to 16) followed by a data
 * segment, as UCX's ud_mlx5 and rc_mlx5 post a header and its payload: the
 * receiver gets the inline bytes, then the data segment's.
 */
static void rc_send_of_inline_bytes_then_a_data_segment_lands_in_order(void)
{
	static const uint8_t hdr[12] = "header bytes";
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0x200, dst = t_iova[1] + 0x40;
	struct m5_inline_seg *inl;
	uint8_t *w;

	t_fill(r, 0, src, 100, 9);
	t_recv(r, 1, 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 3);
	inl = (struct m5_inline_seg *)w;
	inl->byte_count = htobe32(sizeof(hdr) | M5_INLINE_SEG);
	memcpy(w + sizeof(*inl), hdr, sizeof(hdr));
	t_data(w + 16, 100, r->key[0], src);
	t_ring(r, 0, 1);
	CHECK(!memcmp(t_va(r, 1, dst), hdr, sizeof(hdr)));
	CHECK(t_same(r, 0, src, 1, dst + sizeof(hdr), 100));
	t_check_req(r, 0, M5_OPCODE_SEND, sizeof(hdr) + 100);
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), sizeof(hdr) + 100);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/* An inline length past the end of ds is a violation, and no byte lands. */
static void inline_segment_overrunning_its_ds_is_a_violation(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	struct m5_inline_seg *inl;
	uint8_t *w;

	t_fill(r, 1, t_iova[1], 64, 5);
	t_recv(r, 1, 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 2);
	inl = (struct m5_inline_seg *)w;
	inl->byte_count = htobe32(13 | M5_INLINE_SEG); /* 4 + 13 > 16 */
	t_ring(r, 0, 1);
	CHECK(cx_eng_stats(r->cx)->violations >= 1);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(*t_va(r, 1, t_iova[1]), 5);
	t_rig_free(r);
}

/* A field of QP i's QPC (F_QPC_...), as QUERY_QP reports it. */
static uint32_t t_qpc(struct t_rig *r, unsigned int i, unsigned int off,
		      unsigned int width)
{
	uint8_t in[16] = { 0 }, out[0x110];

	cx_set(in, F_IN_OPCODE, CX_OP_QUERY_QP);
	cx_set(in, F_QPN, r->qpn[i]);
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	return cx_get(out + B_QPC, off, width);
}

static uint32_t t_qp_state(struct t_rig *r, unsigned int i)
{
	return t_qpc(r, i, F_QPC_STATE);
}

/* UC: SEND and RDMA WRITE land as on RC, with one CQE each side. */
static void uc_send_and_rdma_write_land(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1] + 0x80;

	t_fill(r, 0, src, 3000, 1);
	t_recv(r, 1, 4096, dst);
	t_send(r, 3000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 3000));
	t_check_req(r, 0, M5_OPCODE_SEND, 3000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(t_cqe(1, 0)->byte_cnt), 3000);

	t_fill(r, 0, src, 5000, 2);
	t_write(r, r->key[1], dst + 16, 5000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst + 16, 5000));
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/*
 * UC has no acknowledgement: a SEND with no receive WQE posted, and an
 * RDMA WRITE with a key the responder does not have, are dropped there;
 * the requester completes them without error, the responder writes no
 * CQE and stays in RTS (a SEND after them lands).
 */
static void uc_messages_the_responder_cannot_take_are_dropped(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1];

	t_fill(r, 0, src, 64, 4);
	t_fill(r, 1, dst, 256, 8);
	t_send(r, 64, r->key[0], src);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_write(r, r->key[1] ^ 0x100, dst, 64, r->key[0], src);
	CHECK_EQ(t_cqe(0, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	CHECK_EQ(*t_va(r, 1, dst), (uint8_t)8);
	CHECK_EQ(t_qp_state(r, 1), CX_QP_RTS);

	t_recv(r, 1, 256, dst + 128);
	t_send(r, 64, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst + 128, 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(cx_eng_stats(r->cx)->violations, 0);
	t_rig_free(r);
}

/* RDMA READ is not a UC operation: the WQE completes in error. */
static void uc_rdma_read_completes_in_error(void)
{
	struct t_rig *r = t_rig(CX_ST_UC);
	uint8_t *w;

	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 3);
	t_raddr(w, r->key[1], t_iova[1]);
	t_data(w + 16, 64, r->key[0], t_iova[0]);
	t_ring(r, 0, 1);
	CHECK_EQ(t_cqe(0, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	t_rig_free(r);
}

static void queues_on_large_pages_start_at_their_page_offset(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 1, false, false);
	uint64_t src = t_iova[0], dst = t_iova[1];

	t_fill(r, 0, src, 300, 4);
	t_recv(r, 1, 300, dst);
	t_send(r, 300, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 300));
	t_check_req(r, 0, M5_OPCODE_SEND, 300);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

static void send_to_a_qp_on_an_rmp_takes_the_srqs_head_wqe(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, false, true);
	uint64_t src = t_iova[0] + 0x20, dst = t_iova[1] + 0x300;
	uint8_t *w = at(PG(P_SRQ)), *w1 = at(PG(P_SRQ) + 64);
	const struct m5_cqe64 *c;

	/* libmlx5's free list: WQE i links to i + 1, the device starts at
	 * the head, WQE 0; the doorbell record counts the posted WQEs. */
	memset(w, 0, 128);
	((struct m5_srq_next_seg *)w)->next_wqe_index = htobe16(1);
	((struct m5_srq_next_seg *)w1)->next_wqe_index = htobe16(2);
	t_data(w + 16, 500, r->key[1], dst);
	t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(1);
	t_fill(r, 0, src, 400, 8);
	t_send(r, 400, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 400));
	t_check_req(r, 0, M5_OPCODE_SEND, 400);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c->byte_cnt), 400);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	/* cqe_version 1: the QP's user index names the receiver */
	CHECK_EQ(be32toh(c->srqn_uidx) & 0xffffff, 0x101);
	/* A second send finds no posted SRQ WQE: RNR, nothing lands. */
	t_send(r, 10, r->key[0], src);
	CHECK_EQ(t_cqe(1, 1)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void rdma_write_lands_with_one_requester_cqe(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t src = t_iova[0] + 0xf00, dst = t_iova[1] + 0x123;

	t_fill(r, 0, src, 5000, 9);
	t_write(r, r->key[1], dst, 5000, r->key[0], src);
	CHECK(t_same(r, 0, src, 1, dst, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 5000);
	/* No receive consumed, no responder CQE. */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void rdma_read_fetches_the_remote_bytes(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t dst = t_iova[0] + 0x10, src = t_iova[1] + 0xff0;
	uint8_t *w;

	t_fill(r, 1, src, 5000, 77);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_READ, 4);
	t_raddr(w, r->key[1], src);
	/* Two local segments: 3000 bytes, then the other 2000. */
	t_data(w + 16, 3000, r->key[0], dst);
	t_data(w + 32, 2000, r->key[0], dst + 3000);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, dst, 1, src, 5000));
	t_check_req(r, 0, M5_OPCODE_RDMA_READ, 5000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void ud_send_lands_after_the_grh_area(void)
{
	struct t_rig *r = t_rig(CX_ST_UD);
	uint64_t src = t_iova[0] + 0xfc0, dst = t_iova[1];
	const struct m5_cqe64 *c;
	struct m5_av *av;
	uint8_t *w;

	t_fill(r, 0, src, 100, 5);
	t_recv(r, 1, 40 + 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5); /* ctrl, 48-byte AV, data */
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x1234);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	t_data(w + sizeof(*av), 100, r->key[0], src);
	t_ring(r, 0, 2);
	CHECK(t_same(r, 0, src, 1, dst + 40, 100));
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(c->op_own & M5_CQE_OWNER_MASK, 0);
	/* The 40 bytes of GRH area count, whether or not a GRH came. */
	CHECK_EQ(be32toh(c->byte_cnt), 140);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	t_rig_free(r);
}

/*
 * A UD send whose AV asks for a GRH (IB: grh bit 30): the receive's first
 * 40 bytes are that GRH, its SGID the port's GID as the driver reads it
 * (fe80::port GUID), its DGID the AV's; the CQE says a GRH came.
 */
/* The GRH also carries the AV's traffic class and flow label. */
static void ud_send_with_grh_carries_the_port_gid(void)
{
	static const uint8_t rgid[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9,
					  0x03, 0x00, 0x00,	  0x63, 0x79 };
	struct t_rig *r = t_rig(CX_ST_UD);
	uint64_t src = t_iova[0] + 0x100, dst = t_iova[1];
	uint8_t sgid[16] = { 0xfe, 0x80 }, grh[40];
	const struct m5_cqe64 *c;
	struct m5_av *av;
	uint8_t *w;
	unsigned int k;

	for (k = 0; k < 8; k++)
		sgid[8 + k] = (uint8_t)(CX_PORT_GUID >> (56 - 8 * k));
	t_fill(r, 0, src, 64, 9);
	t_recv(r, 1, 40 + 256, dst);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5);
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x1234);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	av->grh_gid_fl = htobe32(1u << 30 | 0xabcde);
	av->tclass = 0x5c;
	av->hop_limit = 64;
	memcpy(av->rgid, rgid, sizeof(rgid));
	t_data(w + sizeof(*av), 64, r->key[0], src);
	t_ring(r, 0, 2);
	for (k = 0; k < sizeof(grh); k++)
		grh[k] = *t_va(r, 1, dst + k);
	CHECK_EQ(grh[0] >> 4, 6);
	CHECK_EQ((grh[0] << 4 | grh[1] >> 4) & 0xff, 0x5c);
	CHECK_EQ((grh[1] & 0xf) << 16 | grh[2] << 8 | grh[3], 0xabcde);
	CHECK_EQ(grh[7], 64);
	CHECK(!memcmp(grh + 8, sgid, 16));
	CHECK(!memcmp(grh + 24, rgid, 16));
	CHECK(t_same(r, 0, src, 1, dst + 40, 64));
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK((be32toh(c->flags_rqpn) >> M5_CQE_GRH_SHIFT) & 3);
	t_rig_free(r);
}

static void ud_send_with_a_wrong_qkey_is_dropped(void)
{
	struct t_rig *r = t_rig(CX_ST_UD);
	struct m5_av *av;
	uint8_t *w;

	t_recv(r, 1, 40 + 256, t_iova[1]);
	w = t_wqe(r, 0, M5_OPCODE_SEND, 5);
	av = (struct m5_av *)w;
	av->key.qkey.qkey = htobe32(0x4321);
	av->dqp_dct = htobe32(M5_EXTENDED_UD_AV | r->qpn[1]);
	av->rlid = htobe16(CX_PORT_LID);
	t_data(w + sizeof(*av), 100, r->key[0], t_iova[0]);
	t_ring(r, 0, 2);
	/* UD: the sender completes, the receiver sees nothing. */
	t_check_req(r, 0, M5_OPCODE_SEND, 100);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

/* One receive WQE of LEN bytes at ADDR (B's key) at the head of the SRQ
 * at P_SRQ, linked to WQE 1; its doorbell record counts one. */
static void t_srq_post(struct t_rig *r, uint32_t len, uint64_t addr)
{
	uint8_t *w = at(PG(P_SRQ));

	memset(w, 0, 64);
	((struct m5_srq_next_seg *)w)->next_wqe_index = htobe16(1);
	t_data(w + 16, len, r->key[1], addr);
	t_data(w + 32, 0, M5_INVALID_LKEY, 0);
	*(__be32 *)at(PG(P_DBR) + 0x100) = htobe32(1);
}

/* An XRC INI SEND of LEN bytes from A's SRC for XRC SRQ SRQN. */
static void t_xrc_send(struct t_rig *r, uint32_t srqn, uint64_t src,
		       uint32_t len)
{
	uint8_t *w = t_wqe(r, 0, M5_OPCODE_SEND, 3);

	((struct m5_xrc_seg *)w)->xrc_srqn = htobe32(srqn);
	t_data(w + 16, len, r->key[0], src);
	t_ring(r, 0, 1);
}

static void xrc_send_lands_in_the_named_srq_and_completes_on_its_cq(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint64_t src = t_iova[0] + 0x80, dst = t_iova[1] + 0x200;
	const struct m5_cqe64 *c;

	t_srq_post(r, 700, dst);
	t_fill(r, 0, src, 600, 21);
	t_xrc_send(r, r->xsrqn, src, 600);
	CHECK(t_same(r, 0, src, 1, dst, 600));
	t_check_req(r, 0, M5_OPCODE_SEND, 600);
	/* The XRC SRQ's CQ (B's), not the TGT's (A's): after the
	 * requester's CQE, A's CQ has nothing more. */
	CHECK_EQ(t_cqe(0, 1)->op_own >> 4, CQE_INVALID);
	c = t_cqe(1, 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	CHECK_EQ(be32toh(c->byte_cnt), 600);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	/* cqe_version 1: the SRQ's user index (libmlx5 finds the SRQ by
	 * it), the TGT's QPN, the INI's as the source. */
	CHECK_EQ(be32toh(c->srqn_uidx) & 0xffffff, 0x200);
	CHECK_EQ(be32toh(c->sop_drop_qpn) & 0xffffff, r->qpn[1]);
	CHECK_EQ(be32toh(c->flags_rqpn) & 0xffffff, r->qpn[0]);
	t_rig_free(r);
}

static void xrc_send_for_an_srq_not_of_the_tgts_xrcd_is_an_invalid_request(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint8_t out[16];
	uint32_t other;

	/* An XRC SRQ of another XRCD, posted to: the TGT must refuse it. */
	CHECK_EQ(simple(r->cx, CX_OP_ALLOC_XRCD, 0, out, sizeof(out)), CX_OK);
	other = t_xrc_srq(r, cx_get(out, F_OBJ_NUMBER));
	t_srq_post(r, 64, t_iova[1]);
	t_xrc_send(r, other, t_iova[0], 64);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_REMOTE_INVAL_REQ_ERR);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_send_for_no_srq_is_an_invalid_request(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);

	t_srq_post(r, 64, t_iova[1]);
	t_xrc_send(r, r->xsrqn + 1, t_iova[0], 64);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_REMOTE_INVAL_REQ_ERR);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_rdma_write_lands_with_the_srqs_pd(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);
	uint64_t src = t_iova[0] + 0x10, dst = t_iova[1] + 0x999;
	uint8_t *w;

	t_fill(r, 0, src, 3000, 5);
	w = t_wqe(r, 0, M5_OPCODE_RDMA_WRITE, 4);
	((struct m5_xrc_seg *)w)->xrc_srqn = htobe32(r->xsrqn);
	t_raddr(w + 16, r->key[1], dst);
	t_data(w + 32, 3000, r->key[0], src);
	t_ring(r, 0, 1);
	CHECK(t_same(r, 0, src, 1, dst, 3000));
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 3000);
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void xrc_tgt_in_an_unallocated_xrcd_is_refused(void)
{
	struct t_rig *r = t_rig(CX_ST_XRC);

	CHECK_EQ(t_tgt(r, r->xrcd + 1), -CX_BAD_RES);
	CHECK(t_tgt(r, r->xrcd) >= 2);
	t_rig_free(r);
}

static void unknown_lkey_is_a_local_protection_error_cqe(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);

	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, 0xdead00, t_iova[0]);
	t_check_req_err(r, M5_OPCODE_SEND, M5_SYND_LOCAL_PROT_ERR);
	/* Nothing reached the responder. */
	CHECK_EQ(t_cqe(1, 0)->op_own >> 4, CQE_INVALID);
	t_rig_free(r);
}

static void mtt_page_outside_guest_memory_is_a_protection_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint64_t mtt[4] = { PG(0x60), PG(0x61), PG(0x62), PG(MEM_SIZE / 4096) };
	uint32_t key = t_mkey(r->cx, r->pd, 0x10000, 4 * CX_PAGE, mtt, ACC_ALL);

	/* The MKEY's last page lies past guest memory. */
	t_write(r, r->key[1], t_iova[1], 0x200, key,
		0x10000 + 3 * CX_PAGE - 0x100);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_LOCAL_PROT_ERR);
	t_rig_free(r);
}

static void rdma_write_to_a_key_without_remote_write_is_refused(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t ro = t_mkey(r->cx, r->pd, t_iova[1], 3 * CX_PAGE, r->mtt[1],
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);

	t_fill(r, 1, t_iova[1], 64, 1);
	t_fill(r, 0, t_iova[0], 64, 2);
	t_write(r, ro, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	CHECK(!t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	t_rig_free(r);
}

/*
 * The UMR QP as mlx5_ib makes it (service type REG_UMR, no RQ), its CQ on
 * page 0x32 and its SQ on page 0x33, in RTS.
 */
static uint32_t t_umr_qp(struct t_rig *r, uint32_t *cqn)
{
	struct cq_args a = { .log = CQ_LOG,
			     .eqn = r->eqn,
			     .uar = r->uar,
			     .pages = PG(0x32),
			     .dbr = PG(P_CQDBR) + 128 };
	uint8_t in[0x110 + 8] = { 0 }, out[16];
	uint8_t *qpc = in + B_QPC;
	int n = make_cq(r->cx, &a);
	uint32_t qpn;

	CHECK(n > 0);
	*cqn = n;
	cx_set(in, F_IN_OPCODE, CX_OP_CREATE_QP);
	cx_set(qpc, F_QPC_ST, CX_ST_REG_UMR);
	cx_set(qpc, F_QPC_PD, r->pd);
	cx_set(qpc, F_QPC_UAR_PAGE, r->uar);
	cx_set(qpc, F_QPC_RQ_TYPE, 3); /* MLX5_ZERO_LEN_RQ */
	cx_set(qpc, F_QPC_LOG_SQ_SIZE, SQ_LOG);
	cx_set(qpc, F_QPC_CQN_SND, *cqn);
	cx_set(qpc, F_QPC_CQN_RCV, *cqn);
	cx_set64(qpc, B_QPC_DBR_ADDR, PG(P_DBR) + 0x200);
	cx_set64(in, B_CREATE_QP_IN_PAS, PG(0x33));
	CHECK_EQ(cmd(r->cx, in, sizeof(in), out, sizeof(out)), 0);
	CHECK_EQ(cx_get(out, F_OUT_STATUS), CX_OK);
	qpn = cx_get(out, F_QPN);
	t_up(r->cx, qpn, 0, 0, true);
	return qpn;
}

/*
 * UMR WQE N on the UMR QP as umr.c's mlx5r_umr_post_send() writes it:
 * ctrl segment (the mkey in its immediate, DS 16-byte units), UMR ctrl
 * segment (FLAGS, MASK, XLT octowords), mkey segment giving access ACCESS,
 * PD and (for a translation) start t_iova[1], three pages of 4 KiB, free 0.
 */
static uint8_t *t_umr_wqe(struct t_rig *r, uint32_t qpn, uint16_t n,
			  uint32_t key, uint8_t flags, uint64_t mask,
			  uint16_t xlt, int access, unsigned int ds)
{
	uint8_t *w = at(PG(0x33) + (n % (1 << SQ_LOG)) * 64);
	uint8_t *mkc = w + 64;

	memset(w, 0, ds * 16);
	cx_set(w, 0, 32, (uint32_t)n << 8 | 0x25); /* MLX5_OPCODE_UMR */
	cx_set(w, 32, 32, qpn << 8 | ds);
	w[11] = M5_WQE_CTRL_CQ_UPDATE;
	cx_set(w, 96, 32, key);
	w[16] = flags;
	cx_set(w + 16, 32, 16, xlt);
	cx_set64(w + 16, 8, mask);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_LW, !!(access & IBV_ACCESS_LOCAL_WRITE));
	cx_set(mkc, F_MKC_RW, !!(access & IBV_ACCESS_REMOTE_WRITE));
	cx_set(mkc, F_MKC_RR, !!(access & IBV_ACCESS_REMOTE_READ));
	cx_set(mkc, F_MKC_PD, r->pd);
	cx_set(mkc, F_MKC_QPN, 0xffffff);
	cx_set(mkc, F_MKC_MKEY_7_0, key & 0xff);
	cx_set64(mkc, B_MKC_START_ADDR, t_iova[1]);
	cx_set64(mkc, B_MKC_LEN, 3 * CX_PAGE);
	cx_set(mkc, F_MKC_LOG_PAGE_SIZE, 12);
	return w;
}

/* The doorbell record after WQE N of NBB basic blocks, and the doorbell. */
static void t_umr_ring(struct t_rig *r, const uint8_t *w, uint16_t n,
		       unsigned int nbb)
{
	((__be32 *)at(PG(P_DBR) + 0x200))[M5_SND_DBR] = htobe32(n + nbb);
	CHECK_EQ(cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x800, w, 8),
		 0);
}

/* An inline UMR WQE (128 bytes) changing the fields MASK names. */
static void t_umr(struct t_rig *r, uint32_t qpn, uint16_t n, uint32_t key,
		  uint64_t mask, int access)
{
	/* MLX5_UMR_INLINE | MLX5_UMR_CHECK_FREE */
	t_umr_ring(r,
		   t_umr_wqe(r, qpn, n, key, 0x80 | 0x40, mask, 0, access, 8),
		   n, 2);
}

/* mkey_mask of mlx5r_umr_rereg_pd_access(): LR LW RR RW A, and PD. */
#define UMR_ACCESS_PD_MASK                                                     \
	((1ull << 17) | (1ull << 18) | (1ull << 19) | (1ull << 20) |           \
	 (1ull << 21) | (1ull << 7))
/* The last WQE of mlx5r_umr_update_mr_pas(MLX5_IB_UPD_XLT_ENABLE): also
 * KEY and FREE (enable), LEN, PAGE_SIZE and START_ADDR (translation). */
#define UMR_ENABLE_MASK                                                        \
	(UMR_ACCESS_PD_MASK | (1ull << 13) | (1ull << 29) | (1ull << 0) |      \
	 (1ull << 1) | (1ull << 6))

/*
 * ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS) through mlx5_ib's fast path: a
 * UMR WQE gives a key remote write; it completes with a requester CQE of
 * opcode UMR, and an RDMA WRITE to the key lands.  A mask bit the device
 * does not take (here EN_RINVAL) completes in error.
 */
static void umr_wqe_gives_a_key_remote_write_and_completes(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t ro = t_mkey(r->cx, r->pd, t_iova[1], 3 * CX_PAGE, r->mtt[1],
			     IBV_ACCESS_LOCAL_WRITE);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	const struct m5_cqe64 *c = (const void *)at(PG(0x32));
	const struct m5_err_cqe *e = (const void *)at(PG(0x32) + 64);

	t_umr(r, umr, 0, ro, UMR_ACCESS_PD_MASK, ACC_ALL);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be32toh(c->sop_drop_qpn), 0x25u << 24 | umr);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	t_fill(r, 1, t_iova[1], 64, 1);
	t_fill(r, 0, t_iova[0], 64, 2);
	t_write(r, ro, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));

	t_umr(r, umr, 2, ro, UMR_ACCESS_PD_MASK | 1ull << 8, ACC_ALL);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 2);
	t_rig_free(r);
}

/*
 * A key as mlx5_ib's mkey cache makes it: MTT mode, free, umr_en, room
 * for OCTW octowords of translation and none given.
 */
static uint32_t t_free_mkey(struct t_rig *r, uint32_t octw)
{
	uint8_t in[0x110] = { 0 };
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;

	cx_set(mkc, F_MKC_ACCESS_MODE_1_0, 1);
	cx_set(mkc, F_MKC_FREE, 1);
	cx_set(mkc, F_MKC_UMR_EN, 1);
	cx_set(mkc, F_MKC_PD, r->pd);
	cx_set(mkc, F_MKC_MKEY_7_0, 0x33);
	cx_set(mkc, F_MKC_TRANSLATIONS_OCTWORD_SIZE, octw);
	cx_set(mkc, F_MKC_LOG_PAGE_SIZE, 12);
	return t_create_mkey(r->cx, in, sizeof(in));
}

/* The DMA MR of ib_alloc_pd() (mlx5_ib_get_dma_mr): PA, length64, LW. */
static uint32_t t_dma_mkey(struct t_rig *r)
{
	uint8_t in[0x110] = { 0 };
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;

	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_LW, 1);
	cx_set(mkc, F_MKC_LENGTH64, 1);
	cx_set(mkc, F_MKC_PD, r->pd);
	return t_create_mkey(r->cx, in, sizeof(in));
}

/*
 * mlx5r_umr_update_mr_pas() on a free key of the cache, in one WQE (144
 * bytes, DS 9): flags CHECK_NOT_FREE (and TRANSLATION_OFFSET_EN with
 * octoword offset OFF), 4 octowords (64 bytes, the UMR unit) of MTT
 * entries (B's four pages, present, then zeros) in a buffer at ADDR named
 * by the DMA MR's lkey in the data segment after the mkey segment, the
 * enable mask.
 */
static void t_umr_load(struct t_rig *r, uint32_t umr, uint16_t n, uint32_t key,
		       uint32_t lkey, uint64_t addr, uint32_t off)
{
	uint8_t *w = t_umr_wqe(r, umr, n, key, off ? 0x20 | 0x10 : 0x20,
			       UMR_ENABLE_MASK, 4, ACC_ALL, 9);
	uint8_t *xlt = at(PG(0x70));
	unsigned int i;

	memset(xlt, 0, 64);
	for (i = 0; i < 4; i++)
		cx_set64(xlt, i * 8, r->mtt[1][i] | 3);
	cx_set(w + 16, 48, 16, off & 0xffff);
	cx_set(w + 16, 128, 32, off >> 16);
	cx_set(w + 128, 0, 32, 64);
	cx_set(w + 128, 32, 32, lkey);
	cx_set64(w + 128, 8, addr);
	t_umr_ring(r, w, n, 3);
}

/*
 * The translation a UMR WQE loads is the one the data path uses: a free
 * key gets B's pages, is enabled, and an RDMA WRITE through it lands in
 * them; the UMR completes with a requester CQE.
 */
static void umr_wqe_loads_mtt_into_a_free_key_and_rdma_write_lands(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	uint32_t key = t_free_mkey(r, 2), dma = t_dma_mkey(r);
	const struct m5_cqe64 *c = (const void *)at(PG(0x32));

	t_umr_load(r, umr, 0, key, dma, PG(0x70), 0);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be16toh(c->wqe_counter), 0);
	t_fill(r, 1, t_iova[1], 3 * CX_PAGE, 1);
	t_fill(r, 0, t_iova[0], 3 * CX_PAGE, 2);
	t_write(r, key, t_iova[1] + 0x100, 2 * CX_PAGE, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 2 * CX_PAGE);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1] + 0x100, 2 * CX_PAGE));
	t_rig_free(r);
}

/*
 * A UMR WQE whose translation is outside guest memory, or past the room
 * the key was made for (2 octowords, rounded up to the 64-byte UMR unit of
 * 4: a load at octoword 4 is past it), completes in error and leaves the key free: an RDMA
 * WRITE through it is refused.
 */
static void umr_wqe_with_a_bad_translation_completes_in_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t cqn, umr = t_umr_qp(r, &cqn);
	uint32_t key = t_free_mkey(r, 2), dma = t_dma_mkey(r), second;
	const struct m5_err_cqe *e = (const void *)at(PG(0x32));

	t_umr_load(r, umr, 0, key, dma, MEM_BASE + MEM_SIZE - 16, 0);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_LOCAL_PROT_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	t_write(r, key, t_iova[1], 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	t_rig_free(r);

	r = t_rig(CX_ST_RC);
	umr = t_umr_qp(r, &cqn);
	second = t_free_mkey(r, 2);
	dma = t_dma_mkey(r);
	e = (const void *)at(PG(0x32));
	t_umr_load(r, umr, 0, second, dma, PG(0x70), 4);
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_LOCAL_PROT_ERR);
	t_rig_free(r);
}

static void completion_on_an_armed_cq_raises_one_eqe_and_interrupt(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t db[8];
	const uint8_t *eqe = at(PG(P_EQ));

	/* mlx5_cq_arm(): sn 0, ci 0, cqn; then arm the EQ (ci 0). */
	cx_set(db, 0, 32, 0);
	cx_set(db, 32, 32, r->cqn[1]);
	cx_bar_write(r->cx, (uint64_t)r->uar * CX_PAGE + 0x20, db, 8);
	w32(r->cx, r->uar * CX_PAGE + 0x40, r->eqn << 24);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(irqs[VEC], 1);
	CHECK_EQ(eqe[1], CX_EVENT_COMP);
	CHECK_EQ(cx_get(eqe, (0x20 + 24) * 8, 32), r->cqn[1]);
	/* A's CQ was not armed: its CQE raised nothing. */
	CHECK_EQ(eqe[64 + 63] & 1, 1);
	t_rig_free(r);
}

static void first_message_on_an_rtr_qp_raises_comm_est_on_the_async_eq(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, true, false);
	const uint8_t *eqe = at(PG(P_AEQ));
	uint32_t uar;

	/* mlx5_core's async EQ takes MLX5_EVENT_TYPE_COMM_EST (0x02). */
	CHECK(make_eq_for(r->cx, 2, 2, &uar, PG(P_AEQ), 0x02) >= 0);
	t_recv(r, 1, 64, t_iova[1]);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	/* mlx5_eqe_qp_srq: type 0 (a QP) at 20, the QPN at 24 */
	CHECK_EQ(eqe[1], 0x02);
	CHECK_EQ(eqe[0x20 + 20], 0);
	CHECK_EQ(cx_get(eqe, (0x20 + 24) * 8, 32), r->qpn[1]);
	CHECK_EQ(eqe[63] & 1, 0);
	CHECK_EQ(cx_eng_stats(r->cx)->events, 1);
	t_rig_free(r);
}

/*
 * The PSNs are the QP's live state: a message that lands while B is in RTR
 * moves B's receive PSN, and RTR2RTS (whose QPC still holds the PSN
 * INIT2RTR set) must not move it back, or B's next message is out of
 * sequence and A's WQE fails.  ibv_xsrq_pingpong's server sends that early.
 */
static void rtr2rts_keeps_the_receive_psn_a_message_in_rtr_moved(void)
{
	struct t_rig *r = t_rig_on(CX_ST_RC, 0, true, false);
	uint8_t ctx[CX_QPC_BYTES] = { 0 };
	const struct m5_cqe64 *c;

	t_recv(r, 1, 64, t_iova[1]);
	t_recv(r, 1, 64, t_iova[1] + 64);
	t_send(r, 64, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	cx_set(ctx, F_QPC_RETRY_COUNT, 7);
	cx_set(ctx, F_QPC_RNR_RETRY, 7);
	t_move(r->cx, CX_OP_RTR2RTS_QP, r->qpn[1], ctx);
	t_send(r, 64, r->key[0], t_iova[0]);
	c = t_cqe(0, 1);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be16toh(c->wqe_counter), 1);
	CHECK_EQ(t_cqe(1, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

/*
 * QUERY_QP reports the PSNs as they are (mlx5_ib's ibv_query_qp sq_psn
 * and rq_psn): after a message of three packets, the requester's next
 * send PSN and the responder's next receive PSN are three on.
 */
static void query_qp_reports_the_psns_a_message_moved(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t sq = t_qpc(r, 0, F_QPC_NEXT_SEND_PSN);
	uint32_t rq = t_qpc(r, 1, F_QPC_NEXT_RCV_PSN);
	uint32_t len = 2 * (128u << t_qpc(r, 0, F_QPC_MTU)) + 100;

	CHECK_EQ(sq, rq);
	t_recv(r, 1, len, t_iova[1]);
	t_send(r, len, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_SEND, len);
	CHECK_EQ(t_qpc(r, 0, F_QPC_NEXT_SEND_PSN), (sq + 3) & 0xffffff);
	CHECK_EQ(t_qpc(r, 1, F_QPC_NEXT_RCV_PSN), (rq + 3) & 0xffffff);
	t_rig_free(r);
}

/*
 * A send that finds no receive WQE is RNR-NAKed and parked.  The receive
 * posted then is only a doorbell record (no write reaches the device): the
 * retry must fall due on the clock, in cx_timers() as the server runs it
 * between messages; then the send lands and completes.
 */
static void rnr_retry_falls_due_in_cx_timers_once_a_recv_is_posted(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	bool pending = false;
	struct timespec ts;
	int64_t ns;
	int i;

	t_fill(r, 0, t_iova[0], 64, 5);
	t_send(r, 64, r->key[0], t_iova[0]);
	CHECK_EQ(t_cqe(0, 0)->op_own >> 4, CQE_INVALID);
	t_recv(r, 1, 64, t_iova[1]);
	/* min_rnr_timer 0: 655.36 ms (IBTA's encoding); give it 3 s. */
	for (i = 0; i < 300 && t_cqe(0, 0)->op_own >> 4 == CQE_INVALID; i++) {
		ns = cx_timers(r->cx);
		if (ns < 0)
			break;
		pending = true;
		ts.tv_sec = 0;
		ts.tv_nsec = ns < 10000000 ? ns : 10000000;
		nanosleep(&ts, NULL);
	}
	CHECK(pending); /* the retry's deadline was asked for */
	t_check_req(r, 0, M5_OPCODE_SEND, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1], 64));
	CHECK_EQ(t_cqe(1, 0)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_SEND);
	t_rig_free(r);
}

/*
 * A receive posted to a QP in ERR writes only the doorbell record; the
 * device flushes it all the same (ib_drain_rq's marker), found by
 * cx_timers() as the server runs it between messages.
 */
static void recv_posted_in_err_is_flushed_in_cx_timers(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint8_t ctx[CX_QPC_BYTES] = { 0 };
	const struct m5_err_cqe *e = (const void *)t_cqe(1, 0);

	t_move(r->cx, CX_OP_2ERR_QP, r->qpn[1], ctx);
	CHECK_EQ(e->op_own >> 4, CQE_INVALID);
	t_recv(r, 1, 64, t_iova[1]);
	CHECK(cx_timers(r->cx) >= 0); /* it looks again while a QP is in ERR */
	CHECK_EQ(e->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_RESP_ERR);
	CHECK_EQ(e->syndrome, M5_SYND_WR_FLUSH_ERR);
	CHECK_EQ(be16toh(e->wqe_counter), 0);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(rc_send_across_pages_lands_and_completes_both_sides),
	CHECK_TEST(rnr_retry_falls_due_in_cx_timers_once_a_recv_is_posted),
	CHECK_TEST(recv_posted_in_err_is_flushed_in_cx_timers),
	CHECK_TEST(rc_send_of_inline_bytes_then_a_data_segment_lands_in_order),
	CHECK_TEST(inline_segment_overrunning_its_ds_is_a_violation),
	CHECK_TEST(uc_send_and_rdma_write_land),
	CHECK_TEST(uc_messages_the_responder_cannot_take_are_dropped),
	CHECK_TEST(uc_rdma_read_completes_in_error),
	CHECK_TEST(queues_on_large_pages_start_at_their_page_offset),
	CHECK_TEST(send_to_a_qp_on_an_rmp_takes_the_srqs_head_wqe),
	CHECK_TEST(rdma_write_lands_with_one_requester_cqe),
	CHECK_TEST(rdma_read_fetches_the_remote_bytes),
	CHECK_TEST(ud_send_lands_after_the_grh_area),
	CHECK_TEST(ud_send_with_grh_carries_the_port_gid),
	CHECK_TEST(ud_send_with_a_wrong_qkey_is_dropped),
	CHECK_TEST(unknown_lkey_is_a_local_protection_error_cqe),
	CHECK_TEST(mtt_page_outside_guest_memory_is_a_protection_error),
	CHECK_TEST(rdma_write_to_a_key_without_remote_write_is_refused),
	CHECK_TEST(umr_wqe_gives_a_key_remote_write_and_completes),
	CHECK_TEST(umr_wqe_loads_mtt_into_a_free_key_and_rdma_write_lands),
	CHECK_TEST(umr_wqe_with_a_bad_translation_completes_in_error),
	CHECK_TEST(completion_on_an_armed_cq_raises_one_eqe_and_interrupt),
	CHECK_TEST(first_message_on_an_rtr_qp_raises_comm_est_on_the_async_eq),
	CHECK_TEST(rtr2rts_keeps_the_receive_psn_a_message_in_rtr_moved),
	CHECK_TEST(query_qp_reports_the_psns_a_message_moved),
	CHECK_TEST(xrc_send_lands_in_the_named_srq_and_completes_on_its_cq),
	CHECK_TEST(
		xrc_send_for_an_srq_not_of_the_tgts_xrcd_is_an_invalid_request),
	CHECK_TEST(xrc_send_for_no_srq_is_an_invalid_request),
	CHECK_TEST(xrc_rdma_write_lands_with_the_srqs_pd),
	CHECK_TEST(xrc_tgt_in_an_unallocated_xrcd_is_refused),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_engine_", tests);
}
