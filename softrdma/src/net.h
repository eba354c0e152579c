/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data connections of a QP (net.c): transmit buffers, reading headers
 * and payloads, end-of-stream markers, connecting at RTR, and the events the
 * progress thread dispatches. Unless said otherwise, every function here
 * is called with the lock of the QP that @c belongs to held: see the
 * lifetime of a connection in softrdma.h.
 */
#ifndef SOFTRDMA_NET_H
#define SOFTRDMA_NET_H

#include "softrdma.h"

/*
 * A transmit buffer holding @hdr (stored little-endian) followed by room
 * for @payload bytes; NULL when out of memory. The caller queues it with
 * softrdma__conn_send or on c->txq, or frees it.
 * ASSUMPTIONS: none (no lock needed).
 */
struct softrdma_txbuf *softrdma__txbuf_new(const struct softrdma_wire_hdr *hdr, size_t payload);

/*
 * Whether the requests queued on @c must wait for the answers queued on the
 * QP's responder connection: the peer must see its ACKs before any later
 * request of this side.
 */
int softrdma__requests_held(struct softrdma_conn *c);

/* The epoll events @c needs right now. */
uint32_t softrdma__conn_want(struct softrdma_conn *c);

/*
 * Whether the peer's ring holds data @c should consume now.
 * ASSUMPTIONS: the lock of @c's QP is held.
 */
int softrdma__qp_conn_wants_rx(struct softrdma_conn *c);

/*
 * Application thread, from an empty CQ poll: move the rings of @qp's
 * same-host connections.
 * ASSUMPTIONS: cq->qps_lock held, qp->lock not held: it is only tried,
 * and nothing is done when another thread holds it.
 */
void softrdma__qp_app_progress(struct softrdma_qp *qp);

/*
 * Write the buffers queued on @c without blocking (requests stay behind
 * queued answers, and behind the hello until its answer) and keep EPOLLOUT
 * armed for the rest.
 * ERRORS: the errno of a failed send; the caller then fails @c.
 */
int softrdma__qp_flush_tx(struct softrdma_conn *c);

/* Queue @b on @c, and write it at once when nothing was queued before it. */
void softrdma__conn_send(struct softrdma_conn *c, struct softrdma_txbuf *b);

/*
 * Close both connections of @qp, each after an end-of-stream marker (the
 * requests still queued whole on @out are dropped); the same-host
 * requester loses direct access at once.
 */
void softrdma__qp_close_conns(struct softrdma_qp *qp);

/*
 * Requests outstanding to a peer whose QP left RTS fail, like unanswered
 * retries, at a deadline the progress thread watches
 * (softrdma__qp_check_eos) unless a disconnect flushes them first.
 */
void softrdma__qp_arm_eos_timer(struct softrdma_qp *qp);

/* The end-of-stream marker arrived on @c, a connection of @qp: stop reading it. */
void softrdma__conn_eos(struct softrdma_qp *qp, struct softrdma_conn *c);

/*
 * CM disconnect: let the progress thread consume what the peer sent up to
 * its end-of-stream markers, for at most one second, so a dead peer still
 * ends in flush errors soon.
 * ASSUMPTIONS: application thread; qp->lock held, released while waiting
 * (on qp->drain_cond), held again on return.
 */
void softrdma__qp_drain(struct softrdma_qp *qp);

/*
 * Progress thread: fail @qp's outstanding requests (IBV_WC_RETRY_EXC_ERR)
 * once the deadline set by softrdma__qp_arm_eos_timer passed. Lowers *@next
 * (0: none yet) to that deadline while it is pending.
 */
void softrdma__qp_check_eos(struct softrdma_qp *qp, uint64_t now, uint64_t *next);

/*
 * Receive the rest of the payload of @c into c->iov, or discard it. Memory
 * that faults turns the rest into a discard with @local_fault_status.
 * Returns 1 when the payload is complete, 0 when more must arrive first,
 * -errno when the connection failed.
 */
int softrdma__rx_payload(struct softrdma_conn *c, int local_fault_status);

/*
 * Receive the rest of a message header on @c into c->hdr (host order).
 * Returns 1 when complete, 0 when more must arrive first, -errno when the
 * connection failed.
 */
int softrdma__rx_hdr(struct softrdma_conn *c);

/*
 * Requester: receive the responder's answer to the hello on @c, which
 * says whether the connection goes on over rings, then send what waited.
 * Returns 1 when done, 0 when more must arrive first, -errno when the
 * connection failed or the answer is not acceptable.
 */
int softrdma__rx_answer(struct softrdma_conn *c);

/*
 * @c failed, or the peer went away, with @err: the QP enters the error
 * state (outstanding requests fail with IBV_WC_RETRY_EXC_ERR), except
 * when not connected yet, idle (the loss shows on the next request), or
 * after the peer's end-of-stream marker or during a disconnect. @c closes.
 */
void softrdma__qp_conn_failed(struct softrdma_conn *c, int err);

/*
 * @c is readable: run the requester or the responder half on it, then fail
 * @c if that failed, or update its epoll interest.
 */
void softrdma__qp_conn_readable(struct softrdma_conn *c);

/*
 * @c is writable or finished connecting: write what is queued, then the
 * requests that waited behind the answers written.
 */
void softrdma__qp_conn_writable(struct softrdma_conn *c);

/*
 * At RTR: create @qp's requester connection (qp->out), start connecting it
 * to the peer QP and queue the hello.
 * ASSUMPTIONS: qp->lock held; qp->out is NULL.
 * ERRORS: ENOMEM, the errno of socket(2) or connect(2), or the error of
 * watching the connection in the progress thread.
 */
int softrdma__qp_connect(struct softrdma_qp *qp);

#endif
