/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels and completion queues.
 *
 * Threads: poll and notify come from any application thread (cq->lock,
 * a spin lock, guards the ring); the fork handlers run in fork() only;
 * a CQ is freed by ibv_destroy_cq, its user.
 */
#ifndef SOFTRDMA_CQ_H
#define SOFTRDMA_CQ_H

#include "softrdma.h"

int softrdma__poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int softrdma__req_notify_cq(struct ibv_cq *cq, int solicited_only);

/*
 * fork() handlers of the CQ event lock: prepare takes it, parent releases
 * it, child makes it and its condition anew.
 */
void softrdma__cq_fork_prepare(void);
void softrdma__cq_fork_parent(void);
void softrdma__cq_fork_child(void);
/*
 * Forked child, from the fork handler: make the locks of @cq, inherited
 * from the parent, anew (a thread of the parent may have held them).
 */
void softrdma__cq_fork_disown(struct ibv_cq *cq);
int softrdma__cq_push(struct ibv_cq *cq, const struct ibv_wc *wc);
int softrdma__cq_push_pos(struct ibv_cq *cq, const struct ibv_wc *wc, uint64_t *pos);
uint64_t softrdma__cq_consumed(struct ibv_cq *cq);
int softrdma__cq_attach(struct ibv_cq *cq, struct softrdma_qp *qp);
void softrdma__cq_detach(struct ibv_cq *cq, struct softrdma_qp *qp);

#endif
