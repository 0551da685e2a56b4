// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* UC and UD data path: sends, writes, immediates, the GRH of UD receives. */
#include <arpa/inet.h>
#include <string.h>

#include "harness.h"

static int quiet_pair(struct it_test *t, struct it_ep *a, struct it_ep *b)
{
	if (it_quiet(t, a->scq, "sender send CQ") ||
	    it_quiet(t, a->rcq, "sender receive CQ") ||
	    it_quiet(t, b->scq, "receiver send CQ") ||
	    it_quiet(t, b->rcq, "receiver receive CQ"))
		return IT_FAIL;
	return 0;
}

static int pair_of(struct it_test *t, enum ibv_qp_type type, struct it_ep *a,
		   struct it_ep *b)
{
	struct it_qp_attr attr = it_qp_defaults(type);

	return it_pair(t, a, b, &attr);
}

/* UC sends of several sizes, single and multi-packet. */
static int uc_send_delivers_every_byte(struct it_test *t, long arg)
{
	static const uint32_t sizes[] = { 1, 64, 4096 + 5, 65536 };
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	size_t k;

	if (pair_of(t, IBV_QPT_UC, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 65536, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, 65536 + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		it_where(t, "%u bytes", sizes[k]);
		it_fill(rb->addr, rb->len, poison, 0);
		if (it_post_recv(t, b.qp, 100 + k, rb, 0, rb->len) ||
		    it_send_check(t, &a, &b, k, 100 + k, sb, rb, sizes[k],
				  it_seed(t, 10 + k), poison))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_pair(t, &a, &b);
}

/* SEND_WITH_IMM on UC or UD: imm, flag, bytes (after the GRH on UD). */
static int send_with_imm(struct it_test *t, enum ibv_qp_type type, uint32_t len)
{
	uint32_t hdr = type == IBV_QPT_UD ? IT_GRH : 0;
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	uint32_t imm = htonl(0x1e000000u ^ (uint32_t)seed);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *sb, *rb;
	struct it_ep a, b;

	if (pair_of(t, type, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, len, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, hdr + len + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	it_wr(&wr, &sge, 1, IBV_WR_SEND_WITH_IMM, sb, 0, len);
	it_wr_dest(&wr, &a, &b);
	wr.imm_data = imm;
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, hdr + len);
	e.imm = 1;
	e.imm_data = imm;
	if (it_send_and_verify(t, &a, &b, &wr, 1, &e, rb, len, seed, poison))
		return IT_FAIL;
	return quiet_pair(t, &a, &b);
}

static int uc_send_with_imm_delivers_imm(struct it_test *t, long arg)
{
	return send_with_imm(t, IBV_QPT_UC, 3000);
}

static int ud_send_with_imm_delivers_imm_and_src_qp(struct it_test *t, long arg)
{
	return send_with_imm(t, IBV_QPT_UD, it_mtu_bytes(t->env) / 2 + 1);
}

/* UC RDMA writes land at the remote offset, nothing around them touched. */
static int uc_rdma_write_delivers_every_byte(struct it_test *t, long arg)
{
	static const uint32_t sizes[] = { 1, 2 * 4096 + 1, 65536 + 3 };
	const size_t roff = 4096 + 13, loff = 7;
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	size_t k;

	if (pair_of(t, IBV_QPT_UC, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, 65536 + 64, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, 65536 + 8192, IT_ACCESS_ALL, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t len = sizes[k];
		uint64_t seed = it_seed(t, 10 + k);

		it_where(t, "%u bytes", len);
		it_fill(rb->addr, rb->len, poison, 0);
		it_fill(sb->addr + loff, len, seed, 0);
		it_wr(&wr, &sge, k, IBV_WR_RDMA_WRITE, sb, loff, len);
		it_wr_rdma(&wr, rb, roff);
		if (it_post_expect(t, &a, &wr, k, IBV_WC_RDMA_WRITE, -1,
				   "write completion"))
			return IT_FAIL;
		/* UC completes when sent: the bytes may land a bit later. */
		if (it_verify_eventually(t, rb->addr + roff, len, seed, 0,
					 "written bytes") ||
		    it_quiet(t, b.rcq, "receiver CQ") ||
		    it_verify(t, rb->addr, roff, poison, 0,
			      "bytes before the target") ||
		    it_verify(t, rb->addr + roff + len, rb->len - roff - len,
			      poison, roff + len, "bytes after the target"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_pair(t, &a, &b);
}

/* UC WRITE_WITH_IMM consumes a receive with imm and the write's length. */
static int uc_rdma_write_with_imm_consumes_recv(struct it_test *t, long arg)
{
	const uint32_t len = 5000;
	uint64_t poison = it_seed(t, 1), seed = it_seed(t, 2);
	uint32_t imm = htonl(0x0c0ffee0);
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *sb, *rb, *nb;
	struct it_ep a, b;

	if (pair_of(t, IBV_QPT_UC, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, len, IBV_ACCESS_LOCAL_WRITE, seed);
	rb = it_buf_new(t, len + 128, IT_ACCESS_ALL, poison);
	nb = it_buf_new(t, 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb || !nb || it_post_recv(t, b.qp, 100, nb, 0, nb->len))
		return IT_FAIL;
	it_wr(&wr, &sge, 1, IBV_WR_RDMA_WRITE_WITH_IMM, sb, 0, len);
	wr.imm_data = imm;
	it_wr_rdma(&wr, rb, 64);
	if (it_post_expect(t, &a, &wr, 1, IBV_WC_RDMA_WRITE, -1,
			   "write completion"))
		return IT_FAIL;
	e = it_exp_recv(100, IBV_WC_RECV_RDMA_WITH_IMM, b.qp, len);
	e.imm = 1;
	e.imm_data = imm;
	if (it_expect_wc(t, b.rcq, &e, "receive completion"))
		return IT_FAIL;
	if (it_verify(t, rb->addr + 64, len, seed, 0, "written bytes") ||
	    it_verify(t, rb->addr, 64, poison, 0, "bytes before the target") ||
	    it_verify(t, rb->addr + 64 + len, 64, poison, 64 + len,
		      "bytes after the target") ||
	    it_verify(t, nb->addr, nb->len, poison, 0,
		      "the receive buffer (must stay untouched)"))
		return IT_FAIL;
	return quiet_pair(t, &a, &b);
}

/*
 * The GRH area of a UD receive: for an IPv4-mapped GID, rxe puts the IPv4
 * header in its last 20 bytes; otherwise it is an IPv6-style GRH.
 */
static int check_grh(struct it_test *t, const uint8_t *grh,
		     const union ibv_gid *gid)
{
	static const uint8_t v4prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	if (!memcmp(gid->raw, v4prefix, sizeof(v4prefix))) {
		IT_EXPECT(t, grh[20] >> 4 == 4,
			  "GRH: byte 20 is 0x%02x, not an IPv4 header",
			  grh[20]);
		IT_EXPECT(t,
			  !memcmp(grh + 32, gid->raw + 12, 4) &&
				  !memcmp(grh + 36, gid->raw + 12, 4),
			  "GRH: IPv4 source/destination %u.%u.%u.%u/"
			  "%u.%u.%u.%u are not our address",
			  grh[32], grh[33], grh[34], grh[35], grh[36], grh[37],
			  grh[38], grh[39]);
		return 0;
	}
	IT_EXPECT(t, grh[0] >> 4 == 6, "GRH: IP version %u, expected 6",
		  grh[0] >> 4);
	IT_EXPECT(t, ((grh[0] << 4 | grh[1] >> 4) & 0xff) == IT_UD_TCLASS,
		  "GRH: traffic class 0x%02x, the AH's is 0x%02x",
		  (grh[0] << 4 | grh[1] >> 4) & 0xff, IT_UD_TCLASS);
	IT_EXPECT(t,
		  ((uint32_t)(grh[1] & 0xf) << 16 | grh[2] << 8 | grh[3]) ==
			  IT_UD_FLOW_LABEL,
		  "GRH: flow label 0x%05x, the AH's is 0x%05x",
		  (uint32_t)(grh[1] & 0xf) << 16 | grh[2] << 8 | grh[3],
		  IT_UD_FLOW_LABEL);
	IT_EXPECT(t,
		  !memcmp(grh + 8, gid->raw, 16) &&
			  !memcmp(grh + 24, gid->raw, 16),
		  "GRH: SGID/DGID are not our GID");
	return 0;
}

/* UD sends up to the MTU: GRH first (flag set), then the payload. */
static int ud_send_delivers_grh_then_payload(struct it_test *t, long arg)
{
	uint32_t mtu = it_mtu_bytes(t->env);
	uint32_t sizes[3] = { 1, 64, mtu };
	uint64_t poison = it_seed(t, 1);
	struct it_buf *sb, *rb;
	struct it_ep a, b;
	size_t k;

	if (pair_of(t, IBV_QPT_UD, &a, &b))
		return IT_FAIL;
	sb = it_buf_new(t, mtu, IBV_ACCESS_LOCAL_WRITE, 0);
	rb = it_buf_new(t, IT_GRH + mtu + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!sb || !rb)
		return IT_FAIL;
	for (k = 0; k < 3; k++) {
		it_where(t, "%u bytes", sizes[k]);
		it_fill(rb->addr, rb->len, poison, 0);
		if (it_post_recv(t, b.qp, 100 + k, rb, 0, rb->len) ||
		    it_send_check(t, &a, &b, k, 100 + k, sb, rb, sizes[k],
				  it_seed(t, 10 + k), poison) ||
		    check_grh(t, rb->addr, &t->env->gid))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return quiet_pair(t, &a, &b);
}

/* UD inline send from unregistered memory overwritten right after post. */
static int ud_send_inline_delivers_every_byte(struct it_test *t, long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_UD);
	uint64_t seed = it_seed(t, 2), poison = it_seed(t, 1);
	struct ibv_sge sge;
	struct it_wc_exp e;
	struct it_buf *rb;
	struct it_ep a, b;
	uint32_t len;
	uint8_t *src;

	attr.inline_data = 128;
	if (it_pair(t, &a, &b, &attr))
		return IT_FAIL;
	len = a.cap.max_inline_data;
	if (!len)
		return it_skip(t, "the QP reports max_inline_data 0");
	if (len > it_mtu_bytes(t->env))
		len = it_mtu_bytes(t->env);
	src = it_alloc(t, len);
	it_fill(src, len, seed, 0);
	rb = it_buf_new(t, IT_GRH + len + 64, IBV_ACCESS_LOCAL_WRITE, poison);
	if (!rb || it_post_recv(t, b.qp, 100, rb, 0, rb->len))
		return IT_FAIL;
	sge.addr = (uintptr_t)src;
	sge.length = len;
	sge.lkey = 0;
	if (it_post_inline(t, &a, &b, 1, &sge, 1))
		return IT_FAIL;
	memset(src, 0x5a, len);
	e = it_exp_recv(100, IBV_WC_RECV, b.qp, IT_GRH + len);
	if (it_send_and_verify(t, &a, &b, NULL, 1, &e, rb, len, seed, poison))
		return IT_FAIL;
	return quiet_pair(t, &a, &b);
}

/* One UD QP, one list, two destination QPs: each gets only its message. */
static int ud_send_list_reaches_each_destination_qpn(struct it_test *t,
						     long arg)
{
	struct it_qp_attr attr = it_qp_defaults(IBV_QPT_UD);
	uint64_t poison = it_seed(t, 1);
	struct ibv_send_wr wr[2], *bad = NULL;
	struct ibv_sge sge[2];
	struct ibv_wc wc[2];
	struct it_buf *sb, *rb[2];
	struct it_ep a, d[2];
	int i, ret;

	if (it_ep_new(t, &a, &attr) || it_ep_new(t, &d[0], &attr) ||
	    it_ep_new(t, &d[1], &attr))
		return IT_FAIL;
	if (it_ep_bring_up(t, &a, IBV_QPS_RTS, 0) ||
	    it_ep_bring_up(t, &d[0], IBV_QPS_RTS, 0) ||
	    it_ep_bring_up(t, &d[1], IBV_QPS_RTS, 0))
		return IT_FAIL;
	sb = it_buf_new(t, 1024, IBV_ACCESS_LOCAL_WRITE, 0);
	if (!sb)
		return IT_FAIL;
	for (i = 0; i < 2; i++) {
		rb[i] = it_buf_new(t, IT_GRH + 512, IBV_ACCESS_LOCAL_WRITE,
				   poison);
		if (!rb[i] ||
		    it_post_recv(t, d[i].qp, 100 + i, rb[i], 0, rb[i]->len))
			return IT_FAIL;
		it_fill(sb->addr + 512 * i, 300 + i, it_seed(t, 10 + i), 0);
		it_wr(&wr[i], &sge[i], i, IBV_WR_SEND, sb, 512 * i, 300 + i);
		it_wr_dest(&wr[i], &a, &d[i]);
	}
	wr[0].next = &wr[1];
	ret = ibv_post_send(a.qp, wr, &bad);
	IT_EXPECT(t, !ret, "ibv_post_send of 2 returned %d", ret);
	if (it_poll(t, a.scq, wc, 2, "send completions"))
		return IT_FAIL;
	for (i = 0; i < 2; i++) {
		struct it_wc_exp e = it_exp_send(i, IBV_WC_SEND, a.qp);

		it_where(t, "destination %d", i);
		if (it_check_wc(t, &wc[i], &e, "send completion"))
			return IT_FAIL;
		e = it_exp_recv(100 + i, IBV_WC_RECV, d[i].qp,
				IT_GRH + 300 + i);
		e.grh = 1;
		e.src_qp = a.qp->qp_num;
		if (it_expect_wc(t, d[i].rcq, &e, "receive completion") ||
		    it_verify(t, rb[i]->addr + IT_GRH, 300 + i,
			      it_seed(t, 10 + i), 0, "received bytes") ||
		    it_quiet(t, d[i].rcq, "receive CQ"))
			return IT_FAIL;
	}
	it_where(t, "%s", "");
	return it_quiet(t, a.scq, "sender CQ");
}

const struct it_case it_cases_data_ud_uc[] = {
	{ "uc_send_delivers_every_byte", uc_send_delivers_every_byte, 0 },
	{ "uc_send_with_imm_delivers_imm_and_flag",
	  uc_send_with_imm_delivers_imm, 0 },
	{ "uc_rdma_write_delivers_every_byte_at_remote_offset",
	  uc_rdma_write_delivers_every_byte, 0 },
	{ "uc_rdma_write_with_imm_consumes_recv_with_imm_and_len",
	  uc_rdma_write_with_imm_consumes_recv, 0 },
	{ "ud_send_delivers_grh_then_payload",
	  ud_send_delivers_grh_then_payload, 0 },
	{ "ud_send_with_imm_delivers_imm_and_src_qp",
	  ud_send_with_imm_delivers_imm_and_src_qp, 0 },
	{ "ud_send_inline_delivers_every_byte",
	  ud_send_inline_delivers_every_byte, 0 },
	{ "ud_send_list_reaches_each_destination_qpn",
	  ud_send_list_reaches_each_destination_qpn, 0 },
	{ NULL, NULL, 0 },
};
