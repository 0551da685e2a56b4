// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The device a guest test program defaults to: test_ibdev.h. */
#include <stdlib.h>

#include "test_ibdev.h"

const char *test_ibdev(void)
{
	const char *e = getenv("DOORBELL_VM_IBDEV");

	return e && *e ? e : "rxe0";
}
