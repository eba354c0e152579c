/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder: requests arriving on a QP's @in connection, served by the
 * progress thread (or by an application thread moving same-host rings), so
 * one-sided operations never need the application's threads. WRITEs and
 * READs go to and from registered memory; SENDs and WRITEs with immediate
 * take a receive WQE, waiting (receiver not ready) while there is none.
 * Atomics execute here, on the responder's own memory, with the CPU's
 * atomic instructions. Answers (ACK, NAK, READ and atomic responses) go
 * back on @in.
 */
#include <endian.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comp.h"
#include "mr.h"
#include "net.h"
#include "qp.h"
#include "resp.h"
#include "shm.h"
#include "srq.h"

/* RNR timer in nanoseconds from the IB encoding of min_rnr_timer. */
static uint64_t
softrdma_rnr_ns(uint8_t t)
{
	static const uint32_t us[32] = {
	    655360, 10,	   20,	  30,	 40,	60,	80,	120,	160,	240,   320,
	    480,    640,   960,	  1280,	 1920,	2560,	3840,	5120,	7680,	10240, 15360,
	    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

	return (uint64_t)us[t & 31] * 1000;
}

/* Prepare the scatter list of a receive WQE for an incoming SEND. */
static int
softrdma_rwqe_iov(struct softrdma_qp *qp, struct softrdma_rwqe *w, struct softrdma_conn *c,
		  size_t len)
{
	size_t room = 0;
	uint32_t i;

	c->iovcnt = 0;
	for (i = 0; i < w->num_sge && room < len; i++) {
		struct softrdma_mr *mr = softrdma__mr_get(w->sge[i].lkey);
		size_t take;

		if (!w->sge[i].length) {
			softrdma__mr_put();
			continue;
		}
		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, w->sge[i].addr, w->sge[i].length,
				       IBV_ACCESS_LOCAL_WRITE)) {
			softrdma__mr_put();
			return IBV_WC_LOC_PROT_ERR;
		}
		take = len - room < w->sge[i].length ? len - room : w->sge[i].length;
		c->iov[c->iovcnt].iov_base = softrdma__mr_ptr(mr, w->sge[i].addr);
		c->iov[c->iovcnt].iov_len = take;
		c->iovcnt++;
		room += take;
		softrdma__mr_put();
	}
	return room < len ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS;
}

/* Responder: a request header was received; set up its payload handling. */
static void
softrdma_resp_start(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct softrdma_mr *mr;
	int need;

	c->remaining = h->len;
	c->total = h->len;
	c->discard = 0;
	c->rx_status = IBV_WC_SUCCESS;
	c->iovcnt = 0;
	if (h->op == SOFTRDMA_OP_CMP_SWAP || h->op == SOFTRDMA_OP_FETCH_ADD) {
		/* the operands; the target is checked once they are here */
		c->iov[0].iov_base = c->atomic;
		c->iov[0].iov_len = sizeof(c->atomic);
		c->iovcnt = 1;
	} else if (h->op == SOFTRDMA_OP_WRITE || h->op == SOFTRDMA_OP_WRITE_IMM ||
		   h->op == SOFTRDMA_OP_READ_REQ) {
		int is_read = h->op == SOFTRDMA_OP_READ_REQ;
		uint64_t len = is_read ? h->rlen : h->len;

		need = is_read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
		if (!(qp->access & need)) {
			c->rx_status = IBV_WC_REM_INV_REQ_ERR;
		} else if (len) {
			mr = softrdma__mr_get(h->rkey);
			if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, h->raddr, len, need))
				c->rx_status = IBV_WC_REM_ACCESS_ERR;
			else if (!is_read) {
				c->iov[0].iov_base = softrdma__mr_ptr(mr, h->raddr);
				c->iov[0].iov_len = len;
				c->iovcnt = 1;
			} else {
				c->iov[0].iov_base = softrdma__mr_ptr(mr, h->raddr);
				c->iov[0].iov_len = len;
			}
			softrdma__mr_put();
		}
	}
	if (c->rx_status != IBV_WC_SUCCESS)
		c->discard = 1;
	/* a WRITE with immediate refused already takes no receive WQE: the QP stops */
	if (h->op == SOFTRDMA_OP_SEND || h->op == SOFTRDMA_OP_SEND_IMM ||
	    (h->op == SOFTRDMA_OP_WRITE_IMM && c->rx_status == IBV_WC_SUCCESS)) {
		c->rx = SOFTRDMA_RX_WAIT_RWQE;
		/* tells the progress thread's rescan to look at this QP */
		__atomic_store_n(&qp->rnr_waiting, 1, __ATOMIC_RELAXED);
	} else
		c->rx = SOFTRDMA_RX_PAYLOAD;
	c->rnr_deadline = 0;
}

/* Responder: get a receive WQE for a SEND/WRITE_IMM; 0 when still waiting. */
static int
softrdma_resp_rwqe(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct {
		struct softrdma_rwqe w;
		struct ibv_sge sge[SOFTRDMA_MAX_SGE];
	} w;
	struct ibv_wc wc;
	int st;

	if (softrdma__take_rwqe(qp, &w.w)) {
		uint64_t now = softrdma__now_ns();

		if (c->hdr.rnr_retry < 7 && !c->rnr_deadline)
			c->rnr_deadline =
			    now + (c->hdr.rnr_retry + 1) * softrdma_rnr_ns(qp->min_rnr_timer);
		return 0;
	}
	c->rwqe_id = w.w.wr_id;
	c->rx = SOFTRDMA_RX_PAYLOAD;
	qp->rwqe_held = 1;
	qp->rwqe_held_id = c->rwqe_id;
	if (c->rx_status != IBV_WC_SUCCESS || c->hdr.op == SOFTRDMA_OP_WRITE_IMM)
		return 1;
	st = softrdma_rwqe_iov(qp, &w.w, c, c->hdr.len);
	if (st != IBV_WC_SUCCESS) {
		qp->rwqe_held = 0;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = c->rwqe_id;
		wc.status = st;
		wc.opcode = IBV_WC_RECV;
		wc.vendor_err = 0x1;
		softrdma__complete(qp, qp->qpx.qp_base.recv_cq, &wc);
		c->rx_status =
		    st == IBV_WC_LOC_LEN_ERR ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_OP_ERR;
		c->rwqe_id = 0;
		c->discard = 2;
	}
	return 1;
}

/* Send a response (ACK/NAK) with @seq on the responder connection. */
static void
softrdma_respond(struct softrdma_qp *qp, uint8_t op, uint32_t seq, uint8_t status)
{
	struct softrdma_wire_hdr h = {.op = op, .seq = seq, .status = status};
	struct softrdma_conn *c = qp->in;
	struct softrdma_txbuf *b;

	if (!c)
		return;
	if (c->shm && softrdma__list_empty(&c->txq) && softrdma__shm_tx_space(c) != UINT32_MAX &&
	    softrdma__shm_tx_space(c) >= sizeof(h)) {
		/* same host: straight into the ring, nothing allocated */
		uint64_t at = softrdma__shm_tail(c);

		softrdma__wire_hdr_to_le(&h);
		softrdma__shm_put(c, at, &h, sizeof(h));
		softrdma__shm_commit(c, at + sizeof(h));
		return;
	}
	b = softrdma__txbuf_new(&h, 0);
	if (b)
		softrdma__conn_send(qp->in, b);
}

/*
 * Responder, before delivering a message of the peer: take in the responses
 * the peer sent earlier on the requester connection. The peer sends its
 * ACKs before any later request (softrdma__qp_flush_tx holds requests
 * behind queued responses), so a SEND or WRITE of this side completes, as
 * on an RNIC, before the peer's next message is seen here.
 */
static void
softrdma_pull_responses(struct softrdma_qp *qp)
{
	struct softrdma_conn *o = qp->out;

	if (qp->sq_ndone == qp->sq_count || !o || o->dead || o->connecting || o->eos)
		return;
	softrdma__qp_conn_readable(o);
}

/* Responder: a request failed; answer it with a NAK, then stop the QP. */
static void
softrdma_resp_fail(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	/* answer, then the responder QP enters the error state too */
	softrdma_respond(qp, SOFTRDMA_OP_NAK, c->hdr.seq, c->rx_status);
	if (qp->in)
		softrdma__qp_flush_tx(qp->in);
	softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
}

/* Responder: answer a READ request with the bytes it names. */
static void
softrdma_resp_read(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct softrdma_wire_hdr r = {.op = SOFTRDMA_OP_READ_RESP, .seq = h->seq, .len = h->rlen};
	struct softrdma_txbuf *b = softrdma__txbuf_new(&r, h->rlen);

	if (!b) {
		softrdma_respond(qp, SOFTRDMA_OP_NAK, h->seq, IBV_WC_REM_OP_ERR);
		return;
	}
	if (softrdma__safe_read(b->data + sizeof(r), c->iov[0].iov_base, h->rlen)) {
		free(b);
		c->rx_status = IBV_WC_REM_ACCESS_ERR;
		softrdma_resp_fail(qp, c);
		return;
	}
	softrdma__conn_send(c, b);
}

/*
 * Responder: whether the 8 bytes at @target may be written atomically now.
 * Registration pins nothing: the memory may have been unmapped or made
 * read-only since, and an atomic instruction there would crash this
 * process. The kernel adds 0 to its first word with an atomic instruction
 * of its own (FUTEX_WAKE_OP, waking nobody), which changes nothing and
 * reports a fault as EFAULT instead.
 */
static int
softrdma_atomic_writable(uint64_t *target)
{
	uint32_t none = 0;
	long r = syscall(SYS_futex, &none, FUTEX_WAKE_OP_PRIVATE, 0, (void *)0, target,
			 FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0));
	uint64_t v;

	if (r >= 0)
		return 1;
	if (errno == EFAULT)
		return 0;
	/* no such operation here: at least make sure the memory is there */
	return !softrdma__safe_read(&v, target, sizeof(v));
}

/*
 * Responder: run the atomic @op of a request with the operands @args (wire
 * order) on @target, 8-byte aligned; returns the original value.
 */
static uint64_t
softrdma_atomic_exec(uint8_t op, uint64_t *target, const uint64_t args[2])
{
	uint64_t orig = le64toh(args[0]);

	if (op == SOFTRDMA_OP_FETCH_ADD)
		return __atomic_fetch_add(target, orig, __ATOMIC_SEQ_CST);
	/* on failure @orig gets the value found; on success it is that value already */
	__atomic_compare_exchange_n(target, &orig, le64toh(args[1]), 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return orig;
}

/*
 * Responder: check the target of an atomic request and execute it, with
 * the MR table held so the region stays registered meanwhile. Returns the
 * status: IBV_WC_REM_INV_REQ_ERR when the QP does not allow remote atomics
 * or the target is not 8-byte aligned, IBV_WC_REM_ACCESS_ERR for a bad
 * key, range or access, or memory no longer mapped or writable.
 */
static int
softrdma_atomic_run(struct softrdma_qp *qp, struct softrdma_conn *c, uint64_t *orig)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct softrdma_mr *mr;
	uint64_t *target;
	int st = IBV_WC_SUCCESS;

	if (!(qp->access & IBV_ACCESS_REMOTE_ATOMIC))
		return IBV_WC_REM_INV_REQ_ERR;
	mr = softrdma__mr_get(h->rkey);
	if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, h->raddr, SOFTRDMA_ATOMIC_LEN,
			       IBV_ACCESS_REMOTE_ATOMIC)) {
		st = IBV_WC_REM_ACCESS_ERR;
		goto out;
	}
	target = softrdma__mr_ptr(mr, h->raddr);
	if ((h->raddr & 7) || ((uintptr_t)target & 7)) {
		st = IBV_WC_REM_INV_REQ_ERR;
		goto out;
	}
	if (!softrdma_atomic_writable(target)) {
		st = IBV_WC_REM_ACCESS_ERR;
		goto out;
	}
	*orig = softrdma_atomic_exec(h->op, target, c->atomic);
out:
	softrdma__mr_put();
	return st;
}

/*
 * Responder: execute an atomic request and answer it with the original
 * value, or fail it. The response is allocated first: an atomic that ran
 * is never reported as failed.
 */
static void
softrdma_resp_atomic(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct softrdma_wire_hdr r = {
	    .op = SOFTRDMA_OP_ATOMIC_RESP, .seq = h->seq, .len = SOFTRDMA_ATOMIC_LEN};
	struct softrdma_txbuf *b = softrdma__txbuf_new(&r, SOFTRDMA_ATOMIC_LEN);
	uint64_t orig = 0;

	if (!b) {
		softrdma_respond(qp, SOFTRDMA_OP_NAK, h->seq, IBV_WC_REM_OP_ERR);
		return;
	}
	c->rx_status = softrdma_atomic_run(qp, c, &orig);
	if (c->rx_status != IBV_WC_SUCCESS) {
		free(b);
		softrdma_resp_fail(qp, c);
		return;
	}
	orig = htole64(orig);
	memcpy(b->data + sizeof(r), &orig, sizeof(orig));
	softrdma__conn_send(c, b);
}

/* Responder: the receive completion of a SEND or a WRITE with immediate. */
static void
softrdma_resp_recv_wc(struct softrdma_qp *qp, struct softrdma_conn *c, struct ibv_wc *wc)
{
	struct softrdma_wire_hdr *h = &c->hdr;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = c->rwqe_id;
	wc->status = IBV_WC_SUCCESS;
	wc->byte_len = h->len;
	wc->src_qp = qp->dest_qpn;
	if (h->op == SOFTRDMA_OP_WRITE_IMM) {
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	} else {
		wc->opcode = IBV_WC_RECV;
	}
	if (h->op != SOFTRDMA_OP_SEND) {
		wc->wc_flags = IBV_WC_WITH_IMM;
		wc->imm_data = h->imm;
	}
}

/* Responder: the whole request was consumed; complete and answer it. */
static void
softrdma_resp_finish(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct ibv_wc wc;

	c->rx = SOFTRDMA_RX_HDR;
	c->hhave = 0;
	if (c->rx_status != IBV_WC_SUCCESS) {
		softrdma_resp_fail(qp, c);
		return;
	}
	if (h->op == SOFTRDMA_OP_READ_REQ) {
		softrdma_resp_read(qp, c);
		return;
	}
	if (h->op == SOFTRDMA_OP_CMP_SWAP || h->op == SOFTRDMA_OP_FETCH_ADD) {
		softrdma_resp_atomic(qp, c);
		return;
	}
	if (h->op != SOFTRDMA_OP_WRITE)
		softrdma_resp_recv_wc(qp, c, &wc);
	/*
	 * Acknowledge before the receive completes: the application may exit
	 * as soon as it sees the completion, and the sender must still get
	 * its ACK (as the hardware sends it before the CQE is written).
	 */
	if (h->flags & SOFTRDMA_WF_ACK_REQ)
		softrdma_respond(qp, SOFTRDMA_OP_ACK, h->seq, 0);
	if (h->op != SOFTRDMA_OP_WRITE) {
		/* completed here, even if pulling the responses stops the QP */
		qp->rwqe_held = 0;
		softrdma_pull_responses(qp);
		softrdma__complete(qp, qp->qpx.qp_base.recv_cq, &wc);
	}
}

/* Responder half: process requests arriving on the @in connection. */
int
softrdma__rx_responder(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	int r;

	for (;;) {
		enum ibv_qp_state st = qp->qpx.qp_base.state;

		if (st == IBV_QPS_RESET || st == IBV_QPS_INIT || st == IBV_QPS_ERR)
			return 0;
		if (c->rx == SOFTRDMA_RX_HDR) {
			r = softrdma__rx_hdr(c);
			if (r <= 0)
				return r;
			if (softrdma__wire_hdr_valid(&c->hdr, 0))
				return -EPROTO;
			if (c->hdr.op == SOFTRDMA_OP_EOS) {
				softrdma__conn_eos(qp, c);
				return 0;
			}
			softrdma_resp_start(qp, c);
		}
		if (c->rx == SOFTRDMA_RX_WAIT_RWQE && !softrdma_resp_rwqe(qp, c))
			return 0;
		r = softrdma__rx_payload(c, c->hdr.op == SOFTRDMA_OP_SEND ||
						    c->hdr.op == SOFTRDMA_OP_SEND_IMM
						? IBV_WC_REM_OP_ERR
						: IBV_WC_REM_ACCESS_ERR);
		if (r <= 0)
			return r;
		softrdma_resp_finish(qp, c);
		if (qp->in != c)
			return 0;
	}
}

/* Progress thread: retry a responder stalled for a receive WQE, or time it out. */
void
softrdma__qp_check_rnr(struct softrdma_qp *qp, uint64_t now, uint64_t *next)
{
	struct softrdma_conn *c = qp->in;

	if (c && !c->dead && c->rx == SOFTRDMA_RX_WAIT_RWQE)
		softrdma__qp_conn_readable(c);
	c = qp->in;
	if (!c || c->dead || c->rx != SOFTRDMA_RX_WAIT_RWQE) {
		__atomic_store_n(&qp->rnr_waiting, 0, __ATOMIC_RELAXED);
		return;
	}
	if (!c->rnr_deadline)
		return;
	if (now >= c->rnr_deadline) {
		/* receiver not ready too long: the requester gets RNR retry exceeded */
		c->rx_status = IBV_WC_RNR_RETRY_EXC_ERR;
		c->discard = 1;
		c->rx = SOFTRDMA_RX_PAYLOAD;
		softrdma__qp_conn_readable(c);
		return;
	}
	if (!*next || c->rnr_deadline < *next)
		*next = c->rnr_deadline;
}
