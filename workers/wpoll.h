/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wpoll.h -- a worker's loop: the functions poll.c defines (not named
 * poll.h, which would hide <poll.h> on the -Iworkers path).
 *
 * Threads: rpmaf__worker_loop runs on the worker's own thread and is the
 * only caller of what it touches (no lock); rpmaf__worker_drain_events is
 * called by worker_fini, on the thread that deletes the worker, once the
 * loop has ended (or never started).
 * Nothing here frees: the worker's owner does (rpmaf_worker_delete).
 */

#ifndef RPMAF_WORKERS_WPOLL_H
#define RPMAF_WORKERS_WPOLL_H

#include "worker.h"

/* rpmaf__worker_loop -- the thread's loop, until stop is set */
void rpmaf__worker_loop(struct rpmaf_worker *w);

/*
 * rpmaf__worker_drain_events -- take every pending event of the completion
 * channel (each one re-arms its CQ, which becomes due): all are
 * acknowledged before the CQs are destroyed.
 */
void rpmaf__worker_drain_events(struct rpmaf_worker *w);

#endif /* RPMAF_WORKERS_WPOLL_H */
