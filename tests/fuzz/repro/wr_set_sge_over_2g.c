// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Reproducer (a finding of the fuzzing work, not a test that runs in CI):
 * ibv_wr_set_sge takes a length above rxe's largest message (2 GiB,
 * RXE_MAX_MSG) that ibv_post_send and ibv_wr_set_sge_list refuse with
 * EINVAL for the same WR.  Exit 0 when the three agree.
 *
 *   cmake --build build --target doorbell-unit
 *   cc -Iproviders/doorbell -Ikernel-headers -Itests/lib \
 *      tests/fuzz/repro/wr_set_sge_over_2g.c build/tests/unit/libdoorbell-unit.a \
 *      -Wl,--whole-archive build/providers/doorbell/libdoorbell-objs.a \
 *      -Wl,--no-whole-archive -Wl,--no-as-needed -libverbs -o build/repro &&
 *   build/repro
 *
 * (--whole-archive: the core's constructor, which picks libibverbs'
 * layouts, is referenced by nothing; --no-as-needed: it looks for a
 * loaded libibverbs.)
 */
#include <errno.h>
#include <stdio.h>

#include "rxe_fake.h"

int main(void)
{
	const uint32_t len = 0x80000001; /* RXE_MAX_MSG + 1 */
	struct ibv_sge sge = { .addr = 0x1000, .length = len, .lkey = 1 };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad;
	struct ibv_qp_ex *qpx;
	struct fake_qp f;
	int post, list, one;

	fake_qp_init(&f, IBV_QPT_RC, 2, 64);
	rxe_qp_set_wr_ops(&f.qp);
	qpx = &f.qp.vqp.qp_ex;

	post = rxe_post_send(&f.qp.vqp.qp, &wr, &bad);

	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_sge_list(qpx, 1, &sge);
	list = qpx->wr_complete(qpx);

	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
	one = qpx->wr_complete(qpx);

	printf("ibv_post_send: %d, ibv_wr_set_sge_list: %d, ibv_wr_set_sge: %d"
	       " (EINVAL is %d)\n",
	       post, list, one, EINVAL);
	fake_qp_free(&f);
	return post == EINVAL && list == EINVAL && one == EINVAL ? 0 : 1;
}
