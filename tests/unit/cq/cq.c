/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c -- unit tests of librpma/src/cq.c: creation and deletion of a CQ with
 * its own or a shared completion channel, waiting, polling and the 0.11
 * completion; CQs of their own (rpma_cq_new()) shared by connections, their
 * shared channels and their users
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "conn_helpers.h"
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
	assert_ptr_equal(ibv_cq->cq_context, cq);
	assert_false(rpma__cq_is_own(cq));
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

/* new_malloc_fails -- no memory: NOMEM, no CQ made, its own channel destroyed, shared one kept */
static void
new_malloc_fails(void **state)
{
	(void)state;
	struct rpma_cq *cq = SENTINEL;

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &cq), RPMA_E_NOMEM);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
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

/* the function name and the text of the last message logged */
static char Log_func[64];
static char Log_msg[256];

/* log_record -- a log function keeping the last message */
static void
log_record(enum rpma_log_level level, const char *file_name, const int line_no,
	   const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void)level;
	(void)file_name;
	(void)line_no;
	snprintf(Log_func, sizeof(Log_func), "%s", function_name);
	va_start(ap, message_format);
	vsnprintf(Log_msg, sizeof(Log_msg), message_format, ap);
	va_end(ap);
}

/* assert_logged -- the last message came from func and holds text */
static void
assert_logged(const char *func, const char *text)
{
	assert_string_equal(Log_func, func);
	assert_non_null(strstr(Log_msg, text));
	Log_func[0] = Log_msg[0] = '\0';
}

/*
 * refusals_name_the_call -- a refusal or a failure of the wait and the
 * poll is logged in the name of the function the user called, with its
 * reason, although the fast paths hand it to cold helpers
 */
static void
refusals_name_the_call(void **state)
{
	(void)state;
	struct rpma_cq *cq = new_cq();
	struct rpma_cq *other = new_cq();
	struct rpma_cq *shared = NULL;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());
	enum rpma_log_level level;
	struct ibv_wc w[2];
	int got;

	assert_non_null(ch);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 16, ch, &shared), 0);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	assert_int_equal(rpma_log_set_function(log_record), 0);

	assert_int_equal(rpma_cq_wait(NULL), RPMA_E_INVAL);
	assert_logged("rpma_cq_wait", "cq is NULL");
	assert_int_equal(rpma_cq_wait(shared), RPMA_E_SHARED_CHANNEL);
	assert_logged("rpma_cq_wait", "use rpma_conn_wait()");
	mock_comp_event_push(rpma__cq_get_ibv_cq(other));
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_UNKNOWN);
	assert_logged("rpma_cq_wait", "completion event of an unknown CQ");

	assert_int_equal(rpma_cq_get_wc(NULL, 1, w, NULL), RPMA_E_INVAL);
	assert_logged("rpma_cq_get_wc", "cq or wc is NULL");
	assert_int_equal(rpma_cq_get_wc(cq, 1, NULL, NULL), RPMA_E_INVAL);
	assert_logged("rpma_cq_get_wc", "cq or wc is NULL");
	assert_int_equal(rpma_cq_get_wc(cq, 0, w, &got), RPMA_E_INVAL);
	assert_logged("rpma_cq_get_wc", "num_entries must be at least 1: 0");
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, NULL), RPMA_E_INVAL);
	assert_logged("rpma_cq_get_wc", "num_entries_got is NULL while num_entries is 2");
	mock_fail("ibv_poll_cq", ENOMEM);
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_PROVIDER);
	assert_logged("rpma_cq_get_wc", "ibv_poll_cq() failed");
	mock_cq_poll_ret_once(3);
	assert_int_equal(rpma_cq_get_wc(cq, 2, w, &got), RPMA_E_UNKNOWN);
	assert_logged("rpma_cq_get_wc", "returned 3 completions, more than the 2 asked for");

	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, level), 0);
	assert_int_equal(rpma__cq_delete(&shared), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	assert_int_equal(rpma__cq_delete(&other), 0);
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

/* own_new -- a CQ of its own: a channel of its own, cq_size entries, armed, itself its context */
static void
own_new(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *cq = SENTINEL;
	int fd = -1;

	assert_int_equal(rpma_cq_new(st->peer, 77, NULL, &cq), 0);
	assert_ptr_not_equal(cq, SENTINEL);
	assert_true(rpma__cq_is_own(cq));
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(mock_last_cq_cqe, 77);

	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(cq);

	assert_ptr_equal(ibv_cq->cq_context, cq);
	assert_ptr_equal(mock_last_notified_cq, ibv_cq);
	assert_true(rpma__cq_on_context(cq, mock_ibv_context()));
	assert_false(rpma__cq_on_context(cq, NULL));
	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, ibv_cq->channel->fd);

	/* alone on its channel, it is waited for as any CQ */
	mock_comp_event_push(ibv_cq);
	assert_int_equal(rpma_cq_wait(cq), 0);
	assert_ptr_equal(mock_last_acked_cq, ibv_cq);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), 2);

	assert_int_equal(rpma_cq_delete(&cq), 0);
	assert_null(cq);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	h_assert_baseline(st);
}

/* own_new_invalid -- NULL peer or cq_ptr, a size below 1: RPMA_E_INVAL, nothing made */
static void
own_new_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *cq = SENTINEL;

	assert_int_equal(rpma_cq_new(NULL, 8, NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_new(st->peer, 8, NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_new(st->peer, 0, NULL, &cq), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "cq_size (0) is below 1"));
	assert_int_equal(rpma_cq_new(st->peer, -1, NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_new(st->peer, INT_MIN, NULL, &cq), RPMA_E_INVAL);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 0);
	assert_int_equal(mock_calls("ibv_create_cq"), 0);
	h_assert_baseline(st);
}

/* own_new_ok -- a CQ of its own, asserted to succeed */
static struct rpma_cq *
own_new_ok(struct rpma_peer *peer, int size, const struct rpma_cq *share)
{
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma_cq_new(peer, size, share, &cq), 0);
	assert_non_null(cq);
	return cq;
}

/*
 * own_share_channel -- CQs made with share_channel_with are on one channel:
 * one fd, rpma_cq_wait() refuses them while they share it, and the channel
 * goes with the last of them, whichever it is
 */
static void
own_share_channel(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	struct rpma_cq *b = own_new_ok(st->peer, 16, a);
	int fd_a = -1, fd_b = -2;

	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);
	assert_ptr_not_equal(a, b);
	assert_int_equal(mock_last_cq_cqe, 16);
	assert_ptr_equal(rpma__cq_get_ibv_cq(b)->cq_context, b);
	assert_ptr_equal(rpma__cq_get_ibv_cq(a)->channel, rpma__cq_get_ibv_cq(b)->channel);
	assert_int_equal(rpma_cq_get_fd(a, &fd_a), 0);
	assert_int_equal(rpma_cq_get_fd(b, &fd_b), 0);
	assert_int_equal(fd_a, fd_b);

	assert_int_equal(rpma_cq_wait(a), RPMA_E_SHARED_CHANNEL);
	assert_non_null(strstr(rpma_errormsg(), "rpma_cq_channel_wait()"));
	assert_int_equal(rpma_cq_wait(b), RPMA_E_SHARED_CHANNEL);
	assert_int_equal(mock_calls("ibv_get_cq_event"), 0);

	/* a third one through the second: still the same channel */
	struct rpma_cq *c = own_new_ok(st->peer, 4, b);

	assert_ptr_equal(rpma__cq_get_ibv_cq(c)->channel, rpma__cq_get_ibv_cq(a)->channel);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 1);

	/* the one that made the channel goes first: the channel stays */
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_int_equal(rpma_cq_delete(&c), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 0);
	assert_true(fcntl(fd_b, F_GETFD) != -1);

	/* alone again, b is waited for with rpma_cq_wait() */
	mock_comp_event_push(rpma__cq_get_ibv_cq(b));
	assert_int_equal(rpma_cq_wait(b), 0);
	assert_int_equal(rpma_cq_delete(&b), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	h_assert_baseline(st);
}

/*
 * own_share_invalid -- a connection's CQ or a CQ of another device cannot
 * lend its channel: RPMA_E_INVAL, nothing made, the channel not counted
 */
static void
own_share_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *conn_cq = new_cq();
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	struct rpma_cq *cq = SENTINEL;
	int cqs = mock_calls("ibv_create_cq");

	assert_int_equal(rpma_cq_new(st->peer, 8, conn_cq, &cq), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "not made by rpma_cq_new()"));

	struct ibv_cq *ibv_a = rpma__cq_get_ibv_cq(a);
	struct ibv_context other;

	ibv_a->context = &other;
	assert_int_equal(rpma_cq_new(st->peer, 8, a, &cq), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "another device"));
	ibv_a->context = mock_ibv_context();
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_calls("ibv_create_cq"), cqs);

	/* a's channel is a's alone: it goes with it */
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(rpma__cq_delete(&conn_cq), 0);
	h_assert_baseline(st);
}

/* own_new_fails -- rpma_cq_new() fails with ret and errno err; nothing left behind */
static void
own_new_fails(struct h_state *st, const struct rpma_cq *share, int ret, int err)
{
	struct rpma_cq *cq = SENTINEL;
	long allocs = mock_alloc_live();
	int objs = mock_objects_live();

	errno = 0;
	assert_int_equal(rpma_cq_new(st->peer, 8, share, &cq), ret);
	if (err)
		assert_int_equal(errno, err);
	assert_ptr_equal(cq, SENTINEL);
	assert_int_equal(mock_alloc_live(), allocs);
	assert_int_equal(mock_objects_live(), objs);
}

/*
 * own_new_failures -- each allocation and provider failure: its error with
 * errno kept and nothing left; a shared channel stays with the CQs using it
 */
static void
own_new_failures(void **state)
{
	struct h_state *st = *state;

	mock_alloc_fail_nth(1); /* the channel */
	own_new_fails(st, NULL, RPMA_E_NOMEM, 0);
	assert_int_equal(mock_calls("ibv_create_comp_channel"), 0);
	mock_alloc_fail_nth(2); /* the CQ */
	own_new_fails(st, NULL, RPMA_E_NOMEM, 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	mock_fail("ibv_create_comp_channel", EMFILE);
	own_new_fails(st, NULL, RPMA_E_PROVIDER, EMFILE);
	mock_fail("ibv_create_cq", EINVAL);
	own_new_fails(st, NULL, RPMA_E_PROVIDER, EINVAL);
	mock_fail("ibv_req_notify_cq", EIO);
	own_new_fails(st, NULL, RPMA_E_PROVIDER, EIO);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 3);

	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);

	mock_alloc_fail_nth(1);
	own_new_fails(st, a, RPMA_E_NOMEM, 0);
	mock_fail("ibv_create_cq", ENOMEM);
	own_new_fails(st, a, RPMA_E_PROVIDER, ENOMEM);
	mock_fail("ibv_req_notify_cq", EBUSY);
	own_new_fails(st, a, RPMA_E_PROVIDER, EBUSY);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 3);

	/* a is alone on its channel again */
	mock_comp_event_push(rpma__cq_get_ibv_cq(a));
	assert_int_equal(rpma_cq_wait(a), 0);
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 4);
	h_assert_baseline(st);
}

/* own_delete_invalid -- NULL cq_ptr; NULL *cq_ptr is a no-op; a connection's CQ is not freed */
static void
own_delete_invalid(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma_cq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_delete(&cq), 0);
	assert_null(cq);

	cq = new_cq();
	struct rpma_cq *keep = cq;

	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "belongs to a connection"));
	assert_ptr_equal(cq, keep);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(rpma__cq_delete(&cq), 0);
	h_assert_baseline(st);
}

/*
 * own_delete_in_use -- while users hold it: RPMA_E_INVAL, nothing freed, the
 * CQ still works; once the last user dropped it, it is deleted
 */
static void
own_delete_in_use(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	struct rpma_cq *user1 = a, *user2 = a;
	struct ibv_wc in, out;

	rpma__cq_hold(a);
	rpma__cq_hold(a);
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "in use by 2"));
	assert_ptr_equal(a, user1);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 0);

	memset(&in, 0, sizeof(in));
	in.wr_id = 42;
	in.qp_num = 7;
	mock_cq_push_wc(&in);
	assert_int_equal(rpma_cq_get_wc(a, 1, &out, NULL), 0);
	assert_int_equal(out.wr_id, 42);
	assert_int_equal(out.qp_num, 7);

	/* a user drops it: not destroyed, still one user */
	assert_int_equal(rpma__cq_drop(&user1), 0);
	assert_null(user1);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 0);
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "in use by 1"));

	assert_int_equal(rpma__cq_drop(&user2), 0);
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_null(a);
	h_assert_baseline(st);
}

/* drop_other_cqs -- rpma__cq_drop() deletes a CQ that is not of its own; NULL is a no-op */
static void
drop_other_cqs(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *cq = NULL;

	assert_int_equal(rpma__cq_drop(&cq), 0);
	cq = new_cq();
	assert_int_equal(rpma__cq_drop(&cq), 0);
	assert_null(cq);
	assert_int_equal(mock_calls("ibv_destroy_cq"), 1);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	h_assert_baseline(st);
}

/* own_delete_failures -- a destroy failing: PROVIDER with the first errno, freed anyway */
static void
own_delete_failures(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	struct ibv_cq *ibv_cq = rpma__cq_get_ibv_cq(a);

	mock_fail("ibv_destroy_cq", EBUSY);
	errno = 0;
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(a);
	assert_int_equal(mock_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
	h_assert_baseline(st);

	a = own_new_ok(st->peer, 8, NULL);
	struct ibv_comp_channel *ch = rpma__cq_get_ibv_cq(a)->channel;

	mock_fail("ibv_destroy_comp_channel", EIO);
	errno = 0;
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_null(a);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	h_assert_baseline(st);

	a = own_new_ok(st->peer, 8, NULL);
	ibv_cq = rpma__cq_get_ibv_cq(a);
	ch = ibv_cq->channel;
	mock_fail("ibv_destroy_cq", EINVAL);
	mock_fail("ibv_destroy_comp_channel", EIO);
	errno = 0;
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	h_assert_baseline(st);
}

/*
 * channel_wait -- an event of any CQ on the channel names that CQ, which is
 * acknowledged and re-armed; *cq_ptr is untouched on failure
 */
static void
channel_wait(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	struct rpma_cq *b = own_new_ok(st->peer, 8, a);
	struct rpma_cq *which = SENTINEL;

	assert_int_equal(rpma_cq_channel_wait(NULL, &which), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_channel_wait(a, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_channel_wait(a, &which), RPMA_E_NO_COMPLETION);
	assert_ptr_equal(which, SENTINEL);

	mock_comp_event_push(rpma__cq_get_ibv_cq(b));
	assert_int_equal(rpma_cq_channel_wait(a, &which), 0);
	assert_ptr_equal(which, b);
	assert_int_equal(mock_cq_events_acked, 1);
	assert_ptr_equal(mock_last_acked_cq, rpma__cq_get_ibv_cq(b));
	assert_ptr_equal(mock_last_notified_cq, rpma__cq_get_ibv_cq(b));

	mock_comp_event_push(rpma__cq_get_ibv_cq(a));
	mock_comp_event_push(rpma__cq_get_ibv_cq(b));
	assert_int_equal(rpma_cq_channel_wait(b, &which), 0);
	assert_ptr_equal(which, a);
	assert_ptr_equal(mock_last_notified_cq, rpma__cq_get_ibv_cq(a));
	assert_int_equal(rpma_cq_channel_wait(b, &which), 0);
	assert_ptr_equal(which, b);
	assert_int_equal(rpma_cq_channel_wait(b, &which), RPMA_E_NO_COMPLETION);
	assert_int_equal(mock_cq_events_acked, 3);

	/* re-arming fails: PROVIDER, errno kept, *cq_ptr untouched */
	which = SENTINEL;
	mock_comp_event_push(rpma__cq_get_ibv_cq(a));
	mock_fail("ibv_req_notify_cq", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_cq_channel_wait(a, &which), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_ptr_equal(which, SENTINEL);
	assert_int_equal(mock_cq_events_acked, 4);

	assert_int_equal(rpma_cq_delete(&b), 0);
	assert_int_equal(rpma_cq_delete(&a), 0);
	h_assert_baseline(st);
}

/*
 * channel_wait_other -- on a connection's CQs sharing their channel it tells
 * them apart too; an event of a verbs CQ librpma did not make is
 * RPMA_E_UNKNOWN, acknowledged and not re-armed
 */
static void
channel_wait_other(void **state)
{
	struct h_state *st = *state;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(mock_ibv_context());
	struct rpma_cq *x = NULL, *y = NULL, *which = SENTINEL;

	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, ch, &x), 0);
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, ch, &y), 0);
	mock_comp_event_push(rpma__cq_get_ibv_cq(y));
	assert_int_equal(rpma_cq_channel_wait(x, &which), 0);
	assert_ptr_equal(which, y);

	struct ibv_cq *foreign = ibv_create_cq(mock_ibv_context(), 4, NULL, ch, 0);
	int armed = mock_calls("ibv_req_notify_cq");

	which = SENTINEL;
	mock_comp_event_push(foreign);
	assert_int_equal(rpma_cq_channel_wait(x, &which), RPMA_E_UNKNOWN);
	assert_ptr_equal(which, SENTINEL);
	assert_ptr_equal(mock_last_acked_cq, foreign);
	assert_int_equal(mock_calls("ibv_req_notify_cq"), armed);

	/* a context that is not the CQ object of this verbs CQ */
	foreign->cq_context = x;
	mock_comp_event_push(foreign);
	assert_int_equal(rpma_cq_channel_wait(x, &which), RPMA_E_UNKNOWN);
	assert_ptr_equal(which, SENTINEL);

	assert_int_equal(ibv_destroy_cq(foreign), 0);
	assert_int_equal(rpma__cq_delete(&y), 0);
	assert_int_equal(rpma__cq_delete(&x), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	h_assert_baseline(st);
}

#define USERS_THREADS 4
#define USERS_ITER    20000

/* users_worker -- hold and drop the CQ many times */
static void *
users_worker(void *arg)
{
	struct rpma_cq *cq = arg;

	for (int i = 0; i < USERS_ITER; i++) {
		struct rpma_cq *held = cq;

		rpma__cq_hold(held);
		if (rpma__cq_drop(&held) || held != NULL)
			return arg;
	}
	return NULL;
}

/* users_threads -- users counted atomically: threads holding and dropping leave none */
static void
users_threads(void **state)
{
	struct h_state *st = *state;
	struct rpma_cq *a = own_new_ok(st->peer, 8, NULL);
	pthread_t th[USERS_THREADS];

	rpma__cq_hold(a); /* a user for the whole time */
	for (int i = 0; i < USERS_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, users_worker, a), 0);
	for (int i = 0; i < USERS_THREADS; i++) {
		void *ret = SENTINEL;

		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(rpma_cq_delete(&a), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "in use by 1 "));

	struct rpma_cq *last = a;

	assert_int_equal(rpma__cq_drop(&last), 0);
	assert_int_equal(rpma_cq_delete(&a), 0);
	h_assert_baseline(st);
}

#define T(f)  cmocka_unit_test_setup_teardown(f, mock_test_setup, mock_test_teardown)
#define TP(f) cmocka_unit_test_setup_teardown(f, h_setup, h_teardown)

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
	    T(refusals_name_the_call),
	    T(completion_ops),
	    T(completion_imm),
	    T(completion_error_status),
	    T(completion_errors),
	    TP(own_new),
	    TP(own_new_invalid),
	    TP(own_share_channel),
	    TP(own_share_invalid),
	    TP(own_new_failures),
	    TP(own_delete_invalid),
	    TP(own_delete_in_use),
	    TP(drop_other_cqs),
	    TP(own_delete_failures),
	    TP(channel_wait),
	    TP(channel_wait_other),
	    TP(users_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
