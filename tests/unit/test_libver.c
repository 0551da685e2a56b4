// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which libibverbs doorbell accepts (core/libver.c, db_libver_decide): the
 * release from the real file name, cross-checked with the exports.  The
 * exports come from a fake written here from the release notes of
 * libibverbs/libibverbs.map.in (docs/abi.md), not from libver.c's tables:
 * which node each release's newest public symbols are in, which PABI
 * registers drivers, and when the private symbols below appeared; and where
 * each release keeps verbs_qp.comp_mask (after struct ibv_qp_ex, which
 * gained wr_atomic_write in 44 and wr_flush in 45: libibverbs/verbs.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/doorbell.h"
#include "core/libver.h"
#include "check.h"

static void major_is_read_from_the_real_file_name(void)
{
	CHECK_EQ(db_libibverbs_major(
			 "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
		 44);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.50.0"), 50);
	CHECK_EQ(db_libibverbs_major("/opt/x/libibverbs.so.1.14.39.7"), 39);
}

static void unversioned_or_foreign_names_have_no_major(void)
{
	CHECK_EQ(db_libibverbs_major(NULL), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libibverbs.so.1"), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libibverbs.so.1.14.44"), -1);
	CHECK_EQ(db_libibverbs_major("/usr/lib/libmlx5.so.1.24.44.0"), -1);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.44.0x"), -1);
	CHECK_EQ(db_libibverbs_major("libibverbs.so.1.14.x.0"), -1);
}

/* A libibverbs of rdma-core `release`, perhaps with one export changed. */
struct fake_lib {
	int release;
	int pabi;	  /* the node that registers drivers */
	const char *drop; /* this symbol is missing */
	const char *add;  /* this symbol is there, in any node asked */
	int layout;	  /* its verbs_qp is that release's; 0: release's */
};

/* offsetof(struct verbs_qp, comp_mask) in rdma-core r: x86_64's, plus
 * the larger pthread_mutex_t of some architectures (abi/epochs.h). */
static int release_comp_mask(int r)
{
	return (r >= 45 ? 360 : r >= 44 ? 352 : 344) + (int)DB_MUTEX_GROWTH;
}

static int release_pabi(int r)
{
	return r >= 65 ? 65 : r >= 64 ? 64 : r >= 59 ? 59 : r >= 57 ? 57 : 34;
}

/* libibverbs.so.1.<minor>: the newest public node, IBVERBS_1.<minor>. */
static int release_minor(int r)
{
	return r >= 65	 ? 18
	       : r >= 64 ? 17
	       : r >= 62 ? 16
	       : r >= 59 ? 15
	       : r >= 36 ? 14
	       : r >= 35 ? 13
			 : 12;
}

/* Public symbols of later nodes, and when private ones appeared. */
static const struct {
	const char *name;
	int node_minor; /* IBVERBS_1.<n>; 0: private */
	int since;	/* private: first release */
} fake_syms[] = {
	{ "ibv_get_device_list", 1, 0 },
	{ "ibv_import_dm", 13, 0 },
	{ "ibv_query_qp_data_in_order", 14, 0 },
	{ "ibv_reg_mr_ex", 15, 0 },
	{ "ibv_query_port_speed", 16, 0 },
	{ "ibv_alloc_buf", 17, 0 },
	{ "ibv_create_comp_cntr", 18, 0 },
	{ "ibv_cmd_get_context", 0, 34 },
	{ "__verbs_log", 0, 37 },
	{ "ibv_wr_opcode_str", 0, 49 },
	{ "ibv_cmd_create_cq_ex2", 0, 53 },
	{ "ibv_cmd_alloc_dmah", 0, 59 },
};

static bool fake_probe(void *arg, const char *name, const char *node)
{
	const struct fake_lib *f = arg;
	char priv[32], reg[48];
	unsigned int i;
	int minor;

	if (f->drop && !strcmp(name, f->drop))
		return false;
	if (f->add && !strcmp(name, f->add))
		return true;
	snprintf(priv, sizeof(priv), "IBVERBS_PRIVATE_%d", f->pabi);
	snprintf(reg, sizeof(reg), "verbs_register_driver_%d", f->pabi);
	if (!strcmp(name, reg))
		return !strcmp(node, priv);
	for (i = 0; i < sizeof(fake_syms) / sizeof(fake_syms[0]); i++) {
		if (strcmp(name, fake_syms[i].name))
			continue;
		if (!fake_syms[i].node_minor)
			return !strcmp(node, priv) &&
			       f->release >= fake_syms[i].since;
		if (sscanf(node, "IBVERBS_1.%d", &minor) != 1)
			return false;
		return minor == fake_syms[i].node_minor &&
		       release_minor(f->release) >= minor;
	}
	return false;
}

/* Decide on libibverbs.so.1.<minor>.<release>.0 with the fake f. */
static int decide(struct fake_lib *f, int minor, struct db_libver *lv)
{
	char name[80];

	snprintf(name, sizeof(name), "/usr/lib/libibverbs.so.1.%d.%d.0", minor,
		 f->release);
	return db_libver_decide(
		name, fake_probe, f,
		release_comp_mask(f->layout ? f->layout : f->release), lv);
}

/* A refusal is one line that names the file and the release. */
static bool refused_naming(const struct db_libver *lv, int release)
{
	char rel[32];

	snprintf(rel, sizeof(rel), "rdma-core %d", release);
	return lv->epoch == NULL && strchr(lv->why, '\n') == NULL &&
	       strstr(lv->why, "libibverbs.so.1.") && strstr(lv->why, rel);
}

static void every_release_served_is_accepted_with_its_epoch(void)
{
	struct db_libver lv;
	struct fake_lib f;
	int r;

	for (r = DB_RANGE_FIRST; r <= DB_RANGE_LAST; r++) {
		f = (struct fake_lib){ .release = r, .pabi = release_pabi(r) };
		CHECK_EQ(decide(&f, release_minor(r), &lv), 0);
		CHECK(lv.epoch != NULL);
		if (!lv.epoch) {
			fprintf(stderr, "    rdma-core %d: %s\n", r, lv.why);
			continue;
		}
		CHECK(lv.epoch->first <= r && r <= lv.epoch->last);
		CHECK_EQ(lv.epoch->pabi, release_pabi(r));
		CHECK_EQ(lv.major, r);
		CHECK_EQ(lv.minor, release_minor(r));
	}
}

static void a_minor_of_another_release_is_refused(void)
{
	struct db_libver lv;
	struct fake_lib f;
	int r;

	for (r = DB_RANGE_FIRST; r <= DB_RANGE_LAST; r++) {
		f = (struct fake_lib){ .release = r, .pabi = release_pabi(r) };
		CHECK_EQ(decide(&f, release_minor(r) + 1, &lv), -1);
		CHECK(refused_naming(&lv, r));
		CHECK_EQ(decide(&f, release_minor(r) - 1, &lv), -1);
		CHECK(refused_naming(&lv, r));
	}
}

static void a_pabi_node_other_than_the_releases_is_refused(void)
{
	static const int pabis[] = { 34, 57, 59, 64, 65 };
	struct db_libver lv;
	struct fake_lib f;
	unsigned int i;
	int r;

	for (r = DB_RANGE_FIRST; r <= DB_RANGE_LAST; r++) {
		for (i = 0; i < sizeof(pabis) / sizeof(pabis[0]); i++) {
			if (pabis[i] == release_pabi(r))
				continue;
			f = (struct fake_lib){ .release = r, .pabi = pabis[i] };
			CHECK_EQ(decide(&f, release_minor(r), &lv), -1);
			CHECK(refused_naming(&lv, r));
		}
		/* No registering node at all. */
		f = (struct fake_lib){ .release = r, .pabi = 99 };
		CHECK_EQ(decide(&f, release_minor(r), &lv), -1);
	}
}

/* A symbol missing that the release has, or present that it lacks. */
static void exports_that_disagree_with_the_release_are_refused(void)
{
	static const struct {
		const char *name;
		int since;
	} markers[] = {
		{ "ibv_import_dm", 35 },
		{ "ibv_query_qp_data_in_order", 36 },
		{ "__verbs_log", 37 },
		{ "ibv_wr_opcode_str", 49 },
		{ "ibv_cmd_create_cq_ex2", 53 },
		{ "ibv_reg_mr_ex", 59 },
		{ "ibv_query_port_speed", 62 },
		{ "ibv_alloc_buf", 64 },
		{ "ibv_create_comp_cntr", 65 },
	};
	struct db_libver lv;
	struct fake_lib f;
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		/* The first release with it, without it. */
		r = markers[i].since;
		f = (struct fake_lib){ .release = r,
				       .pabi = release_pabi(r),
				       .drop = markers[i].name };
		CHECK_EQ(decide(&f, release_minor(r), &lv), -1);
		CHECK(refused_naming(&lv, r));
		CHECK(strstr(lv.why, markers[i].name) != NULL);
		/* The last release without it, with it. */
		r = markers[i].since - 1;
		if (r < 34)
			continue;
		f = (struct fake_lib){ .release = r,
				       .pabi = release_pabi(r),
				       .add = markers[i].name };
		CHECK_EQ(decide(&f, release_minor(r), &lv), -1);
		CHECK(refused_naming(&lv, r));
		CHECK(strstr(lv.why, markers[i].name) != NULL);
	}
}

/*
 * 37 to 48 export the same symbols, and so do 53 to 56: a file of one
 * release under another's name is caught by where its verbs_qp keeps
 * comp_mask, wherever that differs (the 53/54 difference is an extra
 * trailing parameter doorbell always passes: core/pabi.h).
 */
static void a_verbs_qp_layout_other_than_the_names_is_refused(void)
{
	struct db_libver lv;
	struct fake_lib f;
	int r, content;

	for (r = DB_RANGE_FIRST; r <= DB_RANGE_LAST; r++) {
		for (content = DB_RANGE_FIRST; content <= DB_RANGE_LAST;
		     content++) {
			f = (struct fake_lib){ .release = r,
					       .pabi = release_pabi(r),
					       .layout = content };
			if (release_comp_mask(content) ==
			    release_comp_mask(r)) {
				CHECK_EQ(decide(&f, release_minor(r), &lv), 0);
				continue;
			}
			CHECK_EQ(decide(&f, release_minor(r), &lv), -1);
			CHECK(refused_naming(&lv, r));
			CHECK(strstr(lv.why, "ibv_qp_to_qp_ex") != NULL);
		}
	}
	/* The library answered for no known layout, or for several. */
	f = (struct fake_lib){ .release = 44, .pabi = 34 };
	CHECK_EQ(db_libver_decide("libibverbs.so.1.14.44.0", fake_probe, &f, -1,
				  &lv),
		 -1);
	CHECK(refused_naming(&lv, 44));
}

/* libibverbs' ibv_qp_to_qp_ex() as each layout has it. */
static struct ibv_qp_ex *to_qp_ex_at(struct ibv_qp *qp, size_t off)
{
	uint32_t mask;

	memcpy(&mask, (char *)qp + off, sizeof(mask));
	return mask & VERBS_QP_EX ? (struct ibv_qp_ex *)qp : NULL;
}

static struct ibv_qp_ex *to_qp_ex_344(struct ibv_qp *qp)
{
	return to_qp_ex_at(qp, release_comp_mask(37));
}

static struct ibv_qp_ex *to_qp_ex_352(struct ibv_qp *qp)
{
	return to_qp_ex_at(qp, release_comp_mask(44));
}

static struct ibv_qp_ex *to_qp_ex_360(struct ibv_qp *qp)
{
	return to_qp_ex_at(qp, release_comp_mask(45));
}

static struct ibv_qp_ex *to_qp_ex_always(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}

static struct ibv_qp_ex *to_qp_ex_never(struct ibv_qp *qp)
{
	(void)qp;
	return NULL;
}

static void the_probe_finds_comp_mask_where_the_library_reads_it(void)
{
	CHECK_EQ(db_probe_vqp_comp_mask(to_qp_ex_344), release_comp_mask(37));
	CHECK_EQ(db_probe_vqp_comp_mask(to_qp_ex_352), release_comp_mask(44));
	CHECK_EQ(db_probe_vqp_comp_mask(to_qp_ex_360), release_comp_mask(45));
	CHECK_EQ(db_probe_vqp_comp_mask(to_qp_ex_always), -1);
	CHECK_EQ(db_probe_vqp_comp_mask(to_qp_ex_never), -1);
}

static void the_probe_agrees_with_the_system_libibverbs_release(void)
{
	/* The unit tests run with the library whose headers they use. */
	CHECK_EQ(db_probe_vqp_comp_mask(ibv_qp_to_qp_ex),
		 release_comp_mask(DB_HEADERS_RDMA_CORE));
}

/* A maps stream with the file a test looks up in it. */
static int mapped(const char *text, unsigned long addr, char *path, size_t size)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -2;
	ret = db_mapped_file(f, (const void *)addr, path, size);
	fclose(f);
	return ret;
}

static void the_release_is_read_from_the_mapped_file(void)
{
	static const char maps[] =
		"7f0000000000-7f0000001000 r--p 00000000 08:01 11 "
		"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n"
		"7f0000001000-7f0000009000 r-xp 00001000 08:01 11 "
		"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n"
		"7f0000009000-7f000000a000 r-xp 00001000 08:01 12 "
		"/opt/a dir/libibverbs.so.1.14.43.0 (deleted)\n"
		"7f000000a000-7f000000b000 rw-p 00000000 00:00 0 \n"
		"7f000000b000-7f000000c000 rw-p 00000000 00:00 0\n";
	char path[128];

	CHECK_EQ(mapped(maps, 0x7f0000001234, path, sizeof(path)), 0);
	CHECK(!strcmp(path,
		      "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"));
	/* Upgraded under a running process: the old file, by its name. */
	CHECK_EQ(mapped(maps, 0x7f0000009000, path, sizeof(path)), 0);
	CHECK(!strcmp(path, "/opt/a dir/libibverbs.so.1.14.43.0"));
	/* Anonymous mappings, addresses outside, no room: no file. */
	CHECK_EQ(mapped(maps, 0x7f000000a800, path, sizeof(path)), -1);
	CHECK_EQ(mapped(maps, 0x7f000000b800, path, sizeof(path)), -1);
	CHECK_EQ(mapped(maps, 0x7f000000c000, path, sizeof(path)), -1);
	CHECK_EQ(mapped(maps, 0x7f0000001234, path, 10), -1);
}

static void releases_outside_those_served_are_refused(void)
{
	struct db_libver lv;
	struct fake_lib f;

	const int before = DB_RANGE_FIRST - 1, after = DB_RANGE_LAST + 1;

	f = (struct fake_lib){ .release = before, .pabi = 34 };
	CHECK_EQ(decide(&f, release_minor(before), &lv), -1);
	CHECK(refused_naming(&lv, before));
	CHECK_EQ(lv.major, before);
	/* The next release, with the last one's PABI or a new one. */
	f = (struct fake_lib){ .release = after,
			       .pabi = release_pabi(DB_RANGE_LAST) };
	CHECK_EQ(decide(&f, release_minor(DB_RANGE_LAST), &lv), -1);
	CHECK(refused_naming(&lv, after));
	f = (struct fake_lib){ .release = after, .pabi = after };
	CHECK_EQ(decide(&f, release_minor(DB_RANGE_LAST) + 1, &lv), -1);
	CHECK(refused_naming(&lv, after));
	f = (struct fake_lib){ .release = 1, .pabi = 34 };
	CHECK_EQ(decide(&f, 14, &lv), -1);
}

static void unparsable_names_are_refused(void)
{
	static const char *const names[] = {
		"/usr/lib/libibverbs.so.1",
		"/usr/lib/libibverbs.so.1.14.44",
		"/usr/lib/libibverbs.so.2.14.44.0",
		"/usr/lib/libmlx5.so.1.14.44.0",
		"/usr/lib/libibverbs.so.1.14.44.0.1",
		"/usr/lib/libibverbs.so.1.14.99999999999.0",
		"",
	};
	struct fake_lib f = { .release = 44, .pabi = 34 };
	struct db_libver lv;
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_EQ(db_libver_decide(names[i], fake_probe, &f,
					  release_comp_mask(44), &lv),
			 -1);
		CHECK(lv.epoch == NULL);
		CHECK(strchr(lv.why, '\n') == NULL);
		CHECK(strstr(lv.why, "cannot tell") != NULL);
	}
	CHECK_EQ(db_libver_decide(NULL, fake_probe, &f, release_comp_mask(44),
				  &lv),
		 -1);
	CHECK(lv.epoch == NULL);
}

static void the_system_libibverbs_is_accepted(void)
{
	/* The unit tests are built against the library they run with. */
	CHECK_EQ(db_check_libibverbs(), 0);
	CHECK(db_lib.epoch != NULL);
	CHECK(db_lib.verbs_register_driver != NULL);
	CHECK(db_lib.ibv_cmd_create_qp_ex2.v44 != NULL);
	if (db_lib.epoch)
		CHECK(db_lib.epoch == db_epoch_of(db_lib.major));
}

static const struct check_test tests[] = {
	CHECK_TEST(major_is_read_from_the_real_file_name),
	CHECK_TEST(unversioned_or_foreign_names_have_no_major),
	CHECK_TEST(every_release_served_is_accepted_with_its_epoch),
	CHECK_TEST(a_minor_of_another_release_is_refused),
	CHECK_TEST(a_pabi_node_other_than_the_releases_is_refused),
	CHECK_TEST(exports_that_disagree_with_the_release_are_refused),
	CHECK_TEST(a_verbs_qp_layout_other_than_the_names_is_refused),
	CHECK_TEST(the_probe_finds_comp_mask_where_the_library_reads_it),
	CHECK_TEST(the_probe_agrees_with_the_system_libibverbs_release),
	CHECK_TEST(the_release_is_read_from_the_mapped_file),
	CHECK_TEST(releases_outside_those_served_are_refused),
	CHECK_TEST(unparsable_names_are_refused),
	CHECK_TEST(the_system_libibverbs_is_accepted),
};

int main(int argc, char **argv)
{
	return CHECK_MAIN(argc, argv, "unit_libver_", tests);
}
