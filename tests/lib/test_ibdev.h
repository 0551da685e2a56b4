/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RDMA device a guest test program runs on when its -d does not name
 * one: the guest boot's $DOORBELL_VM_IBDEV (tests/vm/guest-init.sh exports
 * the device it made), else rxe0.  The scripts' rule is scripts/lib.sh's
 * db_ibdev.
 */
#ifndef DOORBELL_TESTS_TEST_IBDEV_H
#define DOORBELL_TESTS_TEST_IBDEV_H

const char *test_ibdev(void);

#endif
