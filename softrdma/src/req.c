/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester: posting send work requests. A WR is checked, takes a
 * send-queue slot, and leaves as a request on the QP's @out connection:
 * queued behind earlier ones, written straight into a same-host ring, or,
 * for a same-host one-sided operation with nothing in flight, executed at
 * once. Its completion comes from comp.c.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "comp.h"
#include "mr.h"
#include "net.h"
#include "progress.h"
#include "qp.h"
#include "req.h"
#include "shm.h"

/* Whether @wr is an atomic: its scatter list receives the original value. */
static int
softrdma_wr_atomic(const struct ibv_send_wr *wr)
{
	return wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * Whether the SGEs of @wr are inline data: asked for, and the WR sends its
 * local data (a READ's or an atomic's list is where the answer goes).
 */
static int
softrdma_wr_inline(const struct ibv_send_wr *wr)
{
	return (wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ &&
	       !softrdma_wr_atomic(wr);
}

/* The payload of the request of @wr, whose local data is @total bytes. */
static uint64_t
softrdma_req_payload(const struct ibv_send_wr *wr, uint64_t total)
{
	if (softrdma_wr_atomic(wr))
		return SOFTRDMA_ATOMIC_REQ_LEN;
	return wr->opcode == IBV_WR_RDMA_READ ? 0 : total;
}

/* The two operands of an atomic @wr in wire order: compare and swap, or the addend. */
static void
softrdma_atomic_args(const struct ibv_send_wr *wr, uint64_t args[2])
{
	args[0] = htole64(wr->wr.atomic.compare_add);
	args[1] = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? htole64(wr->wr.atomic.swap) : 0;
}

/* Gather the local SGEs of @wr into @dst (or validate only when @dst is NULL). */
static int
softrdma_gather(struct softrdma_qp *qp, struct ibv_send_wr *wr, char *dst, uint64_t *total,
		int access)
{
	int i;

	*total = 0;
	for (i = 0; i < wr->num_sge; i++) {
		struct ibv_sge *s = &wr->sg_list[i];
		struct softrdma_mr *mr;
		int err = 0;

		if (softrdma_wr_inline(wr)) {
			if (dst && s->length)
				memcpy(dst + *total, (void *)(uintptr_t)s->addr, s->length);
			*total += s->length;
			continue;
		}
		mr = softrdma__mr_get(s->lkey);
		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, s->addr, s->length, access))
			err = IBV_WC_LOC_PROT_ERR;
		else if (dst)
			memcpy(dst + *total, softrdma__mr_ptr(mr, s->addr), s->length);
		softrdma__mr_put();
		if (err)
			return err;
		*total += s->length;
	}
	return 0;
}

/*
 * Same host: write a request (header and gathered payload) straight into
 * the ring when it fits. Returns 0 when posted, a work completion status
 * for a local error, -1 when the ring has no room (queue it instead).
 */
static int
softrdma_shm_post(struct softrdma_qp *qp, struct ibv_send_wr *wr, const struct softrdma_wire_hdr *h,
		  uint64_t total)
{
	struct softrdma_conn *c = qp->out;
	struct softrdma_wire_hdr le = *h;
	uint64_t need = sizeof(le) + softrdma_req_payload(wr, total);
	uint32_t space = softrdma__shm_tx_space(c);
	uint64_t at = softrdma__shm_tail(c);
	uint64_t args[2];
	int i;

	if (space == UINT32_MAX || need > space)
		return -1;
	softrdma__wire_hdr_to_le(&le);
	softrdma__shm_put(c, at, &le, sizeof(le));
	at += sizeof(le);
	if (softrdma_wr_atomic(wr)) {
		softrdma_atomic_args(wr, args);
		softrdma__shm_put(c, at, args, sizeof(args));
		at += sizeof(args);
	}
	for (i = 0; wr->opcode != IBV_WR_RDMA_READ && !softrdma_wr_atomic(wr) && i < wr->num_sge;
	     i++) {
		struct ibv_sge *sg = &wr->sg_list[i];
		struct softrdma_mr *mr;
		int err = 0;

		if (softrdma_wr_inline(wr)) {
			softrdma__shm_put(c, at, (void *)(uintptr_t)sg->addr, sg->length);
		} else {
			mr = softrdma__mr_get(sg->lkey);
			err = softrdma__mr_check(mr, qp->qpx.qp_base.pd, sg->addr, sg->length, 0);
			if (!err)
				softrdma__shm_put(c, at, softrdma__mr_ptr(mr, sg->addr),
						  sg->length);
			softrdma__mr_put();
		}
		if (err)
			return IBV_WC_LOC_PROT_ERR;
		at += sg->length;
	}
	softrdma__shm_commit(c, at);
	return 0;
}

/* The wire operation of a WR of @opcode; 0 for an opcode not supported. */
static uint8_t
softrdma_wire_op(enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
		return SOFTRDMA_OP_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return SOFTRDMA_OP_SEND_IMM;
	case IBV_WR_RDMA_WRITE:
		return SOFTRDMA_OP_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return SOFTRDMA_OP_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return SOFTRDMA_OP_READ_REQ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return SOFTRDMA_OP_CMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return SOFTRDMA_OP_FETCH_ADD;
	default:
		return 0;
	}
}

/*
 * Check @wr against the QP in state @st and make room for it in the send
 * queue (slots whose completion was polled are freed); @h gets its wire
 * operation. An atomic's scatter list must take exactly its 8 bytes.
 * Returns 0 or the errno of the post.
 */
static int
softrdma_post_admit(struct softrdma_qp *qp, struct ibv_send_wr *wr, enum ibv_qp_state st,
		    struct softrdma_wire_hdr *h)
{
	uint64_t total = 0;
	int i;

	if (st == IBV_QPS_RESET || st == IBV_QPS_INIT || st == IBV_QPS_RTR)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
	    wr->num_sge > SOFTRDMA_MAX_SGE)
		return EINVAL;
	memset(h, 0, sizeof(*h));
	h->op = softrdma_wire_op(wr->opcode);
	if (!h->op)
		return EINVAL;
	if (qp->sq_count == qp->sq_size && qp->sq_ndone)
		softrdma__sq_retire(qp);
	if (qp->sq_count == qp->sq_size)
		return ENOMEM;
	if (softrdma_wr_inline(wr) || softrdma_wr_atomic(wr)) {
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (softrdma_wr_atomic(wr) && total != SOFTRDMA_ATOMIC_LEN)
			return EINVAL;
		if (softrdma_wr_inline(wr) && total > qp->cap.max_inline_data)
			return EINVAL;
	}
	return 0;
}

/* Take the next send-queue slot for @wr: its WQE, in sequence. */
static struct softrdma_swqe *
softrdma_sq_push(struct softrdma_qp *qp, struct ibv_send_wr *wr)
{
	struct softrdma_swqe *e = &qp->sq[(qp->sq_head + qp->sq_count) % qp->sq_size];

	memset(e, 0, offsetof(struct softrdma_swqe, sge));
	e->wr_id = wr->wr_id;
	e->signaled = qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	e->seq = qp->next_seq++;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		e->opcode = IBV_WC_SEND;
		break;
	case IBV_WR_RDMA_READ:
		e->opcode = IBV_WC_RDMA_READ;
		e->is_read = 1;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		e->opcode =
		    wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD;
		e->is_read = 1;
		e->is_atomic = 1;
		break;
	default:
		e->opcode = IBV_WC_RDMA_WRITE;
		break;
	}
	qp->sq_count++;
	return e;
}

/*
 * Fill the request header of @wr, whose WQE is @e, for @total bytes; a
 * READ or an atomic keeps its scatter list in @e for the response.
 */
static void
softrdma_post_hdr(struct softrdma_qp *qp, struct ibv_send_wr *wr, struct softrdma_swqe *e,
		  struct softrdma_wire_hdr *h, uint64_t total)
{
	h->seq = e->seq;
	h->rnr_retry = qp->rnr_retry;
	h->imm = wr->imm_data;
	if (e->is_atomic) {
		h->raddr = wr->wr.atomic.remote_addr;
		h->rkey = wr->wr.atomic.rkey;
		h->len = SOFTRDMA_ATOMIC_REQ_LEN;
	} else if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
		h->raddr = wr->wr.rdma.remote_addr;
		h->rkey = wr->wr.rdma.rkey;
	}
	if (e->is_read) {
		h->rlen = total;
		e->num_sge = wr->num_sge;
		if (wr->num_sge)
			memcpy(e->sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
	} else {
		h->len = total;
		if (e->signaled)
			h->flags |= SOFTRDMA_WF_ACK_REQ;
	}
}

/*
 * The WR just posted failed with @status: the QP enters the error state.
 * The post itself succeeded, so this returns 0.
 */
static int
softrdma_post_fail(struct softrdma_qp *qp, enum ibv_wc_status status)
{
	/* earlier WRs flush, this one reports the local error */
	while (qp->sq_count > 1)
		softrdma__sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
	softrdma__qp_set_error(qp, 1, status);
	return 0;
}

/*
 * Same host: run a one-sided request at once when nothing is in flight,
 * else write it straight into the ring when nothing waits before it.
 * Returns 0 when done, a work completion status for a local error, -1 to
 * queue the request instead.
 */
static int
softrdma_post_same_host(struct softrdma_qp *qp, struct ibv_send_wr *wr, struct softrdma_swqe *e,
			const struct softrdma_wire_hdr *h, uint64_t total)
{
	/* same host: one-sided requests run here when nothing is in flight */
	if ((wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_READ) &&
	    qp->sq_ndone + 1 == qp->sq_count && !softrdma__shm_direct(qp, wr, total)) {
		softrdma__direct_done(qp, e);
		return 0;
	}
	if (softrdma__list_empty(&qp->out->txq) && !softrdma__requests_held(qp->out))
		return softrdma_shm_post(qp, wr, h, total);
	return -1;
}

/*
 * Queue the request of @wr on the requester connection, its payload
 * gathered now. Returns 0, or ENOMEM for the post (the WR is taken back).
 */
static int
softrdma_post_queue(struct softrdma_qp *qp, struct ibv_send_wr *wr, struct softrdma_swqe *e,
		    const struct softrdma_wire_hdr *h, uint64_t total)
{
	struct softrdma_txbuf *b;
	uint64_t args[2];
	int status = 0;

	b = softrdma__txbuf_new(h, softrdma_req_payload(wr, total));
	if (!b) {
		qp->sq_count--;
		qp->next_seq--;
		return ENOMEM;
	}
	if (e->is_atomic) {
		softrdma_atomic_args(wr, args);
		memcpy(b->data + sizeof(*h), args, sizeof(args));
	} else if (!e->is_read)
		status = softrdma_gather(qp, wr, (char *)b->data + sizeof(*h), &total, 0);
	if (status) {
		free(b);
		return softrdma_post_fail(qp, status);
	}
	softrdma__list_add_tail(&qp->out->txq, &b->node);
	return 0;
}

/*
 * The peer QP left RTS (its end-of-stream marker came): a request goes to it
 * on a new connection, as an RNIC's request goes to a peer that may have
 * been reset and connected again meanwhile; refused or dropped before the
 * answer, the request waits as before (softrdma__qp_conn_failed). Returns 0
 * with qp->out new, or an errno.
 */
static int
softrdma_post_redial(struct softrdma_qp *qp)
{
	int err;

	if (qp->out)
		softrdma__conn_close(qp->out);
	err = softrdma__qp_connect(qp);
	if (!err)
		qp->out->redial = 1;
	return err;
}

/* Post one send WR (qp->lock held). Returns an errno for the post itself. */
int
softrdma__post_one(struct softrdma_qp *qp, struct ibv_send_wr *wr)
{
	enum ibv_qp_state st = qp->qpx.qp_base.state;
	struct softrdma_wire_hdr h;
	struct softrdma_swqe *e;
	uint64_t total = 0;
	int status;

	status = softrdma_post_admit(qp, wr, st, &h);
	if (status)
		return status;
	e = softrdma_sq_push(qp, wr);
	if (st != IBV_QPS_RTS && st != IBV_QPS_SQD) {
		/* QP in error: the WR completes flushed */
		while (qp->sq_count)
			softrdma__sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
		return 0;
	}
	status = softrdma_gather(qp, wr, NULL, &total, e->is_read ? IBV_ACCESS_LOCAL_WRITE : 0);
	if (!status && total > SOFTRDMA_MAX_MSG)
		status = IBV_WC_LOC_LEN_ERR;
	e->byte_len = total;
	if (status)
		return softrdma_post_fail(qp, status);
	if (!qp->out || qp->out->eos) {
		/* connection lost: retries exceeded at once */
		if (!qp->peer_eos)
			return softrdma_post_fail(qp, IBV_WC_RETRY_EXC_ERR);
		/* the peer left RTS: it may be back, else wait for the disconnect, or time out */
		if (softrdma_post_redial(qp)) {
			softrdma__qp_arm_eos_timer(qp);
			return 0;
		}
	}
	softrdma_post_hdr(qp, wr, e, &h, total);
	if (qp->out->shm) {
		status = softrdma_post_same_host(qp, wr, e, &h, total);
		if (status > 0)
			return softrdma_post_fail(qp, status);
		if (!status)
			return 0;
	}
	return softrdma_post_queue(qp, wr, e, &h, total);
}

/* ops.post_send */
int
softrdma__post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct softrdma_qp *qp = (struct softrdma_qp *)q;
	int err = 0;

	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		err = softrdma__post_one(qp, wr);
		if (err) {
			*bad = wr;
			break;
		}
	}
	if (qp->out && !qp->out->dead && softrdma__qp_flush_tx(qp->out))
		softrdma__qp_conn_failed(qp->out, EPIPE);
	pthread_mutex_unlock(&qp->lock);
	return err;
}
