/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cq.c -- completion queues: creation with a private or shared completion
 * channel, waiting and collecting completions. Waiting and polling are the
 * data path: no allocation, no lock.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cq.h"
#include "log.h"

struct rpma_cq {
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	bool shared_channel;
};

/* see cq.h */
int
rpma__cq_new(struct ibv_context *ibv_ctx, uint32_t cqe, struct ibv_comp_channel *shared_channel,
	     struct rpma_cq **cq_ptr)
{
	struct ibv_comp_channel *channel = shared_channel;
	struct rpma_cq *cq;
	int ret;

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

	struct ibv_cq *ibv_cq = ibv_create_cq(ibv_ctx, ncqe, NULL, channel, 0);

	if (ibv_cq == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_cq(%u)", cqe);
		ret = RPMA_E_PROVIDER;
		goto err_destroy_channel;
	}

	int err = ibv_req_notify_cq(ibv_cq, 0);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_req_notify_cq()");
		errno = err;
		ret = RPMA_E_PROVIDER;
		goto err_destroy_cq;
	}

	cq = malloc(sizeof(*cq));
	if (cq == NULL) {
		RPMA_LOG_ERROR("cannot allocate a CQ");
		ret = RPMA_E_NOMEM;
		goto err_destroy_cq;
	}
	cq->channel = channel;
	cq->cq = ibv_cq;
	cq->shared_channel = shared_channel != NULL;
	*cq_ptr = cq;
	return 0;

err_destroy_cq:
	(void)ibv_destroy_cq(ibv_cq);
err_destroy_channel:
	if (shared_channel == NULL)
		(void)ibv_destroy_comp_channel(channel);
	return ret;
}

/* see cq.h */
int
rpma__cq_delete(struct rpma_cq **cq_ptr)
{
	struct rpma_cq *cq = *cq_ptr;
	int ret = 0;
	int err;

	if (cq == NULL)
		return 0;

	err = ibv_destroy_cq(cq->cq);
	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_cq()");
		errno = err;
		ret = RPMA_E_PROVIDER;
	}
	/* like the other destroy calls, it returns the error code (errno is not set) */
	if (!cq->shared_channel && (err = ibv_destroy_comp_channel(cq->channel))) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_comp_channel()");
		if (ret == 0) {
			errno = err;
			ret = RPMA_E_PROVIDER;
		}
	}
	free(cq);
	*cq_ptr = NULL;
	return ret;
}

/* see cq.h */
struct ibv_cq *
rpma__cq_get_ibv_cq(const struct rpma_cq *cq)
{
	return cq->cq;
}

/* see cq.h */
int
rpma__comp_channel_get_event(struct ibv_comp_channel *channel, struct ibv_cq **ev_cq)
{
	void *ev_ctx;

	if (ibv_get_cq_event(channel, ev_cq, &ev_ctx)) {
		/* librpma 1.3 reports every failure to get an event this way */
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_get_cq_event()");
		return RPMA_E_NO_COMPLETION;
	}
	return 0;
}

/* see cq.h */
int
rpma__cq_rearm(struct rpma_cq *cq)
{
	ibv_ack_cq_events(cq->cq, 1);

	int err = ibv_req_notify_cq(cq->cq, 0);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_req_notify_cq()");
		errno = err;
		return RPMA_E_PROVIDER;
	}
	return 0;
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

/* see librpma.h */
int
rpma_cq_wait(struct rpma_cq *cq)
{
	struct ibv_cq *ev_cq;
	int ret;

	if (cq == NULL) {
		RPMA_LOG_ERROR("cq is NULL");
		return RPMA_E_INVAL;
	}
	if (cq->shared_channel) {
		RPMA_LOG_ERROR("the CQ shares its completion channel; use rpma_conn_wait()");
		return RPMA_E_SHARED_CHANNEL;
	}

	ret = rpma__comp_channel_get_event(cq->channel, &ev_cq);
	if (ret)
		return ret;
	if (ev_cq != cq->cq) {
		RPMA_LOG_ERROR("completion event of an unknown CQ %p", (void *)ev_cq);
		ibv_ack_cq_events(ev_cq, 1);
		return RPMA_E_UNKNOWN;
	}
	return rpma__cq_rearm(cq);
}

/* see librpma.h */
int
rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got)
{
	if (cq == NULL || wc == NULL) {
		RPMA_LOG_ERROR("cq or wc is NULL");
		return RPMA_E_INVAL;
	}
	if (num_entries < 1) {
		RPMA_LOG_ERROR("num_entries must be at least 1: %d", num_entries);
		return RPMA_E_INVAL;
	}
	if (num_entries > 1 && num_entries_got == NULL) {
		RPMA_LOG_ERROR("num_entries_got is NULL while num_entries is %d", num_entries);
		return RPMA_E_INVAL;
	}

	int got = ibv_poll_cq(cq->cq, num_entries, wc);

	if (got == 0)
		return RPMA_E_NO_COMPLETION;
	if (got < 0) {
		/* the result is a negated errno on some providers, -1 on others */
		int err = got == -1 ? (errno ? errno : EIO) : -got;

		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_poll_cq()");
		errno = err;
		return RPMA_E_PROVIDER;
	}
	if (got > num_entries) {
		RPMA_LOG_ERROR("ibv_poll_cq() returned %d completions, more than the %d asked for",
			       got, num_entries);
		return RPMA_E_UNKNOWN;
	}
	if (num_entries_got)
		*num_entries_got = got;
	return 0;
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
