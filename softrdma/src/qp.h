/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC queue pairs: creation, the state machine and destruction (qp.c).
 * ibv_create_qp, ibv_modify_qp, ibv_query_qp, ibv_destroy_qp and
 * ibv_query_qp_data_in_order are declared by <infiniband/verbs.h>.
 *
 * Threads: application threads, each function saying which locks it
 * wants (qp->lock first in softrdma.h's order); a QP is freed by the
 * progress thread after ibv_destroy_qp takes it off (softrdma.h).
 */
#ifndef SOFTRDMA_QP_H
#define SOFTRDMA_QP_H

#include "softrdma.h"

/*
 * verbs_context.create_qp_ex: create an RC QP in RESET, attached to its CQs
 * and numbered by the progress thread; @attr->cap gets what it grants.
 * ASSUMPTIONS: no lock held.
 * ERRORS: NULL with errno EOPNOTSUPP (comp_mask, create_flags or send_ops_flags this
 * device does not know, QP type other than RC), EINVAL (no PD, no CQ,
 * capabilities beyond the device's), ENOMEM, or the error of attaching the
 * QP to a CQ or to the progress thread.
 */
struct ibv_qp *softrdma__create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
/*
 * The same, for the CM (softrdma_cm_ops.create_qp): the QP's number comes
 * from a listener bound to @bind alone, so that its data connections
 * arrive only where its CM id is (INADDR_ANY: any address).
 */
struct ibv_qp *softrdma__create_qp_bound(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr,
					 struct in_addr bind);

/*
 * Move @qp to the error state: executed WRs at the head of the send queue
 * free their slots, the oldest outstanding one completes with @head when
 * @flush_head, every other WR of the send queue and of the QP's own
 * receive queue with IBV_WC_WR_FLUSH_ERR; both connections close after an
 * end-of-stream marker, so the peer notices.
 * ASSUMPTIONS: qp->lock held (application or progress thread).
 */
void softrdma__qp_set_error(struct softrdma_qp *qp, int flush_head, enum ibv_wc_status head);

/*
 * Make @qp's lock and its drain condition (on CLOCK_MONOTONIC) anew: at
 * creation, and in a forked child for an inherited QP.
 * ASSUMPTIONS: no other thread uses @qp.
 */
void softrdma__qp_init_locks(struct softrdma_qp *qp);

#endif
