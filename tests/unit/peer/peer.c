/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer.c -- unit tests of librpma/src/peer.c: rpma_peer_new/delete and the
 * internal creation of queue pairs, memory regions and shared receive queues
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "conn_cfg.h"
#include "cq.h"
#include "librpma.h"
#include "mocks.h"
#include "peer.h"
#include "srq.h"

/* the device capability bit of a native atomic write */
#define CAP_ATOMIC_WRITE (1ULL << 40)

/* a pointer value no function may write over an output on failure */
#define SENTINEL ((void *)(uintptr_t)0xbadc0ffe)

static char Buf[4096];

/* set_device -- make the fake device ODP capable or not, with or without atomic write */
static void
set_device(bool odp, bool atomic_write)
{
	struct ibv_device_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.orig_attr.phys_port_cnt = 1;
	if (odp) {
		attr.odp_caps.general_caps = IBV_ODP_SUPPORT;
		attr.odp_caps.per_transport_caps.rc_odp_caps =
		    IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
		    IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC;
	}
	if (atomic_write)
		attr.device_cap_flags_ex = CAP_ATOMIC_WRITE;
	mock_set_device_attr_ex(&attr);
}

/* new_peer -- a peer on the fake device, asserted to succeed */
static struct rpma_peer *
new_peer(void)
{
	struct rpma_peer *peer = NULL;

	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), 0);
	assert_non_null(peer);
	return peer;
}

/* new_ok -- a peer owns one PD of the device, without native atomic write by default */
static void
new_ok(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();

	assert_int_equal(mock_calls("ibv_alloc_pd"), 1);
	assert_non_null(rpma__peer_pd(peer));
	assert_ptr_equal(rpma__peer_pd(peer)->context, mock_ibv_context());
	assert_ptr_equal(rpma__peer_ibv_context(peer), mock_ibv_context());
	assert_false(rpma__peer_native_atomic_write(peer));

	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
	assert_int_equal(mock_calls("ibv_dealloc_pd"), 1);
}

/* new_atomic_write -- bit 40 of device_cap_flags_ex means native atomic write */
static void
new_atomic_write(void **state)
{
	(void)state;
	set_device(false, true);
	struct rpma_peer *peer = new_peer();

	assert_true(rpma__peer_native_atomic_write(peer));
	assert_int_equal(rpma_peer_delete(&peer), 0);

	/* any other capability bit is not it */
	struct ibv_device_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.orig_attr.phys_port_cnt = 1;
	attr.device_cap_flags_ex = ~CAP_ATOMIC_WRITE;
	mock_set_device_attr_ex(&attr);
	peer = new_peer();
	assert_false(rpma__peer_native_atomic_write(peer));
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* new_null -- each NULL argument is refused and the output is not written */
static void
new_null(void **state)
{
	(void)state;
	struct rpma_peer *peer = SENTINEL;

	assert_int_equal(rpma_peer_new(NULL, &peer), RPMA_E_INVAL);
	assert_ptr_equal(peer, SENTINEL);
	assert_int_equal(rpma_peer_new(mock_ibv_context(), NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_alloc_pd"), 0);
}

/* new_query_fails -- a failing device query (either of them) is a provider error */
static void
new_query_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = SENTINEL;

	/* the ODP capability query */
	mock_fail("ibv_query_device_ex", EIO);
	errno = 0;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_ptr_equal(peer, SENTINEL);

	/* the capability query of the peer itself */
	mock_reset();
	mock_fail_nth("ibv_query_device_ex", 2, EPERM);
	errno = 0;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EPERM);
	assert_int_equal(mock_calls("ibv_query_device_ex"), 2);
	assert_ptr_equal(peer, SENTINEL);
	assert_int_equal(mock_calls("ibv_alloc_pd"), 0);
}

/*
 * new_alloc_pd_fails -- as in librpma 1.3: ENOMEM from ibv_alloc_pd is
 * RPMA_E_NOMEM, any other errno PROVIDER, no errno at all UNKNOWN (an errno
 * left over from before the call does not count)
 */
static void
new_alloc_pd_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = SENTINEL;

	mock_fail("ibv_alloc_pd", ENOMEM);
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_NOMEM);
	assert_ptr_equal(peer, SENTINEL);

	mock_fail("ibv_alloc_pd", EACCES);
	errno = 0;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EACCES);
	assert_ptr_equal(peer, SENTINEL);

	/* no errno at all, whatever errno held before the call */
	mock_fail("ibv_alloc_pd", 0);
	errno = EACCES;
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_UNKNOWN);
	assert_non_null(strstr(rpma_errormsg(), "without an error code"));
	assert_ptr_equal(peer, SENTINEL);
	assert_int_equal(mock_calls("ibv_alloc_pd"), 3);
}

/* new_malloc_fails -- no memory for the peer: NOMEM and the PD is released */
static void
new_malloc_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = SENTINEL;

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &peer), RPMA_E_NOMEM);
	assert_ptr_equal(peer, SENTINEL);
	assert_int_equal(mock_calls("ibv_alloc_pd"), 1);
	assert_int_equal(mock_calls("ibv_dealloc_pd"), 1);
}

/* delete_null -- peer_ptr NULL is refused, *peer_ptr NULL is a no-op */
static void
delete_null(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;

	assert_int_equal(rpma_peer_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_null(peer);
	assert_int_equal(mock_calls("ibv_dealloc_pd"), 0);
}

/* delete_dealloc_fails -- a failing ibv_dealloc_pd is reported, the peer is freed anyway */
static void
delete_dealloc_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct ibv_pd *pd = rpma__peer_pd(peer);

	mock_fail("ibv_dealloc_pd", EBUSY);
	errno = 0;
	assert_int_equal(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(peer);
	assert_int_equal(mock_alloc_live(), 0);

	/* the PD the device kept */
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
}

/* snapshot -- a connection configuration with distinct sizes */
static void
snapshot(struct rpma_conn_cfg_snapshot *cfg, struct rpma_srq *srq)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cq_size = 10;
	cfg->rcq_size = 11;
	cfg->sq_size = 12;
	cfg->rq_size = 13;
	cfg->srq = srq;
}

/* create_qp_plain -- the QP: RC, sizes of cfg, the peer's PD, cq for both directions */
static void
create_qp_plain(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct rdma_cm_id *id = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_cfg_snapshot cfg;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 10, NULL, &cq), 0);
	snapshot(&cfg, NULL);

	assert_int_equal(rpma__peer_create_qp(peer, id, cq, NULL, &cfg), 0);
	assert_non_null(id->qp);

	struct ibv_qp_init_attr_ex *a = &mock_last_qp_init_attr;

	assert_int_equal(a->qp_type, IBV_QPT_RC);
	assert_ptr_equal(a->send_cq, rpma__cq_get_ibv_cq(cq));
	assert_ptr_equal(a->recv_cq, rpma__cq_get_ibv_cq(cq));
	assert_null(a->srq);
	assert_int_equal(a->cap.max_send_wr, 12);
	assert_int_equal(a->cap.max_recv_wr, 13);
	assert_int_equal(a->cap.max_send_sge, 1);
	assert_int_equal(a->cap.max_recv_sge, 1);
	assert_int_equal(a->cap.max_inline_data, 8);
	assert_int_equal(a->sq_sig_all, 0);
	assert_int_equal(a->comp_mask, IBV_QP_INIT_ATTR_PD);
	assert_ptr_equal(a->pd, rpma__peer_pd(peer));
	assert_int_equal(a->send_ops_flags, 0);

	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* create_qp_rcq_srq -- a receive CQ of its own, and a SRQ that takes the receive queue */
static void
create_qp_rcq_srq(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct rdma_cm_id *id = NULL;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg_snapshot cfg;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 10, NULL, &cq), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 10, NULL, &rcq), 0);

	/* a separate receive CQ */
	snapshot(&cfg, NULL);
	assert_int_equal(rpma__peer_create_qp(peer, id, cq, rcq, &cfg), 0);
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, rpma__cq_get_ibv_cq(cq));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, rpma__cq_get_ibv_cq(rcq));
	rdma_destroy_qp(id);

	/* a shared receive queue: no receive queue of the QP's own */
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	snapshot(&cfg, srq);
	assert_int_equal(rpma__peer_create_qp(peer, id, cq, rcq, &cfg), 0);
	assert_ptr_equal(mock_last_qp_init_attr.srq, rpma__srq_get_ibv_srq(srq));
	assert_non_null(mock_last_qp_init_attr.srq);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 0);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_sge, 0);
	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 12);
	rdma_destroy_qp(id);

	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma__cq_delete(&rcq), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* create_qp_atomic_write -- native atomic write asks for the extended send ops */
static void
create_qp_atomic_write(void **state)
{
	(void)state;
	set_device(false, true);
	struct rpma_peer *peer = new_peer();
	struct rdma_cm_id *id = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_cfg_snapshot cfg;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 10, NULL, &cq), 0);
	snapshot(&cfg, NULL);

	assert_int_equal(rpma__peer_create_qp(peer, id, cq, NULL, &cfg), 0);
	assert_int_equal(mock_last_qp_init_attr.comp_mask,
			 IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_int_equal(mock_last_qp_init_attr.send_ops_flags,
			 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			     IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_WRITE);
	assert_ptr_equal(mock_last_qp_init_attr.pd, rpma__peer_pd(peer));

	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* create_qp_fails -- a failing rdma_create_qp_ex is a provider error, no QP */
static void
create_qp_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct rdma_cm_id *id = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_cfg_snapshot cfg;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 10, NULL, &cq), 0);
	snapshot(&cfg, NULL);

	mock_fail("rdma_create_qp_ex", ENOMEM);
	errno = 0;
	assert_int_equal(rpma__peer_create_qp(peer, id, cq, NULL, &cfg), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(id->qp);

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* mr_reg_ok -- a registration on the peer's PD with the given access flags */
static void
mr_reg_ok(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct ibv_mr *mr = NULL;

	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 100, IBV_ACCESS_REMOTE_READ), 0);
	assert_non_null(mr);
	assert_ptr_equal(mr->addr, Buf);
	assert_int_equal(mr->length, 100);
	assert_ptr_equal(mr->pd, rpma__peer_pd(peer));
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_REMOTE_READ);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 1);

	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* mr_reg_fails -- a refused registration is a provider error with its errno */
static void
mr_reg_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct ibv_mr *mr = SENTINEL;

	mock_fail("ibv_reg_mr_iova2", EACCES);
	mock_fail("ibv_reg_mr", EACCES);
	errno = 0;
	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 100, IBV_ACCESS_LOCAL_WRITE),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EACCES);
	assert_null(mr);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* mr_reg_odp_fallback -- EOPNOTSUPP on an ODP device: registered again with ON_DEMAND */
static void
mr_reg_odp_fallback(void **state)
{
	(void)state;
	set_device(true, false);
	struct rpma_peer *peer = new_peer();
	struct ibv_mr *mr = NULL;

	mock_reg_mr_eopnotsupp_without_odp(true);
	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 64, IBV_ACCESS_REMOTE_WRITE), 0);
	assert_non_null(mr);
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 2);
	assert_int_equal(ibv_dereg_mr(mr), 0);

	/* the ODP registration may fail too: its errno is reported */
	mock_fail_nth("ibv_reg_mr_iova2", 2, ENOMEM);
	errno = 0;
	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 64, 0), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(mr);

	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* mr_reg_no_odp -- EOPNOTSUPP on a device without ODP: no second try */
static void
mr_reg_no_odp(void **state)
{
	(void)state;
	set_device(false, false);
	struct rpma_peer *peer = new_peer();
	struct ibv_mr *mr = SENTINEL;

	mock_reg_mr_eopnotsupp_without_odp(true);
	errno = 0;
	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 64, IBV_ACCESS_REMOTE_READ),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_null(mr);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* mr_reg_odp_other_error -- an ODP device does not retry on errors other than EOPNOTSUPP */
static void
mr_reg_odp_other_error(void **state)
{
	(void)state;
	set_device(true, false);
	struct rpma_peer *peer = new_peer();
	struct ibv_mr *mr = SENTINEL;

	mock_fail("ibv_reg_mr_iova2", EINVAL);
	errno = 0;
	assert_int_equal(rpma__peer_mr_reg(peer, &mr, Buf, 64, 0), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2"), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* create_srq_ok -- a SRQ of rq_size entries and one SGE on the peer's PD */
static void
create_srq_ok(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct ibv_srq *srq = NULL;

	assert_int_equal(rpma__peer_create_srq(peer, 77, &srq), 0);
	assert_non_null(srq);
	assert_ptr_equal(srq->pd, rpma__peer_pd(peer));
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 77);
	assert_int_equal(mock_last_srq_init_attr.attr.max_sge, 1);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* create_srq_fails -- a failing ibv_create_srq is a provider error */
static void
create_srq_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = new_peer();
	struct ibv_srq *srq = SENTINEL;

	mock_fail("ibv_create_srq", ENOSPC);
	errno = 0;
	assert_int_equal(rpma__peer_create_srq(peer, 5, &srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_null(srq);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(new_ok, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_atomic_write, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_null, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_query_fails, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_alloc_pd_fails, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_malloc_fails, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(delete_null, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(delete_dealloc_fails, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_qp_plain, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_qp_rcq_srq, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_qp_atomic_write, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_qp_fails, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(mr_reg_ok, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(mr_reg_fails, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(mr_reg_odp_fallback, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(mr_reg_no_odp, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(mr_reg_odp_other_error, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_srq_ok, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(create_srq_fails, mock_test_setup, mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
