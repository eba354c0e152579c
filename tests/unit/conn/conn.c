/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c -- unit tests of librpma/src/conn.c: connection events, getters,
 * waiting for completions, disconnecting and deleting (the data path is in
 * ops.c)
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "conn_helpers.h"
#include "cq.h"
#include "ops.h"

/*
 * conn_layout -- the fields of struct rpma_conn (conn.c) and of the flush
 * object, to reach objects that a failing destroy call leaves alive;
 * checked against the public getters before use
 */
struct conn_layout {
	struct rpma_conn_resources res;
	struct rdma_event_channel *evch;
	struct {
		struct {
			struct ibv_mr *ibv_mr;
		} * raw_mr;
	} * flush;
};

/* id_of -- the CM id of a connection */
static struct rdma_cm_id *
id_of(struct rpma_conn *conn)
{
	return rpma__conn_get_id(conn);
}

/* next_event_invalid -- NULL arguments are refused without taking an event */
static void
next_event_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	assert_int_equal(rpma_conn_next_event(NULL, &ev), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_next_event(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(mock_calls("rdma_get_cm_event"), 0);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * next_event_mapping -- every CM event maps to its connection event; the
 * events librpma does not expect give RPMA_E_UNKNOWN; all are acked
 */
static void
next_event_mapping(void **state)
{
	struct h_state *st = *state;
	static const struct {
		enum rdma_cm_event_type cm;
		int ret;
		enum rpma_conn_event ev;
	} map[] = {
	    {RDMA_CM_EVENT_ESTABLISHED, 0, RPMA_CONN_ESTABLISHED},
	    {RDMA_CM_EVENT_CONNECT_ERROR, 0, RPMA_CONN_LOST},
	    {RDMA_CM_EVENT_DEVICE_REMOVAL, 0, RPMA_CONN_LOST},
	    {RDMA_CM_EVENT_DISCONNECTED, 0, RPMA_CONN_CLOSED},
	    {RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, RPMA_CONN_CLOSED},
	    {RDMA_CM_EVENT_REJECTED, 0, RPMA_CONN_REJECTED},
	    {RDMA_CM_EVENT_UNREACHABLE, 0, RPMA_CONN_UNREACHABLE},
	    /* resolved before a connection exists: unexpected, as in librpma 1.3 */
	    {RDMA_CM_EVENT_ADDR_ERROR, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_ROUTE_ERROR, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_ADDR_RESOLVED, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_ROUTE_RESOLVED, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_CONNECT_REQUEST, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_CONNECT_RESPONSE, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_MULTICAST_JOIN, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	    {RDMA_CM_EVENT_ADDR_CHANGE, RPMA_E_UNKNOWN, RPMA_CONN_UNDEFINED},
	};
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		enum rpma_conn_event ev = (enum rpma_conn_event)1234;
		int acks = mock_calls("rdma_ack_cm_event");

		mock_cm_push_event(map[i].cm, id_of(conn), NULL, 0);
		assert_int_equal(rpma_conn_next_event(conn, &ev), map[i].ret);
		assert_int_equal(mock_calls("rdma_ack_cm_event") - acks, 1);
		if (map[i].ret == 0)
			assert_int_equal(ev, map[i].ev);
		else
			assert_int_equal(ev, 1234);		/* not written */
		if (map[i].cm == RDMA_CM_EVENT_CONNECT_REQUEST) /* its new id */
			assert_int_equal(rdma_destroy_id(mock_cm_last_req_id()), 0);
	}
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * next_event_client_pdata -- a client learns the server's private data at
 * ESTABLISHED (an exact copy, kept by later events); a server keeps the
 * client's
 */
static void
next_event_client_pdata(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	struct rpma_conn_private_data pdata;
	enum rpma_conn_event ev;
	unsigned char in[196];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i ^ 0xa5);
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);

	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, id_of(conn), in, sizeof(in));
	assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(in));
	assert_memory_equal(pdata.ptr, in, sizeof(in));

	/* a later ESTABLISHED does not replace it */
	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, id_of(conn), "other", 5);
	assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
	struct rpma_conn_private_data again;

	assert_int_equal(rpma_conn_get_private_data(conn, &again), 0);
	assert_ptr_equal(again.ptr, pdata.ptr);
	assert_int_equal(again.len, sizeof(in));
	h_conn_delete(&conn);

	/* the server side */
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = h_req_passive(ep, NULL, "client", 6);

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, id_of(conn), "server", 6);
	assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_int_equal(pdata.len, 6);
	assert_memory_equal(pdata.ptr, "client", 6);
	h_conn_delete(&conn);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_event_pdata_alloc_failure -- the copy of the server's private data
 * failing gives RPMA_E_NOMEM, the event is acked and not reported
 */
static void
next_event_pdata_alloc_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	struct rpma_conn_private_data pdata;

	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, id_of(conn), "srv", 3);
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_NOMEM);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(mock_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_null(pdata.ptr);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * next_event_no_event -- no event gives RPMA_E_NO_EVENT, another failure of
 * rdma_get_cm_event RPMA_E_PROVIDER; the output is not written
 */
static void
next_event_no_event(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_NO_EVENT);
	mock_fail("rdma_get_cm_event", EWOULDBLOCK);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_NO_EVENT);
	mock_fail("rdma_get_cm_event", ENODATA);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_NO_EVENT);
	mock_fail("rdma_get_cm_event", EBADF);
	errno = 0;
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBADF);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(mock_calls("rdma_ack_cm_event"), 0);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * next_event_ack_failure -- a failing ack gives RPMA_E_PROVIDER and no
 * event; private data stored meanwhile belongs to the connection; an
 * earlier error (unknown event) is kept
 */
static void
next_event_ack_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	struct rpma_conn_private_data pdata;

	mock_cm_push_event(RDMA_CM_EVENT_DISCONNECTED, id_of(conn), NULL, 0);
	mock_fail("rdma_ack_cm_event", EINVAL);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(rdma_ack_cm_event(mock_cm_last_event()), 0);

	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, id_of(conn), "srv", 3);
	mock_fail("rdma_ack_cm_event", EINVAL);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(rdma_ack_cm_event(mock_cm_last_event()), 0);
	assert_int_equal(rpma_conn_get_private_data(conn, &pdata), 0);
	assert_int_equal(pdata.len, 3);
	assert_memory_equal(pdata.ptr, "srv", 3);

	mock_cm_push_event(RDMA_CM_EVENT_ADDR_RESOLVED, id_of(conn), NULL, 0);
	mock_fail("rdma_ack_cm_event", EINVAL);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_UNKNOWN);
	assert_int_equal(rdma_ack_cm_event(mock_cm_last_event()), 0);

	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * getters -- the fds, QP number and CQs are reported; NULL arguments are
 * refused without writing the output
 */
static void
getters(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	struct rpma_cq *cq = H_SENTINEL, *rcq = H_SENTINEL;
	struct rpma_conn_private_data pdata = {H_SENTINEL, 3};
	struct sockaddr_storage addr;
	char text[INET_ADDRSTRLEN];
	uint32_t qp_num = 77;
	int fd = -9;

	assert_int_equal(rpma_conn_get_event_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_event_fd(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_private_data(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_qp_num(NULL, &qp_num), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_qp_num(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_peer_addr(NULL, &addr), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_peer_addr(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_cq(NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_cq(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(fd, -9);
	assert_int_equal(qp_num, 77);
	assert_ptr_equal(cq, H_SENTINEL);
	assert_ptr_equal(rcq, H_SENTINEL);
	assert_ptr_equal(pdata.ptr, H_SENTINEL);

	/* the event fd is the one of the channel the id was moved to */
	assert_int_equal(rpma_conn_get_event_fd(conn, &fd), 0);
	assert_non_null(id_of(conn)->channel);
	assert_int_equal(fd, id_of(conn)->channel->fd);
	assert_int_equal(rpma_conn_get_qp_num(conn, &qp_num), 0);
	assert_int_equal(qp_num, MOCK_QP_NUM);
	/* the peer is the address the request was made to */
	assert_int_equal(rpma_conn_get_peer_addr(conn, &addr), 0);
	assert_int_equal(addr.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&addr)->sin_port), atoi(H_PORT));
	assert_string_equal(
	    inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, text, sizeof(text)),
	    H_ADDR);
	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_non_null(cq);
	assert_ptr_equal(rpma__cq_get_ibv_cq(cq), id_of(conn)->qp->send_cq);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_null(rcq); /* none configured */

	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/* apply_remote_peer_cfg_invalid -- NULL arguments are refused */
static void
apply_remote_peer_cfg_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	struct rpma_peer_cfg *pcfg = NULL;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(NULL, pcfg), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(conn, pcfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/* shared_conn -- a connection with a shared channel and a receive CQ */
static struct rpma_conn *
shared_conn(struct h_state *st, struct rpma_conn_cfg **cfg, uint32_t rcq_size)
{
	*cfg = h_cfg_new();
	assert_int_equal(rpma_conn_cfg_set_compl_channel(*cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(*cfg, rcq_size), 0);
	return h_conn_active(st->peer, *cfg);
}

/* compl_fd_shared -- a shared channel's fd is reported */
static void
compl_fd_shared(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *conn = shared_conn(st, &cfg, 4);
	struct rpma_cq *cq;
	int fd = -1;

	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), 0);
	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(fd, rpma__cq_get_ibv_cq(cq)->channel->fd);
	h_conn_delete(&conn);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * wait_invalid -- NULL conn and a connection without a shared channel are
 * refused without waiting; the reserved flags are ignored (as in librpma
 * 1.3), whatever their value
 */
static void
wait_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	struct rpma_cq *cq = H_SENTINEL;
	bool is_rcq = true;

	assert_int_equal(rpma_conn_wait(NULL, 0, &cq, &is_rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_wait(conn, 1, &cq, &is_rcq), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(rpma_conn_wait(conn, 0, &cq, &is_rcq), RPMA_E_NOT_SHARED_CHNL);
	assert_ptr_equal(cq, H_SENTINEL);
	assert_true(is_rcq);
	assert_int_equal(mock_calls("ibv_get_cq_event"), 0);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * wait_events -- an event on the CQ reports it with is_rcq false, on the
 * receive CQ with is_rcq true; each is acked and the CQ rearmed; NULL
 * outputs are allowed
 */
static void
wait_events(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *conn = shared_conn(st, &cfg, 4);
	struct rpma_cq *cq, *rcq, *got = NULL;
	bool is_rcq = true;

	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_non_null(rcq);
	int notify = mock_calls("ibv_req_notify_cq");

	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), 0);
	assert_ptr_equal(got, cq);
	assert_false(is_rcq);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_int_equal(mock_calls("ibv_req_notify_cq") - notify, 1);

	mock_comp_event_push(rpma__cq_get_ibv_cq(rcq));
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), 0);
	assert_ptr_equal(got, rcq);
	assert_true(is_rcq);
	assert_int_equal(mock_cq_events_acked, 2);

	mock_comp_event_push(rpma__cq_get_ibv_cq(rcq));
	assert_int_equal(rpma_conn_wait(conn, 0, NULL, NULL), 0);
	assert_int_equal(mock_cq_events_acked, 3);
	assert_int_equal(mock_calls("ibv_req_notify_cq") - notify, 3);

	h_conn_delete(&conn);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * wait_failures -- no event, or a failure to get one, gives
 * RPMA_E_NO_COMPLETION (as in librpma 1.3), an event of another CQ
 * RPMA_E_UNKNOWN (acked), a failing rearm RPMA_E_PROVIDER; outputs are
 * not written; flags do not matter
 */
static void
wait_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg;
	struct rpma_conn *conn = shared_conn(st, &cfg, 4);
	struct rpma_cq *got = H_SENTINEL;
	struct rpma_cq *cq;
	bool is_rcq = true;

	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), RPMA_E_NO_COMPLETION);
	mock_fail("ibv_get_cq_event", EIO);
	assert_int_equal(rpma_conn_wait(conn, 0x7f, &got, &is_rcq), RPMA_E_NO_COMPLETION);
	assert_non_null(strstr(rpma_errormsg(), "ibv_get_cq_event()"));

	struct ibv_cq *other = ibv_create_cq(mock_ibv_context(), 4, NULL, NULL, 0);

	assert_non_null(other);
	mock_comp_event_push(other);
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), RPMA_E_UNKNOWN);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_int_equal(ibv_destroy_cq(other), 0);

	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	mock_fail("ibv_req_notify_cq", EIO);
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), RPMA_E_PROVIDER);
	assert_ptr_equal(got, H_SENTINEL);
	assert_true(is_rcq);

	h_conn_delete(&conn);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * wait_no_rcq -- with a shared channel but no receive CQ, an event of
 * another CQ is not mistaken for the (absent) receive CQ
 */
static void
wait_no_rcq(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_cq *got = NULL;
	bool is_rcq = true;

	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	struct rpma_conn *conn = h_conn_active(st->peer, cfg);
	struct rpma_cq *cq;

	assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), 0);
	assert_ptr_equal(got, cq);
	assert_false(is_rcq);

	struct ibv_cq *other = ibv_create_cq(mock_ibv_context(), 4, NULL, NULL, 0);

	mock_comp_event_push(other);
	assert_int_equal(rpma_conn_wait(conn, 0, &got, &is_rcq), RPMA_E_UNKNOWN);
	assert_int_equal(ibv_destroy_cq(other), 0);

	h_conn_delete(&conn);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/* disconnect -- rdma_disconnect is called; NULL and its failure reported */
static void
disconnect(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);

	assert_int_equal(rpma_conn_disconnect(NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("rdma_disconnect"), 0);
	assert_int_equal(rpma_conn_disconnect(conn), 0);
	assert_int_equal(mock_calls("rdma_disconnect"), 1);
	mock_fail("rdma_disconnect", ENOTCONN);
	errno = 0;
	assert_int_equal(rpma_conn_disconnect(conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOTCONN);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

/*
 * delete_invalid -- NULL conn_ptr is refused, NULL *conn_ptr is a no-op;
 * deleting releases the QP, CQ, id, channel and flush region
 */
static void
delete_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_null(conn);

	conn = h_conn_active(st->peer, NULL);
	h_conn_delete(&conn);
	assert_int_equal(mock_calls("rdma_destroy_qp"), 1);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_destroy_event_channel"), 1);
	assert_int_equal(mock_calls("ibv_dereg_mr"), 1);
	h_assert_baseline(st);
}

/*
 * delete_failures -- each failing destroy call is reported, but the
 * connection is freed and *conn_ptr cleared anyway (the objects the mock
 * keeps alive are destroyed here)
 */
static void
delete_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	static const char *const funcs[] = {
	    "ibv_destroy_cq",		"ibv_destroy_cq#2", "rdma_destroy_id",
	    "ibv_destroy_comp_channel", "ibv_dereg_mr",
	};

	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		struct rpma_conn *conn = h_conn_active(st->peer, cfg);
		const struct conn_layout *lay = (const struct conn_layout *)conn;
		struct rpma_cq *cq, *rcq;
		int fd;

		/* the layout matches */
		assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
		assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
		assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), 0);
		assert_ptr_equal(lay->res.cq, cq);
		assert_ptr_equal(lay->res.rcq, rcq);
		assert_int_equal(lay->res.channel->fd, fd);
		assert_ptr_equal(lay->evch, id_of(conn)->channel);

		struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(cq);
		struct ibv_cq *ibv_rcq = rpma__cq_get_ibv_cq(rcq);
		struct rdma_cm_id *id = lay->res.id;
		struct ibv_comp_channel *ch = lay->res.channel;
		struct ibv_mr *mr = lay->flush->raw_mr->ibv_mr;

		if (strcmp(funcs[i], "ibv_destroy_cq#2") == 0)
			mock_fail_nth("ibv_destroy_cq", 2, EBUSY);
		else
			mock_fail(funcs[i], EBUSY);
		assert_int_equal(rpma_conn_delete(&conn), RPMA_E_PROVIDER);
		assert_null(conn);
		assert_int_equal(mock_alloc_live(), st->allocs + 1 /* cfg */);
		assert_int_equal(mock_objects_live(), st->objs + 1);

		if (strcmp(funcs[i], "ibv_destroy_cq") == 0) /* the receive CQ goes first */
			assert_int_equal(ibv_destroy_cq(ibv_rcq), 0);
		else if (strcmp(funcs[i], "ibv_destroy_cq#2") == 0)
			assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
		else if (strcmp(funcs[i], "rdma_destroy_id") == 0)
			assert_int_equal(rdma_destroy_id(id), 0);
		else if (strcmp(funcs[i], "ibv_destroy_comp_channel") == 0)
			assert_int_equal(ibv_destroy_comp_channel(ch), 0);
		else
			assert_int_equal(ibv_dereg_mr(mr), 0);
		assert_int_equal(mock_objects_live(), st->objs);
	}
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/*
 * conn_new_native -- on a device with native atomic write the QP is
 * created with the extended send operations
 */
static void
conn_new_native(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);

	assert_true(mock_last_qp_init_attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_true(mock_last_qp_init_attr.send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE);
	assert_int_equal(mock_calls("ibv_qp_to_qp_ex"), 1);
	h_conn_delete(&conn);
	h_assert_baseline(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, h_setup, h_teardown)
	    T(next_event_invalid),
	    T(next_event_mapping),
	    T(next_event_client_pdata),
	    T(next_event_pdata_alloc_failure),
	    T(next_event_no_event),
	    T(next_event_ack_failure),
	    T(getters),
	    T(apply_remote_peer_cfg_invalid),
	    T(compl_fd_shared),
	    T(wait_invalid),
	    T(wait_events),
	    T(wait_failures),
	    T(wait_no_rcq),
	    T(disconnect),
	    T(delete_invalid),
	    T(delete_failures),
	    cmocka_unit_test_setup_teardown(conn_new_native, h_setup_native, h_teardown),
#undef T
	};
	int failed = cmocka_run_group_tests_name("conn", tests, NULL, NULL);

	return failed + _cmocka_run_group_tests("ops", conn_ops_tests, conn_ops_count, NULL, NULL);
}
