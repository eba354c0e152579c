/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * worker.h -- the layout of a worker set, a worker and its connections,
 * shared by the files of workers/.
 *
 * OWNERSHIP: every field of struct rpmaf_worker and struct rpmaf_wconn is
 * read and written by the worker's thread only, but for those marked
 * "atomic", which other threads read (and, for reserved and stop, write);
 * the constant ones are set before the thread starts. Nothing is guarded
 * by a lock.
 */

#ifndef RPMAF_WORKERS_WORKER_H
#define RPMAF_WORKERS_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <librpma.h>

#include "credit.h"
#include "qpmap.h"
#include "rpmaf.h"
#include "slab.h"
#include "submit.h"
#include "timer.h"
#include "wlog.h"

enum rpmaf__wconn_state {
	WCONN_FREE,    /* a free slot */
	WCONN_OPEN,    /* attached: callbacks run */
	WCONN_CLOSING, /* closed: QP gone, waiting for the send CQ to be drained */
};

struct rpmaf_wconn {
	struct rpmaf_worker *w; /* constant */
	enum rpmaf__wconn_state state;
	uint32_t gen; /* bumped each time the slot is taken or closed */
	struct rpma_conn *conn;
	const struct rpmaf_wconn_ops *ops;
	void *ctx;
	uint32_t qp_num;
	int event_fd;
	struct rpmaf__acct acct;
	uint64_t drain_after; /* CLOSING: freed after a drain of a later poll */
	struct rpmaf_wconn *next_free;
};

/* a receive that came before its connection was attached */
struct rpmaf__early {
	struct ibv_wc wc;
	uint64_t at_ns;
};

/* counters other threads read: relaxed atomics written by the worker only */
struct rpmaf__wstats {
	atomic_ullong polls, empty_polls, completions, receives, submissions, timers, sleeps,
	    refused, dropped;
	atomic_uint cq_used, cq_used_max, conns;
};

/*
 * a function run once at the end of the worker's turn in which it was
 * deferred (rpmaf__worker_at_turn_end()): what a turn collects goes out
 * at once (the pool's posts)
 */
struct rpmaf__turn_end {
	void (*fn)(struct rpmaf__turn_end *te);
	struct rpmaf__turn_end *next;
	bool armed;
};

struct rpmaf_worker {
	/* constant */
	struct rpmaf_workers *ws;
	unsigned idx;
	enum rpmaf_polling polling;
	uint64_t spin_ns;
	uint32_t batch;
	uint32_t srq_rq;
	uint32_t conns_max;
	uint32_t msg_size;
	uint32_t sq;
	uint64_t early_ttl_ns;
	int cpu;		   /* -1: not pinned */
	struct rpma_cq *scq, *rcq; /* one completion channel */
	int chan_fd;
	struct rpma_srq *srq;
	struct rpma_mr_local *mr;
	int epfd;
	pthread_t thread;
	bool started;

	/* atomic */
	atomic_int stop;
	atomic_uint reserved; /* slots reserved or attached, up to conns_max */
	atomic_uint unclosed; /* of which not closed yet (reserved or OPEN) */
	struct rpmaf__wstats st;
	struct rpmaf__submitq subq; /* its push side is used by any thread */

	/* the worker thread's */
	struct rpmaf__slab slab; /* srq_rq receive buffers, then srq_rq for the application */
	uint32_t *kept; /* kept[i]: 1 + the slot of the connection receive buffer i is lent to */
	struct rpmaf__credits cq; /* the send CQ's slots */
	struct rpmaf__qpmap qpmap;
	struct rpmaf_wconn *conns; /* conns_max slots */
	uint32_t *rings;	   /* conns_max * sq batch sizes */
	struct rpmaf_wconn *free_conns;
	uint32_t attached; /* OPEN or CLOSING slots */
	uint32_t nclosing;
	uint64_t scq_seq; /* polls of the send CQ so far */
	void **repost;	  /* receive buffers to post back */
	uint32_t nrepost;
	struct rpmaf__early *early;
	uint32_t nearly;
	struct rpmaf__timer_heap timers;
	uint64_t now_ns;      /* CLOCK_MONOTONIC, read once at the start of each turn */
	uint32_t rcq_skipped; /* turns since the receive CQ was last polled */
	bool rcq_busy;	      /* its last poll found something */
	/*
	 * the CQs that must be polled before the worker may sleep
	 * (RPMAF__DUE_*): its event was taken (the CQ re-armed) since its last
	 * poll, or that poll took a full batch, or (the send CQ) a connection
	 * closed since, whose slot a later poll frees. A CQ not due is armed,
	 * or its event waits in the channel: what completes there wakes the
	 * sleep.
	 */
	unsigned due;
	struct ibv_wc *wcs;	      /* batch entries */
	int rdma_err;		      /* the last failed librpma call's code, for the log */
	struct rpmaf__turn_end *ends; /* to run at the end of this turn, newest first */
	uint32_t scq_left; /* send completions of this poll still to dispatch after this one */
};

struct rpmaf_workers {
	unsigned n;
	struct rpmaf_worker *w; /* n workers */
	struct rpmaf__wlog log;
};

/* the worker whose thread this is, NULL on any other thread */
extern __thread struct rpmaf_worker *rpmaf__current __attribute__((tls_model("initial-exec")));

/* rpmaf__now_ns -- CLOCK_MONOTONIC in ns */
uint64_t rpmaf__now_ns(void);

/* rpmaf__stat_add -- add n to a counter of the worker's (relaxed; one writer) */
static inline void
rpmaf__stat_add(atomic_ullong *c, unsigned long long n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* the bits of rpmaf_worker.due */
#define RPMAF__DUE_SCQ 1u
#define RPMAF__DUE_RCQ 2u

/* rpmaf__worker_repost -- queue a receive buffer to be posted back in this turn */
void rpmaf__worker_repost(struct rpmaf_worker *w, void *buf);

/* rpmaf__worker_repost_flush -- post the queued receive buffers back to the SRQ */
void rpmaf__worker_repost_flush(struct rpmaf_worker *w);

/*
 * rpmaf__worker_at_turn_end -- run te->fn once at the end of this turn
 * (before the worker sleeps or passes a quiescent state of the region
 * table: what te holds from a read-side section stays valid); nothing when
 * it is armed already.
 * CONCURRENCY: the worker's thread.
 */
static inline void
rpmaf__worker_at_turn_end(struct rpmaf_worker *w, struct rpmaf__turn_end *te)
{
	if (te->armed)
		return;
	te->armed = true;
	te->next = w->ends;
	w->ends = te;
}

/*
 * rpmaf__worker_turn_end_cancel -- te does not run (its owner goes away).
 * CONCURRENCY: the worker's thread.
 */
static inline void
rpmaf__worker_turn_end_cancel(struct rpmaf_worker *w, struct rpmaf__turn_end *te)
{
	if (!te->armed)
		return;
	for (struct rpmaf__turn_end **p = &w->ends; *p; p = &(*p)->next) {
		if (*p == te) {
			*p = te->next;
			break;
		}
	}
	te->armed = false;
}

/* rpmaf__worker_turn_end -- run what this turn deferred, and what that defers (poll.c) */
void rpmaf__worker_turn_end(struct rpmaf_worker *w);

#endif /* RPMAF_WORKERS_WORKER_H */
