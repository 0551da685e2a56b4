// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Three plain verbs of libmlx5 on the mlx5 backend (issue #31), through
 * libibverbs and the fake kernel: ibv_rereg_mr (new range, new access, new
 * PD; data goes through the MR afterwards, every byte compared; bad input
 * answers its errno and leaves the MR as it was), ibv_advise_mr (the
 * kernel's answer: EOPNOTSUPP without ODP, which is then not advertised)
 * and IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN (the device writes past a full CQ).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "m5model.h"
#include "check.h"
#include "m5t_verbs.h"

#define LEN 4096

struct rig {
	struct m5m_dev *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	uint8_t *src, *dst1, *dst2; /* page-aligned, LEN bytes each */
	struct ibv_mr *smr;	    /* src, local write */
};

static uint8_t *page_buf(uint8_t fill)
{
	void *p = NULL;

	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), LEN))
		return NULL;
	memset(p, fill, LEN);
	return p;
}

/* Two connected RC QPs on one CQ, and the three buffers; 0 or -1. */
static int rig_open(struct rig *r, bool odp)
{
	struct m5m_config cfg;
	int i;

	memset(r, 0, sizeof(*r));
	m5m_config_default(&cfg);
	cfg.odp = odp;
	r->dev = m5m_dev_create(&cfg);
	r->ctx = r->dev ? m5m_open(r->dev) : NULL;
	r->pd = r->ctx ? ibv_alloc_pd(r->ctx) : NULL;
	r->cq = r->pd ? ibv_create_cq(r->ctx, 64, NULL, NULL, 0) : NULL;
	r->a = r->cq ? m5t_rc_qp(r->pd, r->cq, NULL, 16, 1) : NULL;
	r->b = r->a ? m5t_rc_qp(r->pd, r->cq, NULL, 16, 1) : NULL;
	r->src = page_buf(0);
	r->dst1 = page_buf(0);
	r->dst2 = page_buf(0);
	if (!r->b || !r->src || !r->dst1 || !r->dst2 ||
	    m5t_rc_pair(r->dev, r->a, r->b, 7))
		return -1;
	for (i = 0; i < LEN; i++)
		r->src[i] = (uint8_t)(i * 7 + 3);
	r->smr = ibv_reg_mr(r->pd, r->src, LEN, IBV_ACCESS_LOCAL_WRITE);
	return r->smr ? 0 : -1;
}

static void rig_close(struct rig *r)
{
	if (r->smr)
		CHECK_EQ(ibv_dereg_mr(r->smr), 0);
	if (r->b)
		CHECK_EQ(ibv_destroy_qp(r->b), 0);
	if (r->a)
		CHECK_EQ(ibv_destroy_qp(r->a), 0);
	if (r->cq)
		CHECK_EQ(ibv_destroy_cq(r->cq), 0);
	if (r->pd)
		CHECK_EQ(ibv_dealloc_pd(r->pd), 0);
	m5t_dev_close(r->dev, r->ctx);
	free(r->src);
	free(r->dst1);
	free(r->dst2);
}

/* RDMA WRITE of LEN bytes from @lmr at @laddr to raddr/rkey: the status. */
static int write_through(struct rig *r, struct ibv_mr *lmr, void *laddr,
			 void *raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr,
			       .length = LEN,
			       .lkey = lmr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;
	struct ibv_wc wc = {};

	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(r->a, &wr, &bad))
		return -1;
	if (m5t_poll_one(r->cq, &wc) != 1)
		return -1;
	return wc.status;
}

static bool all_bytes(const uint8_t *p, uint8_t v)
{
	int i;

	for (i = 0; i < LEN; i++)
		if (p[i] != v)
			return false;
	return true;
}

/*
 * CHANGE_TRANSLATION: the MR now covers the new buffer (addr, length, and
 * the new keys the kernel gave), and an RDMA WRITE through it lands there,
 * every byte, and nothing lands in the old one.
 */
static void rereg_translation_moves_rdma_writes_to_the_new_buffer(void)
{
	struct ibv_mr *dmr = NULL;
	struct rig r;
	uint32_t old_rkey;

	if (rig_open(&r, false)) {
		CHECK(!"rig");
		goto out;
	}
	dmr = ibv_reg_mr(r.pd, r.dst1, LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(dmr != NULL);
	if (!dmr)
		goto out;
	old_rkey = dmr->rkey;
	CHECK_EQ(ibv_rereg_mr(dmr, IBV_REREG_MR_CHANGE_TRANSLATION, r.pd,
			      r.dst2, LEN, 0),
		 0);
	CHECK(dmr->addr == r.dst2);
	CHECK_EQ(dmr->length, LEN);
	CHECK(dmr->pd == r.pd);
	CHECK(dmr->rkey != old_rkey);
	CHECK_EQ(dmr->lkey, dmr->rkey);
	CHECK_EQ(write_through(&r, r.smr, r.src, r.dst2, dmr->rkey),
		 IBV_WC_SUCCESS);
	CHECK(!memcmp(r.dst2, r.src, LEN));
	CHECK(all_bytes(r.dst1, 0));
out:
	if (dmr)
		CHECK_EQ(ibv_dereg_mr(dmr), 0);
	rig_close(&r);
}

/*
 * CHANGE_ACCESS and CHANGE_PD keep the keys.  Remote write added to a
 * local-only MR lets an RDMA WRITE land in it; the MR in another PD holds
 * that PD (EBUSY), and back in its own PD it is a WRITE's source again.
 */
static void rereg_access_and_pd_keep_the_keys_and_the_data_path(void)
{
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *dmr = NULL;
	uint32_t lkey, skey;
	struct rig r;

	if (rig_open(&r, false)) {
		CHECK(!"rig");
		goto out;
	}
	pd2 = ibv_alloc_pd(r.ctx);
	dmr = ibv_reg_mr(r.pd, r.dst1, LEN, IBV_ACCESS_LOCAL_WRITE);
	CHECK(pd2 != NULL);
	CHECK(dmr != NULL);
	if (!pd2 || !dmr)
		goto out;
	lkey = dmr->lkey;
	CHECK_EQ(ibv_rereg_mr(dmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
		 0);
	CHECK_EQ(dmr->lkey, lkey);
	CHECK_EQ(dmr->rkey, lkey);
	CHECK_EQ(write_through(&r, r.smr, r.src, r.dst1, dmr->rkey),
		 IBV_WC_SUCCESS);
	CHECK(!memcmp(r.dst1, r.src, LEN));

	skey = r.smr->lkey;
	CHECK_EQ(ibv_rereg_mr(r.smr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0),
		 0);
	CHECK(r.smr->pd == pd2);
	CHECK_EQ(r.smr->lkey, skey);
	CHECK_EQ(ibv_dealloc_pd(pd2), EBUSY);
	CHECK_EQ(ibv_rereg_mr(r.smr, IBV_REREG_MR_CHANGE_PD, r.pd, NULL, 0, 0),
		 0);
	CHECK(r.smr->pd == r.pd);
	memset(r.src, 0x5a, LEN);
	CHECK_EQ(write_through(&r, r.smr, r.src, r.dst1, dmr->rkey),
		 IBV_WC_SUCCESS);
	CHECK(all_bytes(r.dst1, 0x5a));
out:
	if (dmr)
		CHECK_EQ(ibv_dereg_mr(dmr), 0);
	if (pd2)
		CHECK_EQ(ibv_dealloc_pd(pd2), 0);
	rig_close(&r);
}

struct mr_seen {
	void *addr;
	size_t length;
	uint32_t lkey, rkey;
	struct ibv_pd *pd;
};

static void seen(const struct ibv_mr *mr, struct mr_seen *s)
{
	s->addr = mr->addr;
	s->length = mr->length;
	s->lkey = mr->lkey;
	s->rkey = mr->rkey;
	s->pd = mr->pd;
}

/* One refused ibv_rereg_mr: libibverbs' ERR_CMD, errno, nothing changed. */
static void refused(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		    size_t len, int access, int err)
{
	struct mr_seen before, after;

	seen(mr, &before);
	errno = 0;
	CHECK_EQ(ibv_rereg_mr(mr, flags, pd, addr, len, access),
		 IBV_REREG_MR_ERR_CMD);
	CHECK_EQ(errno, err);
	seen(mr, &after);
	CHECK(!memcmp(&before, &after, sizeof(before)));
}

/*
 * Bad input the kernel refuses: no flag (EINVAL), a PD of another context
 * (EINVAL), remote write without local write (EINVAL), on-demand access on
 * a device without ODP (EOPNOTSUPP), a range that is not mapped (EFAULT).
 * The MR is unchanged and RDMA WRITEs still land in it.
 */
static void rereg_bad_input_answers_its_errno_and_changes_nothing(void)
{
	struct ibv_context *ctx2 = NULL;
	struct ibv_pd *opd = NULL;
	struct ibv_mr *dmr = NULL;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	void *hole = MAP_FAILED;
	struct rig r;

	if (rig_open(&r, false)) {
		CHECK(!"rig");
		goto out;
	}
	ctx2 = m5m_open(r.dev);
	opd = ctx2 ? ibv_alloc_pd(ctx2) : NULL;
	dmr = ibv_reg_mr(r.pd, r.dst1, LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	hole = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(opd != NULL);
	CHECK(dmr != NULL);
	CHECK(hole != MAP_FAILED);
	if (!opd || !dmr || hole == MAP_FAILED)
		goto out;
	munmap(hole, psz);

	refused(dmr, 0, r.pd, NULL, 0, 0, EINVAL);
	refused(dmr, IBV_REREG_MR_CHANGE_PD, opd, NULL, 0, 0, EINVAL);
	refused(dmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		IBV_ACCESS_REMOTE_WRITE, EINVAL);
	refused(dmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND, EOPNOTSUPP);
	refused(dmr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, hole, psz, 0,
		EFAULT);

	CHECK_EQ(write_through(&r, r.smr, r.src, r.dst1, dmr->rkey),
		 IBV_WC_SUCCESS);
	CHECK(!memcmp(r.dst1, r.src, LEN));
out:
	if (dmr)
		CHECK_EQ(ibv_dereg_mr(dmr), 0);
	if (opd)
		CHECK_EQ(ibv_dealloc_pd(opd), 0);
	if (ctx2)
		CHECK_EQ(ibv_close_device(ctx2), 0);
	rig_close(&r);
}

static bool odp_advertised(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr = {};

	if (ibv_query_device_ex(ctx, NULL, &attr))
		return false;
	return attr.odp_caps.general_caps & IBV_ODP_SUPPORT;
}

/* Without ODP the device advertises none and the kernel's EOPNOTSUPP. */
static void advise_mr_without_odp_is_eopnotsupp_and_not_advertised(void)
{
	struct ibv_sge sge;
	struct rig r;

	if (rig_open(&r, false)) {
		CHECK(!"rig");
		goto out;
	}
	CHECK(!odp_advertised(r.ctx));
	sge = (struct ibv_sge){ .addr = (uintptr_t)r.src,
				.length = LEN,
				.lkey = r.smr->lkey };
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			       IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1),
		 EOPNOTSUPP);
out:
	rig_close(&r);
}

/*
 * With ODP (advertised): a prefetch of an ODP MR's range succeeds; an
 * unknown flag or no SGE is EINVAL, an unknown advice EOPNOTSUPP, a range
 * no MR of the PD covers ENOENT.
 */
static void advise_mr_with_odp_prefetches_and_refuses_bad_input(void)
{
	struct ibv_mr *omr = NULL;
	struct ibv_sge sge, bad;
	struct rig r;

	if (rig_open(&r, true)) {
		CHECK(!"rig");
		goto out;
	}
	CHECK(odp_advertised(r.ctx));
	omr = ibv_reg_mr(r.pd, r.dst1, LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(omr != NULL);
	if (!omr)
		goto out;
	sge = (struct ibv_sge){ .addr = (uintptr_t)r.dst1,
				.length = LEN,
				.lkey = omr->lkey };
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			       IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1),
		 0);
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1),
		 0);
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 1u << 1,
			       &sge, 1),
		 EINVAL);
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 0),
		 EINVAL);
	CHECK_EQ(ibv_advise_mr(r.pd, (enum ibv_advise_mr_advice)77, 0, &sge, 1),
		 EOPNOTSUPP);
	bad = sge;
	bad.length = LEN + 1;
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &bad, 1),
		 ENOENT);
	bad = sge;
	bad.lkey = omr->lkey ^ 0xff;
	CHECK_EQ(ibv_advise_mr(r.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &bad, 1),
		 ENOENT);
out:
	if (omr)
		CHECK_EQ(ibv_dereg_mr(omr), 0);
	rig_close(&r);
}

/*
 * A send CQ of 4 CQEs created with IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN
 * takes 6 signalled completions unpolled: the device wrote all 6 and
 * the CQ did not overrun (without the flag the model stops the CQ).
 */
static void cq_ignore_overrun_lets_the_device_write_past_a_full_cq(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 3,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_cq_ex *ocq = NULL;
	struct ibv_qp *q = NULL, *peer = NULL;
	struct m5m_cq_info info = {};
	struct ibv_mr *dmr = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *badwr;
	struct rig r;
	int i;

	if (rig_open(&r, false)) {
		CHECK(!"rig");
		goto out;
	}
	ca.flags |= 1u << 2; /* not a flag of this libibverbs */
	errno = 0;
	CHECK(!ibv_create_cq_ex(r.ctx, &ca));
	CHECK_EQ(errno, EOPNOTSUPP);
	ca.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	ocq = ibv_create_cq_ex(r.ctx, &ca);
	CHECK(ocq != NULL);
	dmr = ibv_reg_mr(r.pd, r.dst1, LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!ocq || !dmr)
		goto out;
	qa.send_cq = ibv_cq_ex_to_cq(ocq);
	qa.recv_cq = r.cq;
	q = ibv_create_qp(r.pd, &qa);
	peer = m5t_rc_qp(r.pd, r.cq, NULL, 8, 1);
	if (!q || !peer || m5t_rc_pair(r.dev, q, peer, 7)) {
		CHECK(!"qp");
		goto out;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)r.src,
				.length = 64,
				.lkey = r.smr->lkey };
	for (i = 0; i < 6; i++) {
		wr = (struct ibv_send_wr){ .wr_id = (uint64_t)i,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_RDMA_WRITE,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)r.dst1 + 64 * (size_t)i;
		wr.wr.rdma.rkey = dmr->rkey;
		CHECK_EQ(ibv_post_send(q, &wr, &badwr), 0);
	}
	CHECK_EQ(m5m_cq_info(r.dev, ibv_cq_ex_to_cq(ocq), &info), 0);
	CHECK_EQ(info.ncqe, 4);
	CHECK_EQ(info.producer, 6);
	CHECK(!info.overrun);
	for (i = 0; i < 6; i++)
		CHECK(!memcmp(r.dst1 + 64 * i, r.src, 64));
out:
	if (peer)
		CHECK_EQ(ibv_destroy_qp(peer), 0);
	if (q)
		CHECK_EQ(ibv_destroy_qp(q), 0);
	if (ocq)
		CHECK_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(ocq)), 0);
	if (dmr)
		CHECK_EQ(ibv_dereg_mr(dmr), 0);
	rig_close(&r);
}

static const struct check_test tests[] = {
	CHECK_TEST(rereg_translation_moves_rdma_writes_to_the_new_buffer),
	CHECK_TEST(rereg_access_and_pd_keep_the_keys_and_the_data_path),
	CHECK_TEST(rereg_bad_input_answers_its_errno_and_changes_nothing),
	CHECK_TEST(advise_mr_without_odp_is_eopnotsupp_and_not_advertised),
	CHECK_TEST(advise_mr_with_odp_prefetches_and_refuses_bad_input),
	CHECK_TEST(cq_ignore_overrun_lets_the_device_write_past_a_full_cq),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "mlx5_mr_verbs_", tests);
}
