// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * submit.c -- cross-thread submission to a worker.
 */

#include <assert.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "submit.h"

static_assert(sizeof(struct rpmaf__work) <= sizeof(struct rpmaf_work),
	      "struct rpmaf_work too small for the submission node");

/*
 * liburcu is not instrumented for ThreadSanitizer: tell it that the
 * enqueue of a node happens before its dequeue.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SUBMIT_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SUBMIT_TSAN 1
#endif

#ifdef SUBMIT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(p) __tsan_acquire(p)
#define tsan_release(p) __tsan_release(p)
#else
#define tsan_acquire(p) ((void)(p))
#define tsan_release(p) ((void)(p))
#endif

/* see submit.h */
int
rpmaf__submitq_init(struct rpmaf__submitq *q)
{
	__cds_wfcq_init(&q->head, &q->tail);
	atomic_init(&q->sleeping, 0);
	atomic_init(&q->wakeups, 0);
	atomic_init(&q->accepted, 0);
	q->ran = 0;
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return q->efd < 0 ? RPMAF_E_SYS : 0;
}

/* see submit.h */
void
rpmaf__submitq_fini(struct rpmaf__submitq *q)
{
	if (q->efd >= 0)
		close(q->efd);
	q->efd = -1;
}

/* see submit.h */
int
rpmaf__submitq_push(struct rpmaf__submitq *q, struct rpmaf_work *work, rpmaf_work_fn fn, void *arg)
{
	struct rpmaf__work *w = (struct rpmaf__work *)work;

	if (!work || !fn)
		return RPMAF_E_INVAL;
	cds_wfcq_node_init(&w->node);
	w->fn = fn;
	w->arg = arg;
	/* counted first, sequentially consistent: rpmaf__submitq_pending() */
	atomic_fetch_add(&q->accepted, 1);
	tsan_release(w);
	/* the enqueue's exchange is a full barrier: ordered before the load below */
	(void)cds_wfcq_enqueue(&q->head, &q->tail, &w->node);
	if (atomic_load(&q->sleeping) && atomic_exchange(&q->sleeping, 0)) {
		uint64_t one = 1;

		atomic_fetch_add_explicit(&q->wakeups, 1, memory_order_relaxed);
		/* a full counter (EAGAIN) is already a wake-up */
		(void)!write(q->efd, &one, sizeof(one));
	}
	return 0;
}

/* see submit.h */
unsigned
rpmaf__submitq_run(struct rpmaf__submitq *q, struct rpmaf_worker *owner, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		struct cds_wfcq_node *node = __cds_wfcq_dequeue_nonblocking(&q->head, &q->tail);

		if (!node || node == CDS_WFCQ_WOULDBLOCK)
			break;
		struct rpmaf__work *w = caa_container_of(node, struct rpmaf__work, node);

		tsan_acquire(w);
		/* fn may reuse or free the node: read it first */
		rpmaf_work_fn fn = w->fn;
		void *arg = w->arg;

		q->ran++;
		fn(owner, arg);
		n++;
	}
	return n;
}

/* see submit.h */
void
rpmaf__submitq_sleep_begin(struct rpmaf__submitq *q)
{
	/* an exchange: a full barrier before the caller looks at the queue again */
	(void)atomic_exchange(&q->sleeping, 1);
}

/* see submit.h */
void
rpmaf__submitq_sleep_end(struct rpmaf__submitq *q, bool efd_readable)
{
	uint64_t v;

	atomic_store(&q->sleeping, 0);
	if (efd_readable)
		(void)!read(q->efd, &v, sizeof(v));
}
