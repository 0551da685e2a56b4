/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Which libibverbs loaded the provider, and whether it is one doorbell
 * serves (libver.c): the release from the mapped file's name, checked
 * against its exports and its verbs_qp layout (docs/abi.md).
 */
#ifndef DOORBELL_CORE_LIBVER_H
#define DOORBELL_CORE_LIBVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <infiniband/verbs.h>

struct db_epoch;

/*
 * libver.c: which libibverbs loaded us.  db_check_libibverbs() decides once,
 * at load, fills db_lib (core/pabi.h) and returns 0, or says why not in one
 * line and returns -1.
 */
int db_libibverbs_version(const char *real_path, long v[4]);
int db_libibverbs_major(const char *real_path);
int db_check_libibverbs(void);
/* Is name@node defined in the libibverbs arg stands for? */
typedef bool db_sym_probe_fn(void *arg, const char *name, const char *node);
struct db_libver {
	int major;		      /* rdma-core release, -1 if unknown */
	int minor;		      /* libibverbs' minor */
	const struct db_epoch *epoch; /* NULL: refused */
	char why[256];		      /* the refusal, one line */
};
/*
 * The decision on the mapped file's name, its exports and where it keeps
 * verbs_qp.comp_mask (db_probe_vqp_comp_mask): 0 accept, -1 refuse.
 */
int db_libver_decide(const char *real_path, db_sym_probe_fn *probe, void *arg,
		     int vqp_comp_mask_off, struct db_libver *out);
/* libibverbs' public ibv_qp_to_qp_ex(), taking and giving any QP. */
typedef struct ibv_qp_ex *db_qp_to_qp_ex_fn(struct ibv_qp *qp);
/*
 * Where the libibverbs whose ibv_qp_to_qp_ex() this is keeps
 * verbs_qp.comp_mask: the one offset of the epochs' at which VERBS_QP_EX
 * makes it return the QP, on a zeroed buffer; -1 if none or several.  It
 * only reads the buffer (libibverbs/verbs.c, the same in v34.0 to 65.0).
 */
int db_probe_vqp_comp_mask(db_qp_to_qp_ex_fn *to_qp_ex);
/*
 * The file mapped at addr, from a /proc/<pid>/maps stream: its path, with
 * " (deleted)" dropped; 0, or -1 if no file mapping holds addr.
 */
int db_mapped_file(FILE *maps, const void *addr, char *path, size_t size);

#endif /* DOORBELL_CORE_LIBVER_H */
