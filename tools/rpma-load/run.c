/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * run.c -- a load: its checks against the region, its memory, its threads
 * and the figures they keep.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"

#define CALL_HEADER   28 /* bytes of a message that are not the request */
#define VERIFY_WINDOW 16 /* reads in flight when reading back */
#define TICK_NS	      50000000ull
#define STOP_TICK_NS  1000000ull /* once stopping: how often to look for the threads' end */
#define SECOND_NS     1000000000ull
#define TIMELINE_NS   100000000ull /* a line of the timeline per 100 ms */

/* what a signal stops; set and cleared by the main thread, read by the handler */
static struct run *_Atomic Running;
static struct rpmaf_pool *_Atomic Waiting;
static atomic_int Interrupted;

/* see run_int.h */
uint64_t
run__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

/* see run_int.h */
void
run__pause(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / SECOND_NS), (long)(ns % SECOND_NS)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* run_fail -- a setup message; returns -1 */
__attribute__((format(printf, 1, 2))) static int
run_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rpma-load: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* run_check_usage -- the region allows what the mix does */
static int
run_check_usage(const struct run *r)
{
	const struct workload *wl = r->wl;
	unsigned u = r->cl->info.usage;

	if ((wl->weight[WL_WRITE] || wl->weight[WL_ATOMIC]) && !(u & RPMAF_USAGE_WRITE))
		return run_fail("region %s: not writable, the mix writes", wl->region);
	if (wl->weight[WL_WRITE_PERSIST] && (u & (RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH)) !=
						(RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH))
		return run_fail("region %s: not writable and flushable, the mix has write_persist",
				wl->region);
	if (wl->weight[WL_READ] && !(u & RPMAF_USAGE_READ))
		return run_fail("region %s: not readable, the mix reads", wl->region);
	return 0;
}

/* run_check_sizes -- the sizes fit the region, the layout and a message */
static int
run_check_sizes(struct run *r)
{
	const struct workload *wl = r->wl;
	uint64_t size = r->cl->info.size,
		 rw = wl_max_size(wl, 1u << WL_READ | 1u << WL_WRITE | 1u << WL_WRITE_PERSIST);
	uint64_t wmax = wl_max_size(wl, 1u << WL_WRITE | 1u << WL_WRITE_PERSIST);
	uint64_t msg = r->cl->cfg->queues.msg_size;

	if (wl->weight[WL_CALL] && wl->size[WL_CALL].hi + CALL_HEADER > msg)
		return run_fail(
		    "sizes.call up to %llu bytes: beyond a message (queues.messages.size"
		    " %llu less %u bytes of header)",
		    (unsigned long long)wl->size[WL_CALL].hi, (unsigned long long)msg, CALL_HEADER);
	r->span = size;
	if (r->verify) {
		if (rec_layout_make(&r->layout, size, wmax, wl->weight[WL_ATOMIC] != 0))
			return run_fail("region %s of %llu bytes: no room for records", wl->region,
					(unsigned long long)size);
		if (r->layout.nslots / wl->threads < (uint64_t)wl->queue_depth + 1)
			return run_fail(
			    "--verify: region %s has %llu slots of %llu bytes, fewer than"
			    " threads x (queue_depth + 1) = %llu",
			    wl->region, (unsigned long long)r->layout.nslots,
			    (unsigned long long)r->layout.slot_size,
			    (unsigned long long)wl->threads * (wl->queue_depth + 1));
		r->span = r->layout.nslots * r->layout.slot_size;
	}
	if (rw > r->span)
		return run_fail("sizes up to %llu bytes do not fit region %s (%llu bytes usable)",
				(unsigned long long)rw, wl->region, (unsigned long long)r->span);
	return 0;
}

/* run_memory -- the buffers of every operation and of the read-back, registered */
static int
run_memory(struct run *r)
{
	const struct workload *wl = r->wl;
	uint64_t need = wl_max_size(wl, 1u << WL_READ | 1u << WL_WRITE | 1u << WL_WRITE_PERSIST);
	size_t nlops = (size_t)wl->threads * wl->queue_depth;

	if (2 * wl->size[WL_CALL].hi > need)
		need = 2 * wl->size[WL_CALL].hi;
	if (r->verify && r->layout.slot_size > need)
		need = r->layout.slot_size;
	r->lop_bytes = (size_t)(need + REC_ALIGN - 1) / REC_ALIGN * REC_ALIGN;
	r->vbase = nlops * r->lop_bytes;
	return client_mem(r->cl, r->vbase + (r->verify ? VERIFY_WINDOW * r->layout.slot_size : 0));
}

/* run_threads_make -- the threads' state: quotas, random seeds, operation slots */
static int
run_threads_make(struct run *r)
{
	const struct workload *wl = r->wl;
	uint64_t seed = wl->has_seed ? wl->seed : run__now();

	r->run_id = seed;
	if (!(r->th = calloc(wl->threads, sizeof(*r->th))))
		return run_fail("out of memory");
	for (unsigned i = 0; i < wl->threads; i++) {
		struct rthread *t = &r->th[i];

		t->r = r;
		t->idx = i;
		t->rng =
		    (seed + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)i + 1) * 0xbf58476d1ce4e5b9ull;
		t->rng |= 1;
		t->quota = wl->count / wl->threads + (i < wl->count % wl->threads);
		if (!r->interval &&
		    rpmaf_workers_get(r->cl->ws, i % rpmaf_workers_count(r->cl->ws), &t->w))
			return run_fail("no worker for thread %u", i);
		for (int k = 0; k < WL_NKINDS; k++)
			rpmaf__hist_init(&t->hist[k]);
		if (!(t->lops = calloc(wl->queue_depth, sizeof(*t->lops))))
			return run_fail("out of memory");
		for (uint32_t q = 0; q < wl->queue_depth; q++) {
			t->lops[q].t = t;
			t->lops[q].moff = ((size_t)i * wl->queue_depth + q) * r->lop_bytes;
		}
	}
	return 0;
}

/* see run.h */
int
run_new(const struct workload *wl, struct client *cl, const struct run_opts *o, struct run **r_ptr)
{
	struct run *r = calloc(1, sizeof(*r));
	bool verify = o->verify;

	const char *durable = getenv("RPMA_LOAD_DURABLE_FILE");

	if (!r)
		return run_fail("out of memory");
	r->durable_fd = -1;
	r->wl = wl;
	r->cl = cl;
	r->verify = verify;
	r->keep_running = o->keep_running;
	r->timeline = o->timeline;
	for (int k = 0; k < WL_NKINDS; k++)
		r->total_weight += wl->weight[k];
	if (wl->rate > 0)
		r->interval = (uint64_t)(1e9 * wl->threads / wl->rate);
	if (r->interval == 0 && wl->rate > 0)
		r->interval = 1;
	if (run_check_usage(r) || run_check_sizes(r) || run_memory(r) || run_threads_make(r))
		goto err_delete;
	if (durable && verify && (r->durable_fd = open(durable, O_RDONLY | O_CLOEXEC)) < 0) {
		run_fail("RPMA_LOAD_DURABLE_FILE %s: %s", durable, strerror(errno));
		goto err_delete;
	}
	if (!(r->base = malloc(sizeof(*r->base))) ||
	    (verify && !(r->vs = calloc(r->layout.nslots, sizeof(*r->vs))))) {
		run_fail("out of memory");
		goto err_delete;
	}
	*r_ptr = r;
	return 0;

err_delete:
	run_delete(&r);
	return -1;
}

/*
 * on_signal -- SIGINT, SIGTERM, SIGHUP, on the main thread only (the
 * others block them): mark the run interrupted, stop submitting, end a
 * wait for the pool
 */
static void
on_signal(int sig)
{
	struct run *r = atomic_load(&Running);
	struct rpmaf_pool *pool = atomic_load(&Waiting);

	(void)sig;
	atomic_store(&Interrupted, 1);
	if (r)
		atomic_store(&r->stop, 1);
	if (pool)
		(void)rpmaf_pool_interrupt(pool);
}

/* run_sigset -- the signals that stop a run */
static void
run_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* see run.h */
void
run_signals_init(void)
{
	struct sigaction sa = {.sa_handler = on_signal}, old;
	sigset_t set;

	run_sigset(&set);
	sa.sa_mask = set;
	/* even when ignored: a shell script's background job ignores SIGINT */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* nohup's SIGHUP stays ignored */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
}

/* see run.h */
void
run_signals_hold(bool hold)
{
	sigset_t set;

	run_sigset(&set);
	pthread_sigmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* see run.h */
void
run_signals_pool(struct rpmaf_pool *pool)
{
	atomic_store(&Waiting, pool);
	if (pool && atomic_load(&Interrupted))
		(void)rpmaf_pool_interrupt(pool);
}

/* see run.h */
bool
run_interrupted(void)
{
	return atomic_load(&Interrupted) != 0;
}

/* run_reachable -- stop the run when its target has had no healthy connection too long */
static void
run_reachable(struct run *r, uint64_t now)
{
	struct rpmaf_pool_stats st;
	uint64_t limit = (uint64_t)r->cl->cfg->timeouts.operation_ms * 1000000ull;

	if (r->keep_running)
		return;
	if (rpmaf_pool_get_stats(r->cl->pool, &st) || st.healthy) {
		r->down_since = 0;
		return;
	}
	if (!r->down_since)
		r->down_since = now;
	else if (now - r->down_since > limit && !atomic_exchange(&r->unreachable, 1))
		atomic_store(&r->stop, 1);
}

/* run_warmed -- at the end of the warm-up: the figures so far become the baseline */
static void
run_warmed(struct run *r, uint64_t now)
{
	if (r->measured || now < r->measure_at)
		return;
	run_collect(r, r->base);
	r->has_base = true;
	r->measured = now;
}

/* timeline_line -- the timeline's line of the interval up to now (monotonic ns) */
static void
timeline_line(struct run *r, uint64_t now)
{
	uint64_t ok = 0, failed = 0;
	struct timespec wall;

	for (unsigned i = 0; i < r->wl->threads; i++)
		for (int k = 0; k < WL_NKINDS; k++) {
			ok += atomic_load_explicit(&r->th[i].ops[k], memory_order_relaxed);
			failed += atomic_load_explicit(&r->th[i].errors[k], memory_order_relaxed);
		}
	clock_gettime(CLOCK_REALTIME, &wall);
	fprintf(r->timeline, "%.3f,%lld.%03ld,%" PRIu64 ",%" PRIu64 "\n",
		(double)(now - r->start) / 1e9, (long long)wall.tv_sec, wall.tv_nsec / 1000000,
		ok - r->tl_ok, failed - r->tl_failed);
	fflush(r->timeline); /* a reader follows the run as it goes */
	r->tl_ok = ok;
	r->tl_failed = failed;
}

/* timeline_tick -- a line of the timeline when one is due (none without a timeline) */
static void
timeline_tick(struct run *r, uint64_t now)
{
	if (!r->timeline || now < r->tl_next)
		return;
	timeline_line(r, now);
	while (r->tl_next <= now)
		r->tl_next += TIMELINE_NS;
}

/* run_wait_ns -- how long the main thread sleeps: to its next tick or timeline line */
static uint64_t
run_wait_ns(const struct run *r, uint64_t now)
{
	uint64_t ns = atomic_load(&r->stop) ? STOP_TICK_NS : TICK_NS;

	if (r->timeline && r->tl_next > now && r->tl_next - now < ns)
		ns = r->tl_next - now;
	return ns;
}

/*
 * run_wait -- until every thread has finished: progress about once a
 * second, the timeline, the end of the warm-up, and whether the target is
 * reachable
 */
static void
run_wait(struct run *r, void (*progress)(struct run *r, void *arg), void *arg)
{
	uint64_t tick = r->start + SECOND_NS, now = r->start;

	while (atomic_load(&r->finished) < r->wl->threads) {
		uint64_t ns = run_wait_ns(r, now);
		struct timespec ts = {(time_t)(ns / SECOND_NS), (long)(ns % SECOND_NS)};

		(void)nanosleep(&ts, NULL); /* a signal ends it early */
		now = run__now();
		timeline_tick(r, now);
		run_warmed(r, now);
		run_reachable(r, now);
		if (now >= tick) {
			progress(r, arg);
			tick += SECOND_NS;
		}
	}
}

/* see run.h */
int
run_exec(struct run *r, void (*progress)(struct run *r, void *arg), void *arg)
{
	unsigned started = 0;
	int ret = 0;

	atomic_store(&Running, r);
	if (atomic_load(&Interrupted))
		atomic_store(&r->stop, 1);
	r->start = run__now();
	r->measure_at = r->start + r->wl->warmup_ns;
	r->stop_at = r->measure_at + r->wl->duration_ns;
	r->measured = r->wl->warmup_ns ? 0 : r->start;
	if (r->timeline) {
		fputs("seconds,epoch,ok,failed\n", r->timeline);
		timeline_line(r, r->start);
		r->tl_next = r->start + TIMELINE_NS;
	}
	run_signals_hold(true); /* the threads inherit the mask: signals go to this thread */
	for (; started < r->wl->threads; started++)
		if ((errno =
			 pthread_create(&r->th[started].th, NULL, run__thread, &r->th[started]))) {
			ret = run_fail("cannot start a thread: %s", strerror(errno));
			atomic_store(&r->stop, 1);
			atomic_fetch_add(&r->finished, r->wl->threads - started);
			break;
		}
	run_signals_hold(false);
	run_wait(r, progress, arg);
	for (unsigned i = 0; i < started; i++)
		pthread_join(r->th[i].th, NULL);
	r->end = run__now();
	if (r->timeline)
		timeline_line(r, r->end);
	run_warmed(r, r->end); /* stopped within the warm-up: no figures */
	return ret;
}

/* see run.h */
bool
run_unreachable(const struct run *r)
{
	return atomic_load(&((struct run *)r)->unreachable) != 0;
}

/* see run.h */
void
run_account_get(const struct run *r, struct run_account *a)
{
	memset(a, 0, sizeof(*a));
	for (unsigned i = 0; i < r->wl->threads; i++) {
		struct rthread *t = &r->th[i];

		a->submitted += atomic_load(&t->nsub);
		a->rejected += atomic_load(&t->rejected);
		a->never += atomic_load(&t->never);
		for (uint32_t q = 0; q < r->wl->queue_depth; q++) {
			struct lop *l = &t->lops[q];

			a->in_flight += atomic_load(&l->acct) == ACCT_IN_FLIGHT;
			a->completed_ok += atomic_load(&l->n_ok);
			a->completed_failed += atomic_load(&l->n_failed);
			a->twice += atomic_load(&l->n_twice);
			a->late += atomic_load(&l->n_late);
		}
	}
}

/* see run.h */
bool
run_idle(const struct run *r)
{
	for (unsigned i = 0; i < r->wl->threads; i++)
		for (uint32_t q = 0; q < r->wl->queue_depth; q++)
			if (atomic_load(&r->th[i].lops[q].state) == LOP_BUSY)
				return false;
	return true;
}

/* see run.h */
void
run_abandon(struct run *r)
{
	atomic_store(&r->abandoned, 1);
}

/* snap_bounds -- min and max of s from its buckets, within min and max of the whole */
static void
snap_bounds(struct rpmaf__hist_snap *s, uint64_t min, uint64_t max)
{
	size_t lo = RPMAF__HIST_BUCKETS, hi = 0;

	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++)
		if (s->bucket[i]) {
			if (lo == RPMAF__HIST_BUCKETS)
				lo = i;
			hi = i;
		}
	if (lo == RPMAF__HIST_BUCKETS) {
		s->min = UINT64_MAX;
		s->max = 0;
		return;
	}
	s->min = rpmaf__hist_bucket_low(lo);
	s->max = rpmaf__hist_bucket_high(hi);
	if (s->min < min)
		s->min = min;
	if (s->max > max)
		s->max = max;
}

/* see run.h (the min and max of the difference: within the histogram's precision) */
void
run_fig_sub(struct run_fig *f, const struct run_fig *base)
{
	struct rpmaf__hist_snap *s = &f->snap;
	uint64_t min = s->min, max = s->max;

	f->ops -= base->ops < f->ops ? base->ops : f->ops;
	f->bytes -= base->bytes < f->bytes ? base->bytes : f->bytes;
	f->errors -= base->errors < f->errors ? base->errors : f->errors;
	s->count = 0;
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++) {
		s->bucket[i] -=
		    base->snap.bucket[i] < s->bucket[i] ? base->snap.bucket[i] : s->bucket[i];
		s->count += s->bucket[i];
	}
	s->sum -= base->snap.sum < s->sum ? base->snap.sum : s->sum;
	snap_bounds(s, min, max);
}

/* fig_add -- thread t's figures of kind k into f */
static void
fig_add(struct run_fig *f, const struct rthread *t, int k)
{
	f->ops += atomic_load_explicit(&t->ops[k], memory_order_relaxed);
	f->bytes += atomic_load_explicit(&t->bytes[k], memory_order_relaxed);
	f->errors += atomic_load_explicit(&t->errors[k], memory_order_relaxed);
	rpmaf__hist_snap_add(&f->snap, &t->hist[k]);
}

/* see run.h */
const char *const Run_why_names[RUN_NWHY] = {
    [RUN_W_TIMEOUT] = "timeout", [RUN_W_CONNLOST] = "connlost", [RUN_W_NOENT] = "noent",
    [RUN_W_REMOTE] = "remote",	 [RUN_W_REFUSED] = "refused",	[RUN_W_SHUTDOWN] = "shutdown",
    [RUN_W_ECHO] = "echo",	 [RUN_W_OTHER] = "other",
};

/* see run.h */
int
run_why(int code)
{
	switch (code) {
	case RPMAF_E_TIMEOUT:
		return RUN_W_TIMEOUT;
	case RPMAF_E_CONNLOST:
		return RUN_W_CONNLOST;
	case RPMAF_E_NOENT:
		return RUN_W_NOENT;
	case RPMAF_E_REMOTE:
		return RUN_W_REMOTE;
	case RPMAF_E_AGAIN:
		return RUN_W_REFUSED;
	case RPMAF_E_SHUTDOWN:
		return RUN_W_SHUTDOWN;
	case RUN_E_ECHO:
		return RUN_W_ECHO;
	default:
		return RUN_W_OTHER;
	}
}

/* fails_collect -- the failures by why of every thread, less the warm-up's */
static void
fails_collect(const struct run *r, struct run_result *res)
{
	for (int w = 0; w < RUN_NWHY; w++) {
		for (unsigned i = 0; i < r->wl->threads; i++)
			res->fails[w] +=
			    atomic_load_explicit(&r->th[i].fails[w], memory_order_relaxed);
		if (r->has_base)
			res->fails[w] -=
			    r->base->fails[w] < res->fails[w] ? r->base->fails[w] : res->fails[w];
	}
}

/* see run.h */
void
run_collect(const struct run *r, struct run_result *res)
{
	memset(res, 0, sizeof(*res));
	rpmaf__hist_snap_clear(&res->all.snap);
	for (int k = 0; k < WL_NKINDS; k++) {
		struct run_fig *f = &res->kind[k];

		rpmaf__hist_snap_clear(&f->snap);
		for (unsigned i = 0; i < r->wl->threads; i++)
			fig_add(f, &r->th[i], k);
		res->all.ops += f->ops;
		res->all.bytes += f->bytes;
		res->all.errors += f->errors;
		rpmaf__hist_snap_merge(&res->all.snap, &f->snap);
	}
	if (r->has_base) {
		for (int k = 0; k < WL_NKINDS; k++)
			run_fig_sub(&res->kind[k], &r->base->kind[k]);
		run_fig_sub(&res->all, &r->base->all);
	}
	fails_collect(r, res);
}

/* see run.h */
bool
run_warming(const struct run *r)
{
	return !r->measured;
}

/* see run.h */
double
run_elapsed(const struct run *r)
{
	uint64_t from = r->measured ? r->measured : r->start;
	uint64_t to = r->end ? r->end : run__now();

	return (double)(to > from ? to - from : 0) / 1e9;
}

/* see run.h */
const char *
run_first_error(const struct run *r, char *buf, size_t size)
{
	int code = atomic_load(&((struct run *)r)->first_err);
	int k = atomic_load(&((struct run *)r)->first_err_kind);

	if (!code)
		return NULL;
	snprintf(buf, size, "%s: %s", Wl_kind_names[k], run_err_str(code));
	return buf;
}

/* see run.h */
const char *
run_err_str(int code)
{
	if (code == RUN_E_ECHO)
		return "the echo reply differs from the request";
	if (code == RPMAF_E_AGAIN)
		return "no healthy connection to the target and no room to wait for one (the "
		       "pool's "
		       "RPMAF_E_AGAIN)";
	if (code == RPMAF_E_TIMEOUT)
		return "not done in timeouts.operation_ms (no connection to the target in time, or "
		       "no answer)";
	return rpmaf_err_str(code);
}

/* see run.h */
void
run_delete(struct run **r_ptr)
{
	struct run *r = *r_ptr;

	if (!r)
		return;
	if (atomic_load(&Running) == r)
		atomic_store(&Running, NULL);
	if (r->durable_fd >= 0) {
		fprintf(stderr,
			"rpma-load: durable: %" PRIu64 " acknowledged persists read back from "
			"RPMA_LOAD_DURABLE_FILE at their reply, %" PRIu64 " missing\n",
			atomic_load(&r->durable_checked), atomic_load(&r->durable_missing));
		close(r->durable_fd);
	}
	free(r->base);
	for (unsigned i = 0; r->th && i < r->wl->threads; i++)
		free(r->th[i].lops);
	free(r->th);
	free(r->vs);
	free(r);
	*r_ptr = NULL;
}
