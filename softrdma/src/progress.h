/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-process progress thread that serves the responder side of QPs.
 *
 * Threads: the progress thread runs the loop; the application's
 * threads call in under softrdma_prog.lock (taken here, after qp->lock);
 * the fork handlers run in fork() only; QPs the loop still sees are freed
 * by it (the grave list).
 */
#ifndef SOFTRDMA_PROGRESS_H
#define SOFTRDMA_PROGRESS_H

#include "softrdma.h"

/*
 * fork() handlers of the progress machinery: prepare takes
 * softrdma_prog.lock, parent releases it. The child (@dead: the
 * placeholder of softrdma__fd_disown) forgets the listeners and the
 * progress thread, closes its references to their sockets, the epoll set
 * and the doorbell, and disowns every inherited QP and connection: their
 * sockets become @dead, their rings are unmapped, their locks are made
 * anew. Nothing is freed that an inherited QP may still point to.
 */
void softrdma__progress_fork_prepare(void);
void softrdma__progress_fork_parent(void);
void softrdma__progress_fork_child(int dead);
int softrdma__progress_start(void);
int softrdma__progress_add_qp(struct softrdma_qp *qp, struct in_addr bind);
void softrdma__progress_del_qp(struct softrdma_qp *qp);
struct softrdma_qp *softrdma__progress_find_qp(uint32_t qpn);
int softrdma__progress_watch(struct softrdma_conn *c, uint32_t events);
void softrdma__progress_kick(void);
int softrdma__progress_bell(void);
void softrdma__progress_shm_add(struct softrdma_conn *c);
void softrdma__conn_close(struct softrdma_conn *c);

#endif
