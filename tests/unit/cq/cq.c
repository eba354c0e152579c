/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c -- unit tests of librpma/src/cq.c: creation and deletion of a CQ with
 * its own or a shared completion channel, waiting, polling and the 0.11
 * completion
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cq.h"
#include "librpma.h"
#include "mocks.h"

/* a pointer value no function may write over an output on failure */
#define SENTINEL ((void *)(uintptr_t)0xbadc0ffe)

/* new_cq -- a CQ of 16 entries with its own channel, asserted to succeed */
static struct rpma_cq *
new_cq(void)
{
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma__cq_new(mock_ibv_context(), 16, NULL, &cq), 0);
	assert_non_null(cq);
	return cq;
}

/* new_own_channel -- an armed CQ of cqe entries on a channel of its own, fd of the channel */
static void
new_own_channel(void **state)
{
	(void)state;
	struct rpma_cq *cq = NULL;
	int fd = -1;

	assert_int_equal(rpma__cq_new(mock_ibv_context(), 33, NULL, &cq), 0);
	assert_non_null(cq);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(mock_last_cq_cqe, 33);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 1);

	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(cq);

	assert_non_null(ibv_cq);
	assert_non_null(ibv_cq->channel);
	assert_ptr_equal(ibv_cq->context, mock_ibv_context());
	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, ibv_cq->channel->fd);
	assert_true(fcntl(fd, F_GETFD) != -1);

	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_null(cq);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
}

/*
 * new_shared_channel -- on a shared channel: used, not owned; its fd is the
 * shared channel's (as in librpma 1.3: a server may watch it with epoll),
 * but waiting is rpma_conn_wait()'s
 */
static void
new_shared_channel(void **state)
{
	(void)state;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());
	struct rpma_cq *cq = NULL;
	struct rpma_cq *cq2 = NULL;
	int fd = -7, fd2 = -8;

	assert_non_null(ch);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 8, ch, &cq), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 8, ch, &cq2), 0);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_ptr_equal(rpma__cq_get_ibv_cq(cq)->channel, ch);

	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, ch->fd);
	assert_int_equal(rpma_cq_get_fd(cq2, &fd2), 0);
	assert_int_equal(fd2, fd);
	assert_int_equal(rpma__cq_delete(&cq2), 0);
	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);
	assert_int_equal(mock_calls("ibv_get_cq_event"), 0);

	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 0);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/*
 * new_cqe_sizes -- as with librpma 1.3 the device judges the size: 0 is
 * given to it (and its refusal is RPMA_E_PROVIDER, nothing left behind), a
 * size beyond an int is cut to INT_MAX
 */
static void
new_cqe_sizes(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	assert_int_equal(rpma__cq_new(mock_ibv_context(), 0, NULL, &cq), 0);
	assert_int_equal(mock_last_cq_cqe, 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	mock_fail("ibv_create_cq", EINVAL);
	cq = SENTINEL;
	errno = 0;
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 0, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_objects_live(), 0);

	assert_int_equal(rpma__cq_new(mock_ibv_context(), (uint32_t)INT32_MAX + 1, NULL, &cq), 0);
	assert_int_equal(mock_last_cq_cqe, INT32_MAX);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), UINT32_MAX, NULL, &cq), 0);
	assert_int_equal(mock_last_cq_cqe, INT32_MAX);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), INT32_MAX, NULL, &cq), 0);
	assert_int_equal(mock_last_cq_cqe, INT32_MAX);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* new_channel_fails -- no channel: PROVIDER with errno, nothing created */
static void
new_channel_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	mock_fail("ibv_create_comp_channel", EMFILE);
	errno = 0;
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EMFILE);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
}

/* new_cq_fails -- no CQ: PROVIDER, its own channel destroyed, a shared one kept */
static void
new_cq_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	mock_fail("ibv_create_cq", ENOMEM);
	errno = 0;
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(mock_objects_live(), 0);

	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());

	mock_fail("ibv_create_cq", EINVAL);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, ch, &cq), RPMA_E_PROVIDER);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/* new_req_notify_fails -- arming fails: PROVIDER with errno, CQ and channel destroyed */
static void
new_req_notify_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	mock_fail("ibv_req_notify_cq", EIO);
	errno = 0;
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
}

/* new_malloc_fails -- no memory: NOMEM, CQ and its own channel destroyed, shared one kept */
static void
new_malloc_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &cq), RPMA_E_NOMEM);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(mock_objects_live(), 0);

	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, ch, &cq), RPMA_E_NOMEM);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/* delete_null -- *cq_ptr NULL is a no-op */
static void
delete_null(void **state)
{
	(void)state;
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma__cq_delete(&cq), 0);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
}

/* delete_cq_fails -- a failing CQ destroy is reported, the channel and memory released */
static void
delete_cq_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(cq);

	mock_fail("ibv_destroy_cq", EBUSY);
	errno = 0;
	assert_int_equal(rpma__cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(cq);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
}

/* delete_channel_fails -- a failing channel destroy is reported with its code */
static void
delete_channel_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_comp_channel *ch = rpma__cq_get_ibv_cq(cq)->channel;

	mock_fail("ibv_destroy_comp_channel", EBUSY);
	errno = 0;
	assert_int_equal(rpma__cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(cq);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 1);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/* delete_both_fail -- both destroys fail: the first error is the one reported */
static void
delete_both_fail(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(cq);
	struct ibv_comp_channel *ch = ibv_cq->channel;

	mock_fail("ibv_destroy_cq", EINVAL);
	mock_fail("ibv_destroy_comp_channel", EBUSY);
	errno = 0;
	assert_int_equal(rpma__cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_null(cq);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

/* get_fd_null -- NULL arguments refused */
static void
get_fd_null(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	int fd = -7;

	assert_int_equal(rpma_cq_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_fd(cq, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* wait_ok -- an event of this CQ is acknowledged and the CQ re-armed */
static void
wait_ok(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();

	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma_cq_wait(cq), 0);
	assert_int_equal(mock_calls("ibv_get_cq_event"), 1);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 2);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* wait_errors -- NULL; no event; a channel error; another CQ's event; re-arm failure */
static void
wait_errors(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct rpma_cq *other = new_cq();

	assert_int_equal(rpma_cq_wait(NULL), RPMA_E_INVAL);

	/* nothing on the (non-blocking) channel */
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	mock_fail("ibv_get_cq_event", EWOULDBLOCK);
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);

	/* the channel fails: no completion either, as in librpma 1.3 (logged, errno kept) */
	mock_fail("ibv_get_cq_event", EIO);
	errno = 0;
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	assert_int_equal(errno, EIO);
	assert_non_null(strstr(rpma_errormsg(), "ibv_get_cq_event()"));
	assert_int_equal(mock_cq_events_acked, 0);

	/* an event of another CQ: acknowledged, not re-armed */
	mock_comp_event_push(rpma__cq_get_ibv_cq(other));
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_UNKNOWN);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 2);

	/* re-arming fails */
	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	mock_fail("ibv_req_notify_cq", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_cq_events_acked, 2);

	assert_int_equal(rpma__cq_delete(&other), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* rearm_and_get_event -- the internal helpers on their own */
static void
rearm_and_get_event(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_cq *ev_cq = SENTINEL;
	struct ibv_comp_channel *ch = rpma__cq_get_ibv_cq(cq)->channel;

	assert_int_equal(rpma__comp_channel_get_event(ch, &ev_cq), RPMA_E_NO_COMPLETION);
	mock_comp_event_push(rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma__comp_channel_get_event(ch, &ev_cq), 0);
	assert_ptr_equal(ev_cq, rpma__cq_get_ibv_cq(cq));
	assert_int_equal(rpma__cq_rearm(cq), 0);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 2);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* wc -- a completion with the given fields */
static struct ibv_wc
wc(uint64_t wr_id, enum ibv_wc_opcode opcode, enum ibv_wc_status status)
{
	struct ibv_wc w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = opcode;
	w.status = status;
	w.byte_len = (uint32_t)wr_id * 10;
	return w;
}

/* get_wc_invalid -- NULL cq/wc, num_entries < 1, num_entries > 1 without num_entries_got */
static void
get_wc_invalid(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_wc w[2];
	int got = -3;

	assert_int_equal(rpma_cq_get_wc(NULL, 1, w, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 1, NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 0, w, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, -1, w, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, NULL), RPMA_E_INVAL);
	assert_int_equal(got, -3);
	assert_int_equal(mock_calls("ibv_poll_cq"), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* get_wc_ok -- none; one without num_entries_got; several, at most as many as asked */
static void
get_wc_ok(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_wc w[4];
	int got = -3;

	assert_int_equal(rpma_cq_get_wc(cq, 4, w, &got), RPMA_E_NO_COMPLETION);
	assert_int_equal(got, -3);

	struct ibv_wc in = wc(1, IBV_WC_SEND, IBV_WC_SUCCESS);

	mock_cq_push_wc(&in);
	memset(w, 0, sizeof(w));
	assert_int_equal(rpma_cq_get_wc(cq, 1, w, NULL), 0);
	assert_int_equal(w[0].wr_id, 1);

	for (uint64_t i = 2; i <= 6; i++) {
		in = wc(i, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS);
		mock_cq_push_wc(&in);
	}
	assert_int_equal(rpma_cq_get_wc(cq, 3, w, &got), 0);
	assert_int_equal(got, 3);
	assert_int_equal(w[0].wr_id, 2);
	assert_int_equal(w[2].wr_id, 4);
	assert_int_equal(w[2].byte_len, 40);
	assert_int_equal(rpma_cq_get_wc(cq, 4, w, &got), 0);
	assert_int_equal(got, 2);
	assert_int_equal(w[1].wr_id, 6);
	assert_int_equal(rpma_cq_get_wc(cq, 1, w, &got), RPMA_E_NO_COMPLETION);
	assert_int_equal(got, 2);

	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* get_wc_errors -- a poll error is PROVIDER (errno from -1 or -err); too many is UNKNOWN */
static void
get_wc_errors(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct ibv_wc w[4];
	int got = -3;

	/* -1 and errno */
	mock_cq_poll_ret_once(-1);
	errno = EAGAIN;
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);

	/* -1 without errno */
	mock_cq_poll_ret_once(-1);
	errno = 0;
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);

	/* a negated errno */
	mock_fail("ibv_poll_cq", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(got, -3);

	/* more than asked for */
	mock_cq_poll_ret_once(3);
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_UNKNOWN);
	assert_int_equal(got, -3);

	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* completion_ops -- every supported opcode maps to its 0.11 operation with all fields */
static void
completion_ops(void **state)
{
	(void)state;
	static const struct {
		enum ibv_wc_opcode opcode;
		enum rpma_op op;
	} map[] = {
	    {IBV_WC_RDMA_READ, RPMA_OP_READ},
	    {IBV_WC_RDMA_WRITE, RPMA_OP_WRITE},
	    {IBV_WC_ATOMIC_WRITE, RPMA_OP_WRITE},
	    {IBV_WC_SEND, RPMA_OP_SEND},
	    {IBV_WC_RECV, RPMA_OP_RECV},
	    {IBV_WC_RECV_RDMA_WITH_IMM, RPMA_OP_RECV_RDMA_WITH_IMM},
	};
	struct rpma_cq *cq = new_cq();
	struct rpma_completion c;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct ibv_wc in = wc(100 + i, map[i].opcode, IBV_WC_SUCCESS);

		mock_cq_push_wc(&in);
		memset(&c, 0xff, sizeof(c));
		assert_int_equal(rpma_cq_get_completion(cq, &c), 0);
		assert_int_equal(c.op, map[i].op);
		assert_ptr_equal(c.op_context, (void *)(uintptr_t)(100 + i));
		assert_int_equal(c.byte_len, (100 + i) * 10);
		assert_int_equal(c.op_status, IBV_WC_SUCCESS);
		assert_int_equal(c.flags, 0);
		assert_int_equal(c.imm, 0);
	}
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* completion_imm -- immediate data is converted from network byte order, only when flagged */
static void
completion_imm(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct rpma_completion c;
	struct ibv_wc in = wc(7, IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_SUCCESS);

	in.wc_flags = IBV_WC_WITH_IMM;
	in.imm_data = htonl(0x01020304);
	mock_cq_push_wc(&in);
	assert_int_equal(rpma_cq_get_completion(cq, &c), 0);
	assert_int_equal(c.op, RPMA_OP_RECV_RDMA_WITH_IMM);
	assert_int_equal(c.imm, 0x01020304);
	assert_int_equal(c.flags, IBV_WC_WITH_IMM);

	/* a RECV with immediate data */
	in = wc(8, IBV_WC_RECV, IBV_WC_SUCCESS);
	in.wc_flags = IBV_WC_WITH_IMM;
	in.imm_data = htonl(0xa0b0c0d0);
	mock_cq_push_wc(&in);
	assert_int_equal(rpma_cq_get_completion(cq, &c), 0);
	assert_int_equal(c.op, RPMA_OP_RECV);
	assert_int_equal(c.imm, 0xa0b0c0d0);

	/* imm_data set but not flagged: ignored */
	in = wc(9, IBV_WC_RECV, IBV_WC_SUCCESS);
	in.imm_data = htonl(0x55);
	mock_cq_push_wc(&in);
	assert_int_equal(rpma_cq_get_completion(cq, &c), 0);
	assert_int_equal(c.imm, 0);

	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* completion_error_status -- a failed completion reports its status whatever its opcode */
static void
completion_error_status(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct rpma_completion c;
	struct ibv_wc in = wc(5, IBV_WC_COMP_SWAP, IBV_WC_REM_ACCESS_ERR);

	mock_cq_push_wc(&in);
	assert_int_equal(rpma_cq_get_completion(cq, &c), 0);
	assert_int_equal(c.op_status, IBV_WC_REM_ACCESS_ERR);
	assert_ptr_equal(c.op_context, (void *)(uintptr_t)5);
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

/* completion_errors -- NULL args, no completion, unsupported opcode: cmpl untouched */
static void
completion_errors(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct rpma_completion c, orig;

	memset(&c, 0xab, sizeof(c));
	orig = c;
	assert_int_equal(rpma_cq_get_completion(NULL, &c), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_completion(cq, NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_poll_cq"), 0);
	assert_int_equal(rpma_cq_get_completion(cq, &c), RPMA_E_NO_COMPLETION);

	static const enum ibv_wc_opcode unsupported[] = {
	    IBV_WC_COMP_SWAP,
	    IBV_WC_FETCH_ADD,
	    IBV_WC_BIND_MW,
	    IBV_WC_LOCAL_INV,
	};

	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		struct ibv_wc in = wc(1, unsupported[i], IBV_WC_SUCCESS);

		mock_cq_push_wc(&in);
		assert_int_equal(rpma_cq_get_completion(cq, &c), RPMA_E_NOSUPP);
	}

	mock_fail("ibv_poll_cq", EIO);
	assert_int_equal(rpma_cq_get_completion(cq, &c), RPMA_E_PROVIDER);
	assert_memory_equal(&c, &orig, sizeof(c));
	assert_int_equal(rpma__cq_delete(&cq), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, mock_test_setup, mock_test_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    T(new_own_channel),
	    T(new_shared_channel),
	    T(new_cqe_sizes),
	    T(new_channel_fails),
	    T(new_cq_fails),
	    T(new_req_notify_fails),
	    T(new_malloc_fails),
	    T(delete_null),
	    T(delete_cq_fails),
	    T(delete_channel_fails),
	    T(delete_both_fail),
	    T(get_fd_null),
	    T(wait_ok),
	    T(wait_errors),
	    T(rearm_and_get_event),
	    T(get_wc_invalid),
	    T(get_wc_ok),
	    T(get_wc_errors),
	    T(completion_ops),
	    T(completion_imm),
	    T(completion_error_status),
	    T(completion_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
