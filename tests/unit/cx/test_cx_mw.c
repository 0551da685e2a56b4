// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows (cx_mw.c): a window made as mlx5_ib_alloc_mw() makes it
 * (a free KLM MKEY), bound, unbound and invalidated by UMR WQEs written
 * as libmlx5's set_bind_wr() writes them on a user RC QP, and used by an
 * RDMA WRITE from the other QP of the rig.
 */
#include <string.h>

#include "check.h"
#include "cx_rig.h"

enum {
	VARIANT0 = 0x11, /* the window's key at CREATE_MKEY */
	OP_UMR = 0x25,
	RIGHTS = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
};

/* CREATE_MKEY as mlx5_ib_alloc_mw(): the window's key. */
static uint32_t t_window(struct t_rig *r, bool type2)
{
	uint8_t in[0x110] = { 0 };
	uint8_t *mkc = in + B_CREATE_MKEY_IN_MKC;

	cx_set(mkc, F_MKC_FREE, 1);
	cx_set(mkc, F_MKC_TRANSLATIONS_OCTWORD_SIZE, 4);
	cx_set(mkc, F_MKC_PD, r->pd);
	cx_set(mkc, F_MKC_UMR_EN, 1);
	cx_set(mkc, F_MKC_LR, 1);
	cx_set(mkc, F_MKC_ACCESS_MODE_1_0, CX_MKEY_MODE_KLM);
	cx_set(mkc, F_MKC_EN_RINVAL, type2);
	cx_set(mkc, F_MKC_QPN, 0xffffff);
	cx_set(mkc, F_MKC_MKEY_7_0, VARIANT0);
	return t_create_mkey(r->cx, in, sizeof(in));
}

/*
 * A bind of window WKEY on QP I to [ADDR, ADDR + LEN) of MR with ACCESS,
 * its new key's variant VAR: ctrl (the window's key in imm), UMR ctrl,
 * mkey segment, one inline KLM; not rung.  Returns the UMR ctrl segment.
 */
static uint8_t *t_bind(struct t_rig *r, unsigned int i, uint32_t wkey,
		       bool type2, uint8_t var, uint32_t mr, uint64_t addr,
		       uint32_t len, int access)
{
	uint8_t *u = t_wqe(r, i, OP_UMR, 12), *m = u + 48, *klm = u + 112;
	uint64_t mask =
		1ull << 29 | 1ull << 13 | 1ull << 0 | 1ull << 6 | 0xfull << 18;

	cx_set(u - 16, 96, 32, wkey);
	u[0] = 0x80 | 0x10 | (type2 ? 0x20 : 0);
	cx_set(u, 32, 16, 4);
	cx_set64(u, 8, mask | (type2 ? 1ull << 14 : 0));
	cx_set(m, F_MKC_QPN, type2 ? r->qpn[i] : 0xffffff);
	cx_set(m, F_MKC_MKEY_7_0, var);
	cx_set(m, F_MKC_LW, !!(access & IBV_ACCESS_LOCAL_WRITE));
	cx_set(m, F_MKC_RW, !!(access & IBV_ACCESS_REMOTE_WRITE));
	cx_set(m, F_MKC_RR, !!(access & IBV_ACCESS_REMOTE_READ));
	cx_set(m, F_MKC_A, !!(access & IBV_ACCESS_REMOTE_ATOMIC));
	cx_set64(m, B_MKC_START_ADDR, addr);
	cx_set64(m, B_MKC_LEN, len);
	cx_set(klm, 0, 32, len);
	cx_set(klm, 32, 32, mr);
	cx_set64(klm, 8, addr);
	return u;
}

/* Unbind (zero length) or local invalidate of WKEY on QP I, rung. */
static void t_unbind(struct t_rig *r, unsigned int i, uint32_t wkey, bool type2)
{
	uint8_t *u = t_wqe(r, i, OP_UMR, 8), *m = u + 48;

	cx_set(u - 16, 96, 32, wkey);
	u[0] = 0x80 | 0x10 | (type2 ? 0x08 : 0);
	cx_set64(u, 8, 1ull << 29 | 1ull << 13 | (type2 ? 1ull << 14 : 0));
	cx_set(m, F_MKC_FREE, 1);
	cx_set(m, F_MKC_QPN, 0xffffff);
	t_ring(r, i, 2);
}

/* B's window over 0x800 bytes at 0x100 into its MR, bound on B. */
static uint32_t t_bound(struct t_rig *r, bool type2, uint8_t var)
{
	uint32_t w = t_window(r, type2);
	const struct m5_cqe64 *c = t_cqe(1, 0);

	t_bind(r, 1, w, type2, var, r->key[1], t_iova[1] + 0x100, 0x800,
	       RIGHTS);
	t_ring(r, 1, 3);
	CHECK_EQ(c->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK_EQ(be32toh(c->sop_drop_qpn), (uint32_t)OP_UMR << 24 | r->qpn[1]);
	return (w & ~0xffu) | var;
}

static void type2_bind_grants_its_range_to_the_new_rkey(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, true, 0x77);

	t_fill(r, 0, t_iova[0], 64, 3);
	t_fill(r, 1, t_iova[1] + 0x100, 64, 4);
	t_write(r, rkey, t_iova[1] + 0x100, 64, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 64);
	CHECK(t_same(r, 0, t_iova[0], 1, t_iova[1] + 0x100, 64));
	t_rig_free(r);
}

static void access_past_the_window_is_a_remote_access_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, true, 0x77);

	t_fill(r, 0, t_iova[0], 64, 3);
	t_fill(r, 1, t_iova[1] + 0x100 + 0x7f0, 64, 4);
	/* 16 bytes in the window, 48 past its end (still in the MR) */
	t_write(r, rkey, t_iova[1] + 0x100 + 0x7f0, 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	CHECK(!t_same(r, 0, t_iova[0], 1, t_iova[1] + 0x8f0, 16));
	t_rig_free(r);
}

static void local_invalidate_on_the_bound_qp_frees_the_window(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, true, 0x77);

	t_unbind(r, 1, rkey, true);
	CHECK_EQ(t_cqe(1, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	t_write(r, rkey, t_iova[1] + 0x100, 64, r->key[0], t_iova[0]);
	t_check_req_err(r, M5_OPCODE_RDMA_WRITE, M5_SYND_REMOTE_ACCESS_ERR);
	t_rig_free(r);
}

static void local_invalidate_on_another_qp_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, true, 0x77);

	t_unbind(r, 0, rkey, true);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	CHECK(!cx_mkey_at(r->cx, rkey)->free);
	t_rig_free(r);
}

static void type2_bind_of_a_window_in_use_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, true, 0x77);

	t_bind(r, 0, rkey, true, 0x78, r->key[0], t_iova[0], 64, RIGHTS);
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	CHECK_EQ(cx_mkey_at(r->cx, rkey)->klm_key, r->key[1]);
	t_rig_free(r);
}

static void window_larger_than_its_mr_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t w = t_window(r, true);

	/* The MR is 3 pages from t_iova[0]: one byte past its end. */
	t_bind(r, 0, w, true, 0x22, r->key[0], t_iova[0] + 0x100,
	       3 * CX_PAGE - 0xff, RIGHTS);
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	CHECK(cx_mkey_at(r->cx, w)->free);
	t_rig_free(r);
}

static void remote_write_on_an_mr_without_local_write_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t w = t_window(r, false);
	uint32_t ro = t_mkey(r->cx, r->pd, t_iova[0], 3 * CX_PAGE, r->mtt[0],
			     IBV_ACCESS_REMOTE_READ);

	t_bind(r, 0, w, false, 0x22, ro, t_iova[0], 64, RIGHTS);
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	CHECK(cx_mkey_at(r->cx, w)->free);
	t_rig_free(r);
}

static void bind_through_a_key_that_is_no_window_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);

	t_bind(r, 0, r->key[1], false, 0x22, r->key[0], t_iova[0], 64, RIGHTS);
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	CHECK(!cx_mkey_at(r->cx, r->key[1])->free);
	t_rig_free(r);
}

static void bind_to_an_mr_of_another_pd_is_a_bind_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t w = t_window(r, false);
	uint32_t other = t_mkey(r->cx, t_alloc_pd(r->cx), t_iova[0],
				3 * CX_PAGE, r->mtt[0], ACC_ALL);

	t_bind(r, 0, w, false, 0x22, other, t_iova[0], 64, RIGHTS);
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_MW_BIND_ERR);
	t_rig_free(r);
}

static void umr_mask_bit_libmlx5_never_sets_is_a_local_qp_error(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t w = t_window(r, false);
	uint8_t *u =
		t_bind(r, 0, w, false, 0x22, r->key[0], t_iova[0], 64, RIGHTS);

	cx_set64(u, 8, cx_get64(u, 8) | 1ull << 7); /* PD */
	t_ring(r, 0, 3);
	t_check_req_err(r, OP_UMR, M5_SYND_LOCAL_QP_OP_ERR);
	CHECK(cx_mkey_at(r->cx, w)->free);
	t_rig_free(r);
}

/* Type 1: ibv_bind_mw, then a zero-length bind takes the rights away. */
static void type1_zero_length_bind_unbinds(void)
{
	struct t_rig *r = t_rig(CX_ST_RC);
	uint32_t rkey = t_bound(r, false, 0x05);

	CHECK_EQ(cx_mkey_at(r->cx, rkey)->qpn, 0xffffff);
	t_write(r, rkey, t_iova[1] + 0x100, 64, r->key[0], t_iova[0]);
	t_check_req(r, 0, M5_OPCODE_RDMA_WRITE, 64);
	t_unbind(r, 1, rkey, false);
	CHECK_EQ(t_cqe(1, 1)->op_own >> M5_CQE_OPCODE_SHIFT, M5_CQE_REQ);
	CHECK(cx_mkey_at(r->cx, rkey)->free);
	t_rig_free(r);
}

static const struct check_test tests[] = {
	CHECK_TEST(type2_bind_grants_its_range_to_the_new_rkey),
	CHECK_TEST(access_past_the_window_is_a_remote_access_error),
	CHECK_TEST(local_invalidate_on_the_bound_qp_frees_the_window),
	CHECK_TEST(local_invalidate_on_another_qp_is_a_bind_error),
	CHECK_TEST(type2_bind_of_a_window_in_use_is_a_bind_error),
	CHECK_TEST(window_larger_than_its_mr_is_a_bind_error),
	CHECK_TEST(remote_write_on_an_mr_without_local_write_is_a_bind_error),
	CHECK_TEST(bind_through_a_key_that_is_no_window_is_a_bind_error),
	CHECK_TEST(bind_to_an_mr_of_another_pd_is_a_bind_error),
	CHECK_TEST(umr_mask_bit_libmlx5_never_sets_is_a_local_qp_error),
	CHECK_TEST(type1_zero_length_bind_unbinds),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_cx_mw_", tests);
}
