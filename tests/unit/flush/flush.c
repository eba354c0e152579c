/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flush.c -- unit tests of librpma/src/flush.c: the flush object and the
 * flushing RDMA READ
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "flush.h"
#include "librpma.h"
#include "mocks.h"
#include "mr.h"
#include "peer.h"

/* a pointer value no function may write over an output on failure */
#define SENTINEL ((void *)(uintptr_t)0xbadc0ffe)

#define RADDR 0x7000000ULL
#define RKEY  0x5566U

static struct rpma_peer *Peer;
static struct rdma_cm_id *Id;

/* setup -- a clean mock state, a peer and a QP */
static int
setup(void **state)
{
	struct ibv_qp_init_attr_ex attr;

	(void)state;
	mock_reset();
	Peer = NULL;
	Id = NULL;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &Peer), 0);
	assert_int_equal(rdma_create_id(NULL, &Id, NULL, RDMA_PS_TCP), 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = rpma__peer_pd(Peer);
	assert_int_equal(rdma_create_qp_ex(Id, &attr), 0);
	return 0;
}

/* teardown -- release the fixture; nothing may leak */
static int
teardown(void **state)
{
	(void)state;
	rdma_destroy_qp(Id);
	assert_int_equal(rdma_destroy_id(Id), 0);
	assert_int_equal(rpma_peer_delete(&Peer), 0);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	return 0;
}

/* remote -- a remote region at RADDR of size bytes, flushable to persistence */
static struct rpma_mr_remote *
remote(uint64_t size)
{
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *mr = NULL;

	for (int i = 0; i < 8; i++) {
		desc[i] = (uint8_t)(RADDR >> (8 * i));
		desc[8 + i] = (uint8_t)(size >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		desc[16 + i] = (uint8_t)(RKEY >> (8 * i));
	desc[20] = RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_WRITE_DST;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	return mr;
}

/* new_delete -- an 8-byte buffer registered as a READ destination, released by delete */
static void
new_delete(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);
	assert_non_null(flush);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 1);
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(mock_last_reg_mr->length, 8);
	assert_ptr_equal(mock_last_reg_mr->pd, rpma__peer_pd(Peer));

	assert_int_equal(rpma__flush_delete(&flush), 0);
	assert_null(flush);
	assert_int_equal(mock_calls("ibv_dereg_mr"), 1);

	/* NULL is fine */
	assert_int_equal(rpma__flush_delete(&flush), 0);
	assert_int_equal(mock_calls("ibv_dereg_mr"), 1);
}

/* new_reg_fails -- a refused registration: PROVIDER with errno, nothing kept */
static void
new_reg_fails(void **state)
{
	(void)state;
	struct rpma_flush *flush = SENTINEL;

	mock_fail("ibv_reg_mr_iova2", EPERM);
	errno = 0;
	assert_int_equal(rpma__flush_new(Peer, &flush), RPMA_E_PROVIDER);
	assert_int_equal(errno, EPERM);
	assert_ptr_equal(flush, SENTINEL);
}

/* new_malloc_fails -- no memory for the object or for its region: NOMEM, nothing kept */
static void
new_malloc_fails(void **state)
{
	(void)state;
	struct rpma_flush *flush = SENTINEL;

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma__flush_new(Peer, &flush), RPMA_E_NOMEM);
	assert_ptr_equal(flush, SENTINEL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 0);

	mock_alloc_fail_nth(2);
	assert_int_equal(rpma__flush_new(Peer, &flush), RPMA_E_NOMEM);
	assert_ptr_equal(flush, SENTINEL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 0);
}

/* delete_dereg_fails -- a failing deregistration is reported, the object freed anyway */
static void
delete_dereg_fails(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);
	struct ibv_mr *mr = mock_last_reg_mr;

	mock_fail("ibv_dereg_mr", EBUSY);
	errno = 0;
	assert_int_equal(rpma__flush_delete(&flush), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(flush);
	assert_int_equal(mock_alloc_live(), 1); /* the peer */
	assert_int_equal(ibv_dereg_mr(mr), 0);
}

/* execute_at_offset -- an 8-byte RDMA READ of the flushed offset into the flush buffer */
static void
execute_at_offset(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;
	struct rpma_mr_remote *dst = remote(4096);

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);
	struct ibv_mr *buf = mock_last_reg_mr;

	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 100, 50, IBV_SEND_SIGNALED,
					     (void *)(uintptr_t)0x31),
			 0);
	assert_int_equal(mock_calls("ibv_post_send"), 1);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(mock_last_send_wr.wr_id, 0x31);
	assert_int_equal(mock_last_send_wr.send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)buf->addr);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(mock_last_send_sge.lkey, MOCK_LKEY);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 100);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, RKEY);

	/* the start of the region, without a completion */
	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 0, 4096, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR);
	assert_int_equal(mock_last_send_wr.send_flags, 0);
	assert_int_equal(mock_last_send_sge.length, 8);

	/* the last 8 bytes exactly */
	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 4088, 8, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 4088);

	assert_int_equal(rpma_mr_remote_delete(&dst), 0);
	assert_int_equal(rpma__flush_delete(&flush), 0);
}

/* execute_clamped -- near the region's end the read is moved back inside the region */
static void
execute_clamped(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;
	struct rpma_mr_remote *dst = remote(4096);

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);

	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 4092, 4, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 4088);
	assert_int_equal(mock_last_send_sge.length, 8);

	/* an empty flush at the very end */
	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 4096, 0, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 4088);
	assert_int_equal(mock_last_send_sge.length, 8);

	assert_int_equal(rpma_mr_remote_delete(&dst), 0);
	assert_int_equal(rpma__flush_delete(&flush), 0);
}

/* execute_small_region -- a region under 8 bytes is read whole from its start */
static void
execute_small_region(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);

	for (uint64_t size = 1; size < 8; size++) {
		struct rpma_mr_remote *dst = remote(size);

		assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, size - 1, 1, 0, NULL), 0);
		assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_READ);
		assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR);
		assert_int_equal(mock_last_send_sge.length, size);
		assert_int_equal(rpma_mr_remote_delete(&dst), 0);
	}
	assert_int_equal(mock_posted_send_wrs, 7);

	/* exactly 8 bytes */
	struct rpma_mr_remote *dst = remote(8);

	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 3, 2, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(rpma_mr_remote_delete(&dst), 0);

	assert_int_equal(rpma__flush_delete(&flush), 0);
}

/* execute_fails -- a refused READ is PROVIDER with errno */
static void
execute_fails(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;
	struct rpma_mr_remote *dst = remote(4096);

	assert_int_equal(rpma__flush_new(Peer, &flush), 0);
	mock_fail("ibv_post_send", ENOMEM);
	errno = 0;
	assert_int_equal(rpma__flush_execute(Id->qp, flush, dst, 0, 8, 0, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_posted_send_wrs, 0);

	assert_int_equal(rpma_mr_remote_delete(&dst), 0);
	assert_int_equal(rpma__flush_delete(&flush), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		T(new_delete),
		T(new_reg_fails),
		T(new_malloc_fails),
		T(delete_dereg_fails),
		T(execute_at_offset),
		T(execute_clamped),
		T(execute_small_region),
		T(execute_fails),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
