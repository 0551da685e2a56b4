// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Which libibverbs loaded us, decided once, before registering, and fail
 * closed: any doubt and doorbell says why in one line and registers nothing.
 *
 * The release (rdma-core major) is read from the name of the file that is
 * mapped, libibverbs.so.1.<minor>.<major>.<n> (/proc/self/maps: the file
 * the process really runs, not where today's symlink points).  The symbols
 * it exports must then agree with that release: the minor, the private node
 * verbs_register_driver_<pabi>@IBVERBS_PRIVATE_<pabi> lives in, and one
 * marker symbol per release that added one.  Releases that export the same
 * symbols but lay out verbs_qp differently (37-43, 44, 45-48) are told
 * apart by asking the library itself where it keeps verbs_qp.comp_mask
 * (db_probe_vqp_comp_mask), so a file copied or bind-mounted under another
 * release's name is refused.  db_libver_decide() is that decision, with the
 * symbol lookups and the measured offset passed in, so that it is tested
 * without a libibverbs; db_check_libibverbs() feeds it dlvsym() and the
 * probe, then resolves every private function doorbell calls into db_lib
 * (core/pabi.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/doorbell.h"
#include "core/libver.h"
#include "core/pabi.h"

/*
 * The four numbers of libibverbs.so.A.B.C.D; 0, or -1 if it is not one.  A
 * number too large for a long reads as LONG_MAX.
 */
int db_libibverbs_version(const char *real_path, long v[4])
{
	const char *base, *p;
	char *end;
	int i;

	if (!real_path)
		return -1;
	base = strrchr(real_path, '/');
	base = base ? base + 1 : real_path;
	if (strncmp(base, "libibverbs.so.", 14) != 0)
		return -1;
	p = base + 14;
	for (i = 0; i < 4; i++) {
		if (*p < '0' || *p > '9')
			return -1;
		v[i] = strtol(p, &end, 10);
		if ((i < 3 && *end != '.') || (i == 3 && *end != '\0'))
			return -1;
		p = end + 1;
	}
	return 0;
}

/* The rdma-core major of a libibverbs path, or -1 if it has none. */
int db_libibverbs_major(const char *real_path)
{
	long v[4];

	if (db_libibverbs_version(real_path, v) || v[2] > INT_MAX)
		return -1;
	return (int)v[2];
}

/*
 * A symbol each of these releases added and every later one keeps
 * (libibverbs/libibverbs.map.in); node NULL: the release's private node.
 */
static const struct {
	const char *name;
	const char *node;
	int since;
} db_markers[] = {
	{ "ibv_import_dm", "IBVERBS_1.13", 35 },
	{ "ibv_query_qp_data_in_order", "IBVERBS_1.14", 36 },
	{ "__verbs_log", NULL, 37 },
	{ "ibv_wr_opcode_str", NULL, 49 },
	{ "ibv_cmd_create_cq_ex2", NULL, 53 },
	{ "ibv_reg_mr_ex", "IBVERBS_1.15", 59 },
	{ "ibv_query_port_speed", "IBVERBS_1.16", 62 },
	{ "ibv_alloc_buf", "IBVERBS_1.17", 64 },
	{ "ibv_create_comp_cntr", "IBVERBS_1.18", 65 },
};

static bool db_pabi_seen(int pabi, unsigned int before)
{
	unsigned int i;

	for (i = 0; i < before; i++)
		if (db_epochs[i].pabi == pabi)
			return true;
	return false;
}

/*
 * Where ibv_qp_to_qp_ex() read comp_mask: "at byte N, as rdma-core A does"
 * or "... A to B do" (the offsets only grow, so they are one run).
 */
static void db_comp_mask_reading(int off, char *buf, size_t size)
{
	int first = -1, last = -1;
	unsigned int i;

	for (i = 0; off >= 0 && i < db_num_epochs; i++) {
		if ((int)db_epochs[i].vqp_comp_mask_off != off)
			continue;
		if (first < 0)
			first = db_epochs[i].first;
		last = db_epochs[i].last;
	}
	if (first < 0)
		snprintf(buf, size,
			 "at none of the offsets of rdma-core %d to %d",
			 db_epochs[0].first, db_epochs[db_num_epochs - 1].last);
	else if (first == last)
		snprintf(buf, size, "at byte %d, as rdma-core %d does", off,
			 first);
	else
		snprintf(buf, size, "at byte %d, as rdma-core %d to %d do", off,
			 first, last);
}

int db_libver_decide(const char *real_path, db_sym_probe_fn *probe, void *arg,
		     int vqp_comp_mask_off, struct db_libver *out)
{
	const struct db_epoch *ep;
	const char *base, *node;
	char sym[64], priv[64];
	unsigned int i;
	bool has;
	long v[4];
	int major, minor;

	memset(out, 0, sizeof(*out));
	out->major = -1;
	base = real_path ? strrchr(real_path, '/') : NULL;
	base = base ? base + 1 : real_path ? real_path : "(none)";
	if (db_libibverbs_version(real_path, v) || v[0] != 1 ||
	    v[1] > INT_MAX || v[2] > INT_MAX) {
		snprintf(out->why, sizeof(out->why),
			 "not loaded: cannot tell the rdma-core release of "
			 "libibverbs from its file name %s",
			 base);
		return -1;
	}
	out->major = major = (int)v[2];
	minor = (int)v[1];
	ep = db_epoch_of(major);
	if (!ep) {
		snprintf(out->why, sizeof(out->why),
			 "not loaded: %s is rdma-core %d; this build serves "
			 "rdma-core %d to %d",
			 base, major, db_epochs[0].first,
			 db_epochs[db_num_epochs - 1].last);
		return -1;
	}
	if (minor != ep->ibverbs_minor) {
		snprintf(out->why, sizeof(out->why),
			 "not loaded: %s: rdma-core %d names its libibverbs "
			 "libibverbs.so.1.%d.%d.x, not 1.%d",
			 base, major, ep->ibverbs_minor, major, minor);
		return -1;
	}
	/* Exactly the release's private node registers drivers. */
	for (i = 0; i < db_num_epochs; i++) {
		int p = db_epochs[i].pabi;

		if (db_pabi_seen(p, i))
			continue;
		snprintf(sym, sizeof(sym), "verbs_register_driver_%d", p);
		snprintf(priv, sizeof(priv), "IBVERBS_PRIVATE_%d", p);
		has = probe(arg, sym, priv);
		if (has != (p == ep->pabi)) {
			snprintf(out->why, sizeof(out->why),
				 "not loaded: %s is rdma-core %d (PABI %d) but "
				 "%s %s@%s",
				 base, major, ep->pabi,
				 has ? "exports" : "lacks", sym, priv);
			return -1;
		}
	}
	snprintf(priv, sizeof(priv), "IBVERBS_PRIVATE_%d", ep->pabi);
	for (i = 0; i < sizeof(db_markers) / sizeof(db_markers[0]); i++) {
		node = db_markers[i].node ? db_markers[i].node : priv;
		has = probe(arg, db_markers[i].name, node);
		if (has != (major >= db_markers[i].since)) {
			snprintf(out->why, sizeof(out->why),
				 "not loaded: %s is rdma-core %d but %s %s@%s "
				 "(added in %d)",
				 base, major, has ? "exports" : "lacks",
				 db_markers[i].name, node, db_markers[i].since);
			return -1;
		}
	}
	/* Same exports, other layout: the library's own answer decides. */
	if (vqp_comp_mask_off != (int)ep->vqp_comp_mask_off) {
		char reads[80];

		db_comp_mask_reading(vqp_comp_mask_off, reads, sizeof(reads));
		snprintf(out->why, sizeof(out->why),
			 "not loaded: %s is named rdma-core %d (verbs_qp "
			 "comp_mask at byte %u) but ibv_qp_to_qp_ex() reads it "
			 "%s",
			 base, major, ep->vqp_comp_mask_off, reads);
		return -1;
	}
	out->minor = minor;
	out->epoch = ep;
	return 0;
}

int db_probe_vqp_comp_mask(db_qp_to_qp_ex_fn *to_qp_ex)
{
	union {
		struct verbs_qp vqp; /* alignment */
		unsigned char b[DB_VQP_ROOM];
	} qp;
	const uint32_t ex = VERBS_QP_EX;
	struct ibv_qp_ex *got;
	int found = -1;
	unsigned int i, off;

	for (i = 0; i < db_num_epochs; i++) {
		off = db_epochs[i].vqp_comp_mask_off;
		if (off + sizeof(ex) > sizeof(qp))
			return -1;
		if (i && off == db_epochs[i - 1].vqp_comp_mask_off)
			continue;
		memset(&qp, 0, sizeof(qp));
		memcpy(qp.b + off, &ex, sizeof(ex));
		got = to_qp_ex(&qp.vqp.qp);
		if (!got)
			continue;
		/* Not the QP itself, or a second offset also answers. */
		if ((void *)got != (void *)&qp || found >= 0)
			return -1;
		found = (int)off;
	}
	return found;
}

int db_mapped_file(FILE *maps, const void *addr, char *path, size_t size)
{
	static const char deleted[] = " (deleted)";
	uintptr_t a = (uintptr_t)addr;
	unsigned long lo, hi;
	char *line = NULL, *p;
	size_t cap = 0, len;
	int at, ret = -1;

	while (getline(&line, &cap, maps) > 0) {
		at = -1;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) <
			    2 ||
		    at < 0 || a < lo || a >= hi)
			continue;
		p = line + at;
		len = strcspn(p, "\n");
		/* An unlinked file keeps its name: still what is mapped. */
		if (len >= sizeof(deleted) - 1 &&
		    !memcmp(p + len - (sizeof(deleted) - 1), deleted,
			    sizeof(deleted) - 1))
			len -= sizeof(deleted) - 1;
		if (p[0] == '/' && len < size) {
			memcpy(path, p, len);
			path[len] = '\0';
			ret = 0;
		}
		break;
	}
	free(line);
	return ret;
}

static bool db_dlvsym_probe(void *handle, const char *name, const char *node)
{
	return dlvsym(handle, name, node) != NULL;
}

/* Every private function, at its place in struct db_libibverbs. */
#define DB_LIB_SYM(name)	      { #name, offsetof(struct db_libibverbs, name) },
#define DB_LIB_GROWN_SYM(name, grown) DB_LIB_SYM(name)
#define DB_LIB_LONG_SYM(name, long)   DB_LIB_SYM(name)
static const struct {
	const char *name;
	size_t off;
} db_lib_syms[] = { DB_LIB_FNS(DB_LIB_SYM) DB_LIB_LONG_FNS(DB_LIB_LONG_SYM)
			    DB_LIB_GROWN_FNS(DB_LIB_GROWN_SYM) };

/* One symbol into its field; the fields are all function pointers. */
static int db_resolve(void *handle, struct db_libibverbs *lib, size_t off,
		      const char *name, const char *node, const char *file)
{
	void *sym = dlvsym(handle, name, node);

	if (!sym) {
		db_refuse("not loaded: %s (rdma-core %d) lacks %s@%s", file,
			  lib->major, name, node);
		return -1;
	}
	memcpy((char *)lib + off, &sym, sizeof(sym));
	return 0;
}

/*
 * The path of the libibverbs file mapped at pub: from /proc/self/maps, or,
 * without /proc, realpath() of the name it was loaded by.
 */
static void db_loaded_path(const void *pub, char *path, size_t size)
{
	char real[PATH_MAX];
	Dl_info info;
	FILE *maps;

	maps = pub ? fopen("/proc/self/maps", "re") : NULL;
	if (maps) {
		int ret = db_mapped_file(maps, pub, path, size);

		fclose(maps);
		if (!ret)
			return;
	}
	if (pub && dladdr(pub, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real) && strlen(real) < size) {
		strcpy(path, real);
		return;
	}
	snprintf(path, size, "libibverbs.so.1");
}

int db_check_libibverbs(void)
{
	struct db_libibverbs lib = {};
	char path[PATH_MAX], name[64], node[64];
	db_qp_to_qp_ex_fn *to_qp_ex;
	struct db_libver lv;
	const char *base;
	void *handle;
	int comp_mask_off = -1;
	size_t i;

	if (sizeof(void *) != 8) {
		db_refuse("not loaded: doorbell knows libibverbs' layouts on "
			  "64-bit (LP64) systems only");
		return -1;
	}
	/* Also where libibverbs is in a local scope (say, Python's). */
	handle = dlopen("libibverbs.so.1", RTLD_NOLOAD | RTLD_LAZY);
	if (!handle) {
		db_refuse("not loaded: libibverbs.so.1 is not loaded in this "
			  "process");
		return -1;
	}
	db_loaded_path(dlsym(handle, "ibv_get_device_list"), path,
		       sizeof(path));
	to_qp_ex = (db_qp_to_qp_ex_fn *)dlvsym(handle, "ibv_qp_to_qp_ex",
					       "IBVERBS_1.6");
	if (to_qp_ex)
		comp_mask_off = db_probe_vqp_comp_mask(to_qp_ex);
	if (db_libver_decide(path, db_dlvsym_probe, handle, comp_mask_off,
			     &lv)) {
		db_refuse("%s", lv.why);
		return -1;
	}
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	lib.epoch = lv.epoch;
	lib.major = lv.major;
	snprintf(node, sizeof(node), "IBVERBS_PRIVATE_%d", lv.epoch->pabi);
	snprintf(name, sizeof(name), "verbs_register_driver_%d",
		 lv.epoch->pabi);
	if (db_resolve(handle, &lib,
		       offsetof(struct db_libibverbs, verbs_register_driver),
		       name, node, base))
		return -1;
	for (i = 0; i < sizeof(db_lib_syms) / sizeof(db_lib_syms[0]); i++)
		if (db_resolve(handle, &lib, db_lib_syms[i].off,
			       db_lib_syms[i].name, node, base))
			return -1;
	/* The handle stays open: libibverbs outlives us anyway. */
	db_lib = lib;
	return 0;
}
