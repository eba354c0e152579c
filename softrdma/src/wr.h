/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended post interface of struct ibv_qp_ex (wr.c); ibv_qp_to_qp_ex
 * is declared by <infiniband/verbs.h>.
 *
 * Threads: called once while the QP is created (no other thread sees it);
 * the wr_* calls then run on the posting thread with qp->lock taken inside;
 * the batch buffers are freed by ibv_destroy_qp.
 */
#ifndef SOFTRDMA_WR_H
#define SOFTRDMA_WR_H

#include "softrdma.h"

/*
 * Fill the wr_* entry points of @qp->qpx. The batch buffers they use are
 * allocated by ibv_qp_to_qp_ex and freed by ibv_destroy_qp.
 * ASSUMPTIONS: @qp is being created and not handed to the application yet.
 */
void softrdma__qpx_init(struct softrdma_qp *qp);

#endif
