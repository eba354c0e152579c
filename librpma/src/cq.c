/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cq.c -- completion queues: a connection's (or a shared receive queue's),
 * with a private or shared completion channel, and CQs of their own
 * (rpma_cq_new()) that many connections share, counted by their users and
 * possibly sharing one channel; waiting and collecting completions.
 * Waiting and polling are the data path: no allocation, no lock.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cq.h"
#include "log.h"
#include "mr.h"
#include "peer.h"

/*
 * a completion channel of CQs made by rpma_cq_new(): one CQ makes it, others
 * may share it, and the last of them to be deleted destroys it
 */
struct rpma_cq_channel {
	struct ibv_comp_channel *channel;
	int cqs; /* how many CQs use it; changed atomically */
};

/*
 * The fields are fixed at creation but users, which connections and
 * requests change atomically from any thread; the object is freed by
 * rpma__cq_delete() (a connection's or an SRQ's CQ) or rpma_cq_delete()
 * (a CQ of its own) only.
 */
struct rpma_cq {
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;   /* its cq_context is this object */
	bool shared_channel; /* a connection's CQ on the connection's shared channel */
	/* the channel of a CQ of its own (rpma_cq_new()); NULL for the others */
	struct rpma_cq_channel *own_cq;
	int users; /* connections and requests using a CQ of its own */
};

/*
 * cq_create -- allocate a CQ object and its verbs CQ of cqe entries on
 * channel, armed for the next completion; the verbs CQ's context is the
 * object, so that an event on a shared channel names the CQ it belongs to.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER (errno set).
 */
static int
cq_create(struct ibv_context *ibv_ctx, int cqe, struct ibv_comp_channel *channel,
	  struct rpma_cq **cq_ptr)
{
	struct rpma_cq *cq = malloc(sizeof(*cq));
	int ret, err;

	if (cq == NULL) {
		RPMA_LOG_ERROR("cannot allocate a CQ");
		return RPMA_E_NOMEM;
	}

	cq->cq = ibv_create_cq(ibv_ctx, cqe, cq, channel, 0);
	if (cq->cq == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_cq(%d)", cqe);
		ret = RPMA_E_PROVIDER;
		goto err_free;
	}

	err = ibv_req_notify_cq(cq->cq, 0);
	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_req_notify_cq()");
		ret = RPMA_E_PROVIDER;
		goto err_destroy_cq;
	}
	cq->channel = channel;
	cq->shared_channel = false;
	cq->own_cq = NULL;
	cq->users = 0;
	*cq_ptr = cq;
	return 0;

err_destroy_cq:
	(void)ibv_destroy_cq(cq->cq);
	errno = err;
err_free:
	free(cq);
	return ret;
}

/*
 * cq_destroy -- destroy the verbs CQ and free the object (also when the
 * destroy fails, as every librpma destructor does).
 * ERRORS: RPMA_E_PROVIDER (errno set).
 */
static int
cq_destroy(struct rpma_cq *cq)
{
	/* like the other destroy calls, it returns the error code (errno is not set) */
	int err = ibv_destroy_cq(cq->cq);

	free(cq);
	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_cq()");
		errno = err;
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/*
 * channel_destroy -- destroy a completion channel.
 * ERRORS: RPMA_E_PROVIDER (errno set).
 */
static int
channel_destroy(struct ibv_comp_channel *channel)
{
	int err = ibv_destroy_comp_channel(channel);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_comp_channel()");
		errno = err;
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/*
 * first_failure -- of two results, the first failure with its errno (err:
 * errno saved right after the first call), else the second result
 */
static int
first_failure(int ret, int err, int ret2)
{
	if (ret) {
		errno = err;
		return ret;
	}
	return ret2;
}

/* see cq.h */
int
rpma__cq_new(struct ibv_context *ibv_ctx, uint32_t cqe, struct ibv_comp_channel *shared_channel,
	     struct rpma_cq **cq_ptr)
{
	struct ibv_comp_channel *channel = shared_channel;

	/*
	 * the device judges the size, as with librpma 1.3: 0 is its to refuse,
	 * and a size beyond what ibv_create_cq() takes is cut to INT_MAX
	 */
	int ncqe = cqe > INT_MAX ? INT_MAX : (int)cqe;

	if (channel == NULL) {
		channel = ibv_create_comp_channel(ibv_ctx);
		if (channel == NULL) {
			RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_comp_channel()");
			return RPMA_E_PROVIDER;
		}
	}

	int ret = cq_create(ibv_ctx, ncqe, channel, cq_ptr);

	if (ret)
		goto err_destroy_channel;
	(*cq_ptr)->shared_channel = shared_channel != NULL;
	return 0;

err_destroy_channel:
	if (shared_channel == NULL) {
		int err = errno;

		(void)ibv_destroy_comp_channel(channel);
		errno = err;
	}
	return ret;
}

/* see cq.h */
int
rpma__cq_delete(struct rpma_cq **cq_ptr)
{
	struct rpma_cq *cq = *cq_ptr;

	if (cq == NULL)
		return 0;

	struct ibv_comp_channel *channel = cq->shared_channel ? NULL : cq->channel;
	int ret = cq_destroy(cq);
	int err = errno;

	*cq_ptr = NULL;
	return first_failure(ret, err, channel ? channel_destroy(channel) : 0);
}

/* see cq.h */
bool
rpma__cq_is_own(const struct rpma_cq *cq)
{
	return cq->own_cq != NULL;
}

/* see cq.h */
void
rpma__cq_hold(struct rpma_cq *cq)
{
	__atomic_add_fetch(&cq->users, 1, __ATOMIC_RELAXED);
}

/* see cq.h */
int
rpma__cq_drop(struct rpma_cq **cq_ptr)
{
	struct rpma_cq *cq = *cq_ptr;

	if (cq == NULL || cq->own_cq == NULL)
		return rpma__cq_delete(cq_ptr);
	/* release: what the connection did with the CQ comes before its deletion */
	__atomic_sub_fetch(&cq->users, 1, __ATOMIC_RELEASE);
	*cq_ptr = NULL;
	return 0;
}

/* see cq.h */
bool
rpma__cq_on_context(const struct rpma_cq *cq, const struct ibv_context *ibv_ctx)
{
	return cq->cq->context == ibv_ctx;
}

/* see cq.h */
struct ibv_cq *
rpma__cq_get_ibv_cq(const struct rpma_cq *cq)
{
	return cq->cq;
}

/* cq_get_event_failed -- the cold half of cq_get_event() */
static RPMA_COLD int
cq_get_event_failed(void)
{
	/* librpma 1.3 reports every failure to get an event this way */
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_get_cq_event()");
	return RPMA_E_NO_COMPLETION;
}

/* cq_get_event -- rpma__comp_channel_get_event(), inlined into the waits */
static inline int
cq_get_event(struct ibv_comp_channel *channel, struct ibv_cq **ev_cq)
{
	void *ev_ctx;

	if (RPMA_LIKELY(ibv_get_cq_event(channel, ev_cq, &ev_ctx) == 0))
		return 0;
	return cq_get_event_failed();
}

/* see cq.h */
int
rpma__comp_channel_get_event(struct ibv_comp_channel *channel, struct ibv_cq **ev_cq)
{
	return cq_get_event(channel, ev_cq);
}

/* cq_rearm_failed -- the cold half of cq_rearm() */
static RPMA_COLD int
cq_rearm_failed(int err)
{
	RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_req_notify_cq()");
	errno = err;
	return RPMA_E_PROVIDER;
}

/* cq_rearm -- rpma__cq_rearm(), inlined into the waits */
static inline int
cq_rearm(struct rpma_cq *cq)
{
	ibv_ack_cq_events(cq->cq, 1);

	int err = ibv_req_notify_cq(cq->cq, 0);

	if (RPMA_LIKELY(err == 0))
		return 0;
	return cq_rearm_failed(err);
}

/* see cq.h */
int
rpma__cq_rearm(struct rpma_cq *cq)
{
	return cq_rearm(cq);
}

/* see librpma.h */
int
rpma_cq_get_fd(const struct rpma_cq *cq, int *fd)
{
	if (cq == NULL || fd == NULL) {
		RPMA_LOG_ERROR("cq or fd is NULL");
		return RPMA_E_INVAL;
	}
	/* a shared channel's fd too: it is the same as rpma_conn_get_compl_fd()'s */
	*fd = cq->channel->fd;
	return 0;
}

/*
 * cq_channel_is_shared -- whether another CQ may take the events of the
 * CQ's channel: a connection's CQ on the connection's shared channel, or a
 * CQ of its own whose channel other CQs use now
 */
static bool
cq_channel_is_shared(const struct rpma_cq *cq)
{
	if (cq->own_cq)
		return __atomic_load_n(&cq->own_cq->cqs, __ATOMIC_RELAXED) > 1;
	return cq->shared_channel;
}

/*
 * cq_wait_refused -- why rpma_cq_wait() refused the CQ: NULL, or its
 * channel is shared (see cq_channel_is_shared())
 */
static RPMA_COLD int
cq_wait_refused(const struct rpma_cq *cq, const char *func)
{
	if (cq == NULL) {
		RPMA_LOG_ERROR_IN(func, "cq is NULL");
		return RPMA_E_INVAL;
	}
	RPMA_LOG_ERROR_IN(func, "the CQ shares its completion channel; use %s",
			  cq->own_cq ? "rpma_cq_channel_wait()" : "rpma_conn_wait()");
	return RPMA_E_SHARED_CHANNEL;
}

/*
 * cq_event_unknown -- an event of a CQ the waiter (func) does not know:
 * logged (what names the CQ's kind), acknowledged, and RPMA_E_UNKNOWN
 */
static RPMA_COLD int
cq_event_unknown(struct ibv_cq *ev_cq, const char *what, const char *func)
{
	RPMA_LOG_ERROR_IN(func, "completion event of %s %p", what, (void *)ev_cq);
	ibv_ack_cq_events(ev_cq, 1);
	return RPMA_E_UNKNOWN;
}

/* see librpma.h */
int
rpma_cq_wait(struct rpma_cq *cq)
{
	struct ibv_cq *ev_cq;
	int ret;

	if (RPMA_UNLIKELY(cq == NULL || cq_channel_is_shared(cq)))
		return cq_wait_refused(cq, __func__);

	ret = cq_get_event(cq->channel, &ev_cq);
	if (RPMA_UNLIKELY(ret))
		return ret;
	if (RPMA_UNLIKELY(ev_cq != cq->cq))
		return cq_event_unknown(ev_cq, "an unknown CQ", __func__);
	return cq_rearm(cq);
}

/* see librpma.h */
int
rpma_cq_channel_wait(struct rpma_cq *cq, struct rpma_cq **cq_ptr)
{
	struct ibv_cq *ev_cq;
	int ret;

	if (cq == NULL || cq_ptr == NULL) {
		RPMA_LOG_ERROR("cq or cq_ptr is NULL");
		return RPMA_E_INVAL;
	}

	ret = cq_get_event(cq->channel, &ev_cq);
	if (ret)
		return ret;

	/* every CQ of librpma is the context of its verbs CQ (see cq_create()) */
	struct rpma_cq *found = ev_cq->cq_context;

	if (found == NULL || found->cq != ev_cq)
		return cq_event_unknown(ev_cq, "a CQ librpma did not make:", __func__);
	ret = cq_rearm(found);
	if (ret)
		return ret;
	*cq_ptr = found;
	return 0;
}

/*
 * own_channel_new -- a completion channel for a new CQ of its own, used by
 * that CQ alone for now.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER (errno set).
 */
static int
own_channel_new(struct ibv_context *ibv_ctx, struct rpma_cq_channel **ch_ptr)
{
	struct rpma_cq_channel *ch = malloc(sizeof(*ch));

	if (ch == NULL) {
		RPMA_LOG_ERROR("cannot allocate a completion channel");
		return RPMA_E_NOMEM;
	}
	ch->channel = ibv_create_comp_channel(ibv_ctx);
	if (ch->channel == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_comp_channel()");
		free(ch);
		return RPMA_E_PROVIDER;
	}
	ch->cqs = 1;
	*ch_ptr = ch;
	return 0;
}

/*
 * own_channel_share -- the channel of the CQ with, for one more CQ on the
 * device ibv_ctx.
 * ERRORS: RPMA_E_INVAL (with is not a CQ of its own, or is on another device).
 */
static int
own_channel_share(const struct rpma_cq *with, const struct ibv_context *ibv_ctx,
		  struct rpma_cq_channel **ch_ptr)
{
	if (with->own_cq == NULL) {
		RPMA_LOG_ERROR("share_channel_with was not made by rpma_cq_new()");
		return RPMA_E_INVAL;
	}
	if (!rpma__cq_on_context(with, ibv_ctx)) {
		RPMA_LOG_ERROR("share_channel_with is a CQ of another device");
		return RPMA_E_INVAL;
	}
	__atomic_add_fetch(&with->own_cq->cqs, 1, __ATOMIC_RELAXED);
	*ch_ptr = with->own_cq;
	return 0;
}

/*
 * own_channel_put -- one CQ less on the channel; the last one destroys it.
 * ERRORS: RPMA_E_PROVIDER (errno set; the channel is freed anyway).
 */
static int
own_channel_put(struct rpma_cq_channel *ch)
{
	/* acquire-release: every other CQ's destruction comes before the channel's */
	if (__atomic_sub_fetch(&ch->cqs, 1, __ATOMIC_ACQ_REL))
		return 0;

	int ret = channel_destroy(ch->channel);

	free(ch);
	return ret;
}

/* see librpma.h */
int
rpma_cq_new(struct rpma_peer *peer, int cq_size, const struct rpma_cq *share_channel_with,
	    struct rpma_cq **cq_ptr)
{
	struct rpma_cq_channel *ch;
	int ret, err;

	if (peer == NULL || cq_ptr == NULL || cq_size < 1) {
		RPMA_LOG_ERROR("peer or cq_ptr is NULL, or cq_size (%d) is below 1", cq_size);
		return RPMA_E_INVAL;
	}

	struct ibv_context *ibv_ctx = rpma__peer_ibv_context(peer);

	if (share_channel_with)
		ret = own_channel_share(share_channel_with, ibv_ctx, &ch);
	else
		ret = own_channel_new(ibv_ctx, &ch);
	if (ret)
		return ret;

	ret = cq_create(ibv_ctx, cq_size, ch->channel, cq_ptr);
	if (ret)
		goto err_put_channel;
	(*cq_ptr)->own_cq = ch;
	return 0;

err_put_channel:
	err = errno;
	(void)own_channel_put(ch);
	errno = err;
	return ret;
}

/* see librpma.h */
int
rpma_cq_delete(struct rpma_cq **cq_ptr)
{
	if (cq_ptr == NULL) {
		RPMA_LOG_ERROR("cq_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_cq *cq = *cq_ptr;

	if (cq == NULL)
		return 0;
	if (cq->own_cq == NULL) {
		RPMA_LOG_ERROR("the CQ belongs to a connection or a shared receive queue");
		return RPMA_E_INVAL;
	}

	/* acquire: what the connections that used the CQ did comes before */
	int users = __atomic_load_n(&cq->users, __ATOMIC_ACQUIRE);

	if (users) {
		RPMA_LOG_ERROR("the CQ is in use by %d connection(s) or request(s)", users);
		return RPMA_E_INVAL;
	}

	struct rpma_cq_channel *ch = cq->own_cq;
	int ret = cq_destroy(cq);
	int err = errno;

	*cq_ptr = NULL;
	return first_failure(ret, err, own_channel_put(ch));
}

/* cq_get_wc_refused -- why rpma_cq_get_wc() refused its arguments */
static RPMA_COLD int
cq_get_wc_refused(const struct rpma_cq *cq, int num_entries, const struct ibv_wc *wc,
		  const char *func)
{
	if (cq == NULL || wc == NULL)
		RPMA_LOG_ERROR_IN(func, "cq or wc is NULL");
	else if (num_entries < 1)
		RPMA_LOG_ERROR_IN(func, "num_entries must be at least 1: %d", num_entries);
	else
		RPMA_LOG_ERROR_IN(func, "num_entries_got is NULL while num_entries is %d",
				  num_entries);
	return RPMA_E_INVAL;
}

/* cq_poll_failed -- ibv_poll_cq() returned got, neither 0 nor a count it may */
static RPMA_COLD int
cq_poll_failed(int got, int num_entries, const char *func)
{
	if (got < 0) {
		/* the result is a negated errno on some providers, -1 on others */
		int err = got == -1 ? (errno ? errno : EIO) : -got;

		RPMA_LOG_ERROR_WITH_ERRNO_IN(func, err, "ibv_poll_cq()");
		errno = err;
		return RPMA_E_PROVIDER;
	}
	RPMA_LOG_ERROR_IN(func, "ibv_poll_cq() returned %d completions, more than the %d asked for",
			  got, num_entries);
	return RPMA_E_UNKNOWN;
}

/* see librpma.h */
int
rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got)
{
	/*
	 * One call of the refusal a test: tests joined by || that share a
	 * branch become flag arithmetic, more instructions than the branches.
	 */
	if (RPMA_UNLIKELY(cq == NULL) || RPMA_UNLIKELY(num_entries < 1))
		return cq_get_wc_refused(cq, num_entries, wc, __func__);
	if (RPMA_UNLIKELY(wc == NULL) || RPMA_UNLIKELY(num_entries > 1 && num_entries_got == NULL))
		return cq_get_wc_refused(cq, num_entries, wc, __func__);

	int got = ibv_poll_cq(cq->cq, num_entries, wc);

	if (RPMA_LIKELY(got > 0 && got <= num_entries)) {
		if (num_entries_got)
			*num_entries_got = got;
		return 0;
	}
	if (got == 0)
		return RPMA_E_NO_COMPLETION;
	return cq_poll_failed(got, num_entries, __func__);
}

/*
 * wc_opcode_to_op -- the 0.11 name of a completed operation.
 * ERRORS: RPMA_E_NOSUPP for an opcode that API has no name for.
 */
static int
wc_opcode_to_op(enum ibv_wc_opcode opcode, enum rpma_op *op)
{
	switch (opcode) {
	case IBV_WC_RDMA_READ:
		*op = RPMA_OP_READ;
		return 0;
	case IBV_WC_RDMA_WRITE:
	case IBV_WC_ATOMIC_WRITE:
		*op = RPMA_OP_WRITE;
		return 0;
	case IBV_WC_SEND:
		*op = RPMA_OP_SEND;
		return 0;
	case IBV_WC_RECV:
		*op = RPMA_OP_RECV;
		return 0;
	case IBV_WC_RECV_RDMA_WITH_IMM:
		*op = RPMA_OP_RECV_RDMA_WITH_IMM;
		return 0;
	default:
		RPMA_LOG_ERROR("unsupported completion opcode: %d", (int)opcode);
		return RPMA_E_NOSUPP;
	}
}

/* see librpma.h */
int
rpma_cq_get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl)
{
	struct ibv_wc wc;
	enum rpma_op op = RPMA_OP_READ;
	int ret;

	if (cq == NULL || cmpl == NULL) {
		RPMA_LOG_ERROR("cq or cmpl is NULL");
		return RPMA_E_INVAL;
	}

	ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
	if (ret)
		return ret;

	/* the opcode of a failed completion is undefined: only report the status */
	if (wc.status == IBV_WC_SUCCESS) {
		ret = wc_opcode_to_op(wc.opcode, &op);
		if (ret)
			return ret;
	}

	cmpl->op_context = (void *)(uintptr_t)wc.wr_id;
	cmpl->op = op;
	cmpl->byte_len = wc.byte_len;
	cmpl->op_status = wc.status;
	cmpl->flags = wc.wc_flags;
	cmpl->imm = (wc.wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc.imm_data) : 0;
	return 0;
}
