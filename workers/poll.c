// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * poll.c -- a worker's loop: poll the CQs, run submitted work and timers,
 * and, per workers.polling, spin, or sleep on the completion channel, the
 * eventfd, the connections' descriptors and the earliest timer once every
 * CQ re-armed since its last poll has been polled again.
 */

#include <errno.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../regtab/reader.h"
#include "wconn.h"
#include "worker.h"
#include "wpoll.h"

/* turns of a busy or spinning loop between two looks at the descriptors */
#define RPMAF__POLL_FD_EVERY 64

/* turns busy with other work between two polls of the receive CQ, at most */
#define RPMAF__POLL_RCQ_EVERY 4

/*
 * turns between two quiescent states of the worker as a resident reader of
 * the region table (regtab.h; a sleep offline is one too), and the longest
 * sleep it takes online (ms): the grace period of a replaced region waits
 * RPMAF__POLL_QS_EVERY turns of each worker at most, naps included, so at
 * most some 32 ms (microseconds for a worker that does not nap)
 */
#define RPMAF__POLL_QS_EVERY 16
#define RPMAF__POLL_NAP_MS   2

/* busy turns between two tries of following one with another turn (event polling) */
#define RPMAF__POLL_FOLLOW_PROBE 64

/* events taken from epoll at once */
#define RPMAF__POLL_EVENTS 32

/* poll_scq -- take up to batch send completions and dispatch them */
static unsigned
poll_scq(struct rpmaf_worker *w)
{
	int got = 0;
	int ret = rpma_cq_get_wc(w->scq, (int)w->batch, w->wcs, &got);

	w->scq_seq++;
	if (ret == RPMA_E_NO_COMPLETION)
		got = 0;
	else if (ret)
		w->rdma_err = ret;
	/* a full batch may leave completions that came before the arming: due again */
	if ((uint32_t)got >= w->batch)
		w->due |= RPMAF__DUE_SCQ;
	else if (w->due)
		w->due &= ~RPMAF__DUE_SCQ;
	for (int i = 0; i < got; i++) {
		w->scq_left = (uint32_t)(got - 1 - i);
		rpmaf__wconn_dispatch_send(w, &w->wcs[i]);
	}
	rpmaf__stat_add(&w->st.completions, (unsigned)got);
	/* fewer than asked: the CQ was empty, every closed QP's completions are taken */
	if (w->nclosing && (uint32_t)got < w->batch)
		rpmaf__wconn_reap(w);
	return (unsigned)got;
}

/* poll_rcq -- take up to batch receive completions and dispatch them */
static unsigned
poll_rcq(struct rpmaf_worker *w)
{
	int got = 0;
	int ret = rpma_cq_get_wc(w->rcq, (int)w->batch, w->wcs, &got);

	if (ret == RPMA_E_NO_COMPLETION)
		got = 0;
	else if (ret)
		w->rdma_err = ret;
	if ((uint32_t)got >= w->batch)
		w->due |= RPMAF__DUE_RCQ;
	else if (w->due)
		w->due &= ~RPMAF__DUE_RCQ;
	for (int i = 0; i < got; i++)
		rpmaf__wconn_dispatch_recv(w, &w->wcs[i]);
	rpmaf__stat_add(&w->st.receives, (unsigned)got);
	return (unsigned)got;
}

/* run_timers -- fire the timers due at the turn's clock, at most batch of them */
static unsigned
run_timers(struct rpmaf_worker *w)
{
	struct rpmaf__timer *t;
	unsigned n = 0;

	/* the common case, nothing due, without a call */
	if (w->timers.n == 0 || w->timers.v[0]->deadline_ns > w->now_ns)
		return 0;
	while (n < w->batch && (t = rpmaf__timer_heap_pop_due(&w->timers, w->now_ns))) {
		t->fn(w, (struct rpmaf_timer *)t, t->arg);
		n++;
	}
	rpmaf__stat_add(&w->st.timers, n);
	return n;
}

/*
 * turn -- one turn of the loop; the receive CQ is polled only when rcq is
 * true (see rcq_due()), the send CQ always
 */
static unsigned
turn(struct rpmaf_worker *w, bool rcq)
{
	unsigned n, r = 0;

	w->now_ns = rpmaf__now_ns();
	n = poll_scq(w);
	if (rcq) {
		r = poll_rcq(w);
		w->rcq_skipped = 0;
		w->rcq_busy = r != 0;
	} else {
		w->rcq_skipped++;
	}
	n += r;
	rpmaf__stat_add(&w->st.polls, 1);
	if (n == 0)
		rpmaf__stat_add(&w->st.empty_polls, 1);
	if (w->nearly)
		rpmaf__wconn_expire_early(w, w->now_ns);
	if (w->nrepost)
		rpmaf__worker_repost_flush(w);
	if (rpmaf__submitq_pending(&w->subq)) {
		unsigned s = rpmaf__submitq_run(&w->subq, w, w->batch);

		rpmaf__stat_add(&w->st.submissions, s);
		/* none run: a submitter caught half-way through its enqueue, not idle */
		n += s ? s : 1;
	}
	n += run_timers(w);
	if (w->ends)
		rpmaf__worker_turn_end(w);
	return n;
}

/* see worker.h */
void
rpmaf__worker_turn_end(struct rpmaf_worker *w)
{
	struct rpmaf__turn_end *te;

	while ((te = w->ends)) {
		w->ends = te->next;
		te->armed = false;
		te->fn(te);
	}
}

/*
 * rcq_due -- whether the loop's next turn polls the receive CQ: when it is
 * due (its event was taken, or its last poll took a full batch), when its
 * last poll found something, after an idle turn that was not a sleep (a
 * sleep tells by its events which CQ has news), and at least every
 * RPMAF__POLL_RCQ_EVERY turns. Turns busy with send completions and
 * submissions skip it in between.
 */
static bool
rcq_due(const struct rpmaf_worker *w, unsigned last, bool slept)
{
	return (w->due & RPMAF__DUE_RCQ) || w->rcq_busy || (last == 0 && !slept) ||
	       w->rcq_skipped + 1 >= RPMAF__POLL_RCQ_EVERY;
}

/*
 * take_event -- take one event of the completion channel, if one waits:
 * its CQ is re-armed, and due, so that what completed before the arming is
 * polled before the worker sleeps again. Returns whether one was taken.
 */
static bool
take_event(struct rpmaf_worker *w)
{
	struct rpma_cq *cq;
	int ret = rpma_cq_channel_wait(w->scq, &cq);

	if (ret == 0) {
#ifndef RPMAF_WORKERS_TEST_NO_REPOLL
		w->due |= cq == w->rcq ? RPMAF__DUE_RCQ : RPMAF__DUE_SCQ;
#endif
		return true;
	}
	if (ret != RPMA_E_NO_COMPLETION) {
		/* the CQ may be left unarmed: poll both rather than trust a sleep */
		w->rdma_err = ret;
		w->due |= RPMAF__DUE_SCQ | RPMAF__DUE_RCQ;
	}
	return false;
}

/* see worker.h */
void
rpmaf__worker_drain_events(struct rpmaf_worker *w)
{
	while (take_event(w))
		;
}

/* timeout_ms -- epoll's timeout: until the earliest timer (from the turn's clock), -1 without one
 */
static int
timeout_ms(struct rpmaf_worker *w)
{
	struct rpmaf__timer *t = rpmaf__timer_heap_top(&w->timers);

	if (!t)
		return -1;
	uint64_t now = w->now_ns;

	if (t->deadline_ns <= now)
		return 0;
	uint64_t ms = (t->deadline_ns - now + 999999) / 1000000;

	return ms > 60000 ? 60000 : (int)ms;
}

/*
 * look_at_fds -- wait up to timeout ms on the descriptors, offline (as a
 * reader of the region table) while it waits when asked, and handle what
 * they report, online; returns the number of events (< 0: interrupted),
 * and sets *efd when the eventfd was readable
 */
static inline __attribute__((always_inline)) int
look_at_fds(struct rpmaf_worker *w, int timeout, bool *efd, bool offline)
{
	struct epoll_event ev[RPMAF__POLL_EVENTS];
	int n;

	if (offline)
		rpmaf__regtab_thread_sleep();
	/*
	 * the system call itself: a worker thread is never cancelled (it stops
	 * on w->stop and the eventfd), so its sleep is no cancellation point
	 * and skips glibc's cancellation bookkeeping around every sleep
	 */
	n = (int)syscall(SYS_epoll_wait, w->epfd, ev, RPMAF__POLL_EVENTS, timeout);
	if (offline)
		rpmaf__regtab_thread_wake();

	for (int i = 0; i < n; i++) {
		void *p = ev[i].data.ptr;

		if (p == &w->subq)
			*efd = true;
		else if (p == &w->chan_fd)
			(void)take_event(w); /* another one waiting wakes the next look */
		else
			rpmaf__wconn_events(p);
	}
	return n;
}

/*
 * sleep_fds -- sleep on the descriptors for up to timeout ms (-1: no
 * limit): online for a nap of RPMAF__POLL_NAP_MS at most, where a worker
 * busy with operations whose completions come later wakes up, then, when
 * the nap brought nothing, offline for the rest (no grace period of the
 * region table waits for an idle worker). Returns whether the eventfd was
 * readable.
 */
static bool
sleep_fds(struct rpmaf_worker *w, int timeout)
{
	int nap = timeout >= 0 && timeout < RPMAF__POLL_NAP_MS ? timeout : RPMAF__POLL_NAP_MS;
	bool efd = false;

	if (look_at_fds(w, nap, &efd, false) != 0 || timeout == nap)
		return efd;
	(void)look_at_fds(w, timeout < 0 ? -1 : timeout - nap, &efd, true);
	return efd;
}

/*
 * sleep_safely -- sleep until a completion, a submission, a connection's
 * event or a timer. No wake-up is lost: a CQ is re-armed when its event is
 * taken and then polled before any sleep (it is due), and a CQ that is not
 * due is armed or has its event waiting in the channel; a submission is
 * seen by the look at the queue after the sleep is announced, or writes
 * the eventfd. When something is due, pending or stopping, it turns once
 * instead and returns what that did; after a sleep *slept is true.
 */
static unsigned
sleep_safely(struct rpmaf_worker *w, bool *slept)
{
	*slept = false;
	rpmaf__submitq_sleep_begin(&w->subq);
	/* receive buffers a submission or a timer gave back are posted before it sleeps */
	if (w->due || w->nrepost || w->ends || rpmaf__submitq_pending(&w->subq) ||
	    atomic_load(&w->stop)) {
		unsigned n = turn(w, (w->due & RPMAF__DUE_RCQ) != 0);

		if (n || w->due || atomic_load(&w->stop)) {
			rpmaf__submitq_sleep_end(&w->subq, false);
			return n;
		}
	}
	rpmaf__stat_add(&w->st.sleeps, 1);
	bool efd = sleep_fds(w, timeout_ms(w));

	rpmaf__submitq_sleep_end(&w->subq, efd);
	*slept = true;
	return 0;
}

/*
 * follow_busy -- event polling: whether a busy turn is followed by another
 * turn rather than by a sleep. Where completions come at once (the work a
 * turn posts is done before it ends) the next turn finds them and the
 * worker never sleeps; where they come later it would find nothing, and
 * the sleep (whose wake-up takes the completion) is cheaper. A two-bit
 * counter of how the last such turns went decides, *follow, tried again
 * every RPMAF__POLL_FOLLOW_PROBE busy turns when it says no.
 */
static bool
follow_busy(unsigned follow, unsigned *busy)
{
	return follow > 0 || ++*busy % RPMAF__POLL_FOLLOW_PROBE == 0;
}

/* see worker.h */
void
rpmaf__worker_loop(struct rpmaf_worker *w)
{
	uint64_t idle_since = 0; /* 0: something happened in the last turn */
	unsigned turns = 0, n = 0, follow = 0, busy = 0;
	bool slept = false, following = false;

	w->due = RPMAF__DUE_SCQ | RPMAF__DUE_RCQ; /* armed when made, never polled yet */
	while (!atomic_load_explicit(&w->stop, memory_order_acquire)) {
		n = turn(w, rcq_due(w, n, slept));
		slept = false;
		if (++turns % RPMAF__POLL_QS_EVERY == 0) {
			rpmaf__regtab_quiescent();
			if (turns % RPMAF__POLL_FD_EVERY == 0)
				(void)look_at_fds(w, 0, &(bool){false}, false);
		}
		if (following) {
			follow = n ? (follow < 3 ? follow + 1 : 3) : (follow ? follow - 1 : 0);
			following = false;
		}
		if (n && (w->polling != RPMAF_POLLING_EVENT || n >= w->batch)) {
			idle_since = 0;
			continue;
		}
		/* event polling after a busy turn: another turn, or the safe sleep */
		if (n && follow_busy(follow, &busy)) {
			following = true;
			continue;
		}
		if (w->polling == RPMAF_POLLING_BUSY)
			continue;
		if (w->polling == RPMAF_POLLING_ADAPTIVE) {
			uint64_t now = w->now_ns;

			if (idle_since == 0)
				idle_since = now;
			if (now - idle_since < w->spin_ns)
				continue;
		}
		if ((n = sleep_safely(w, &slept)) == 0)
			idle_since = 0;
	}
	/* what was submitted before the stop still runs */
	while (rpmaf__submitq_pending(&w->subq) || w->ends) {
		(void)rpmaf__submitq_run(&w->subq, w, UINT32_MAX);
		rpmaf__worker_turn_end(w);
	}
}
