/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * submit.h -- work submitted to a worker by other threads: a wait-free
 * multi-producer, single-consumer queue of caller-owned nodes (liburcu's
 * wfcqueue) and an eventfd that wakes the worker only when it sleeps.
 *
 * The wake-up handshake (no lost wake-up, no write per submission):
 *   worker:    sleeping = 1 (atomic exchange); look at the queue again; sleep
 *              only if it is empty; sleeping = 0 once awake
 *   producer:  count the push, enqueue (a full barrier); if sleeping,
 *              exchange it to 0 and, when it was 1, write the eventfd
 * Either the producer sees sleeping == 1 and wakes the worker, or the
 * worker's second look sees the node.
 *
 * CONTRACTS: rpmaf__submitq_push() from any thread; everything else from
 * the consumer (the worker) only.
 */

#ifndef RPMAF_WORKERS_SUBMIT_H
#define RPMAF_WORKERS_SUBMIT_H

#include <stdatomic.h>
#include <stdbool.h>

#include <urcu/wfcqueue.h>

#include "rpmaf.h"

/* what a struct rpmaf_work holds */
struct rpmaf__work {
	struct cds_wfcq_node node;
	rpmaf_work_fn fn;
	void *arg;
};

struct rpmaf__submitq {
	struct __cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	int efd;	       /* eventfd, non-blocking */
	atomic_int sleeping;   /* the consumer is (about to be) asleep */
	atomic_ulong wakeups;  /* eventfd writes (statistics) */
	atomic_ulong accepted; /* nodes enqueued, counted before the enqueue */
	unsigned long ran;     /* nodes run: the consumer's */
};

/* rpmaf__submitq_init -- an empty queue and its eventfd. ERRORS: RPMAF_E_SYS (eventfd) */
int rpmaf__submitq_init(struct rpmaf__submitq *q);

/* rpmaf__submitq_fini -- close the eventfd; the queue must be empty */
void rpmaf__submitq_fini(struct rpmaf__submitq *q);

/*
 * rpmaf__submitq_push -- queue fn(owner, arg) on work; wake the consumer
 * when it sleeps. Lock-free (wait-free enqueue), no allocation; any thread.
 * work must stay valid until fn starts. ERRORS: RPMAF_E_INVAL (work or fn NULL).
 */
int rpmaf__submitq_push(struct rpmaf__submitq *q, struct rpmaf_work *work, rpmaf_work_fn fn,
			void *arg);

/*
 * rpmaf__submitq_run -- run up to max queued functions, oldest first, with
 * owner as their worker. Returns how many ran. A producer caught between
 * its two steps of the enqueue is not waited for: rpmaf__submitq_pending()
 * is then still true and the next call takes the node.
 */
unsigned rpmaf__submitq_run(struct rpmaf__submitq *q, struct rpmaf_worker *owner, unsigned max);

/*
 * rpmaf__submitq_pending -- something was pushed that has not run yet (a
 * push counts before it enqueues, so one half-way is pending too): what the
 * consumer's loop asks on every turn, in a load and a compare. Its load is
 * sequentially consistent: after rpmaf__submitq_sleep_begin() either it
 * sees a push or that push sees the sleep (see the handshake above).
 */
static inline bool
rpmaf__submitq_pending(struct rpmaf__submitq *q)
{
	return atomic_load(&q->accepted) != q->ran;
}

/*
 * rpmaf__submitq_sleep_begin -- announce the consumer is going to sleep:
 * from now on producers write the eventfd. The caller must then look at the
 * queue (and everything else that may wake it) once more before sleeping.
 */
void rpmaf__submitq_sleep_begin(struct rpmaf__submitq *q);

/* rpmaf__submitq_sleep_end -- the consumer is awake; empty the eventfd if it was written */
void rpmaf__submitq_sleep_end(struct rpmaf__submitq *q, bool efd_readable);

#endif /* RPMAF_WORKERS_SUBMIT_H */
