// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The drain idiom on a real device (scripts/mlx5-validate.sh runs it; it
 * needs hardware, so no ctest does): an RC QP looped back to a second one
 * on the same port is moved to ERR with ibv_modify_qp, then an unsignaled
 * WR, a signaled marker and a receive are posted; each must complete with
 * IBV_WC_WR_FLUSH_ERR, in order.  Then the state is queried (libibverbs
 * rewrites qp->state) and one more WR must be flushed too.  The model
 * checks the same in tests/model/mlx5/test_qp_states.c.
 *
 * Usage: doorbell-mlx5-drain -d DEV [-g GID_INDEX]
 * Prints "PASS <name>" or "FAIL <name>: why" per check.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

struct hw {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;  /* a's sends */
	struct ibv_cq *rcq; /* a's receives */
	struct ibv_cq *bcq; /* all of b */
	struct ibv_mr *mr;
	struct ibv_qp *a, *b;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gidx;
	char buf[4096];
};

static int fails;

static void report(bool ok, const char *name, const char *why)
{
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		fails++;
	}
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *rc_qp(struct hw *h, struct ibv_cq *scq,
			    struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8,
			 .max_recv_wr = 8,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(h->pd, &qa);
}

/* RESET -> RTS towards dest on port 1 of the same device. */
static int rc_up(struct hw *h, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .dlid = h->port.lid, .port_num = 1 },
	};
	if (h->port.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = h->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)h->gidx;
		a.ah_attr.grh.hop_limit = 64;
	}
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
				  .timeout = 14,
				  .retry_cnt = 7,
				  .rnr_retry = 7,
				  .max_rd_atomic = 1 };
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_MAX_QP_RD_ATOMIC);
}

static int post_send(struct hw *h, struct ibv_qp *qp, uint64_t id,
		     unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)h->buf, 16, h->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = flags },
			   *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct hw *h, struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)h->buf + 1024, 64, h->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* The next completion within 5 s: 0, or -1 on timeout or poll error. */
static int next_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	time_t end = time(NULL) + 5;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n == 1 ? 0 : -1;
	} while (time(NULL) < end);
	return -1;
}

/* The completions of ids[] on cq, in that order, each with status st. */
static bool expect(struct ibv_cq *cq, const uint64_t *ids, int n,
		   enum ibv_wc_status st, char *why, size_t len)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++) {
		if (next_wc(cq, &wc)) {
			snprintf(why, len, "no completion for wr_id %llu",
				 (unsigned long long)ids[i]);
			return false;
		}
		if (wc.wr_id != ids[i] || wc.status != st) {
			snprintf(why, len,
				 "wr_id %llu status %s, expected "
				 "wr_id %llu status %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status),
				 (unsigned long long)ids[i],
				 ibv_wc_status_str(st));
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	static const uint64_t send_id[] = { 1 }, recv_id[] = { 0xb0 };
	static const uint64_t drain_ids[] = { 2, 3 }, drain_recv[] = { 0xa0 };
	static const uint64_t query_ids[] = { 4 };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr init;
	const char *dev = NULL;
	struct hw *h = calloc(1, sizeof(*h));
	char why[160] = "";
	bool ok;
	int opt;

	if (!h)
		return 2;
	h->gidx = 3;
	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			h->gidx = atoi(optarg);
		else
			return 2;
	}
	if (!dev) {
		fprintf(stderr,
			"usage: doorbell-mlx5-drain -d DEV [-g GIDX]\n");
		return 2;
	}
	h->ctx = open_dev(dev);
	if (h->ctx && !ibv_query_port(h->ctx, 1, &h->port) &&
	    (h->port.link_layer != IBV_LINK_LAYER_ETHERNET ||
	     !ibv_query_gid(h->ctx, 1, h->gidx, &h->gid))) {
		h->pd = ibv_alloc_pd(h->ctx);
		h->cq = ibv_create_cq(h->ctx, 32, NULL, NULL, 0);
		h->rcq = ibv_create_cq(h->ctx, 32, NULL, NULL, 0);
		h->bcq = ibv_create_cq(h->ctx, 32, NULL, NULL, 0);
		h->mr = h->pd ? ibv_reg_mr(h->pd, h->buf, sizeof(h->buf),
					   IBV_ACCESS_LOCAL_WRITE)
			      : NULL;
	}
	if (h->cq && h->rcq && h->bcq && h->mr) {
		h->a = rc_qp(h, h->cq, h->rcq);
		h->b = rc_qp(h, h->bcq, h->bcq);
	}
	if (!h->a || !h->b || rc_up(h, h->a, h->b->qp_num) ||
	    rc_up(h, h->b, h->a->qp_num)) {
		report(false, "mlx5_drain_setup", strerror(errno));
		return 1;
	}
	/* The path works: a send from a lands in b's receive. */
	report(!post_recv(h, h->b, 0xb0) &&
		       !post_send(h, h->a, 1, IBV_SEND_SIGNALED) &&
		       expect(h->cq, send_id, 1, IBV_WC_SUCCESS, why,
			      sizeof(why)) &&
		       expect(h->bcq, recv_id, 1, IBV_WC_SUCCESS, why,
			      sizeof(why)),
	       "mlx5_drain_rc_loopback_send", why);
	/* modify_qp(ERR), then posts: every one is flushed, in order. */
	why[0] = 0;
	ok = !ibv_modify_qp(h->a, &qa, IBV_QP_STATE) &&
	     !post_send(h, h->a, 2, 0) &&
	     !post_send(h, h->a, 3, IBV_SEND_SIGNALED) &&
	     !post_recv(h, h->a, 0xa0) &&
	     expect(h->cq, drain_ids, 2, IBV_WC_WR_FLUSH_ERR, why,
		    sizeof(why)) &&
	     expect(h->rcq, drain_recv, 1, IBV_WC_WR_FLUSH_ERR, why,
		    sizeof(why));
	/* After the checks: they fill in why (an argument of report() could
	 * be read before them). */
	report(ok, "mlx5_drain_after_err_marker_flushed",
	       why[0] ? why : "a post was refused");
	/* After a query that says ERR, a post is still flushed. */
	why[0] = 0;
	ok = !ibv_query_qp(h->a, &qa, IBV_QP_STATE, &init) &&
	     qa.qp_state == IBV_QPS_ERR &&
	     !post_send(h, h->a, 4, IBV_SEND_SIGNALED) &&
	     expect(h->cq, query_ids, 1, IBV_WC_WR_FLUSH_ERR, why, sizeof(why));
	report(ok, "mlx5_send_after_query_err_flushed",
	       why[0] ? why : "query or post failed");
	ibv_destroy_qp(h->a);
	ibv_destroy_qp(h->b);
	ibv_dereg_mr(h->mr);
	ibv_destroy_cq(h->cq);
	ibv_destroy_cq(h->rcq);
	ibv_destroy_cq(h->bcq);
	ibv_dealloc_pd(h->pd);
	ibv_close_device(h->ctx);
	free(h);
	return fails ? 1 : 0;
}
