/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_req.c -- unit tests of librpma/src/conn_req.c: making, connecting,
 * receiving on and deleting connection requests
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "conn_helpers.h"
#include "conn_req.h"
#include "cq.h"
#include "shared_cq.h"
#include "srq.h"

/* an armed provider failure and where it is expected */
struct h_fail {
	const char *func;
	int nth;
};

/* new_invalid_args -- each NULL argument is refused and nothing is written */
static void
new_invalid_args(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_conn_req_new(NULL, H_ADDR, H_PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(st->peer, NULL, H_PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_getaddrinfo"), 0);
	assert_int_equal(mock_calls("rdma_create_id"), 0);
	h_assert_baseline(st);
}

/*
 * new_default_cfg -- without a configuration the request has one CQ of 10
 * entries with its own channel, serving both queues, and a QP of 10/10 WRs;
 * it resolves the address and the route and frees the address info
 */
static void
new_default_cfg(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);

	assert_int_equal(mock_calls("rdma_getaddrinfo"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
	assert_int_equal(mock_calls("rdma_resolve_addr"), 1);
	assert_int_equal(mock_calls("rdma_resolve_route"), 1);
	assert_int_equal(mock_calls("ibv_create_cq"), 1);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 1);
	assert_int_equal(mock_last_cq_cqe, 10);
	assert_non_null(mock_last_qp_init_attr.send_cq);
	assert_ptr_equal(mock_last_qp_init_attr.send_cq, mock_last_qp_init_attr.recv_cq);
	assert_null(mock_last_qp_init_attr.srq);
	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 10);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 10);
	assert_int_equal(mock_last_qp_init_attr.qp_type, IBV_QPT_RC);
	assert_int_equal(mock_last_qp_init_attr.send_cq->channel->fd >= 0, 1);

	/* deleting an outgoing request rejects nothing */
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	assert_int_equal(mock_calls("rdma_destroy_qp"), 1);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	h_assert_baseline(st);
}

/*
 * new_custom_cfg -- the queue sizes of the configuration reach the CQs and
 * the QP; a receive CQ size gives the QP a separate receive CQ
 */
static void
new_custom_cfg(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	int fd;

	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 20), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 30), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 40), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 50), 0);

	struct rpma_conn_req *req = h_req_active(st->peer, cfg);

	assert_int_equal(mock_calls("ibv_create_cq"), 2);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 2);
	assert_int_equal(mock_last_cq_cqe, 30); /* the receive CQ comes second */
	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 40);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 50);
	assert_ptr_not_equal(mock_last_qp_init_attr.send_cq, mock_last_qp_init_attr.recv_cq);
	assert_int_equal(mock_last_qp_init_attr.send_cq->cqe, 20);
	assert_int_equal(mock_last_qp_init_attr.recv_cq->cqe, 30);

	struct ibv_cq *send_cq = mock_last_qp_init_attr.send_cq;
	struct ibv_cq *recv_cq = mock_last_qp_init_attr.recv_cq;

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(rpma__cq_get_ibv_cq(cq), send_cq);
	assert_ptr_equal(rpma__cq_get_ibv_cq(rcq), recv_cq);
	/* each CQ has a channel of its own */
	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, send_cq->channel->fd);

	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 2);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_shared_channel -- with a shared completion channel one channel serves
 * both CQs; the connection and each CQ report its fd (as in librpma 1.3)
 */
static void
new_shared_channel(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_conn *conn = NULL;
	int fd = -1;

	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 5), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);

	struct rpma_conn_req *req = h_req_active(st->peer, cfg);

	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(mock_calls("ibv_create_cq"), 2);
	assert_non_null(mock_last_qp_init_attr.send_cq->channel);
	assert_ptr_equal(mock_last_qp_init_attr.send_cq->channel,
			 mock_last_qp_init_attr.recv_cq->channel);

	struct ibv_comp_channel *channel = mock_last_qp_init_attr.send_cq->channel;

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), 0);
	assert_int_equal(fd, channel->fd);

	struct rpma_cq *cq = NULL, *rcq = NULL;
	int cq_fd = -1, rcq_fd = -1;

	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_int_equal(rpma_cq_get_fd(cq, &cq_fd), 0);
	assert_int_equal(rpma_cq_get_fd(rcq, &rcq_fd), 0);
	assert_int_equal(cq_fd, channel->fd);
	assert_int_equal(rcq_fd, channel->fd);
	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_srq -- a shared receive queue in the configuration gives the QP that
 * SRQ and the SRQ's receive CQ, which the connection does not destroy
 */
static void
new_srq(void **state)
{
	struct h_state *st = *state;
	struct rpma_srq_cfg *scfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *srq_rcq = NULL, *rcq = NULL;
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, 7), 0);
	assert_int_equal(rpma_srq_new(st->peer, scfg, &srq), 0);
	assert_int_equal(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	assert_non_null(srq_rcq);

	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rpma_conn_cfg_set_srq(cfg, srq), 0);
	int cqs_before = mock_calls("ibv_create_cq");
	struct rpma_conn_req *req = h_req_active(st->peer, cfg);

	assert_int_equal(mock_calls("ibv_create_cq") - cqs_before, 1);
	assert_ptr_equal(mock_last_qp_init_attr.srq, rpma__srq_get_ibv_srq(srq));
	assert_ptr_equal(mock_last_qp_init_attr.recv_cq, rpma__cq_get_ibv_cq(srq_rcq));
	assert_ptr_not_equal(mock_last_qp_init_attr.send_cq, mock_last_qp_init_attr.recv_cq);
	assert_int_equal(mock_last_qp_init_attr.cap.max_recv_wr, 0);

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(rcq, srq_rcq);
	int destroyed = mock_calls("ibv_destroy_cq");

	h_conn_delete(&conn);
	assert_int_equal(mock_calls("ibv_destroy_cq") - destroyed, 1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_srq_qp_failure -- a failing QP creation with an SRQ leaves the SRQ's
 * receive CQ alone
 */
static void
new_srq_qp_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_srq_cfg *scfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, 7), 0);
	assert_int_equal(rpma_srq_new(st->peer, scfg, &srq), 0);

	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rpma_conn_cfg_set_srq(cfg, srq), 0);
	int destroyed = mock_calls("ibv_destroy_cq");

	mock_fail("rdma_create_qp_ex", EINVAL);
	assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, cfg, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_cq") - destroyed, 1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_provider_failures -- every provider call of the request's creation,
 * failing, makes it return RPMA_E_PROVIDER with nothing written or leaked
 */
static void
new_provider_failures(void **state)
{
	struct h_state *st = *state;
	static const struct h_fail fails[] = {
	    {"rdma_getaddrinfo", 1},	    {"rdma_create_id", 1},
	    {"rdma_resolve_addr", 1},	    {"rdma_resolve_route", 1},
	    {"ibv_create_comp_channel", 1}, {"ibv_create_comp_channel", 2},
	    {"ibv_create_cq", 1},	    {"ibv_create_cq", 2},
	    {"ibv_req_notify_cq", 1},	    {"ibv_req_notify_cq", 2},
	    {"rdma_create_qp_ex", 1},
	};
	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 8), 0);
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++) {
		struct rpma_conn_req *req = H_SENTINEL;
		int calls = mock_calls(fails[i].func);

		mock_fail_nth(fails[i].func, fails[i].nth, EIO);
		errno = 0;
		assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, cfg, &req),
				 RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_int_equal(mock_calls(fails[i].func) - calls, fails[i].nth);
		assert_ptr_equal(req, H_SENTINEL);
		assert_int_equal(mock_alloc_live(), st->allocs + 1 /* cfg */);
		assert_int_equal(mock_objects_live(), st->objs);
	}
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_shared_channel_failure -- a failing shared completion channel fails
 * the request before any CQ is made
 */
static void
new_shared_channel_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 3), 0);
	mock_fail("ibv_create_comp_channel", ENOMEM);
	assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, cfg, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);

	/* the second CQ failing releases the first one and the shared channel */
	mock_fail_nth("ibv_create_cq", 2, EIO);
	assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, cfg, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * new_alloc_failures -- every allocation of the request's creation, failing,
 * makes it return RPMA_E_NOMEM with nothing written or leaked
 */
static void
new_alloc_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 8), 0);

	int before = h_allocs();
	struct rpma_conn_req *req = h_req_active(st->peer, cfg);
	int n = h_allocs() - before;

	assert_int_equal(n, 3); /* two CQs and the request */
	assert_int_equal(rpma_conn_req_delete(&req), 0);

	for (int i = 1; i <= n; i++) {
		req = H_SENTINEL;
		mock_alloc_fail_nth(i);
		assert_int_equal(rpma_conn_req_new(st->peer, H_ADDR, H_PORT, cfg, &req),
				 RPMA_E_NOMEM);
		assert_ptr_equal(req, H_SENTINEL);
		assert_int_equal(mock_alloc_live(), st->allocs + 1);
		assert_int_equal(mock_objects_live(), st->objs);
	}
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/* delete_invalid -- a NULL req_ptr is refused, a NULL *req_ptr is a no-op */
static void
delete_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	h_assert_baseline(st);
}

/* delete_passive_rejects -- deleting an incoming request rejects it */
static void
delete_passive_rejects(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = h_req_passive(ep, NULL, "abc", 3);

	assert_non_null(mock_cm_last_req_id());
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	assert_int_equal(mock_calls("rdma_reject"), 1);
	assert_int_equal(mock_last_pdata_len, 0);
	assert_null(mock_cm_last_req_id()); /* the id is destroyed */
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * delete_failures -- a failing reject or destroy call is reported, but the
 * request is freed and *req_ptr cleared anyway
 */
static void
delete_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req;

	/* rdma_reject */
	req = h_req_passive(ep, NULL, "abc", 3);
	mock_fail("rdma_reject", EIO);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_null(req);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);

	/* rdma_destroy_id: the mock keeps the id, destroyed here */
	req = h_req_passive(ep, NULL, NULL, 0);
	struct rdma_cm_id *id = mock_cm_last_req_id();

	mock_fail("rdma_destroy_id", EBUSY);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_null(req);
	assert_int_equal(rdma_destroy_id(id), 0);

	/* ibv_destroy_cq */
	req = h_req_active(st->peer, NULL);
	struct ibv_cq *cq = mock_last_qp_init_attr.send_cq;
	struct ibv_comp_channel *ch = cq->channel;

	mock_fail("ibv_destroy_cq", EBUSY);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_null(req);
	assert_int_equal(ibv_destroy_cq(cq), 0);

	/* ibv_destroy_comp_channel of a shared channel */
	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	req = h_req_active(st->peer, cfg);
	ch = mock_last_qp_init_attr.send_cq->channel;
	mock_fail("ibv_destroy_comp_channel", EBUSY);
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_null(req);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);

	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * connect_invalid -- NULL arguments and private data without bytes are
 * refused as librpma 1.3 refuses them, leaving the request usable; private
 * data over the transport's limit is refused too, but the request is
 * consumed, as 1.3 consumes it when the connection manager fails it
 */
static void
connect_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);
	struct rpma_conn_req *null_req = NULL;
	struct rpma_conn *conn = H_SENTINEL;
	char buf[256];
	struct rpma_conn_private_data pdata = {NULL, 1};

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rpma_conn_req_connect(NULL, NULL, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&null_req, NULL, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), RPMA_E_INVAL);
	assert_non_null(req);
	assert_ptr_equal(conn, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_connect"), 0);
	assert_int_equal(mock_calls("rdma_create_event_channel"), 0);

	/* the request is intact: 56 bytes are accepted */
	pdata.ptr = buf;
	pdata.len = 56;
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_int_equal(mock_last_conn_param.private_data_len, 56);
	h_conn_delete(&conn);

	/* 57: refused, the request released (an outgoing one is destroyed) */
	req = h_req_active(st->peer, NULL);
	conn = H_SENTINEL;
	pdata.len = 57;
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_ptr_equal(conn, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_connect"), 1);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	h_assert_baseline(st);
}

/*
 * connect_passive_too_long -- an incoming request with more than 196 bytes
 * of private data to accept is refused, consumed and rejected
 */
static void
connect_passive_too_long(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = h_req_passive(ep, NULL, "client", 6);
	struct rpma_conn *conn = H_SENTINEL;
	char buf[197];
	struct rpma_conn_private_data pdata = {buf, 197};

	memset(buf, 'y', sizeof(buf));
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_ptr_equal(conn, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_accept"), 0);
	assert_int_equal(mock_calls("rdma_reject"), 1);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * connect_active -- a client's request calls rdma_connect with its private
 * data and the connection parameters, and becomes a connection
 */
static void
connect_active(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata = {"hello", 5};
	uint32_t qp_num = 0;

	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_non_null(conn);
	assert_int_equal(mock_calls("rdma_connect"), 1);
	assert_int_equal(mock_calls("rdma_accept"), 0);
	assert_int_equal(mock_calls("rdma_migrate_id"), 1);
	assert_int_equal(mock_last_conn_param.private_data_len, 5);
	assert_int_equal(mock_last_pdata_len, 5);
	assert_memory_equal(mock_last_pdata, "hello", 5);
	assert_int_equal(mock_last_conn_param.flow_control, 1);
	assert_int_equal(mock_last_conn_param.retry_count, 7);
	assert_int_equal(mock_last_conn_param.rnr_retry_count, 7);
	assert_int_equal(mock_last_conn_param.responder_resources, RDMA_MAX_RESP_RES);
	assert_int_equal(mock_last_conn_param.initiator_depth, RDMA_MAX_INIT_DEPTH);
	assert_int_equal(rpma_conn_get_qp_num(conn, &qp_num), 0);
	assert_int_equal(qp_num, MOCK_QP_NUM);
	h_conn_delete(&conn);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	h_assert_baseline(st);
}

/*
 * connect_passive -- an incoming request is accepted with up to 196 bytes of
 * private data (see connect_passive_too_long for 197) and keeps the
 * client's private data
 */
static void
connect_passive(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = h_req_passive(ep, NULL, "client", 6);
	struct rpma_conn *conn = H_SENTINEL;
	struct rpma_conn_private_data got;
	char buf[196];
	struct rpma_conn_private_data pdata = {buf, 196};

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)i;
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_int_equal(mock_calls("rdma_accept"), 1);
	assert_int_equal(mock_calls("rdma_connect"), 0);
	assert_int_equal(mock_last_conn_param.private_data_len, 196);
	assert_memory_equal(mock_last_pdata, buf, 196);
	assert_int_equal(rpma_conn_get_private_data(conn, &got), 0);
	assert_int_equal(got.len, 6);
	assert_memory_equal(got.ptr, "client", 6);

	h_conn_delete(&conn);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * connect_no_pdata -- NULL private data sends none; an empty one (no bytes
 * or length 0) is refused as librpma 1.3 refuses it, leaving the request
 */
static void
connect_no_pdata(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_private_data empty = {NULL, 0};
	struct rpma_conn_private_data no_len = {"x", 0};
	struct rpma_conn *conn = NULL;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(mock_last_conn_param.private_data_len, 0);
	assert_null(mock_last_conn_param.private_data);
	h_conn_delete(&conn);

	req = h_req_active(st->peer, NULL);
	assert_int_equal(rpma_conn_req_connect(&req, &empty, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&req, &no_len, &conn), RPMA_E_INVAL);
	assert_non_null(req);
	assert_null(conn);
	assert_int_equal(mock_calls("rdma_connect"), 1);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	h_assert_baseline(st);
}

/*
 * check_connect_failure -- connecting req with func failing (nth call)
 * returns expected, consumes the request and leaks nothing
 */
static void
check_connect_failure(struct h_state *st, struct rpma_conn_req *req, const char *func, int nth,
		      int expected)
{
	struct rpma_conn *conn = H_SENTINEL;
	struct rpma_conn_private_data pdata = {"pd", 2};

	if (strcmp(func, "malloc") == 0)
		mock_alloc_fail_nth(nth);
	else
		mock_fail_nth(func, nth, EIO);
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), expected);
	assert_null(req);
	assert_ptr_equal(conn, H_SENTINEL);
	assert_int_equal(mock_alloc_live(), st->allocs);
	assert_int_equal(mock_objects_live(), st->objs);
}

/*
 * connect_failures_active -- each failing step of connecting a client's
 * request (event channel, migration, flush registration, allocations,
 * rdma_connect) consumes the request and leaks nothing
 */
static void
connect_failures_active(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);
	struct rpma_conn *conn = NULL;
	int before = h_allocs();

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	int n = h_allocs() - before;

	assert_int_equal(n, 3); /* flush, its region, the connection */
	h_conn_delete(&conn);

	for (int i = 1; i <= n; i++)
		check_connect_failure(st, h_req_active(st->peer, NULL), "malloc", i, RPMA_E_NOMEM);
	check_connect_failure(st, h_req_active(st->peer, NULL), "rdma_create_event_channel", 1,
			      RPMA_E_PROVIDER);
	check_connect_failure(st, h_req_active(st->peer, NULL), "rdma_migrate_id", 1,
			      RPMA_E_PROVIDER);
	check_connect_failure(st, h_req_active(st->peer, NULL), "ibv_reg_mr_iova2", 1,
			      RPMA_E_PROVIDER);
	check_connect_failure(st, h_req_active(st->peer, NULL), "rdma_connect", 1, RPMA_E_PROVIDER);
	assert_int_equal(mock_calls("rdma_reject"), 0);
	h_assert_baseline(st);
}

/*
 * connect_failures_passive -- the same for an incoming request: a failure
 * before rdma_accept rejects it, a failing rdma_accept does not
 */
static void
connect_failures_passive(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	long allocs = st->allocs;
	int objs = st->objs;

	/* the endpoint is part of the baseline here */
	st->allocs = mock_alloc_live();
	st->objs = mock_objects_live();

	static const char *const funcs[] = {
	    "rdma_create_event_channel",
	    "rdma_migrate_id",
	    "ibv_reg_mr_iova2",
	    "malloc",
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		int rejects = mock_calls("rdma_reject");

		check_connect_failure(st, h_req_passive(ep, NULL, "c", 1), funcs[i], 1,
				      strcmp(funcs[i], "malloc") ? RPMA_E_PROVIDER : RPMA_E_NOMEM);
		assert_int_equal(mock_calls("rdma_reject") - rejects, 1);
	}

	int rejects = mock_calls("rdma_reject");

	check_connect_failure(st, h_req_passive(ep, NULL, "c", 1), "rdma_accept", 1,
			      RPMA_E_PROVIDER);
	assert_int_equal(mock_calls("rdma_reject") - rejects, 0);
	assert_int_equal(mock_calls("rdma_connect"), 0);

	st->allocs = allocs;
	st->objs = objs;
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * recv_posts -- rpma_conn_req_recv posts a receive of the given slice on the
 * request's QP, or an empty one for a NULL region
 */
static void
recv_posts(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);
	static char buf[64];
	struct rpma_mr_local *mr = h_mr_reg(st->peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV);
	int ctx = 0;

	assert_int_equal(rpma_conn_req_recv(req, mr, 8, 16, &ctx), 0);
	assert_int_equal(mock_calls("ibv_post_recv"), 1);
	assert_int_equal(mock_last_recv_wr.wr_id, (uint64_t)(uintptr_t)&ctx);
	assert_int_equal(mock_last_recv_wr.num_sge, 1);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)(buf + 8));
	assert_int_equal(mock_last_recv_sge.length, 16);
	assert_int_equal(mock_last_recv_sge.lkey, MOCK_LKEY);

	/* an empty receive */
	assert_int_equal(rpma_conn_req_recv(req, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_last_recv_wr.num_sge, 0);
	assert_null(mock_last_recv_wr.sg_list);
	assert_int_equal(mock_last_recv_wr.wr_id, 0);
	assert_int_equal(mock_calls("ibv_post_srq_recv"), 0);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	h_assert_baseline(st);
}

/*
 * recv_invalid -- NULL request, a NULL region with a range, a length no
 * work request holds; a failing post. The region's usage and the range
 * are the device's to check: posted as given
 */
static void
recv_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);
	static char buf[64];
	struct rpma_mr_local *mr = h_mr_reg(st->peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV);
	struct rpma_mr_local *mr_send = h_mr_reg(st->peer, buf, sizeof(buf), RPMA_MR_USAGE_SEND);

	assert_int_equal(rpma_conn_req_recv(NULL, mr, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, NULL, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, NULL, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, mr, 8, SIZE_MAX, NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_post_recv"), 0);

	assert_int_equal(rpma_conn_req_recv(req, mr_send, 0, 8, NULL), 0);
	assert_int_equal(rpma_conn_req_recv(req, mr, 60, 8, NULL), 0);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)(buf + 60));
	assert_int_equal(mock_last_recv_sge.length, 8);
	assert_int_equal(mock_calls("ibv_post_recv"), 2);

	mock_fail("ibv_post_recv", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 64, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_mr_dereg(&mr_send), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	h_assert_baseline(st);
}

/*
 * get_private_data -- NULL arguments are refused; an outgoing request has
 * none, an incoming one an exact copy of the client's
 */
static void
get_private_data(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_private_data pdata = {H_SENTINEL, 77};
	struct rpma_conn_req *req = h_req_active(st->peer, NULL);

	assert_int_equal(rpma_conn_req_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_get_private_data(req, NULL), RPMA_E_INVAL);
	assert_ptr_equal(pdata.ptr, H_SENTINEL);
	assert_int_equal(pdata.len, 77);
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);

	struct rpma_ep *ep = h_ep_new(st->peer);
	unsigned char in[100];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(255 - i);
	req = h_req_passive(ep, NULL, in, sizeof(in));
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(in));
	assert_memory_equal(pdata.ptr, in, sizeof(in));
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * from_id_refused_size -- a CQ size the device refuses (here the receive
 * CQ's) fails with RPMA_E_PROVIDER, as in librpma 1.3, leaving the id to
 * the caller; a size beyond an int reaches the device as INT_MAX
 */
static void
from_id_refused_size(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_req *req = H_SENTINEL;
	struct rdma_cm_id *id = NULL;
	struct rpma_conn_cfg *cfg = h_cfg_new();

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, (uint32_t)INT32_MAX + 1), 0);
	mock_fail_nth("ibv_create_cq", 2, EINVAL);
	errno = 0;
	assert_int_equal(rpma__conn_req_from_id(st->peer, id, cfg, true, &req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(mock_last_cq_cqe, INT32_MAX);
	assert_ptr_equal(req, H_SENTINEL);
	assert_null(id->qp);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, h_setup, h_teardown)
	    T(new_invalid_args),
	    T(new_default_cfg),
	    T(new_custom_cfg),
	    T(new_shared_channel),
	    T(new_srq),
	    T(new_srq_qp_failure),
	    T(new_provider_failures),
	    T(new_shared_channel_failure),
	    T(new_alloc_failures),
	    T(delete_invalid),
	    T(delete_passive_rejects),
	    T(delete_failures),
	    T(connect_invalid),
	    T(connect_passive_too_long),
	    T(connect_active),
	    T(connect_passive),
	    T(connect_no_pdata),
	    T(connect_failures_active),
	    T(connect_failures_passive),
	    T(recv_posts),
	    T(recv_invalid),
	    T(get_private_data),
	    T(from_id_refused_size),
#undef T
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return failed + _cmocka_run_group_tests("shared_cq", conn_req_shared_cq_tests,
						conn_req_shared_cq_count, NULL, NULL);
}
