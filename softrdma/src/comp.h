/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completions: work completions of a QP, the send queue's completion order
 * and the answers that complete the send queue's WRs (comp.c).
 *
 * Threads: called with qp->lock held (application thread or progress
 * thread, as each function says); completions go into the CQ under cq->lock
 * (softrdma.h's lock order); nothing here frees a QP or a CQ.
 */
#ifndef SOFTRDMA_COMP_H
#define SOFTRDMA_COMP_H

#include "softrdma.h"

/*
 * Push @wc, a completion of @qp, onto @cq (wc->qp_num is set here). When
 * @cq overflows, @qp enters the error state at once with
 * IBV_EVENT_QP_FATAL; the progress thread flushes it later.
 * ASSUMPTIONS: qp->lock held; takes cq->lock.
 */
void softrdma__complete(struct softrdma_qp *qp, struct ibv_cq *cq, struct ibv_wc *wc);

/*
 * Progress thread: a CQ @qp completes on overran; @qp (unless in RESET)
 * enters the error state with IBV_EVENT_QP_FATAL and is flushed.
 * ASSUMPTIONS: qp->lock held.
 */
void softrdma__qp_check_cq(struct softrdma_qp *qp);

/*
 * Retire the oldest send WR. One that executed already only frees its
 * slot; any other completes with @status if it is signaled or @status is
 * not IBV_WC_SUCCESS.
 * ASSUMPTIONS: qp->lock held; qp->sq_count > 0.
 */
void softrdma__sq_complete_head(struct softrdma_qp *qp, enum ibv_wc_status status);

/*
 * The WR @e of @qp executed (directly, or acknowledged by the responder):
 * it completes now if signaled, but keeps its slot, as on an RNIC, until
 * the application has polled that completion (softrdma__sq_retire).
 * ASSUMPTIONS: qp->lock held; @e is the oldest WR not executed yet.
 */
void softrdma__direct_done(struct softrdma_qp *qp, struct softrdma_swqe *e);

/*
 * Free the slots of executed WRs whose completions the application has
 * polled (and of the unsignaled ones before them).
 * ASSUMPTIONS: qp->lock held.
 */
void softrdma__sq_retire(struct softrdma_qp *qp);

/*
 * Requester: consume what arrives on @c (qp->out): the answer to the hello,
 * then ACKs, NAKs, READ and atomic responses, completing the WRs they name.
 * Returns 0, or -errno when the connection failed (-EPROTO: an answer that
 * matches no outstanding WR); the caller then fails the connection.
 * ASSUMPTIONS: qp->lock held (progress thread, or an application thread
 * moving same-host rings).
 */
int softrdma__rx_requester(struct softrdma_qp *qp, struct softrdma_conn *c);

#endif
