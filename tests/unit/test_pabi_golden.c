// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The epoch tables of abi/epochs.c against the facts recorded from each
 * rdma-core release's own headers (tests/unit/golden/rdma-core-<major>.txt,
 * written by tests/unit/golden/record.sh; format in its README.md).
 * One test per release 34..65; the recorded sizes are x86_64 ones.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/epochs.h"
#include "check.h"

#ifndef DOORBELL_GOLDEN_DIR
#error "DOORBELL_GOLDEN_DIR: the directory of the recorded rdma-core data"
#endif

/* The releases recorded; a new one also needs its RELEASE() line below. */
#define GOLDEN_FIRST   34
#define GOLDEN_LAST    65
#define GOLDEN_MAX_OPS 160

/* One release's recorded facts; -1 = the file did not give the key. */
struct golden {
	int major, pabi, ibverbs_minor, nslots, ops_size;
	int vctx_size, vctx_context_off, qp_ex_size;
	int vqp_comp_mask_off, vqp_xrcd_off, vqp_size, sysfs_abi_ver_off;
	int args_reg_dmabuf_mr, args_get_context, args_create_cq_ex;
	int args_create_qp_ex2;
	int nops;
	char op[GOLDEN_MAX_OPS][64];
	int op_slot[GOLDEN_MAX_OPS];
};

#define GOLDEN_INT(name)                                                       \
	{                                                                      \
#name, offsetof(struct golden, name)                           \
	}
static const struct {
	const char *key;
	size_t off;
} golden_ints[] = {
	GOLDEN_INT(major),
	GOLDEN_INT(pabi),
	GOLDEN_INT(ibverbs_minor),
	GOLDEN_INT(nslots),
	GOLDEN_INT(ops_size),
	GOLDEN_INT(vctx_size),
	GOLDEN_INT(vctx_context_off),
	GOLDEN_INT(qp_ex_size),
	GOLDEN_INT(vqp_comp_mask_off),
	GOLDEN_INT(vqp_xrcd_off),
	GOLDEN_INT(vqp_size),
	GOLDEN_INT(sysfs_abi_ver_off),
	GOLDEN_INT(args_reg_dmabuf_mr),
	GOLDEN_INT(args_get_context),
	GOLDEN_INT(args_create_cq_ex),
	GOLDEN_INT(args_create_qp_ex2),
};
#define GOLDEN_NINTS (sizeof(golden_ints) / sizeof(golden_ints[0]))

/* Provenance lines, checked for presence only. */
static const char *const golden_text[] = { "ref", "commit", "package_version" };

static int *golden_field(struct golden *g, size_t i)
{
	return (int *)((char *)g + golden_ints[i].off);
}

/* Reads rdma-core-<major>.txt; 0 if every key was there exactly once. */
static int golden_read(int major, struct golden *g)
{
	char path[512], line[256], key[64], val[128];
	int seen_text[3] = { 0 };
	int bad = 0, lineno = 0, v, slot;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rdma-core-%d.txt", DOORBELL_GOLDEN_DIR,
		 major);
	memset(g, 0, sizeof(*g));
	for (i = 0; i < GOLDEN_NINTS; i++)
		*golden_field(g, i) = -1;
	f = fopen(path, "r");
	if (!f) {
		printf("    %s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!strncmp(line, "op ", 3) &&
		    sscanf(line + 3, "%63s %d", key, &slot) == 2) {
			if (g->nops == GOLDEN_MAX_OPS) {
				printf("    %s:%d: too many ops\n", path,
				       lineno);
				bad = 1;
				break;
			}
			strcpy(g->op[g->nops], key);
			g->op_slot[g->nops++] = slot;
			continue;
		}
		if (sscanf(line, "%63s %127s", key, val) != 2) {
			printf("    %s:%d: not \"key value\"\n", path, lineno);
			bad = 1;
			continue;
		}
		for (i = 0; i < 3; i++)
			if (!strcmp(key, golden_text[i]))
				break;
		if (i < 3) {
			seen_text[i]++;
			continue;
		}
		for (i = 0; i < GOLDEN_NINTS; i++)
			if (!strcmp(key, golden_ints[i].key))
				break;
		if (i == GOLDEN_NINTS || sscanf(val, "%d", &v) != 1 ||
		    *golden_field(g, i) != -1) {
			printf("    %s:%d: unknown, repeated or not a number: "
			       "%s",
			       path, lineno, line);
			bad = 1;
			continue;
		}
		*golden_field(g, i) = v;
	}
	fclose(f);
	for (i = 0; i < GOLDEN_NINTS; i++)
		if (*golden_field(g, i) < 0) {
			printf("    %s: no %s\n", path, golden_ints[i].key);
			bad = 1;
		}
	for (i = 0; i < 3; i++)
		if (seen_text[i] != 1) {
			printf("    %s: no single %s\n", path, golden_text[i]);
			bad = 1;
		}
	if (!g->nops) {
		printf("    %s: no op lines\n", path);
		bad = 1;
	}
	return bad ? -1 : 0;
}

static int vop_of(const char *name)
{
	int i;

	for (i = 0; i < DB_VOP_NUM; i++)
		if (db_vop_name[i] && !strcmp(db_vop_name[i], name))
			return i;
	return -1;
}

static void check_release(int major)
{
	const struct db_epoch *e = db_epoch_of(major);
	static struct golden g;
	int in_data[DB_VOP_NUM] = { 0 };
	int i, v;

	CHECK(e != NULL);
	if (golden_read(major, &g)) {
		CHECK(!"the recorded data can be read");
		return;
	}
	if (!e)
		return;
	/* The file is the one of this release, and consistent. */
	CHECK_EQ(g.major, major);
	CHECK_EQ(g.ops_size, g.nslots * 8);
	CHECK_EQ(g.nops, g.nslots);

	CHECK(e->first <= major && major <= e->last);
	CHECK_EQ(e->pabi, g.pabi);
	CHECK_EQ(e->ibverbs_minor, g.ibverbs_minor);
	CHECK_EQ(e->nslots, g.nslots);
	/* The recorded facts are x86_64's: the structs that hold a
	 * pthread_mutex_t grow by DB_MUTEX_GROWTH elsewhere. */
	CHECK_EQ(e->vctx_size, g.vctx_size + DB_MUTEX_GROWTH);
	CHECK_EQ(e->vctx_context_off, g.vctx_context_off);
	CHECK_EQ(e->qp_ex_size, g.qp_ex_size + DB_MUTEX_GROWTH);
	CHECK_EQ(e->vqp_comp_mask_off, g.vqp_comp_mask_off + DB_MUTEX_GROWTH);
	CHECK_EQ(e->vqp_xrcd_off, g.vqp_xrcd_off + DB_MUTEX_GROWTH);
	CHECK_EQ(e->vqp_size, g.vqp_size + DB_MUTEX_GROWTH);
	CHECK_EQ(e->sysfs_abi_ver_off, g.sysfs_abi_ver_off);
	CHECK_EQ(e->args_reg_dmabuf_mr, g.args_reg_dmabuf_mr);
	CHECK_EQ(e->args_get_context, g.args_get_context);
	CHECK_EQ(e->args_create_cq_ex, g.args_create_cq_ex);
	CHECK_EQ(e->args_create_qp_ex2, g.args_create_qp_ex2);

	/* Every recorded op is known, at its recorded slot. */
	for (i = 0; i < g.nops; i++) {
		v = vop_of(g.op[i]);
		if (v < 0) {
			printf("    v%d: op %s is not in enum db_vop\n", major,
			       g.op[i]);
			check_failed = 1;
			continue;
		}
		in_data[v] = 1;
		if (e->slot[v] != g.op_slot[i]) {
			printf("    v%d: op %s at slot %d, recorded %d\n",
			       major, g.op[i], e->slot[v], g.op_slot[i]);
			check_failed = 1;
		}
	}
	/* The others are absent in this release. */
	for (i = 0; i < DB_VOP_NUM; i++)
		if (!in_data[i] && e->slot[i] != -1) {
			printf("    v%d: op %s at slot %d, not in the "
			       "release\n",
			       major, db_vop_name[i], e->slot[i]);
			check_failed = 1;
		}
}

static void no_epoch_outside_34_to_65(void)
{
	CHECK(db_epoch_of(GOLDEN_FIRST - 1) == NULL);
	CHECK(db_epoch_of(GOLDEN_LAST + 1) == NULL);
	CHECK(db_epoch_of(0) == NULL);
	CHECK(db_epoch_of(-1) == NULL);
}

/* The enum holds each name once, in the alphabetical order it promises. */
static void op_names_are_unique_and_sorted(void)
{
	int i;

	for (i = 0; i < DB_VOP_NUM; i++) {
		CHECK(db_vop_name[i] != NULL);
		if (i && db_vop_name[i] && db_vop_name[i - 1] &&
		    strcmp(db_vop_name[i - 1], db_vop_name[i]) >= 0) {
			printf("    %s before %s\n", db_vop_name[i - 1],
			       db_vop_name[i]);
			check_failed = 1;
		}
	}
}

/* And none of its names is a stray: each is in some recorded release. */
static void every_op_name_is_in_some_release(void)
{
	static struct golden g;
	int used[DB_VOP_NUM] = { 0 };
	int m, i, v;

	for (m = GOLDEN_FIRST; m <= GOLDEN_LAST; m++) {
		if (golden_read(m, &g)) {
			check_failed = 1;
			continue;
		}
		for (i = 0; i < g.nops; i++) {
			v = vop_of(g.op[i]);
			if (v >= 0)
				used[v] = 1;
		}
	}
	for (i = 0; i < DB_VOP_NUM; i++)
		if (!used[i]) {
			printf("    %s: in no release 34..65\n",
			       db_vop_name[i]);
			check_failed = 1;
		}
}

#define RELEASE(n)                                                             \
	static void pabi_layout_matches_rdma_core_v##n(void)                   \
	{                                                                      \
		check_release(n);                                              \
	}
RELEASE(34)
RELEASE(35)
RELEASE(36)
RELEASE(37)
RELEASE(38)
RELEASE(39)
RELEASE(40)
RELEASE(41)
RELEASE(42)
RELEASE(43)
RELEASE(44)
RELEASE(45)
RELEASE(46)
RELEASE(47)
RELEASE(48)
RELEASE(49)
RELEASE(50)
RELEASE(51)
RELEASE(52)
RELEASE(53)
RELEASE(54)
RELEASE(55)
RELEASE(56)
RELEASE(57)
RELEASE(58)
RELEASE(59)
RELEASE(60)
RELEASE(61)
RELEASE(62)
RELEASE(63)
RELEASE(64)
RELEASE(65)

static const struct check_test tests[] = {
	CHECK_TEST(pabi_layout_matches_rdma_core_v34),
	CHECK_TEST(pabi_layout_matches_rdma_core_v35),
	CHECK_TEST(pabi_layout_matches_rdma_core_v36),
	CHECK_TEST(pabi_layout_matches_rdma_core_v37),
	CHECK_TEST(pabi_layout_matches_rdma_core_v38),
	CHECK_TEST(pabi_layout_matches_rdma_core_v39),
	CHECK_TEST(pabi_layout_matches_rdma_core_v40),
	CHECK_TEST(pabi_layout_matches_rdma_core_v41),
	CHECK_TEST(pabi_layout_matches_rdma_core_v42),
	CHECK_TEST(pabi_layout_matches_rdma_core_v43),
	CHECK_TEST(pabi_layout_matches_rdma_core_v44),
	CHECK_TEST(pabi_layout_matches_rdma_core_v45),
	CHECK_TEST(pabi_layout_matches_rdma_core_v46),
	CHECK_TEST(pabi_layout_matches_rdma_core_v47),
	CHECK_TEST(pabi_layout_matches_rdma_core_v48),
	CHECK_TEST(pabi_layout_matches_rdma_core_v49),
	CHECK_TEST(pabi_layout_matches_rdma_core_v50),
	CHECK_TEST(pabi_layout_matches_rdma_core_v51),
	CHECK_TEST(pabi_layout_matches_rdma_core_v52),
	CHECK_TEST(pabi_layout_matches_rdma_core_v53),
	CHECK_TEST(pabi_layout_matches_rdma_core_v54),
	CHECK_TEST(pabi_layout_matches_rdma_core_v55),
	CHECK_TEST(pabi_layout_matches_rdma_core_v56),
	CHECK_TEST(pabi_layout_matches_rdma_core_v57),
	CHECK_TEST(pabi_layout_matches_rdma_core_v58),
	CHECK_TEST(pabi_layout_matches_rdma_core_v59),
	CHECK_TEST(pabi_layout_matches_rdma_core_v60),
	CHECK_TEST(pabi_layout_matches_rdma_core_v61),
	CHECK_TEST(pabi_layout_matches_rdma_core_v62),
	CHECK_TEST(pabi_layout_matches_rdma_core_v63),
	CHECK_TEST(pabi_layout_matches_rdma_core_v64),
	CHECK_TEST(pabi_layout_matches_rdma_core_v65),
	CHECK_TEST(no_epoch_outside_34_to_65),
	CHECK_TEST(op_names_are_unique_and_sorted),
	CHECK_TEST(every_op_name_is_in_some_release),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_", tests);
}
