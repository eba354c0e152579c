/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c -- unit tests of librpma/src/srq.c: shared receive queues with and
 * without a receive CQ of their own, posting receives to them
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "cq.h"
#include "librpma.h"
#include "mocks.h"
#include "peer.h"
#include "srq.h"

/* a pointer value no function may write over an output on failure */
#define SENTINEL ((void *)(uintptr_t)0xbadc0ffe)

#define BUF_SIZE 1024

static char Buf[BUF_SIZE];
static struct rpma_peer *Peer;

/* setup -- a clean mock state and a peer */
static int
setup(void **state)
{
	(void)state;
	mock_reset();
	Peer = NULL;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &Peer), 0);
	return 0;
}

/* teardown -- release the peer; nothing may leak */
static int
teardown(void **state)
{
	(void)state;
	assert_int_equal(rpma_peer_delete(&Peer), 0);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	return 0;
}

/* new_cfg -- a configuration with the given sizes */
static struct rpma_srq_cfg *
new_cfg(uint32_t rq_size, uint32_t rcq_size)
{
	struct rpma_srq_cfg *cfg = NULL;

	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, rq_size), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, rcq_size), 0);
	return cfg;
}

/* new_defaults -- cfg NULL: a SRQ of 20 entries with a receive CQ of 20 */
static void
new_defaults(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	assert_non_null(srq);
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 20);
	assert_int_equal(mock_last_srq_init_attr.attr.max_sge, 1);
	assert_int_equal(mock_last_cq_cqe, 20);

	struct ibv_srq *ibv_srq = rpma__srq_get_ibv_srq(srq);

	assert_non_null(ibv_srq);
	assert_ptr_equal(ibv_srq->pd, rpma__peer_pd(Peer));
	assert_int_equal(rpma_srq_get_rcq(srq, &rcq), 0);
	assert_non_null(rcq);
	assert_ptr_equal(rpma__srq_get_rcq(srq), rcq);
	assert_non_null(rpma__cq_get_ibv_cq(rcq));

	/* the receive CQ has its own channel */
	int fd = -1;

	assert_int_equal(rpma_cq_get_fd(rcq, &fd), 0);
	assert_true(fd >= 0);

	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_null(srq);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
}

/* new_no_rcq -- rcq_size 0: no receive CQ at all */
static void
new_no_rcq(void **state)
{
	(void)state;
	struct rpma_srq_cfg *cfg = new_cfg(7, 0);
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = SENTINEL;

	assert_int_equal(rpma_srq_new(Peer, cfg, &srq), 0);
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 7);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
	assert_int_equal(rpma_srq_get_rcq(srq, &rcq), 0);
	assert_null(rcq);
	assert_null(rpma__srq_get_rcq(srq));

	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* new_sizes -- the sizes of the configuration are used */
static void
new_sizes(void **state)
{
	(void)state;
	struct rpma_srq_cfg *cfg = new_cfg(50, 60);
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_srq_new(Peer, cfg, &srq), 0);
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 50);
	assert_int_equal(mock_last_cq_cqe, 60);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/*
 * new_invalid -- NULL peer or srq_ptr: INVAL, nothing created; rq_size 0
 * goes to the device, whose refusal is PROVIDER (as with librpma 1.3)
 */
static void
new_invalid(void **state)
{
	(void)state;
	struct rpma_srq_cfg *cfg = new_cfg(0, 10);
	struct rpma_srq *srq = SENTINEL;

	assert_int_equal(rpma_srq_new(NULL, NULL, &srq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_new(Peer, NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_create_srq"), 0);
	mock_fail("ibv_create_srq", EINVAL);
	errno = 0;
	assert_int_equal(rpma_srq_new(Peer, cfg, &srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 0);
	assert_ptr_equal(srq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* new_srq_fails -- no SRQ: PROVIDER with errno, no CQ */
static void
new_srq_fails(void **state)
{
	(void)state;
	struct rpma_srq *srq = SENTINEL;

	mock_fail("ibv_create_srq", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_ptr_equal(srq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
}

/* new_rcq_fails -- no receive CQ (each step): its error, the SRQ destroyed */
static void
new_rcq_fails(void **state)
{
	(void)state;
	static const char *const steps[] = {
	    "ibv_create_comp_channel",
	    "ibv_create_cq",
	    "ibv_req_notify_cq",
	};
	struct rpma_srq *srq = SENTINEL;

	for (int i = 0; i < 3; i++) {
		mock_fail(steps[i], EIO);
		errno = 0;
		assert_int_equal(rpma_srq_new(Peer, NULL, &srq), RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_ptr_equal(srq, SENTINEL);
		assert_int_equal(mock_calls("ibv_destroy_srq"), i + 1);
		assert_int_equal(mock_objects_live(), 1); /* the peer's PD */
	}

	/* no memory for the receive CQ */
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), RPMA_E_NOMEM);
	assert_ptr_equal(srq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 4);
	assert_int_equal(mock_objects_live(), 1);
}

/* new_malloc_fails -- no memory for the SRQ: NOMEM, receive CQ and SRQ destroyed */
static void
new_malloc_fails(void **state)
{
	(void)state;
	struct rpma_srq *srq = SENTINEL;

	/* the first allocation is the receive CQ's, the second the SRQ's */
	mock_alloc_fail_nth(2);
	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), RPMA_E_NOMEM);
	assert_ptr_equal(srq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 1);
	assert_int_equal(mock_objects_live(), 1);

	/* without a receive CQ */
	struct rpma_srq_cfg *cfg = new_cfg(5, 0);

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_srq_new(Peer, cfg, &srq), RPMA_E_NOMEM);
	assert_ptr_equal(srq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 2);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* delete_null -- srq_ptr NULL refused, *srq_ptr NULL a no-op */
static void
delete_null(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_srq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 0);
}

/* delete_srq_fails -- a failing SRQ destroy is reported; CQ and memory released anyway */
static void
delete_srq_fails(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	struct ibv_srq *ibv_srq = rpma__srq_get_ibv_srq(srq);

	mock_fail("ibv_destroy_srq", EBUSY);
	errno = 0;
	assert_int_equal(rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(srq);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_alloc_live(), 1); /* the peer */
	assert_int_equal(ibv_destroy_srq(ibv_srq), 0);
}

/* delete_rcq_fails -- a failing receive CQ destroy is reported too */
static void
delete_rcq_fails(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(rpma__srq_get_rcq(srq));

	mock_fail("ibv_destroy_cq", EBUSY);
	errno = 0;
	assert_int_equal(rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(srq);
	assert_int_equal(mock_calls("ibv_destroy_srq"), 1);
	assert_int_equal(mock_alloc_live(), 1);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
}

/* recv_ok -- a receive buffer goes to the SRQ with its range and context */
static void
recv_ok(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	struct rpma_mr_local *dst = NULL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	assert_int_equal(rpma_mr_reg(Peer, Buf, BUF_SIZE, RPMA_MR_USAGE_RECV, &dst), 0);

	assert_int_equal(rpma_srq_recv(srq, dst, 24, 1000, (void *)(uintptr_t)0x99), 0);
	assert_int_equal(mock_calls("ibv_post_srq_recv"), 1);
	assert_int_equal(mock_calls("ibv_post_recv"), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 0x99);
	assert_int_equal(mock_last_recv_wr.num_sge, 1);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)Buf + 24);
	assert_int_equal(mock_last_recv_sge.length, 1000);
	assert_int_equal(mock_last_recv_sge.lkey, MOCK_LKEY);

	/* an empty buffer: for a message without data */
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_last_recv_wr.num_sge, 0);
	assert_null(mock_last_recv_wr.sg_list);
	assert_int_equal(mock_posted_recv_wrs, 2);

	assert_int_equal(rpma_mr_dereg(&dst), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

/*
 * recv_errors -- NULL srq, NULL with a range, a length no work request
 * holds: INVAL unposted; post failure. Ranges and usages are the device's
 * to check: posted as given
 */
static void
recv_errors(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	struct rpma_mr_local *dst = NULL, *send_only = NULL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	assert_int_equal(rpma_mr_reg(Peer, Buf, BUF_SIZE, RPMA_MR_USAGE_RECV, &dst), 0);
	assert_int_equal(rpma_mr_reg(Peer, Buf, BUF_SIZE, RPMA_MR_USAGE_SEND, &send_only), 0);

	assert_int_equal(rpma_srq_recv(NULL, dst, 0, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, dst, 0, (size_t)UINT32_MAX + 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 1, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_post_srq_recv"), 0);

	mock_fail("ibv_post_srq_recv", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_srq_recv(srq, dst, 0, 1, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_posted_recv_wrs, 0);

	assert_int_equal(rpma_srq_recv(srq, dst, BUF_SIZE, 1, NULL), 0);
	assert_int_equal(rpma_srq_recv(srq, send_only, 0, 1, NULL), 0);
	assert_int_equal(mock_posted_recv_wrs, 2);

	assert_int_equal(rpma_mr_dereg(&send_only), 0);
	assert_int_equal(rpma_mr_dereg(&dst), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

/* get_rcq_null -- NULL arguments refused, output untouched */
static void
get_rcq_null(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = SENTINEL;

	assert_int_equal(rpma_srq_new(Peer, NULL, &srq), 0);
	assert_int_equal(rpma_srq_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_get_rcq(srq, NULL), RPMA_E_INVAL);
	assert_ptr_equal(rcq, SENTINEL);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		T(new_defaults),
		T(new_no_rcq),
		T(new_sizes),
		T(new_invalid),
		T(new_srq_fails),
		T(new_rcq_fails),
		T(new_malloc_fails),
		T(delete_null),
		T(delete_srq_fails),
		T(delete_rcq_fails),
		T(recv_ok),
		T(recv_errors),
		T(get_rcq_null),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
