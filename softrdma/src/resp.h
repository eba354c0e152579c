/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder: requests arriving on a QP's @in connection (resp.c).
 *
 * Threads: the progress thread, or an application thread moving
 * same-host rings, always with qp->lock held; nothing here frees the QP or
 * the connection (softrdma__conn_close and the progress thread do).
 */
#ifndef SOFTRDMA_RESP_H
#define SOFTRDMA_RESP_H

#include "softrdma.h"

/*
 * Serve the requests arriving on @c (qp->in) until nothing more can be
 * read, the responder waits for a receive WQE, the QP stops serving, or
 * the peer's end-of-stream marker arrives.
 * Returns 0, or -errno when the connection failed (-EPROTO: not a valid
 * request); the caller then fails the connection.
 * ASSUMPTIONS: qp->lock held (progress thread, or an application thread
 * moving same-host rings).
 */
int softrdma__rx_responder(struct softrdma_qp *qp, struct softrdma_conn *c);

/*
 * Progress thread: retry a responder of @qp waiting for a receive WQE; past
 * its RNR deadline the request fails with IBV_WC_RNR_RETRY_EXC_ERR. Lowers
 * *@next (0: none yet) to the nearest deadline still pending.
 * ASSUMPTIONS: qp->lock held.
 */
void softrdma__qp_check_rnr(struct softrdma_qp *qp, uint64_t now, uint64_t *next);

#endif
