/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wconn.h -- a connection owned by a worker: routing of its completions by
 * qp_num, its credits, its events, its closing: the internal functions
 * wconn.c defines (its public ones are in rpmaf.h, the layout in worker.h).
 *
 * Threads: only the worker's own thread calls these, without a lock (the
 * worker owns every field they touch); rpmaf__wconn_reap frees a closed
 * connection's slot back to the worker.
 */

#ifndef RPMAF_WORKERS_WCONN_H
#define RPMAF_WORKERS_WCONN_H

#include "worker.h"

/* rpmaf__wconn_init_slots -- chain the worker's free connection slots (at start) */
void rpmaf__wconn_init_slots(struct rpmaf_worker *w);

/* rpmaf__wconn_dispatch_send -- account for a send completion and hand it over */
void rpmaf__wconn_dispatch_send(struct rpmaf_worker *w, const struct ibv_wc *wc);

/* rpmaf__wconn_dispatch_recv -- hand a receive over, or hold it for attach */
void rpmaf__wconn_dispatch_recv(struct rpmaf_worker *w, const struct ibv_wc *wc);

/* rpmaf__wconn_events -- take and hand over the connection's events */
void rpmaf__wconn_events(struct rpmaf_wconn *wconn);

/* rpmaf__wconn_reap -- free the CLOSING connections a drained send CQ has released */
void rpmaf__wconn_reap(struct rpmaf_worker *w);

/* rpmaf__wconn_expire_early -- drop held receives older than the connect timeout */
void rpmaf__wconn_expire_early(struct rpmaf_worker *w, uint64_t now_ns);

#endif /* RPMAF_WORKERS_WCONN_H */
