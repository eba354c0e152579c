/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ep.c -- unit tests of librpma/src/ep.c: listening endpoints and the
 * incoming connection requests taken from them
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "conn_helpers.h"

/*
 * ep_layout -- the fields of struct rpma_ep (ep.c), to reach the listening
 * id that a failing rdma_destroy_id leaves alive; checked against
 * rpma_ep_get_fd() before use
 */
struct ep_layout {
	struct rpma_peer *peer;
	struct rdma_event_channel *evch;
	struct rdma_cm_id *id;
};

/* listen_invalid_args -- each NULL argument is refused, nothing is written */
static void
listen_invalid_args(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = H_SENTINEL;

	assert_int_equal(rpma_ep_listen(NULL, H_ADDR, H_PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(st->peer, NULL, H_PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(st->peer, H_ADDR, NULL, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(st->peer, H_ADDR, H_PORT, NULL), RPMA_E_INVAL);
	assert_ptr_equal(ep, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_create_event_channel"), 0);
	h_assert_baseline(st);
}

/*
 * listen_success -- the endpoint binds its id to the passive address and
 * listens; its fd is the event channel's; shutdown releases everything
 */
static void
listen_success(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	int fd = -1;

	assert_int_equal(mock_calls("rdma_create_event_channel"), 1);
	assert_int_equal(mock_calls("rdma_create_id"), 1);
	assert_int_equal(mock_calls("rdma_bind_addr"), 1);
	assert_int_equal(mock_calls("rdma_listen"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
	assert_int_equal(rpma_ep_get_fd(ep, &fd), 0);
	assert_true(fd >= 0);

	/* the listening id is bound to 192.168.0.1:7204 on the endpoint's channel */
	const struct ep_layout *lay = (const struct ep_layout *)ep;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&lay->id->route.addr.src_addr;

	assert_int_equal(lay->evch->fd, fd);
	assert_ptr_equal(lay->id->channel, lay->evch);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 7204);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0xc0a80001);

	struct rpma_conn_req *req = NULL;

	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, lay->id, NULL, 0);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);

	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_null(ep);
	assert_int_equal(mock_calls("rdma_destroy_id"), 2);
	assert_int_equal(mock_calls("rdma_destroy_event_channel"), 1);
	h_assert_baseline(st);
}

/*
 * listen_failures -- every provider call and the allocation of
 * rpma_ep_listen, failing, fail it with nothing written or leaked
 */
static void
listen_failures(void **state)
{
	struct h_state *st = *state;
	static const char *const funcs[] = {
	    "rdma_create_event_channel",
	    "rdma_create_id",
	    "rdma_getaddrinfo",
	    "rdma_bind_addr",
	    "rdma_listen",
	    "malloc",
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		struct rpma_ep *ep = H_SENTINEL;
		int expected = RPMA_E_PROVIDER;

		if (strcmp(funcs[i], "malloc") == 0) {
			mock_alloc_fail_nth(1);
			expected = RPMA_E_NOMEM;
		} else {
			mock_fail(funcs[i], EADDRINUSE);
		}
		errno = 0;
		assert_int_equal(rpma_ep_listen(st->peer, H_ADDR, H_PORT, &ep), expected);
		if (expected == RPMA_E_PROVIDER)
			assert_int_equal(errno, EADDRINUSE);
		assert_ptr_equal(ep, H_SENTINEL);
		h_assert_baseline(st);
	}
	/* the only allocation is the endpoint itself */
	int before = h_allocs();
	struct rpma_ep *ep = h_ep_new(st->peer);

	assert_int_equal(h_allocs() - before, 1);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/* shutdown_invalid -- NULL ep_ptr is refused, NULL *ep_ptr is a no-op */
static void
shutdown_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = NULL;

	assert_int_equal(rpma_ep_shutdown(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(mock_calls("rdma_destroy_id"), 0);
	h_assert_baseline(st);
}

/*
 * shutdown_failure -- a failing rdma_destroy_id is reported but the endpoint
 * and its channel are freed anyway
 */
static void
shutdown_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	const struct ep_layout *lay = (const struct ep_layout *)ep;
	int fd = -1;

	assert_int_equal(rpma_ep_get_fd(ep, &fd), 0);
	assert_ptr_equal(lay->peer, st->peer);
	assert_int_equal(lay->evch->fd, fd);
	assert_ptr_equal(lay->id->channel, lay->evch);

	struct rdma_cm_id *id = lay->id;

	mock_fail("rdma_destroy_id", EBUSY);
	assert_int_equal(rpma_ep_shutdown(&ep), RPMA_E_PROVIDER);
	assert_null(ep);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_destroy_event_channel"), 1);
	assert_int_equal(mock_alloc_live(), st->allocs);
	/* only the id the mock kept alive is left */
	assert_int_equal(mock_objects_live(), st->objs + 1);
	assert_int_equal(rdma_destroy_id(id), 0);
	h_assert_baseline(st);
}

/* get_fd_invalid -- NULL arguments are refused and nothing is written */
static void
get_fd_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	int fd = -7;

	assert_int_equal(rpma_ep_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_get_fd(ep, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_invalid_args -- NULL arguments are refused without taking an event
 */
static void
next_invalid_args(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_ep_next_conn_req(NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_get_cm_event"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_with_pdata -- a CONNECT_REQUEST with private data gives a request
 * carrying an exact copy of it, owned by the request (the event is acked)
 */
static void
next_with_pdata(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pdata;
	unsigned char in[200];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 3);
	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, in, sizeof(in));
	struct rdma_cm_id *id = mock_cm_last_req_id();

	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), 0);
	assert_non_null(req);
	assert_int_equal(mock_calls("rdma_ack_cm_event"), 1);
	assert_non_null(id->qp); /* the request built its QP on the event's id */
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(in));
	assert_memory_equal(pdata.ptr, in, sizeof(in));
	/* a copy, not the event's buffer which is gone */
	assert_ptr_not_equal(pdata.ptr, in);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/* next_without_pdata -- a CONNECT_REQUEST without private data gives none */
static void
next_without_pdata(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_conn_private_data pdata = {H_SENTINEL, 9};

	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 33), 0);
	int before = h_allocs();
	struct rpma_conn_req *req = h_req_passive(ep, cfg, NULL, 0);

	assert_int_equal(h_allocs() - before, 2); /* the CQ and the request */
	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 33);
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_other_event -- an event other than CONNECT_REQUEST is acked and
 * refused with RPMA_E_INVAL
 */
static void
next_other_event(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = H_SENTINEL;

	mock_cm_push_event(RDMA_CM_EVENT_DISCONNECTED, NULL, NULL, 0);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_INVAL);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(mock_calls("rdma_create_qp_ex"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_no_event -- no event (EAGAIN) gives RPMA_E_NO_EVENT, other errors of
 * rdma_get_cm_event give RPMA_E_PROVIDER
 */
static void
next_no_event(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = H_SENTINEL;

	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_NO_EVENT);
	mock_fail("rdma_get_cm_event", ENODATA);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_NO_EVENT);
	mock_fail("rdma_get_cm_event", EIO);
	errno = 0;
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_get_cm_event"), 3);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * check_next_failure -- rpma_ep_next_conn_req with the armed failure returns
 * expected; the new id is rejected and destroyed and nothing leaks
 */
static void
check_next_failure(struct h_state *st, struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		   const void *pdata, uint8_t len, int expected)
{
	struct rpma_conn_req *req = H_SENTINEL;
	long allocs = mock_alloc_live();
	int objs = mock_objects_live();
	int rejects = mock_calls("rdma_reject");

	(void)st;
	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, pdata, len);
	assert_non_null(mock_cm_last_req_id());
	assert_int_equal(rpma_ep_next_conn_req(ep, cfg, &req), expected);
	assert_ptr_equal(req, H_SENTINEL);
	assert_int_equal(mock_calls("rdma_reject") - rejects, 1);
	assert_null(mock_cm_last_req_id()); /* destroyed */
	assert_int_equal(mock_alloc_live(), allocs);
	/* the event is acked (unless the ack failed) and the id destroyed */
	assert_int_equal(mock_objects_live(), objs);
}

/*
 * next_pdata_alloc_failure -- the copy of the private data failing rejects
 * and destroys the new id
 */
static void
next_pdata_alloc_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);

	mock_alloc_fail_nth(1);
	check_next_failure(st, ep, NULL, "xyz", 3, RPMA_E_NOMEM);
	assert_int_equal(mock_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(mock_calls("rdma_create_qp_ex"), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_ack_failure -- a failing ack rejects and destroys the new id, with
 * or without private data copied (which is freed)
 */
static void
next_ack_failure(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_req *req = H_SENTINEL;
	int rejects;

	for (int with_pdata = 0; with_pdata <= 1; with_pdata++) {
		long allocs = mock_alloc_live();
		int objs = mock_objects_live();

		rejects = mock_calls("rdma_reject");
		mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, with_pdata ? "pd" : NULL,
				   with_pdata ? 2 : 0);
		mock_fail("rdma_ack_cm_event", EINVAL);
		errno = 0;
		assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_PROVIDER);
		assert_int_equal(errno, EINVAL);
		assert_ptr_equal(req, H_SENTINEL);
		assert_int_equal(mock_calls("rdma_reject") - rejects, 1);
		assert_null(mock_cm_last_req_id());
		assert_int_equal(mock_alloc_live(), allocs);
		/* the mock keeps the event whose ack failed: ack it now */
		assert_int_equal(mock_objects_live(), objs + 1);
		assert_int_equal(rdma_ack_cm_event(mock_cm_last_event()), 0);
		assert_int_equal(mock_objects_live(), objs);
	}

	/* the copy failing and the ack failing: NOMEM is reported */
	rejects = mock_calls("rdma_reject");
	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, NULL, "pd", 2);
	mock_alloc_fail_nth(1);
	mock_fail("rdma_ack_cm_event", EINVAL);
	assert_int_equal(rpma_ep_next_conn_req(ep, NULL, &req), RPMA_E_NOMEM);
	assert_int_equal(mock_calls("rdma_reject") - rejects, 1);
	assert_int_equal(rdma_ack_cm_event(mock_cm_last_event()), 0);

	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

/*
 * next_conn_req_failures -- each failure of building the request (provider
 * calls and allocations) rejects and destroys the new id and frees the
 * private data copy
 */
static void
next_conn_req_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_ep *ep = h_ep_new(st->peer);
	struct rpma_conn_cfg *cfg = h_cfg_new();
	static const char *const funcs[] = {
	    "ibv_create_comp_channel",
	    "ibv_create_cq",
	    "ibv_req_notify_cq",
	    "rdma_create_qp_ex",
	};

	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		for (int nth = 1; nth <= 2; nth++) {
			if (nth == 2 && strcmp(funcs[i], "rdma_create_qp_ex") == 0)
				break;
			mock_fail_nth(funcs[i], nth, EIO);
			check_next_failure(st, ep, cfg, "pdata", 5, RPMA_E_PROVIDER);
		}
	}

	/* allocations: 1 the private data, 2-3 the CQs, 4 the request */
	int before = h_allocs();
	struct rpma_conn_req *req = h_req_passive(ep, cfg, "pdata", 5);
	int n = h_allocs() - before;

	assert_int_equal(n, 4);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	for (int i = 1; i <= n; i++) {
		mock_alloc_fail_nth(i);
		check_next_failure(st, ep, cfg, "pdata", 5, RPMA_E_NOMEM);
	}

	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	h_assert_baseline(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, h_setup, h_teardown)
	    T(listen_invalid_args), T(listen_success),	       T(listen_failures),
	    T(shutdown_invalid),    T(shutdown_failure),       T(get_fd_invalid),
	    T(next_invalid_args),   T(next_with_pdata),	       T(next_without_pdata),
	    T(next_other_event),    T(next_no_event),	       T(next_pdata_alloc_failure),
	    T(next_ack_failure),    T(next_conn_req_failures),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
