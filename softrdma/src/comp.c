/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: pushing work completions (a CQ overrun stops the QP), the
 * send queue's completion order, and the requester's handling of the
 * answers arriving on a QP's @out connection (ACK, NAK, READ and atomic
 * responses; an atomic's original value lands in its scatter list in host
 * order).
 * Like on an RNIC, a WR that executed completes at once but keeps its
 * send-queue slot until the application has polled its completion.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "comp.h"
#include "cq.h"
#include "ctx.h"
#include "mr.h"
#include "net.h"
#include "qp.h"

/*
 * A CQ of @qp overran (qp->lock held): the QP stops at once; the progress
 * thread then flushes it and closes its connections (softrdma__qp_check_cq,
 * as for every other QP of that CQ).
 */
static void
softrdma_qp_cq_overrun(struct softrdma_qp *qp)
{
	if (qp->qpx.qp_base.state == IBV_QPS_ERR)
		return;
	qp->qpx.qp_base.state = IBV_QPS_ERR;
	softrdma__async_event(qp->qpx.qp_base.context, IBV_EVENT_QP_FATAL, &qp->qpx.qp_base);
}

/* Push a completion for @qp; on CQ overflow the QP is marked for error. */
void
softrdma__complete(struct softrdma_qp *qp, struct ibv_cq *cq, struct ibv_wc *wc)
{
	wc->qp_num = qp->qpx.qp_base.qp_num;
	if (softrdma__cq_push(cq, wc) == EOVERFLOW)
		softrdma_qp_cq_overrun(qp);
}

/*
 * Progress thread (qp->lock held): a CQ @qp completes on overran. Like an
 * RNIC, every QP of that CQ enters the error state with IBV_EVENT_QP_FATAL.
 */
void
softrdma__qp_check_cq(struct softrdma_qp *qp)
{
	if (!__atomic_exchange_n(&qp->cq_overrun, 0, __ATOMIC_RELAXED) ||
	    qp->qpx.qp_base.state == IBV_QPS_RESET)
		return;
	softrdma_qp_cq_overrun(qp);
	softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
}

/* Complete the oldest send WR with @status (always when not SUCCESS). */
void
softrdma__sq_complete_head(struct softrdma_qp *qp, enum ibv_wc_status status)
{
	struct softrdma_swqe *e = &qp->sq[qp->sq_head];
	struct ibv_wc wc;

	if (e->done) {
		/* executed and, if signaled, completed already: it only held its slot */
		qp->sq_ndone--;
	} else if (e->signaled || status != IBV_WC_SUCCESS) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = e->wr_id;
		wc.status = status;
		wc.opcode = e->opcode;
		wc.byte_len = e->byte_len;
		if (status != IBV_WC_SUCCESS)
			wc.vendor_err = 0x1;
		softrdma__complete(qp, qp->qpx.qp_base.send_cq, &wc);
	}
	qp->sq_head = (qp->sq_head + 1) % qp->sq_size;
	qp->sq_count--;
}

/*
 * A WR executed (directly, or acknowledged by the responder): it completes
 * now, but like on an RNIC its slot (and those of the unsignaled WRs before
 * it) stays taken until the application has polled the completion.
 */
void
softrdma__direct_done(struct softrdma_qp *qp, struct softrdma_swqe *e)
{
	struct ibv_wc wc;

	e->done = 1;
	qp->sq_ndone++;
	if (!e->signaled)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = e->wr_id;
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = e->opcode;
	wc.byte_len = e->byte_len;
	wc.qp_num = qp->qpx.qp_base.qp_num;
	if (softrdma__cq_push_pos(qp->qpx.qp_base.send_cq, &wc, &e->cq_pos) == EOVERFLOW) {
		e->cq_pos = 0;
		softrdma_qp_cq_overrun(qp);
	}
}

/* Free the slots of directly executed WRs whose completion was polled. */
void
softrdma__sq_retire(struct softrdma_qp *qp)
{
	uint64_t consumed = softrdma__cq_consumed(qp->qpx.qp_base.send_cq);
	uint32_t i, n = 0;

	for (i = 0; i < qp->sq_count; i++) {
		struct softrdma_swqe *e = &qp->sq[(qp->sq_head + i) % qp->sq_size];

		if (!e->done)
			break;
		if (e->signaled) {
			if (consumed < e->cq_pos)
				break;
			n = i + 1;
		}
	}
	while (n--)
		softrdma__sq_complete_head(qp, IBV_WC_SUCCESS);
}

/*
 * The oldest WR still executing succeeded: it completes now and keeps its
 * slot until the application polls the completion.
 */
static void
softrdma_sq_complete_ok(struct softrdma_qp *qp)
{
	softrdma__direct_done(qp, &qp->sq[(qp->sq_head + qp->sq_ndone) % qp->sq_size]);
}

/* Sequence number @a precedes or equals @b in serial arithmetic. */
static int
softrdma_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

/*
 * Requester: find the outstanding WR with @seq; returns its ring offset.
 * Sequence numbers are given in ring order (a WR leaves at the head, or at
 * the tail when its post fails, taking its number back), so the offset is
 * the distance from the head's, as an RNIC indexes its send queue; a
 * number outside the outstanding ones (a peer's bad answer) is ENOENT.
 */
static int
softrdma_sq_find(struct softrdma_qp *qp, uint32_t seq, uint32_t *off)
{
	uint32_t i;

	if (!qp->sq_count)
		return ENOENT;
	i = seq - qp->sq[qp->sq_head].seq;
	if (i >= qp->sq_count || qp->sq[(qp->sq_head + i) % qp->sq_size].seq != seq)
		return ENOENT;
	*off = i;
	return 0;
}

/* Requester: prepare scatter pointers of a READ response. */
static int
softrdma_read_iov(struct softrdma_qp *qp, struct softrdma_swqe *e, struct softrdma_conn *c)
{
	uint32_t i;

	c->iovcnt = 0;
	for (i = 0; i < e->num_sge; i++) {
		struct softrdma_mr *mr = softrdma__mr_get(e->sge[i].lkey);

		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, e->sge[i].addr, e->sge[i].length,
				       IBV_ACCESS_LOCAL_WRITE)) {
			softrdma__mr_put();
			return IBV_WC_LOC_PROT_ERR;
		}
		c->iov[c->iovcnt].iov_base = softrdma__mr_ptr(mr, e->sge[i].addr);
		c->iov[c->iovcnt].iov_len = e->sge[i].length;
		c->iovcnt++;
		softrdma__mr_put();
	}
	return IBV_WC_SUCCESS;
}

/* Requester: an ACK of @seq completes the executing WRs up to it. */
static void
softrdma_comp_ack(struct softrdma_qp *qp, uint32_t seq)
{
	while (qp->sq_ndone < qp->sq_count &&
	       softrdma_seq_le(qp->sq[(qp->sq_head + qp->sq_ndone) % qp->sq_size].seq, seq))
		softrdma_sq_complete_ok(qp);
}

/*
 * Requester: a NAK with @st for the WR at ring offset @off. The WRs before
 * it succeeded; it fails, and the QP enters the error state.
 */
static void
softrdma_comp_nak(struct softrdma_qp *qp, enum ibv_wc_status st, uint32_t off)
{
	if (st != IBV_WC_REM_ACCESS_ERR && st != IBV_WC_REM_INV_REQ_ERR &&
	    st != IBV_WC_REM_OP_ERR && st != IBV_WC_RNR_RETRY_EXC_ERR)
		st = IBV_WC_REM_OP_ERR;
	while (off--)
		softrdma__sq_complete_head(qp, IBV_WC_SUCCESS);
	softrdma__qp_set_error(qp, 1, st);
}

/*
 * Requester: a READ still executing before ring offset @end. An answer that
 * would complete it has passed its READ response, which the responder
 * sends in order: a protocol error, or the READ would succeed without data.
 */
static int
softrdma_sq_read_before(struct softrdma_qp *qp, uint32_t end)
{
	uint32_t i;

	for (i = qp->sq_ndone; i < end; i++)
		if (qp->sq[(qp->sq_head + i) % qp->sq_size].is_read)
			return 1;
	return 0;
}

/*
 * Requester: the header of a READ response for the WR at ring offset @off.
 * The WRs before it succeeded; its payload goes to the WR's scatter list.
 * Returns 1, or -EPROTO when the response does not match the WR.
 */
static int
softrdma_comp_read_resp(struct softrdma_qp *qp, struct softrdma_conn *c, uint32_t off)
{
	struct softrdma_swqe *e = &qp->sq[(qp->sq_head + off) % qp->sq_size];

	if (!e->is_read || e->is_atomic || e->byte_len != c->hdr.len || off < qp->sq_ndone ||
	    softrdma_sq_read_before(qp, off))
		return -EPROTO;
	while (qp->sq_ndone < off)
		softrdma_sq_complete_ok(qp);
	c->remaining = c->hdr.len;
	c->total = c->hdr.len;
	c->discard = 0;
	c->rx_status = softrdma_read_iov(qp, e, c);
	if (c->rx_status != IBV_WC_SUCCESS)
		c->discard = 1;
	c->rx = SOFTRDMA_RX_PAYLOAD;
	return 1;
}

/*
 * Requester: the header of an atomic response for the WR at ring offset
 * @off. The WRs before it succeeded; its 8 bytes are read into c->atomic.
 * Returns 1, or -EPROTO when the response does not match the WR.
 */
static int
softrdma_comp_atomic_resp(struct softrdma_qp *qp, struct softrdma_conn *c, uint32_t off)
{
	struct softrdma_swqe *e = &qp->sq[(qp->sq_head + off) % qp->sq_size];

	if (!e->is_atomic || off < qp->sq_ndone || softrdma_sq_read_before(qp, off))
		return -EPROTO;
	while (qp->sq_ndone < off)
		softrdma_sq_complete_ok(qp);
	c->iov[0].iov_base = c->atomic;
	c->iov[0].iov_len = SOFTRDMA_ATOMIC_LEN;
	c->iovcnt = 1;
	c->remaining = SOFTRDMA_ATOMIC_LEN;
	c->total = SOFTRDMA_ATOMIC_LEN;
	c->discard = 0;
	c->rx_status = IBV_WC_SUCCESS;
	c->rx = SOFTRDMA_RX_PAYLOAD;
	return 1;
}

/*
 * Requester: the original value of the atomic executing at the head of the
 * send queue arrived in c->atomic; write it, in host order, to the WR's
 * scatter list (8 bytes, checked at post). Returns the completion status.
 */
static int
softrdma_atomic_scatter(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_swqe *e = &qp->sq[(qp->sq_head + qp->sq_ndone) % qp->sq_size];
	uint64_t v = le64toh(c->atomic[0]);
	const char *src = (const char *)&v;
	size_t done = 0;
	uint32_t i;
	int st = IBV_WC_SUCCESS;

	for (i = 0; i < e->num_sge && st == IBV_WC_SUCCESS; i++) {
		struct ibv_sge *s = &e->sge[i];
		struct softrdma_mr *mr = softrdma__mr_get(s->lkey);
		size_t n = s->length < sizeof(v) - done ? s->length : sizeof(v) - done;

		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, s->addr, n, IBV_ACCESS_LOCAL_WRITE))
			st = IBV_WC_LOC_PROT_ERR;
		else
			memcpy(softrdma__mr_ptr(mr, s->addr), src + done, n);
		softrdma__mr_put();
		done += n;
	}
	return st;
}

/*
 * Requester: read one answer header and act on it. Returns 1 to go on (a
 * READ response leaves @c in SOFTRDMA_RX_PAYLOAD), 0 to stop (nothing to
 * read yet, end of stream, NAK), -errno when the connection failed.
 */
static int
softrdma_comp_hdr(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	uint32_t off;
	int r;

	r = softrdma__rx_hdr(c);
	if (r <= 0)
		return r;
	if (softrdma__wire_hdr_valid(h, 1))
		return -EPROTO;
	if (h->op == SOFTRDMA_OP_EOS) {
		/* responses to what is still outstanding will not come */
		softrdma__conn_eos(qp, c);
		return 0;
	}
	if (softrdma_sq_find(qp, h->seq, &off))
		return -EPROTO;
	if (h->op == SOFTRDMA_OP_ACK) {
		if (softrdma_sq_read_before(qp, off + 1))
			return -EPROTO; /* READs end with their response, never an ACK */
		softrdma_comp_ack(qp, h->seq);
		c->hhave = 0;
		return 1;
	}
	if (h->op == SOFTRDMA_OP_NAK) {
		if (softrdma_sq_read_before(qp, off))
			return -EPROTO;
		softrdma_comp_nak(qp, h->status, off);
		return 0;
	}
	if (h->op == SOFTRDMA_OP_ATOMIC_RESP)
		return softrdma_comp_atomic_resp(qp, c, off);
	return softrdma_comp_read_resp(qp, c, off);
}

/* Requester half: process responses arriving on the @out connection. */
int
softrdma__rx_requester(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	int r;

	for (;;) {
		if (c->rx == SOFTRDMA_RX_ANSWER) {
			r = softrdma__rx_answer(c);
			if (r <= 0)
				return r;
			continue;
		}
		if (c->rx == SOFTRDMA_RX_HDR) {
			r = softrdma_comp_hdr(qp, c);
			if (r <= 0)
				return r;
			if (c->rx == SOFTRDMA_RX_HDR)
				continue; /* an ACK: read the next answer */
		}
		r = softrdma__rx_payload(c, IBV_WC_LOC_PROT_ERR);
		if (r <= 0)
			return r;
		c->rx = SOFTRDMA_RX_HDR;
		c->hhave = 0;
		if (c->rx_status == IBV_WC_SUCCESS && c->hdr.op == SOFTRDMA_OP_ATOMIC_RESP)
			c->rx_status = softrdma_atomic_scatter(qp, c);
		if (c->rx_status != IBV_WC_SUCCESS) {
			softrdma__qp_set_error(qp, 1, c->rx_status);
			return 0;
		}
		softrdma_sq_complete_ok(qp);
	}
}
