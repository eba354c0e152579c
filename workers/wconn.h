/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wconn.h -- a connection owned by a worker: routing of its completions by
 * qp_num, its credits, its events, its closing. The layout and the
 * functions the loop calls are in worker.h; the public ones in rpmaf.h.
 */

#ifndef RPMAF_WORKERS_WCONN_H
#define RPMAF_WORKERS_WCONN_H

#include "worker.h"

/* rpmaf__wconn_init_slots -- chain the worker's free connection slots (at start) */
void rpmaf__wconn_init_slots(struct rpmaf_worker *w);

#endif /* RPMAF_WORKERS_WCONN_H */
