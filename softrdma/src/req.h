/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester: posting send work requests (req.c).
 *
 * Threads: the application thread that posts, with qp->lock held; nothing
 * here frees (the QP's queues go with the QP).
 */
#ifndef SOFTRDMA_REQ_H
#define SOFTRDMA_REQ_H

#include "softrdma.h"

/*
 * Post one send WR: check it, give it a send-queue slot, and queue, write
 * or (same host) execute its request. A WR that fails once accepted (local
 * protection or length error, lost connection) completes with that error
 * and the QP enters the error state; the post itself succeeds. A QP in
 * the error state completes the WR flushed.
 * ASSUMPTIONS: qp->lock held; the caller then flushes qp->out
 * (softrdma__qp_flush_tx).
 * ERRORS: EINVAL (QP in RESET, INIT or RTR, too many SGEs, opcode not
 * supported, inline data over max_inline_data), ENOMEM (send queue full,
 * no memory for the request).
 */
int softrdma__post_one(struct softrdma_qp *qp, struct ibv_send_wr *wr);

/*
 * ops.post_send: post @wr and the WRs chained to it, then start sending.
 * ASSUMPTIONS: no lock held; takes qp->lock. Thread-safe.
 * ERRORS: those of softrdma__post_one; *@bad is then the first WR not
 * posted.
 */
int softrdma__post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);

#endif
