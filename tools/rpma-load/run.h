/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * run.h -- a load: workload->threads application threads, each keeping up
 * to queue_depth operations in flight through the pool, chosen by the
 * mix's weights, for the duration or until count operations in all.
 *
 * Timing. Without a rate (closed loop) an operation's latency runs from
 * its submission to its callback. With a rate (open loop) each thread
 * submits at rate / threads: operation i of a thread has the intended
 * start time start + i / (rate / threads), and its latency runs from that
 * intended time, so time spent waiting for a free slot of the queue depth
 * (a stall) is counted, not hidden (coordinated omission).
 *
 * Statistics. Each thread owns a histogram and counters per kind; the
 * callbacks (on the workers' threads) only stamp the completion time and
 * status into the operation, which the thread then accounts for. The main
 * thread reads snapshots (run_collect()) for the progress line and the end.
 *
 * Warm-up. With wl->warmup_ns the run first runs that long; the figures
 * then taken are subtracted from every later collection, and the elapsed
 * time counts from there.
 *
 * Accounting. Apart from the figures, every operation submitted is
 * accounted for once (struct run_account): refused at its submission,
 * completed (ok or failed) by the pool, or never completed within the
 * drain's bound; a second completion of one operation, or one that comes
 * after the drain gave up on it, is counted apart and not processed. A
 * run stopped by a signal may leave operations in flight, counted as such.
 * The accounting covers the whole run, the warm-up included.
 *
 * Timeline. With a timeline file the main thread writes a CSV line every
 * 100 ms (seconds since the start, the wall clock, and the operations
 * completed ok and failed in the interval, as the figures count them, the
 * warm-up included), and one at the start and at the end.
 *
 * Signals. SIGINT, SIGTERM and SIGHUP, handled on the main thread (every
 * other thread blocks them), stop a run at any moment: a wait for the
 * pool ends at once (rpmaf_pool_interrupt()), the threads stop submitting
 * and wait at most INTERRUPT_DRAIN_NS for what is in flight.
 *
 * ASSUMPTIONS
 * One run at a time; its functions are called by the main thread.
 */

#ifndef RPMA_LOAD_RUN_H
#define RPMA_LOAD_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "hist.h"
#include "workload.h"

/* figures of one kind, or of all */
struct run_fig {
	uint64_t ops;	 /* completed with status 0 */
	uint64_t bytes;	 /* their bytes (a call: request and reply) */
	uint64_t errors; /* failed at submission or completion */
	struct rpmaf__hist_snap snap;
};

/* why operations failed, as the run counts them (run_why()) */
enum run_why {
	RUN_W_TIMEOUT,	/* RPMAF_E_TIMEOUT: not done, or no connection, in timeouts.operation_ms */
	RUN_W_CONNLOST, /* RPMAF_E_CONNLOST: a call in flight on a lost connection */
	RUN_W_NOENT,	/* RPMAF_E_NOENT: the region or the handler is gone */
	RUN_W_REMOTE,	/* RPMAF_E_REMOTE: the target refused it */
	RUN_W_REFUSED,	/* RPMAF_E_AGAIN at submission: no room to wait for a connection */
	RUN_W_SHUTDOWN, /* RPMAF_E_SHUTDOWN: the pool was being deleted */
	RUN_W_ECHO,	/* a call's echo differs from its request */
	RUN_W_OTHER,	/* anything else */
	RUN_NWHY
};

/* the names of enum run_why in the report ("timeout", ...) */
extern const char *const Run_why_names[RUN_NWHY];

/* a snapshot of a run's figures */
struct run_result {
	struct run_fig kind[WL_NKINDS];
	struct run_fig all;
	uint64_t fails[RUN_NWHY]; /* the failed operations of all kinds, by why */
};

/* how every operation submitted ended (see Accounting above) */
struct run_account {
	uint64_t submitted;	   /* submissions tried */
	uint64_t rejected;	   /* refused at submission (an error at once) */
	uint64_t completed_ok;	   /* completed once, status 0 */
	uint64_t completed_failed; /* completed once, with an error */
	uint64_t never;		   /* not completed when the drain gave up on it */
	uint64_t in_flight;	   /* not completed yet (a run stopped by a signal) */
	uint64_t twice;		   /* completions beyond the first of one operation */
	uint64_t late;		   /* completions after the drain gave up on them */
};

/* what a run does besides the workload */
struct run_opts {
	bool verify;	   /* writes carry records (record.h) in their slots */
	bool keep_running; /* no stop when the target is unreachable (run_unreachable()) */
	FILE *timeline;	   /* the timeline's CSV lines go there; NULL: none */
};

/* run_why -- why an operation that ended with code failed (enum run_why) */
int run_why(int code);

struct run;

/*
 * run_signals_init -- handle SIGINT and SIGTERM (even when the parent
 * ignored them, as a script does for its background jobs' SIGINT) and
 * SIGHUP (unless ignored: nohup): the first thing main() does
 */
void run_signals_init(void);

/*
 * run_signals_hold -- block (hold true) or unblock the signals of the
 * calling thread: threads made meanwhile inherit the block, so that the
 * handler runs on the main thread only
 */
void run_signals_hold(bool hold);

/* run_signals_pool -- the pool whose readiness wait a signal ends (NULL: none) */
void run_signals_pool(struct rpmaf_pool *pool);

/* run_interrupted -- whether a signal has come */
bool run_interrupted(void);

/*
 * run_new -- a run of wl on the open client cl (which it gives its memory),
 * as o says (the timeline file must outlive the run)
 * RETURN VALUE: 0 and *r_ptr; -1 with a message on stderr (the region too
 * small for the sizes, the call size beyond a message, ...).
 */
int run_new(const struct workload *wl, struct client *cl, const struct run_opts *o,
	    struct run **r_ptr);

/*
 * run_exec -- start the threads, call progress(arg) about once a second
 * until they have finished (SIGINT or SIGTERM stop them early), join them
 * RETURN VALUE: 0; -1 when a thread cannot be started (message on stderr).
 */
int run_exec(struct run *r, void (*progress)(struct run *r, void *arg), void *arg);

/* run_collect -- the figures so far (after the warm-up) into res */
void run_collect(const struct run *r, struct run_result *res);

/* run_account_get -- how the run's operations ended so far into a */
void run_account_get(const struct run *r, struct run_account *a);

/* run_fig_sub -- f less base (an earlier collection of the same figures) */
void run_fig_sub(struct run_fig *f, const struct run_fig *base);

/* run_warming -- whether the run is in its warm-up */
bool run_warming(const struct run *r);

/*
 * run_elapsed -- seconds from the end of the warm-up (or the start) to now
 * (during) or to the end (after run_exec())
 */
double run_elapsed(const struct run *r);

/*
 * run_unreachable -- whether the run stopped because its target had no
 * healthy connection for longer than timeouts.operation_ms (never with
 * keep_running)
 */
bool run_unreachable(const struct run *r);

/*
 * run_idle -- after run_exec(): no operation of the run is in flight any
 * more, so that it may be deleted while the pool lives on
 */
bool run_idle(const struct run *r);

/*
 * run_abandon -- the figures are final: completions that come later (the
 * pool's deletion completes what an interrupted run left in flight) are
 * not counted and touch nothing but the run
 */
void run_abandon(struct run *r);

/* run_err_str -- what an operation's status means to a user of the tool */
const char *run_err_str(int code);

/* run_first_error -- a description of the first operation error, NULL when none */
const char *run_first_error(const struct run *r, char *buf, size_t size);

/*
 * run_verify -- read back every slot whose last write completed and check
 * its record; *checked, *bad and *unchecked get the counts (bad records on
 * stderr). A record that cannot be read (no healthy connection, a lost
 * one, a time-out) is not checked, never bad; once a whole batch cannot
 * be read and the target has no healthy connection, the rest is not
 * checked either. A signal stops it (the rest not checked).
 * RETURN VALUE: 0 when all check; -1 otherwise.
 */
int run_verify(struct run *r, uint64_t *checked, uint64_t *bad, uint64_t *unchecked);

/*
 * run_journal -- the journal of what the run wrote last where, into path
 * RETURN VALUE: 0; -1 with a message on stderr.
 */
int run_journal(const struct run *r, const char *path);

/* run_delete -- free the run (after the client's pool is deleted: no callback may remain) */
void run_delete(struct run **r_ptr);

#endif /* RPMA_LOAD_RUN_H */
