/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * run_int.h -- the inside of a run, shared by run.c (setup, threads,
 * figures), rthread.c (one application thread) and rverify.c (read-back
 * and journal).
 *
 * Two ways to run. Open loop (a rate): the application thread submits at
 * the intended start times; an operation slot (struct lop) belongs to it
 * while LOP_FREE or LOP_DONE and to the pool while LOP_BUSY; the callback
 * writes t1, status and reply_len, then publishes LOP_DONE with release
 * order. Closed loop: the thread's state belongs to its worker (struct
 * rthread.w), which submits every operation and accounts for it in the
 * callback, then submits the next one at once (on the worker's own
 * connection, with no hand-over between threads); a completion on another
 * worker is forwarded to it. The application thread then only starts the
 * idle slots (a kick, run on the worker) and waits for the end.
 *
 * A verification slot (struct vslot) of the region belongs to the one
 * thread (or its worker) that writes it (slot % threads) during the run,
 * to the main thread after. Counters and histograms have one writer; the
 * main thread reads them atomically.
 */

#ifndef RPMA_LOAD_RUN_INT_H
#define RPMA_LOAD_RUN_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "record.h"
#include "run.h"

enum lop_state { LOP_FREE, LOP_BUSY, LOP_DONE };

/* where an operation is in its accounting (struct run_account) */
enum lop_acct { ACCT_IDLE, ACCT_IN_FLIGHT, ACCT_GIVEN_UP };

/* the code of an echo reply that differs from the request (--verify) */
#define RUN_E_ECHO (-100)

struct rthread;

/* one operation in flight */
struct lop {
	struct rpmaf_op op;
	struct rthread *t;
	_Atomic int state; /* enum lop_state */
	int status;
	size_t reply_len;
	uint64_t t0, t1; /* intended start, completion (ns, CLOCK_MONOTONIC) */
	int kind;
	uint32_t len;
	uint64_t slot; /* a verified write's slot */
	uint64_t seq;
	uint32_t crc;
	size_t moff;	       /* its buffer in the client's memory */
	struct rpmaf_work fwd; /* closed loop: a completion forwarded to the thread's worker */
	_Atomic int acct;      /* enum lop_acct: set at submission, taken by the completion */
	/* its completions: counted by whichever thread completes it */
	_Atomic uint64_t n_ok, n_failed, n_twice, n_late;
};

enum vslot_state { VS_NEVER, VS_BUSY, VS_GOOD, VS_UNKNOWN };

/* what the region's slot holds (--verify) */
struct vslot {
	uint64_t seq;
	uint32_t len;
	uint32_t crc;
	int state; /* enum vslot_state */
};

/* one application thread */
struct rthread {
	struct run *r;
	unsigned idx;
	pthread_t th;
	uint64_t rng;
	struct lop *lops; /* queue_depth of them */
	uint64_t quota;	  /* operations to submit; 0: until the duration ends */
	_Atomic uint64_t nsub;
	_Atomic uint64_t rejected, never; /* accounting: refused at submission, given up */
	struct rpmaf_worker *w;	  /* closed loop: where its operations run; NULL: open loop */
	struct rpmaf_work kick;	  /* closed loop: start the idle slots, on w */
	_Atomic int kick_pending; /* kick submitted and not run yet */
	uint64_t seq;
	uint64_t cursor; /* the next of its slots to write (--verify) */
	_Atomic uint64_t ops[WL_NKINDS], bytes[WL_NKINDS], errors[WL_NKINDS];
	_Atomic uint64_t fails[RUN_NWHY]; /* its errors, by why */
	struct rpmaf__hist hist[WL_NKINDS];
};

struct run {
	const struct workload *wl;
	struct client *cl;
	bool verify;
	bool keep_running;
	FILE *timeline;
	uint64_t tl_next;	   /* the next timeline line is due then */
	uint64_t tl_ok, tl_failed; /* the counts at the last line */
	uint64_t run_id;
	struct rec_layout layout;
	uint64_t span; /* bytes of the region plain writes and reads go to */
	uint32_t total_weight;
	size_t lop_bytes;  /* buffer of one operation */
	size_t vbase;	   /* the read-back buffers in the client's memory */
	uint64_t interval; /* ns between the intended starts of a thread; 0: closed loop */
	uint64_t start, stop_at, end;
	uint64_t measure_at;	 /* start + the warm-up: the figures start then */
	uint64_t measured;	 /* when the figures started (0: in the warm-up) */
	bool has_base;		 /* base holds the figures of the warm-up, to subtract */
	uint64_t down_since;	 /* no healthy connection since then (0: there is one) */
	struct run_result *base; /* the figures at the end of the warm-up */
	struct rthread *th;
	struct vslot *vs; /* layout.nslots (--verify) */
	/*
	 * RPMA_LOAD_DURABLE_FILE (a test's: the "disk" of the server's region
	 * file, tests/durability/shadow.c), opened, or -1: with --verify, each
	 * acknowledged write_persist's record is read back from it at once
	 */
	int durable_fd;
	_Atomic uint64_t durable_checked, durable_missing;
	_Atomic int stop;
	_Atomic int unreachable; /* stopped: no healthy connection past timeouts.operation_ms */
	_Atomic int abandoned;	 /* the figures are final: late completions are not counted */
	_Atomic unsigned finished;
	_Atomic int first_err;
	_Atomic int first_err_kind;
};

/* run__now -- CLOCK_MONOTONIC in ns */
uint64_t run__now(void);

/* run__pause -- sleep ns nanoseconds */
void run__pause(uint64_t ns);

/* run__thread -- the body of an application thread (pthread start routine) */
void *run__thread(void *arg);

#endif /* RPMA_LOAD_RUN_INT_H */
