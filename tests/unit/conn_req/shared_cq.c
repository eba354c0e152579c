/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shared_cq.c -- unit tests of librpma/src/conn_req.c with CQs of their own
 * (rpma_cq_new()) named in the configuration: the QP made on them, the
 * connections holding them until they are deleted, the configurations
 * refused, and failures that must leave the CQs as they were
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "conn.h"
#include "conn_helpers.h"
#include "cq.h"
#include "shared_cq.h"
#include "srq.h"

/* the state of a test: the peer and two CQs of their own on one channel */
struct sc_state {
	struct h_state h;
	struct rpma_cq *a;
	struct rpma_cq *b;
	struct rpma_conn_cfg *cfg;
};

/*
 * sc_setup -- a peer, CQs a (8 entries) and b (16, on a's channel) and a
 * configuration, made before the mocks start counting
 */
static int
sc_setup(void **state)
{
	static struct sc_state st;
	void *h;

	h_setup(&h);
	st.h = *(struct h_state *)h;
	assert_int_equal(rpma_cq_new(st.h.peer, 8, NULL, &st.a), 0);
	assert_int_equal(rpma_cq_new(st.h.peer, 16, st.a, &st.b), 0);
	st.cfg = h_cfg_new();
	/* count calls, allocations and objects from here */
	mock_reset();
	st.h.allocs = mock_alloc_live();
	st.h.objs = mock_objects_live();
	*state = &st;
	return 0;
}

/* sc_teardown -- the CQs are free again: delete them, the configuration, the peer */
static int
sc_teardown(void **state)
{
	struct sc_state *st = *state;
	void *h = &st->h;

	h_assert_baseline(&st->h);
	assert_int_equal(rpma_cq_delete(&st->a), 0);
	assert_int_equal(rpma_cq_delete(&st->b), 0);
	assert_int_equal(rpma_conn_cfg_delete(&st->cfg), 0);
	return h_teardown(&h);
}

/* ibv -- the verbs CQ of a CQ */
static struct ibv_cq *
ibv(const struct rpma_cq *cq)
{
	return rpma__cq_get_ibv_cq(cq);
}

/* assert_in_use -- rpma_cq_delete() refuses cq and leaves it */
static void
assert_in_use(struct rpma_cq *cq)
{
	struct rpma_cq *keep = cq;
	int destroyed = mock_calls("ibv_destroy_cq");

	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_INVAL);
	assert_ptr_equal(cq, keep);
	assert_int_equal(mock_calls("ibv_destroy_cq"), destroyed);
}

/*
 * shared_both -- a configuration naming a CQ and a receive CQ: the request
 * makes no CQ and no channel, its QP sends to a and receives to b; both are
 * held until the connection is deleted, which destroys neither
 */
static void
shared_both(void **state)
{
	struct sc_state *st = *state;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	int fd;

	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(st->cfg, 0), 0); /* ignored */
	assert_int_equal(rpma_conn_cfg_set_rcq_size(st->cfg, 3), 0);

	struct rpma_conn_req *req = h_req_active(st->h.peer, st->cfg);

	assert_int_equal(mock_calls("ibv_create_cq"), 0);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 0);
	assert_int_equal(mock_calls("rdma_create_qp_ex"), 1);
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, ibv(st->a));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(st->b));
	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 10);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 10);
	assert_in_use(st->a);
	assert_in_use(st->b);

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(cq, st->a);
	assert_ptr_equal(rcq, st->b);
	/* the connection has no channel of its own */
	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(rpma_conn_wait(conn, 0, NULL, NULL), RPMA_E_NOT_SHARED_CHNL);
	assert_in_use(st->a);

	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 0);
}

/*
 * shared_cq_own_rcq -- a CQ named, a receive CQ by size: the connection
 * makes its receive CQ (with a channel of its own) and destroys only that
 */
static void
shared_cq_own_rcq(void **state)
{
	struct sc_state *st = *state;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *rcq = NULL;

	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(st->cfg, 5), 0);
	conn = h_conn_active(st->h.peer, st->cfg);
	assert_int_equal(mock_calls("ibv_create_cq"), 1);
	assert_int_equal(mock_last_cq_cqe, 5);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, ibv(st->a));
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_false(rpma__cq_is_own(rcq));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(rcq));
	assert_in_use(st->a);

	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
}

/*
 * shared_rcq_own_cq -- a receive CQ named, the CQ by size: the connection
 * makes its CQ and receives to the named one
 */
static void
shared_rcq_own_cq(void **state)
{
	struct sc_state *st = *state;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(st->cfg, 7), 0);
	conn = h_conn_active(st->h.peer, st->cfg);
	assert_int_equal(mock_calls("ibv_create_cq"), 1);
	assert_int_equal(mock_last_cq_cqe, 7);
	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_false(rpma__cq_is_own(cq));
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, ibv(cq));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(st->b));
	assert_in_use(st->b);
	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
}

/* shared_one_for_both -- one CQ as the CQ and the receive CQ: held twice, released twice */
static void
shared_one_for_both(void **state)
{
	struct sc_state *st = *state;
	struct rpma_cq *cq = NULL, *rcq = NULL;

	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->a), 0);

	struct rpma_conn_req *req = h_req_active(st->h.peer, st->cfg);

	assert_ptr_equal(mock_last_qp_init_attr.send_cq, ibv(st->a));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(st->a));
	assert_int_equal(rpma_conn_req_delete(&req), 0);

	/* the request gave both back: a connection now holds it again */
	struct rpma_conn *conn = h_conn_active(st->h.peer, st->cfg);

	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(cq, st->a);
	assert_ptr_equal(rcq, st->a);
	assert_in_use(st->a);
	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
}

/*
 * shared_rcq_with_srq -- a shared receive queue without a receive CQ of its
 * own and a named receive CQ: the QP takes its receives from the SRQ and
 * completes them on the named CQ, incoming requests as outgoing ones
 */
static void
shared_rcq_with_srq(void **state)
{
	struct sc_state *st = *state;
	struct rpma_srq_cfg *scfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = NULL;

	assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, 0), 0);
	assert_int_equal(rpma_srq_new(st->h.peer, scfg, &srq), 0);
	assert_null(rpma__srq_get_rcq(srq));
	assert_int_equal(rpma_conn_cfg_set_srq(st->cfg, srq), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);

	struct rpma_ep *ep = h_ep_new(st->h.peer);
	struct rpma_conn_req *req = h_req_passive(ep, st->cfg, NULL, 0);

	assert_ptr_equal(mock_last_qp_init_attr.srq, rpma__srq_get_ibv_srq(srq));
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, ibv(st->a));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(st->b));
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 0);

	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(rcq, st->b);
	assert_in_use(st->b);
	h_conn_delete(&conn);

	/* without a named receive CQ the receives complete on the CQ */
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, NULL), 0);
	req = h_req_passive(ep, st->cfg, NULL, 0);
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, ibv(st->a));
	assert_int_equal(rpma_conn_req_delete(&req), 0);

	assert_int_equal(mock_calls("ibv_create_cq"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);
}

#define MANY 8

/*
 * shared_many -- many requests and connections on one CQ: the CQ stays in
 * use until the last of them is gone, in any order
 */
static void
shared_many(void **state)
{
	struct sc_state *st = *state;
	struct rpma_conn *conns[MANY];
	struct rpma_conn_req *reqs[MANY];
	struct rpma_ep *ep = h_ep_new(st->h.peer);

	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);
	for (int i = 0; i < MANY; i++) {
		reqs[i] =
		    i % 2 ? h_req_active(st->h.peer, st->cfg) : h_req_passive(ep, st->cfg, NULL, 0);
		conns[i] = NULL;
	}
	for (int i = 0; i < MANY; i += 2)
		assert_int_equal(rpma_conn_req_connect(&reqs[i], NULL, &conns[i]), 0);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);

	/* requests (odd) and connections (even) go, interleaved */
	for (int i = MANY - 1; i >= 0; i--) {
		assert_in_use(st->a);
		assert_in_use(st->b);
		if (i % 2)
			assert_int_equal(rpma_conn_req_delete(&reqs[i]), 0);
		else
			h_conn_delete(&conns[i]);
	}
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
}

/* check_refused -- a request with the configuration fails with RPMA_E_INVAL, making nothing */
static void
check_refused(struct sc_state *st, const char *why)
{
	struct rpma_conn_req *req = H_SENTINEL;
	int cqs = mock_calls("ibv_create_cq");
	int qps = mock_calls("rdma_create_qp_ex");

	assert_int_equal(rpma_conn_req_new(st->h.peer, H_ADDR, H_PORT, st->cfg, &req),
			 RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), why));
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), cqs);
	assert_int_equal(mock_calls("rdma_create_qp_ex"), qps);
	h_assert_baseline(&st->h);
}

/*
 * shared_refused -- configurations whose CQs do not fit: with a shared
 * completion channel, with an SRQ that has a receive CQ of its own, with a
 * CQ of another device; an incoming request refused so is rejected
 */
static void
shared_refused(void **state)
{
	struct sc_state *st = *state;

	assert_int_equal(rpma_conn_cfg_set_compl_channel(st->cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	check_refused(st, "shared completion channel");
	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);
	check_refused(st, "shared completion channel");
	assert_int_equal(rpma_conn_cfg_set_compl_channel(st->cfg, false), 0);

	struct rpma_srq *srq = NULL;
	struct h_state base = st->h;

	assert_int_equal(rpma_srq_new(st->h.peer, NULL, &srq), 0); /* with a receive CQ */
	st->h.allocs = mock_alloc_live();
	st->h.objs = mock_objects_live();
	assert_int_equal(rpma_conn_cfg_set_srq(st->cfg, srq), 0);
	check_refused(st, "name a receive CQ");

	struct rpma_ep *ep = h_ep_new(st->h.peer);
	struct rpma_conn_req *req = H_SENTINEL;

	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, NULL, 0);
	assert_int_equal(rpma_ep_next_conn_req(ep, st->cfg, &req), RPMA_E_INVAL);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_reject"), 1);
	assert_null(mock_cm_last_req_id());
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(st->cfg, NULL), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	st->h = base;

	/* a CQ (or receive CQ) of another device */
	struct ibv_context other;

	ibv(st->b)->context = &other;
	check_refused(st, "another device");
	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->b), 0);
	check_refused(st, "another device");
	ibv(st->b)->context = mock_ibv_context();
}

/* check_failed -- a request with the configuration fails with ret; nothing is left */
static void
check_failed(struct sc_state *st, int ret)
{
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_conn_req_new(st->h.peer, H_ADDR, H_PORT, st->cfg, &req), ret);
	assert_ptr_equal(req, H_SENTINEL);
	h_assert_baseline(&st->h);
}

/*
 * shared_failures -- a request failing after it took the named CQs gives
 * them back (the teardown deletes them); so do a failed connect and the
 * deletion of a connection whose destroy calls fail
 */
static void
shared_failures(void **state)
{
	struct sc_state *st = *state;

	assert_int_equal(rpma_conn_cfg_set_cq(st->cfg, st->a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(st->cfg, 4), 0);
	mock_fail("ibv_create_cq", EIO); /* the receive CQ of its own */
	check_failed(st, RPMA_E_PROVIDER);
	mock_fail("rdma_create_qp_ex", EINVAL);
	check_failed(st, RPMA_E_PROVIDER);
	mock_alloc_fail_nth(2); /* the request, after its receive CQ */
	check_failed(st, RPMA_E_NOMEM);

	assert_int_equal(rpma_conn_cfg_set_rcq(st->cfg, st->b), 0);
	mock_fail("rdma_create_qp_ex", EINVAL);
	check_failed(st, RPMA_E_PROVIDER);
	mock_alloc_fail_nth(1);
	check_failed(st, RPMA_E_NOMEM);

	/* connect fails: the request is consumed and the CQs given back */
	struct rpma_conn_req *req = h_req_active(st->h.peer, st->cfg);
	struct rpma_conn *conn = H_SENTINEL;

	mock_fail("rdma_connect", ECONNREFUSED);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_null(req);
	assert_ptr_equal(conn, H_SENTINEL);
	h_assert_baseline(&st->h);

	/* a connection whose id cannot be destroyed still gives the CQs back */
	int destroyed = mock_calls("ibv_destroy_cq");

	conn = h_conn_active(st->h.peer, st->cfg);
	struct rdma_cm_id *id = rpma__conn_get_id(conn);

	mock_fail("rdma_destroy_id", EBUSY);
	assert_int_equal(rpma_conn_delete(&conn), RPMA_E_PROVIDER);
	assert_null(conn);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(mock_calls("ibv_destroy_cq"), destroyed);
}

const struct CMUnitTest conn_req_shared_cq_tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, sc_setup, sc_teardown)
    T(shared_both),	    T(shared_cq_own_rcq), T(shared_rcq_own_cq), T(shared_one_for_both),
    T(shared_rcq_with_srq), T(shared_many),	  T(shared_refused),	T(shared_failures),
#undef T
};

const size_t conn_req_shared_cq_count =
    sizeof(conn_req_shared_cq_tests) / sizeof(conn_req_shared_cq_tests[0]);
