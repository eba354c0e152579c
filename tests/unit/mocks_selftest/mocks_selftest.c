/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_selftest.c -- unit tests of the mock layer itself
 * (tests/unit/common/)
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "mocks.h"

/*
 * the allocator called through volatile pointers, so that the compiler
 * cannot elide or fold allocations at any optimization level
 */
static void *(*volatile p_malloc)(size_t) = malloc;
static void *(*volatile p_calloc)(size_t, size_t) = calloc;
static void *(*volatile p_realloc)(void *, size_t) = realloc;
static void (*volatile p_free)(void *) = free;

/* new_id_with_qp -- a fake CM id with a fake QP and its CQ */
static struct rdma_cm_id *
new_id_with_qp(struct ibv_pd **pd, struct ibv_cq **cq)
{
	struct rdma_cm_id *id = NULL;
	struct ibv_qp_init_attr_ex attr;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	*pd = ibv_alloc_pd(id->verbs);
	assert_non_null(*pd);
	*cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	assert_non_null(*cq);

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = *cq;
	attr.recv_cq = *cq;
	attr.cap.max_send_wr = 10;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.pd = *pd;
	attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	assert_int_equal(rdma_create_qp_ex(id, &attr), 0);

	return id;
}

/* del_id_with_qp -- undo new_id_with_qp */
static void
del_id_with_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq)
{
	rdma_destroy_qp(id);
	assert_null(id->qp);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(rdma_destroy_id(id), 0);
}

/* fail_next -- mock_fail arms the next call only, NULL + errno style */
static void
fail_next(void **state)
{
	(void)state;
	mock_fail("ibv_alloc_pd", ENOMEM);

	errno = 0;
	assert_null(ibv_alloc_pd(mock_ibv_context()));
	assert_int_equal(errno, ENOMEM);

	struct ibv_pd *pd = ibv_alloc_pd(mock_ibv_context());

	assert_non_null(pd);
	assert_ptr_equal(pd->context, mock_ibv_context());
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(mock_calls("ibv_alloc_pd"), 2);
	assert_int_equal(mock_calls("ibv_dealloc_pd"), 1);
}

/* fail_nth -- several armed failures, counted from the arming */
static void
fail_nth(void **state)
{
	struct rdma_cm_id *id = NULL;

	(void)state;
	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_connect(id, NULL), 0); /* before arming */

	mock_fail_nth("rdma_connect", 2, ECONNREFUSED);
	mock_fail_nth("rdma_connect", 4, ETIMEDOUT);
	mock_fail("rdma_disconnect", EINVAL);

	assert_int_equal(rdma_connect(id, NULL), 0);
	errno = 0;
	assert_int_equal(rdma_connect(id, NULL), -1);
	assert_int_equal(errno, ECONNREFUSED);
	assert_int_equal(rdma_connect(id, NULL), 0);
	assert_int_equal(rdma_connect(id, NULL), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(rdma_connect(id, NULL), 0);
	assert_int_equal(mock_calls("rdma_connect"), 6);

	assert_int_equal(rdma_disconnect(id), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rdma_disconnect(id), 0);

	/* a failing destroy keeps its object */
	mock_fail("rdma_destroy_id", EBUSY);
	assert_int_equal(rdma_destroy_id(id), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(rdma_destroy_id(id), 0);
}

/* fail_errno_returning -- functions returning the errno value */
static void
fail_errno_returning(void **state)
{
	(void)state;
	struct ibv_pd *pd = ibv_alloc_pd(mock_ibv_context());

	mock_fail("ibv_dealloc_pd", EBUSY);
	assert_int_equal(ibv_dealloc_pd(pd), EBUSY);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_dealloc_pd(pd), 0);

	mock_fail("ibv_fork_init", EINVAL);
	assert_int_equal(ibv_fork_init(), EINVAL);
	assert_int_equal(ibv_fork_init(), 0);
	assert_int_equal(mock_calls("ibv_fork_init"), 2);
}

/* counters_and_reset -- counters and armed failures are reset */
static void
counters_and_reset(void **state)
{
	(void)state;
	assert_int_equal(mock_calls("ibv_fork_init"), 0);
	(void)ibv_fork_init();
	(void)ibv_fork_init();
	assert_int_equal(mock_calls("ibv_fork_init"), 2);
	assert_int_equal(mock_calls("rdma_listen"), 0);

	mock_fail("ibv_fork_init", EIO);
	mock_alloc_fail_nth(1);
	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, NULL, "x", 1);
	mock_reset();

	assert_int_equal(mock_calls("ibv_fork_init"), 0);
	assert_int_equal(ibv_fork_init(), 0);
	void *p = p_malloc(8);

	assert_non_null(p);
	p_free(p);
	assert_int_equal(mock_objects_live(), 0);
}

/* alloc_fail_and_live -- allocation failures and the live count */
static void
alloc_fail_and_live(void **state)
{
	(void)state;
	size_t sz = 32;

	mock_alloc_fail_nth(2);
	mock_alloc_fail_nth(4);

	void *a = p_malloc(sz);

	assert_non_null(a);
	errno = 0;
	assert_null(p_calloc(1, sz)); /* 2nd */
	assert_int_equal(errno, ENOMEM);

	void *null = NULL;
	void *b = p_realloc(null, sz); /* 3rd: a new allocation */

	assert_non_null(b);
	assert_int_equal(mock_alloc_live(), 2);

	void *r = p_realloc(a, 2 * sz); /* 4th fails: a is untouched */

	assert_null(r);
	if (r != NULL)
		a = r;
	assert_int_equal(mock_alloc_live(), 2);
	r = p_realloc(a, 4 * sz);
	assert_non_null(r);
	a = r;
	assert_int_equal(mock_alloc_live(), 2);

	p_free(a);
	assert_int_equal(mock_alloc_live(), 1);
	p_free(null);
	assert_int_equal(mock_alloc_live(), 1);
	p_free(b);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_calls("malloc"), 1);
	assert_int_equal(mock_calls("calloc"), 1);
	assert_int_equal(mock_calls("realloc"), 3);
	assert_int_equal(mock_calls("free"), 3);

	/* mock_fail works for the allocator too */
	mock_fail("malloc", ENOMEM);
	assert_null(p_malloc(sz));

	/* memory allocated inside libc is not tracked, even when freed */
	char *s = strdup("abc");

	assert_non_null(s);
	p_free(s);
	assert_int_equal(mock_alloc_live(), 0);

	/* fake objects are not counted as allocations */
	struct ibv_pd *pd = ibv_alloc_pd(mock_ibv_context());

	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
}

/* alloc_before_reset -- memory allocated before a reset is ignored */
static void
alloc_before_reset(void **state)
{
	(void)state;
	void *p = p_malloc(16);

	assert_int_equal(mock_alloc_live(), 1);
	mock_reset();
	assert_int_equal(mock_alloc_live(), 0);
	p_free(p);
	assert_int_equal(mock_alloc_live(), 0);

	/* many allocations (growth of the tracking set) */
	void *v[3000];

	for (int i = 0; i < 3000; i++)
		v[i] = p_malloc((size_t)i + 1);
	assert_int_equal(mock_alloc_live(), 3000);
	for (int i = 0; i < 3000; i += 2)
		p_free(v[i]);
	assert_int_equal(mock_alloc_live(), 1500);
	for (int i = 1; i < 3000; i += 2)
		p_free(v[i]);
}

/* context_layout -- the context is a proper struct verbs_context */
static void
context_layout(void **state)
{
	(void)state;
	struct ibv_context *ctx = mock_ibv_context();
	struct verbs_context *vctx = verbs_get_ctx(ctx);

	assert_non_null(vctx);
	assert_ptr_equal(ctx->abi_compat, __VERBS_ABI_IS_EXTENDED);
	assert_int_equal(vctx->sz, sizeof(struct verbs_context));
	assert_non_null(verbs_get_ctx_op(ctx, query_device_ex));
	assert_non_null(verbs_get_ctx_op(ctx, advise_mr));
	assert_non_null(verbs_get_ctx_op(ctx, query_port));
	assert_non_null(ctx->ops.post_send);
	assert_non_null(ctx->ops.post_recv);
	assert_non_null(ctx->ops.post_srq_recv);
	assert_non_null(ctx->ops.poll_cq);
	assert_non_null(ctx->ops.req_notify_cq);
	assert_non_null(ctx->device);

	int num = 0;
	struct ibv_device **list = ibv_get_device_list(&num);

	assert_non_null(list);
	assert_int_equal(num, 1);
	assert_null(list[1]);
	assert_ptr_equal(ibv_open_device(list[0]), ctx);
	ibv_free_device_list(list);
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* query_device_ex_inline -- the inline ibv_query_device_ex reaches the op */
static void
query_device_ex_inline(void **state)
{
	(void)state;
	struct ibv_device_attr_ex set, got;

	memset(&set, 0, sizeof(set));
	set.orig_attr.phys_port_cnt = 1;
	set.orig_attr.max_qp_wr = 77;
	set.odp_caps.general_caps = IBV_ODP_SUPPORT;
	set.odp_caps.per_transport_caps.rc_odp_caps = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	set.device_cap_flags_ex = IBV_DEVICE_PCI_WRITE_END_PADDING;
	mock_set_device_attr_ex(&set);

	memset(&got, 0xff, sizeof(got));
	assert_int_equal(ibv_query_device_ex(mock_ibv_context(), NULL, &got), 0);
	assert_memory_equal(&got, &set, sizeof(set));
	assert_int_equal(mock_calls("ibv_query_device_ex"), 1);
	assert_int_equal(mock_calls("ibv_query_device"), 0);

	mock_fail("ibv_query_device_ex", EIO);
	assert_int_equal(ibv_query_device_ex(mock_ibv_context(), NULL, &got), EIO);

	/* EOPNOTSUPP makes the inline fall back to ibv_query_device */
	mock_fail("ibv_query_device_ex", EOPNOTSUPP);
	assert_int_equal(ibv_query_device_ex(mock_ibv_context(), NULL, &got), 0);
	assert_int_equal(mock_calls("ibv_query_device"), 1);
	assert_int_equal(got.orig_attr.max_qp_wr, 77);
	assert_int_equal(got.odp_caps.general_caps, 0);

	/* the default: no ODP */
	mock_set_device_attr_ex(NULL);
	assert_int_equal(ibv_query_device_ex(mock_ibv_context(), NULL, &got), 0);
	assert_int_equal(got.odp_caps.general_caps, 0);
	assert_int_equal(got.orig_attr.phys_port_cnt, 1);
}

/* query_port_and_advise_inline -- other verbs_context ops */
static void
query_port_and_advise_inline(void **state)
{
	(void)state;
	struct ibv_port_attr pa;

	assert_int_equal(ibv_query_port(mock_ibv_context(), 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(mock_calls("ibv_query_port"), 1);
	mock_fail("ibv_query_port", EIO);
	assert_int_equal(ibv_query_port(mock_ibv_context(), 1, &pa), EIO);

	struct ibv_pd *pd = ibv_alloc_pd(mock_ibv_context());
	struct ibv_sge sge = {.addr = 0x1000, .length = 64, .lkey = 0x11};

	assert_int_equal(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				       IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1),
			 0);
	assert_int_equal(mock_last_advise, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	assert_int_equal(mock_last_advise_flags, IBV_ADVISE_MR_FLAG_FLUSH);
	assert_int_equal(mock_last_advise_sge.length, 64);
	mock_fail("ibv_advise_mr", ENOTSUP);
	assert_int_equal(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1), ENOTSUP);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
}

/* post_inline -- the inline ibv_post_* reach the mocks, deep copies */
static void
post_inline(void **state)
{
	(void)state;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct rdma_cm_id *id = new_id_with_qp(&pd, &cq);
	struct ibv_sge sge = {.addr = 0xabc, .length = 8, .lkey = 0x11};
	struct ibv_send_wr wr2, wr, *bad = NULL;

	memset(&wr2, 0, sizeof(wr2));
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 42;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 0x22;
	wr.next = &wr2;

	assert_int_equal(id->qp->qp_num, MOCK_QP_NUM);
	assert_ptr_equal(id->qp->context, mock_ibv_context());
	assert_int_equal(ibv_post_send(id->qp, &wr, &bad), 0);
	sge.length = 999; /* the capture is a deep copy */
	assert_int_equal(mock_calls("ibv_post_send"), 1);
	assert_int_equal(mock_posted_send_wrs, 2);
	assert_int_equal(mock_last_send_wr.wr_id, 42);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, 0x22);
	assert_null(mock_last_send_wr.next);
	assert_ptr_equal(mock_last_send_wr.sg_list, &mock_last_send_sge);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(mock_last_send_sge.addr, 0xabc);

	mock_fail("ibv_post_send", ENOMEM);
	assert_int_equal(ibv_post_send(id->qp, &wr, &bad), ENOMEM);
	assert_ptr_equal(bad, &wr);

	struct ibv_recv_wr rwr, *rbad = NULL;

	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 7;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	assert_int_equal(ibv_post_recv(id->qp, &rwr, &rbad), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 7);
	assert_int_equal(mock_last_recv_sge.length, 999);
	mock_fail("ibv_post_recv", EINVAL);
	assert_int_equal(ibv_post_recv(id->qp, &rwr, &rbad), EINVAL);
	assert_ptr_equal(rbad, &rwr);

	struct ibv_srq_init_attr sattr;

	memset(&sattr, 0, sizeof(sattr));
	sattr.attr.max_wr = 100;
	struct ibv_srq *srq = ibv_create_srq(pd, &sattr);

	assert_non_null(srq);
	assert_ptr_equal(srq->context, mock_ibv_context());
	assert_int_equal(mock_last_srq_init_attr.attr.max_wr, 100);
	rwr.wr_id = 8;
	assert_int_equal(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 8);
	mock_fail("ibv_post_srq_recv", EAGAIN);
	assert_int_equal(ibv_post_srq_recv(srq, &rwr, &rbad), EAGAIN);
	assert_int_equal(mock_posted_recv_wrs, 2);
	assert_int_equal(ibv_destroy_srq(srq), 0);

	assert_int_equal(mock_last_qp_init_attr.cap.max_send_wr, 10);
	assert_ptr_equal(mock_last_qp_init_attr.pd, pd);
	del_id_with_qp(id, pd, cq);
}

/* poll_cq_queue -- completions in order, forced return values */
static void
poll_cq_queue(void **state)
{
	(void)state;
	struct ibv_cq *cq = ibv_create_cq(mock_ibv_context(), 8, NULL, NULL, 0);
	struct ibv_wc wc[4];

	for (int i = 1; i <= 3; i++) {
		struct ibv_wc w;

		memset(&w, 0, sizeof(w));
		w.wr_id = (uint64_t)i;
		w.opcode = IBV_WC_RDMA_WRITE;
		mock_cq_push_wc(&w);
	}
	assert_int_equal(ibv_poll_cq(cq, 2, wc), 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(ibv_poll_cq(cq, 2, wc), 1);
	assert_int_equal(wc[0].wr_id, 3);
	assert_int_equal(ibv_poll_cq(cq, 2, wc), 0);

	mock_cq_poll_ret_once(-1);
	assert_int_equal(ibv_poll_cq(cq, 1, wc), -1);
	mock_cq_poll_ret_once(5); /* more than asked */
	assert_int_equal(ibv_poll_cq(cq, 1, wc), 5);
	mock_fail("ibv_poll_cq", EIO);
	assert_int_equal(ibv_poll_cq(cq, 1, wc), -EIO);
	assert_int_equal(mock_calls("ibv_poll_cq"), 6);

	assert_int_equal(ibv_req_notify_cq(cq, 0), 0);
	mock_fail("ibv_req_notify_cq", EIO);
	assert_int_equal(ibv_req_notify_cq(cq, 0), EIO);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

/* comp_channel_events -- ibv_get_cq_event queue and a real fd */
static void
comp_channel_events(void **state)
{
	(void)state;
	int ctx_tag;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());

	assert_non_null(ch);
	int flags = fcntl(ch->fd, F_GETFL);

	assert_true(flags >= 0);
	assert_int_equal(fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK), 0);

	struct ibv_cq *cq = ibv_create_cq(mock_ibv_context(), 8, &ctx_tag, ch, 0);

	assert_ptr_equal(cq->channel, ch);
	assert_ptr_equal(cq->context, mock_ibv_context());
	assert_int_equal(mock_last_cq_cqe, 8);

	struct ibv_cq *got = NULL;
	void *got_ctx = NULL;

	mock_comp_event_push(cq);
	assert_int_equal(ibv_get_cq_event(ch, &got, &got_ctx), 0);
	assert_ptr_equal(got, cq);
	assert_ptr_equal(got_ctx, &ctx_tag);
	ibv_ack_cq_events(got, 1);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_ptr_equal(mock_last_acked_cq, cq);
	assert_null(mock_last_notified_cq);
	assert_int_equal(ibv_req_notify_cq(cq, 0), 0);
	assert_ptr_equal(mock_last_notified_cq, cq);
	/* a failed arm is not captured */
	struct ibv_cq *cq2 = ibv_create_cq(mock_ibv_context(), 8, NULL, ch, 0);

	mock_fail("ibv_req_notify_cq", EIO);
	assert_int_equal(ibv_req_notify_cq(cq2, 0), EIO);
	assert_ptr_equal(mock_last_notified_cq, cq);
	assert_int_equal(ibv_destroy_cq(cq2), 0);

	errno = 0;
	assert_int_equal(ibv_get_cq_event(ch, &got, &got_ctx), -1);
	assert_int_equal(errno, EAGAIN);
	mock_comp_event_push(cq);
	mock_fail("ibv_get_cq_event", EIO);
	assert_int_equal(ibv_get_cq_event(ch, &got, &got_ctx), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(ibv_get_cq_event(ch, &got, &got_ctx), 0);

	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/* cm_events -- CM event queue, CONNECT_REQUEST ids and private data */
static void
cm_events(void **state)
{
	(void)state;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id = NULL;
	struct rdma_cm_event *ev = NULL;
	const char pdata[] = "hello";

	assert_non_null(ch);
	int flags = fcntl(ch->fd, F_GETFL);

	assert_int_equal(fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK), 0);
	assert_int_equal(rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP), 0);
	assert_ptr_equal(listen_id->verbs, mock_ibv_context());
	assert_ptr_equal(listen_id->channel, ch);
	assert_int_equal(rdma_listen(listen_id, 0), 0);

	mock_cm_push_event(RDMA_CM_EVENT_CONNECT_REQUEST, listen_id, pdata, sizeof(pdata));
	struct rdma_cm_id *req_id = mock_cm_last_req_id();

	assert_non_null(req_id);
	mock_cm_push_event(RDMA_CM_EVENT_ESTABLISHED, req_id, NULL, 0);

	assert_int_equal(rdma_get_cm_event(ch, &ev), 0);
	assert_int_equal(ev->event, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->id, req_id);
	assert_ptr_equal(ev->listen_id, listen_id);
	assert_ptr_equal(ev->id->verbs, mock_ibv_context());
	assert_int_equal(ev->param.conn.private_data_len, sizeof(pdata));
	assert_string_equal(ev->param.conn.private_data, pdata);
	assert_int_equal(rdma_ack_cm_event(ev), 0);

	struct rdma_event_channel *ch2 = rdma_create_event_channel();

	assert_int_equal(rdma_migrate_id(req_id, ch2), 0);
	assert_ptr_equal(req_id->channel, ch2);

	assert_int_equal(rdma_get_cm_event(ch2, &ev), 0);
	assert_int_equal(ev->event, RDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, req_id);
	assert_null(ev->param.conn.private_data);
	assert_int_equal(rdma_ack_cm_event(ev), 0);

	errno = 0;
	assert_int_equal(rdma_get_cm_event(ch, &ev), -1);
	assert_int_equal(errno, EAGAIN);

	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED");
	assert_int_equal(rdma_destroy_id(req_id), 0);
	assert_int_equal(rdma_destroy_id(listen_id), 0);
	rdma_destroy_event_channel(ch2);
	rdma_destroy_event_channel(ch);
	assert_int_equal(mock_calls("rdma_destroy_event_channel"), 2);
}

/* conn_param_capture -- rdma_connect/accept/reject private data */
static void
conn_param_capture(void **state)
{
	(void)state;
	struct rdma_cm_id *id = NULL;
	struct rdma_conn_param cp;
	unsigned char pd[4] = {1, 2, 3, 4};

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	cp.responder_resources = 3;
	cp.rnr_retry_count = 7;
	assert_int_equal(rdma_connect(id, &cp), 0);
	pd[0] = 9;
	assert_int_equal(mock_last_conn_param.responder_resources, 3);
	assert_int_equal(mock_last_conn_param.rnr_retry_count, 7);
	assert_int_equal(mock_last_conn_param.private_data_len, 4);
	assert_ptr_equal(mock_last_conn_param.private_data, mock_last_pdata);
	assert_int_equal(mock_last_pdata[0], 1);
	assert_int_equal(mock_last_pdata[3], 4);

	mock_fail("rdma_accept", ECONNABORTED);
	assert_int_equal(rdma_accept(id, NULL), -1);
	assert_int_equal(errno, ECONNABORTED);
	assert_null(mock_last_conn_param.private_data);

	assert_int_equal(rdma_reject(id, "no", 2), 0);
	assert_int_equal(mock_last_pdata_len, 2);
	assert_memory_equal(mock_last_pdata, "no", 2);
	assert_int_equal(rdma_destroy_id(id), 0);
}

/* getaddrinfo_passive_active -- addresses per RAI_PASSIVE */
static void
getaddrinfo_passive_active(void **state)
{
	(void)state;
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in *sin;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	assert_int_equal(rdma_getaddrinfo("127.0.0.1", "7204", &hints, &res), 0);
	assert_non_null(res->ai_src_addr);
	assert_null(res->ai_dst_addr);
	sin = (struct sockaddr_in *)res->ai_src_addr;
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 7204);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);

	struct rdma_cm_id *id = NULL;

	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_bind_addr(id, res->ai_src_addr), 0);
	assert_memory_equal(rdma_get_local_addr(id), sin, sizeof(*sin));
	rdma_freeaddrinfo(res);

	hints.ai_flags = 0;
	assert_int_equal(rdma_getaddrinfo("192.168.0.1", "1", &hints, &res), 0);
	assert_null(res->ai_src_addr);
	assert_non_null(res->ai_dst_addr);
	assert_int_equal(rdma_resolve_addr(id, res->ai_src_addr, res->ai_dst_addr, 1000), 0);
	sin = (struct sockaddr_in *)rdma_get_peer_addr(id);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), 0xc0a80001);
	rdma_freeaddrinfo(res);

	mock_fail("rdma_getaddrinfo", ENODEV);
	errno = 0;
	assert_int_equal(rdma_getaddrinfo("x", "1", &hints, &res), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(rdma_resolve_route(id, 1000), 0);
	assert_int_equal(rdma_destroy_id(id), 0);
}

/* reg_mr_entry_points -- ibv_reg_mr macro dispatch, ODP, captures */
static void
reg_mr_entry_points(void **state)
{
	(void)state;
	char buf[64];
	struct ibv_pd *pd = ibv_alloc_pd(mock_ibv_context());
	volatile int access = IBV_ACCESS_LOCAL_WRITE;

	/* constant access flags: the ibv_reg_mr symbol */
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_READ);

	assert_non_null(mr);
	assert_int_equal(mock_calls("ibv_reg_mr"), 1);
	assert_ptr_equal(mr->addr, buf);
	assert_int_equal(mr->length, sizeof(buf));
	assert_int_equal(mr->lkey, 0x11);
	assert_int_equal(mr->rkey, 0x22);
	assert_ptr_equal(mr->pd, pd);
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_REMOTE_READ);
	assert_int_equal(ibv_dereg_mr(mr), 0);

	/* run-time access flags: the macro calls ibv_reg_mr_iova2 */
	mr = ibv_reg_mr(pd, buf, sizeof(buf), access);
	assert_non_null(mr);
	assert_int_equal(mock_calls("ibv_reg_mr"), 1);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2"), 1);
	assert_int_equal(ibv_dereg_mr(mr), 0);

	/* ODP fallback */
	mock_reg_mr_eopnotsupp_without_odp(true);
	errno = 0;
	assert_null(ibv_reg_mr_iova2(pd, buf, 8, (uintptr_t)buf, access));
	assert_int_equal(errno, EOPNOTSUPP);
	mr = ibv_reg_mr_iova2(pd, buf, 8, (uintptr_t)buf, (unsigned)access | IBV_ACCESS_ON_DEMAND);
	assert_non_null(mr);
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);

	mock_fail("ibv_dereg_mr", EBUSY);
	assert_int_equal(ibv_dereg_mr(mr), EBUSY);
	assert_int_equal(ibv_dereg_mr(mr), 0);

	mock_fail("ibv_reg_mr_iova2", EPERM);
	assert_null(ibv_reg_mr(pd, buf, sizeof(buf), access));
	assert_int_equal(errno, EPERM);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
}

/* qp_ex_callbacks -- ibv_qp_to_qp_ex and the recording ibv_wr_* */
static void
qp_ex_callbacks(void **state)
{
	(void)state;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct rdma_cm_id *id = new_id_with_qp(&pd, &cq);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(id->qp);
	const uint64_t val = 0x0102030405060708ULL;
	char data[16];

	assert_non_null(qpx);
	assert_ptr_equal(&qpx->qp_base, id->qp);

	ibv_wr_start(qpx);
	qpx->wr_id = 99;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, 0x22, 0x8000, &val);
	assert_int_equal(mock_last_atomic_write.rkey, 0x22);
	assert_int_equal(mock_last_atomic_write.remote_addr, 0x8000);
	assert_memory_equal(mock_last_atomic_write.data, &val, 8);
	assert_int_equal(mock_last_atomic_write.wr_id, 99);

	ibv_wr_rdma_write(qpx, 0x33, 0x9000);
	ibv_wr_set_sge(qpx, 0x11, (uintptr_t)data, 16);
	assert_string_equal(mock_last_qpx_wr.op, "ibv_wr_rdma_write");
	assert_int_equal(mock_last_qpx_wr.rkey, 0x33);
	assert_int_equal(mock_last_qpx_wr.wr_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_qpx_sge.length, 16);
	ibv_wr_rdma_read(qpx, 0x44, 0xa000);
	assert_string_equal(mock_last_qpx_wr.op, "ibv_wr_rdma_read");
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, data, 4);
	assert_ptr_equal(mock_last_qpx_inline_addr, data);
	assert_int_equal(mock_last_qpx_inline_len, 4);
	assert_int_equal(ibv_wr_complete(qpx), 0);

	mock_fail("wr_complete", EIO); /* short alias */
	assert_int_equal(ibv_wr_complete(qpx), EIO);
	ibv_wr_abort(qpx);
	assert_int_equal(mock_calls("ibv_wr_complete"), 2);
	assert_int_equal(mock_calls("wr_start"), 1);
	assert_int_equal(mock_calls("ibv_wr_abort"), 1);

	mock_qpx_no_atomic_write(true);
	qpx = ibv_qp_to_qp_ex(id->qp);
	assert_null(qpx->wr_atomic_write);

	mock_fail("ibv_qp_to_qp_ex", EOPNOTSUPP);
	assert_null(ibv_qp_to_qp_ex(id->qp));
	assert_int_equal(errno, EOPNOTSUPP);

	/* rdma_create_qp (the non-ex variant) */
	rdma_destroy_qp(id);
	struct ibv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	mock_fail("rdma_create_qp", ENOMEM);
	assert_int_equal(rdma_create_qp(id, pd, &ia), -1);
	assert_null(id->qp);
	assert_int_equal(rdma_create_qp(id, pd, &ia), 0);
	assert_ptr_equal(id->qp->pd, pd);
	assert_int_equal(mock_last_qp_init_attr.comp_mask, IBV_QP_INIT_ATTR_PD);

	del_id_with_qp(id, pd, cq);
}

/* wc_status_str -- real-looking strings */
static void
wc_status_str(void **state)
{
	(void)state;
	assert_string_equal(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	assert_string_equal(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), "Work Request Flushed Error");
	assert_string_equal(ibv_wc_status_str((enum ibv_wc_status)1000), "unknown");
	assert_int_equal(mock_calls("ibv_wc_status_str"), 3);
}

/* main -- run the tests of the mock layer */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(fail_next, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(fail_nth, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(fail_errno_returning, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(counters_and_reset, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(alloc_fail_and_live, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(alloc_before_reset, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(context_layout, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(query_device_ex_inline, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(query_port_and_advise_inline, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(post_inline, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(poll_cq_queue, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(comp_channel_events, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(cm_events, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(conn_param_capture, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(getaddrinfo_passive_active, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(reg_mr_entry_points, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(qp_ex_callbacks, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(wc_status_str, mock_test_setup, mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
