// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The mlx5dv.h reference encoder (m5t_ref.h): every segment is written
 * with mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg, mlx5dv_set_dgram_seg (or
 * the mlx5dv_x86_* forms) or through mlx5dv.h's struct layouts with
 * htobe*, from the WR and what the verbs and mlx5dv(7) say, nothing else.
 */
#include <stdio.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "m5t_ref.h"

/* The SSSE3 forms exist when mlx5dv.h was read with __SSE3__ defined. */
#if defined(__SSE3__)
#define M5T_X86 1
#else
#define M5T_X86 0
#endif

bool m5t_ref_have_x86(void)
{
	return M5T_X86;
}

uint8_t m5t_ref_rate(enum ibv_rate rate)
{
	/* Table 224, best effort: a rate maps to the next one up it has. */
	static const uint8_t code[] = {
		[IBV_RATE_2_5_GBPS] = 7,  [IBV_RATE_10_GBPS] = 8,
		[IBV_RATE_30_GBPS] = 9,	  [IBV_RATE_5_GBPS] = 10,
		[IBV_RATE_20_GBPS] = 11,  [IBV_RATE_40_GBPS] = 12,
		[IBV_RATE_60_GBPS] = 13,  [IBV_RATE_80_GBPS] = 14,
		[IBV_RATE_120_GBPS] = 15, [IBV_RATE_14_GBPS] = 11,
		[IBV_RATE_56_GBPS] = 13,  [IBV_RATE_112_GBPS] = 15,
		[IBV_RATE_25_GBPS] = 9,	  [IBV_RATE_100_GBPS] = 15,
		[IBV_RATE_28_GBPS] = 9,	  [IBV_RATE_50_GBPS] = 13,
	};

	return (unsigned int)rate < sizeof(code) ? code[rate] : 0;
}

uint16_t m5t_ref_sport(uint32_t flow_label)
{
	uint32_t fl = flow_label & 0xfffff;

	/* 14 bits: the low ones folded with the high six; port 0xc000+. */
	return (uint16_t)(0xc000 | ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)));
}

void m5t_ref_av(struct m5t_av_info *av, const struct ibv_ah_attr *attr,
		bool eth, enum ibv_gid_type type, const uint8_t *dmac,
		uint16_t sport)
{
	uint8_t rate = m5t_ref_rate(attr->static_rate);

	memset(av, 0, sizeof(*av));
	if (eth) {
		/* 3-bit priority at bits 3:1; the MAC from the kernel. */
		av->stat_rate_sl = (uint8_t)(rate << 4 | (attr->sl & 7) << 1);
		av->rlid = type == IBV_GID_TYPE_ROCE_V2 ? sport : 0;
		memcpy(av->rmac, dmac, 6);
	} else {
		av->stat_rate_sl = (uint8_t)(rate << 4 | (attr->sl & 0xf));
		av->fl_mlid = attr->src_path_bits & 0x7f;
		av->rlid = attr->dlid;
	}
	if (!attr->is_global)
		return;
	av->tclass = attr->grh.traffic_class;
	av->hop_limit = attr->grh.hop_limit;
	/* RoCE packets always carry the header: the GRH bit is IB's. */
	av->grh_gid_fl = (uint32_t)!eth << 30 |
			 (uint32_t)attr->grh.sgid_index << 20 |
			 (attr->grh.flow_label & 0xfffff);
	memcpy(av->rgid, attr->grh.dgid.raw, 16);
}

static int m5t_ref_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		return MLX5_OPCODE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return MLX5_OPCODE_RDMA_WRITE_IMM;
	case IBV_WR_SEND:
		return MLX5_OPCODE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return MLX5_OPCODE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return MLX5_OPCODE_SEND_INVAL;
	case IBV_WR_RDMA_READ:
		return MLX5_OPCODE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return MLX5_OPCODE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return MLX5_OPCODE_ATOMIC_FA;
	default:
		return -1;
	}
}

static void m5t_data_seg(void *seg, uint32_t len, uint32_t lkey, uint64_t addr,
			 bool x86)
{
#if M5T_X86
	if (x86) {
		mlx5dv_x86_set_data_seg(seg, len, lkey, (uintptr_t)addr);
		return;
	}
#endif
	mlx5dv_set_data_seg(seg, len, lkey, (uintptr_t)addr);
}

static void m5t_ctrl_seg(void *seg, uint16_t pi, uint8_t opcode, uint32_t qpn,
			 uint8_t fm_ce_se, uint8_t ds, uint32_t imm, bool x86)
{
#if M5T_X86
	if (x86) {
		mlx5dv_x86_set_ctrl_seg(seg, pi, opcode, 0, qpn, fm_ce_se, ds,
					0, imm);
		return;
	}
#endif
	mlx5dv_set_ctrl_seg(seg, pi, opcode, 0, qpn, fm_ce_se, ds, 0, imm);
}

static const struct m5t_av_info *m5t_find_av(const struct m5t_sq_info *q,
					     const struct ibv_ah *ah)
{
	unsigned int i;

	for (i = 0; i < q->nahs; i++)
		if (q->ahs[i].ah == ah)
			return &q->ahs[i].av;
	return NULL;
}

/* The inline segment: header, the SGEs' bytes back to back, zero pad. */
static uint8_t *m5t_inline(uint8_t *p, const struct ibv_send_wr *wr)
{
	struct mlx5_wqe_inl_data_seg *h = (void *)p;
	uint8_t *d = p + sizeof(*h);
	uint64_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	/* More than any WQE holds: not a WR the reference encodes. */
	if (len > M5T_REF_MAX_WQE)
		return NULL;
	for (len = 0, i = 0; i < wr->num_sge; i++) {
		memcpy(d + len, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	/* An empty payload has no segment at all. */
	if (!len)
		return p;
	h->byte_count = htobe32((uint32_t)len | MLX5_INLINE_SEG);
	len += sizeof(*h);
	while (len % 16)
		p[len++] = 0;
	return p + len;
}

static uint8_t *m5t_remote(uint8_t *p, const struct ibv_send_wr *wr)
{
	struct mlx5_wqe_raddr_seg *r = (void *)p;
	struct mlx5_wqe_atomic_seg *a = (void *)(r + 1);

	if (wr->opcode != IBV_WR_ATOMIC_CMP_AND_SWP &&
	    wr->opcode != IBV_WR_ATOMIC_FETCH_AND_ADD) {
		r->raddr = htobe64(wr->wr.rdma.remote_addr);
		r->rkey = htobe32(wr->wr.rdma.rkey);
		r->reserved = 0;
		return p + sizeof(*r);
	}
	r->raddr = htobe64(wr->wr.atomic.remote_addr);
	r->rkey = htobe32(wr->wr.atomic.rkey);
	r->reserved = 0;
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		a->swap_add = htobe64(wr->wr.atomic.swap);
		a->compare = htobe64(wr->wr.atomic.compare_add);
	} else {
		a->swap_add = htobe64(wr->wr.atomic.compare_add);
		a->compare = 0;
	}
	return p + sizeof(*r) + sizeof(*a);
}

unsigned int m5t_ref_send(uint8_t *out, const struct m5t_sq_info *q,
			  uint16_t pi, const struct ibv_send_wr *wr, bool x86)
{
	int opcode = m5t_ref_opcode(wr->opcode);
	uint8_t *p = out + sizeof(struct mlx5_wqe_ctrl_seg), fm_ce_se = 0;
	const struct m5t_av_info *av;
	uint32_t imm = 0;
	int i;

	if (opcode < 0)
		return 0;
	/*
	 * mlx5dv_set_ctrl_seg leaves bytes 9-10 (dci_stream_channel_id) and
	 * mlx5dv_set_dgram_seg the AV's reserved0 alone: they must be 0.
	 */
	memset(out, 0, M5T_REF_BUF);
	if (q->ud) {
		av = m5t_find_av(q, wr->wr.ud.ah);
		if (!av)
			return 0;
		mlx5dv_set_dgram_seg((struct mlx5_wqe_datagram_seg *)p,
				     (uint64_t)wr->wr.ud.remote_qkey << 32,
				     wr->wr.ud.remote_qpn, 1, av->stat_rate_sl,
				     av->fl_mlid, av->rlid, (uint8_t *)av->rmac,
				     av->tclass, av->hop_limit, av->grh_gid_fl,
				     (uint8_t *)av->rgid);
		p += sizeof(struct mlx5_wqe_datagram_seg);
	} else if (opcode != MLX5_OPCODE_SEND &&
		   opcode != MLX5_OPCODE_SEND_IMM &&
		   opcode != MLX5_OPCODE_SEND_INVAL) {
		p = m5t_remote(p, wr);
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		p = m5t_inline(p, wr);
		if (!p || p - out > M5T_REF_MAX_WQE)
			return 0;
	} else if (opcode == MLX5_OPCODE_ATOMIC_CS ||
		   opcode == MLX5_OPCODE_ATOMIC_FA) {
		/* The 8-byte result goes to the first SGE. */
		m5t_data_seg(p, 8, wr->sg_list[0].lkey, wr->sg_list[0].addr,
			     x86);
		p += sizeof(struct mlx5_wqe_data_seg);
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			if (p - out >= M5T_REF_MAX_WQE)
				return 0;
			m5t_data_seg(p, wr->sg_list[i].length,
				     wr->sg_list[i].lkey, wr->sg_list[i].addr,
				     x86);
			p += sizeof(struct mlx5_wqe_data_seg);
		}
	}
	if (q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED))
		fm_ce_se |= MLX5_WQE_CTRL_CQ_UPDATE;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		fm_ce_se |= MLX5_WQE_CTRL_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		fm_ce_se |= MLX5_WQE_CTRL_FENCE;
	/* imm_data is big-endian already: it goes in as it is. */
	if (opcode == MLX5_OPCODE_SEND_IMM ||
	    opcode == MLX5_OPCODE_RDMA_WRITE_IMM)
		imm = wr->imm_data;
	/* libmlx5: the rkey to invalidate, big-endian, in the same field */
	if (opcode == MLX5_OPCODE_SEND_INVAL)
		imm = htobe32(wr->invalidate_rkey);
	m5t_ctrl_seg(out, pi, (uint8_t)opcode, q->qpn, fm_ce_se,
		     (uint8_t)((p - out) / 16), imm, x86);
	return (unsigned int)(p - out);
}

bool m5t_ref_send_both(uint8_t *out, unsigned int *len,
		       const struct m5t_sq_info *q, uint16_t pi,
		       const struct ibv_send_wr *wr)
{
	uint8_t x86[M5T_REF_BUF] __attribute__((aligned(64)));
	unsigned int n;

	*len = m5t_ref_send(out, q, pi, wr, false);
	n = m5t_ref_send(x86, q, pi, wr, true);
	if (n != *len || memcmp(out, x86, n)) {
		printf("    mlx5dv_set_*_seg and mlx5dv_x86_set_*_seg disagree "
		       "on WR 0x%llx\n",
		       (unsigned long long)wr->wr_id);
		return false;
	}
	return true;
}

unsigned int m5t_ref_recv(uint8_t *out, const struct ibv_recv_wr *wr,
			  unsigned int max_gs, bool x86)
{
	unsigned int j = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		if (j * 16 >= M5T_REF_MAX_WQE)
			return 0;
		m5t_data_seg(out + j * 16, wr->sg_list[i].length,
			     wr->sg_list[i].lkey, wr->sg_list[i].addr, x86);
		j++;
	}
	if (j < max_gs) {
		m5t_data_seg(out + j * 16, 0, MLX5_INVALID_LKEY, 0, x86);
		j++;
	}
	return j * 16;
}

bool m5t_ref_recv_both(uint8_t *out, unsigned int *len,
		       const struct ibv_recv_wr *wr, unsigned int max_gs)
{
	uint8_t x86[M5T_REF_BUF] __attribute__((aligned(64)));
	unsigned int n;

	*len = m5t_ref_recv(out, wr, max_gs, false);
	n = m5t_ref_recv(x86, wr, max_gs, true);
	if (n != *len || memcmp(out, x86, n)) {
		printf("    mlx5dv_set_data_seg and mlx5dv_x86_set_data_seg "
		       "disagree on receive WR 0x%llx\n",
		       (unsigned long long)wr->wr_id);
		return false;
	}
	return true;
}

void m5t_ref_srq_next(uint8_t *out, uint16_t next)
{
	struct mlx5_wqe_srq_next_seg *s = (void *)out;

	memset(s, 0, sizeof(*s));
	s->next_wqe_index = htobe16(next);
}

void m5t_ring_put(uint8_t *ring, size_t ring_len, size_t off, const void *src,
		  size_t len)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		ring[(off + i) % ring_len] = s[i];
}

void m5t_ring_get(void *dst, const uint8_t *ring, size_t ring_len, size_t off,
		  size_t len)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = ring[(off + i) % ring_len];
}

static void m5t_hex16(const char *who, const uint8_t *p)
{
	int i;

	printf("      %-4s", who);
	for (i = 0; i < 16; i++)
		printf(" %02x", p[i]);
	printf("\n");
}

bool m5t_ring_same(const char *what, const uint8_t *got, const uint8_t *want,
		   size_t len)
{
	size_t i, seg;

	for (i = 0; i < len && got[i] == want[i]; i++)
		;
	if (i == len)
		return true;
	seg = i & ~(size_t)15;
	printf("    %s: byte 0x%zx (WQEBB %zu, +0x%zx) is 0x%02x, mlx5dv "
	       "reference 0x%02x\n",
	       what, i, i / 64, i % 64, got[i], want[i]);
	m5t_hex16("got", got + seg);
	m5t_hex16("want", want + seg);
	return false;
}
