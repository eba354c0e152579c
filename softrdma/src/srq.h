/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive queues of QPs and shared receive queues (srq.c). ibv_create_srq,
 * ibv_modify_srq, ibv_query_srq and ibv_destroy_srq are declared by
 * <infiniband/verbs.h>.
 *
 * Threads: application threads and the progress thread; srq->lock guards
 * an SRQ's queue, qp->lock a QP's own receive queue; an SRQ is freed by
 * ibv_destroy_srq, its user, a receive queue with its owner.
 */
#ifndef SOFTRDMA_SRQ_H
#define SOFTRDMA_SRQ_H

#include "softrdma.h"

/*
 * Allocate the slots of the empty receive queue @rq: @size WQEs of
 * @max_sge SGEs each (at least one of both).
 * ASSUMPTIONS: @rq is not reachable by other threads yet (QP or SRQ
 * creation); its owner frees rq->slots.
 * ERRORS: ENOMEM.
 */
int softrdma__rq_alloc(struct softrdma_rq *rq, uint32_t size, uint32_t max_sge);

/*
 * Complete with IBV_WC_WR_FLUSH_ERR the receive WQE the responder of @qp
 * held for a message that did not finish (qp->rwqe_held), then every
 * receive WQE of @qp's own receive queue (none when @qp takes its WQEs
 * from an SRQ).
 * ASSUMPTIONS: qp->lock held.
 */
void softrdma__rq_flush(struct softrdma_qp *qp);

/*
 * Responder: pop the oldest receive WQE of @qp (from its SRQ or its own
 * queue) into @out, which has room for SOFTRDMA_MAX_SGE SGEs. An SRQ
 * whose limit is armed raises IBV_EVENT_SRQ_LIMIT_REACHED once it holds
 * fewer WQEs than the limit. An empty SRQ remembers that a responder
 * waits, for softrdma__post_srq_recv() to wake the progress thread.
 * ASSUMPTIONS: qp->lock held; takes and releases srq->lock.
 * ERRORS: ENOENT when the queue is empty (receiver not ready).
 */
int softrdma__take_rwqe(struct softrdma_qp *qp, struct softrdma_rwqe *out);

/*
 * ops.post_recv: append @wr and the WRs chained to it to the receive queue
 * of @qp; a QP in the error state flushes them at once, and a responder
 * waiting for a WQE is woken.
 * ASSUMPTIONS: no lock held; takes qp->lock. Thread-safe.
 * ERRORS: EINVAL (the QP uses an SRQ or is in RESET, too many SGEs),
 * ENOMEM (queue full); *@bad is then the first WR not posted.
 */
int softrdma__post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

/*
 * ops.post_srq_recv: append @wr and the WRs chained to it to @srq, then
 * wake the progress thread when a responder found @srq empty since the
 * last post (it waits for a WQE); a post nobody waits for makes no system
 * call.
 * ASSUMPTIONS: no lock held; takes srq->lock. Thread-safe.
 * ERRORS: EINVAL (too many SGEs), ENOMEM (queue full); *@bad is then the
 * first WR not posted.
 */
int softrdma__post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

#endif
