// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Completion timestamps (m5m_stamp.h). */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "m5m_stamp.h"
#include "mlx5/mlx5_hw.h"

void m5m_cqe_stamp(uint8_t *cqe, uint8_t op_own, uint64_t timer)
{
	__be64 ts = htobe64(timer);

	if (M5_CQE_STAMPED(op_own))
		memcpy(cqe + offsetof(struct m5_cqe64, timestamp), &ts,
		       sizeof(ts));
}
