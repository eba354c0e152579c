/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rthread.c -- one application thread of a load: picks operations by the
 * mix, submits them through the pool at its pace (closed loop, or open
 * loop at its share of the rate), and accounts for their completions.
 * A closed loop runs on the thread's worker (run_int.h).
 */

#include <string.h>
#include <unistd.h>

#include "run_int.h"

#define ECHO_HANDLER   1
#define WAIT_SLOT_NS   20000ull	  /* a pause while every slot is busy */
#define WAIT_KICK_NS   1000000ull /* closed loop: how often idle slots are started again */
#define WAIT_RATE_NS   100000ull  /* the longest pause before an intended start */
#define DRAIN_SLACK_NS 1000000000ull
/* after a signal: the longest wait for what is in flight */
#define INTERRUPT_DRAIN_NS 50000000ull
/* the longest wait for a completion that came as the drain gave up */
#define RACE_WAIT_NS 100000000ull

/* rng_next -- the thread's next pseudo-random number (xorshift64*) */
static uint64_t
rng_next(struct rthread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545f4914f6cdd1dull;
}

/* count_add -- add v to a counter only this thread writes */
static void
count_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* count_shared -- add 1 to a counter of an operation, which two threads might complete at once */
static void
count_shared(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/*
 * lop_count -- account for a completion of l: the first one of its
 * operation ok or failed; one after the drain gave up on it late; any other
 * one (a second completion) twice. Returns what l was (enum lop_acct):
 * ACCT_IN_FLIGHT for the completion the run goes on with.
 */
static int
lop_count(struct lop *l, int status)
{
	int was = atomic_exchange_explicit(&l->acct, ACCT_IDLE, memory_order_acq_rel);

	if (was == ACCT_IN_FLIGHT)
		count_shared(status ? &l->n_failed : &l->n_ok);
	else
		count_shared(was == ACCT_GIVEN_UP ? &l->n_late : &l->n_twice);
	return was;
}

static void chain_next(struct rthread *t, struct lop *l);
static bool submitting(struct rthread *t, uint64_t now, uint64_t next);

/* lop_forwarded -- on the thread's worker: a completion from another worker */
static void
lop_forwarded(struct rpmaf_worker *w, void *arg)
{
	struct lop *l = arg;

	(void)w;
	chain_next(l->t, l);
}

/*
 * lop_done -- the pool's callback, on a worker thread: count; stamp; in
 * open loop publish for the application thread, in closed loop account and
 * go on (on the thread's own worker). A second completion of an operation
 * is only counted: its slot may already carry the next operation; a late
 * one frees its slot (its error was counted when the drain gave up).
 */
static void
lop_done(struct rpmaf_op *op, int status, void *ctx)
{
	struct lop *l = ctx;
	struct rthread *t = l->t;

	switch (lop_count(l, status)) {
	case ACCT_IN_FLIGHT:
		break;
	case ACCT_GIVEN_UP:
		atomic_store_explicit(&l->state, LOP_FREE, memory_order_release);
		return;
	default:
		return;
	}
	l->t1 = run__now();
	l->status = status;
	l->reply_len = rpmaf_op_reply_len(op);
	if (t->w && rpmaf_worker_is_current(t->w)) {
		chain_next(t, l);
		return;
	}
	if (t->w && rpmaf_worker_submit(t->w, &l->fwd, lop_forwarded, l) == 0)
		return;
	atomic_store_explicit(&l->state, LOP_DONE, memory_order_release);
}

/* pick_kind -- a kind drawn by the weights of the mix */
static int
pick_kind(struct rthread *t)
{
	const struct workload *wl = t->r->wl;
	uint64_t x = rng_next(t) % t->r->total_weight;
	int k = 0;

	while (x >= wl->weight[k])
		x -= wl->weight[k++];
	return k;
}

/* pick_len -- a size of kind k */
static uint32_t
pick_len(struct rthread *t, int k)
{
	const struct wl_size *s = &t->r->wl->size[k];

	return (uint32_t)(s->lo + (s->hi > s->lo ? rng_next(t) % (s->hi - s->lo + 1) : 0));
}

/* pick_off -- an offset for len bytes within the first span bytes, REC_ALIGN-aligned */
static uint64_t
pick_off(struct rthread *t, uint64_t span, uint32_t len)
{
	return REC_ALIGN * (rng_next(t) % ((span - len) / REC_ALIGN + 1));
}

/* pick_slot -- the next of the thread's slots that no write of it is in flight to */
static uint64_t
pick_slot(struct rthread *t)
{
	struct run *r = t->r;
	uint64_t own = (r->layout.nslots - t->idx + r->wl->threads - 1) / r->wl->threads;

	for (;;) {
		uint64_t s = t->idx + (t->cursor++ % own) * r->wl->threads;

		if (r->vs[s].state != VS_BUSY)
			return s;
	}
}

/* submit_write -- a write (verified: a record in one of the thread's slots) */
static int
submit_write(struct rthread *t, struct lop *l, const char *region)
{
	struct run *r = t->r;
	struct client *c = r->cl;
	unsigned flags = l->kind == WL_WRITE_PERSIST ? RPMAF_OP_PERSIST : 0;
	uint64_t off;
	int ret;

	if (!r->verify)
		return rpmaf_pool_write(c->pool, &l->op, region, pick_off(t, r->span, l->len),
					c->mr, l->moff, l->len, flags, lop_done, l);
	l->slot = pick_slot(t);
	l->len = rec_len(l->len, &r->layout);
	l->seq = (uint64_t)t->idx << 48 | ++t->seq;
	off = l->slot * r->layout.slot_size;
	l->crc = rec_fill(c->mem + l->moff, l->len, off, l->seq, (uint32_t)r->layout.slot_size,
			  r->run_id);
	ret = rpmaf_pool_write(c->pool, &l->op, region, off, c->mr, l->moff, l->len, flags,
			       lop_done, l);
	if (!ret)
		r->vs[l->slot].state = VS_BUSY;
	return ret;
}

/* submit_atomic -- an atomic write of 8 bytes, in the atomic area under --verify */
static int
submit_atomic(struct rthread *t, struct lop *l, const char *region)
{
	struct run *r = t->r;
	uint64_t v = rng_next(t), off;
	char val[8];

	if (r->layout.atomic_len)
		off = r->layout.atomic_off + 8 * (rng_next(t) % (r->layout.atomic_len / 8));
	else
		off = 8 * (rng_next(t) % (r->cl->info.size / 8));
	memcpy(val, &v, sizeof(val));
	return rpmaf_pool_atomic_write(r->cl->pool, &l->op, region, off, val, 0, lop_done, l);
}

/* submit_call -- an echo call: the request, then room for the reply, in the buffer */
static int
submit_call(struct rthread *t, struct lop *l)
{
	struct client *c = t->r->cl;
	uint8_t *req = c->mem + l->moff;

	for (uint32_t i = 0; i < l->len; i += 8) {
		uint64_t v = rng_next(t);

		memcpy(req + i, &v, l->len - i < 8 ? l->len - i : 8);
	}
	return rpmaf_pool_call(c->pool, &l->op, c->target, ECHO_HANDLER, req, l->len, req + l->len,
			       l->len, lop_done, l);
}

/* lop_submit -- submit l, of a kind and size drawn now */
static int
lop_submit(struct rthread *t, struct lop *l)
{
	struct run *r = t->r;
	const char *region = r->wl->region;

	l->kind = pick_kind(t);
	l->len = pick_len(t, l->kind);
	atomic_store_explicit(&l->state, LOP_BUSY, memory_order_relaxed);
	atomic_store_explicit(&l->acct, ACCT_IN_FLIGHT, memory_order_release);
	switch (l->kind) {
	case WL_WRITE:
	case WL_WRITE_PERSIST:
		return submit_write(t, l, region);
	case WL_READ:
		return rpmaf_pool_read(r->cl->pool, &l->op, region, pick_off(t, r->span, l->len),
				       r->cl->mr, l->moff, l->len, lop_done, l);
	case WL_ATOMIC:
		return submit_atomic(t, l, region);
	default:
		return submit_call(t, l);
	}
}

/* note_error -- count an error of kind k and keep the run's first one */
static void
note_error(struct rthread *t, int k, int status)
{
	int none = 0;

	count_add(&t->errors[k], 1);
	count_add(&t->fails[run_why(status)], 1);
	if (atomic_compare_exchange_strong(&t->r->first_err, &none, status))
		atomic_store(&t->r->first_err_kind, k);
}

/*
 * lop_refused -- l's submission failed with ret: counted once, refused (or
 * completed twice when a completion came for it all the same)
 */
static void
lop_refused(struct rthread *t, struct lop *l, int ret)
{
	if (atomic_exchange_explicit(&l->acct, ACCT_IDLE, memory_order_acq_rel) == ACCT_IN_FLIGHT)
		count_add(&t->rejected, 1);
	else
		count_shared(&l->n_twice);
	note_error(t, l->kind, ret);
}

/*
 * durable_check -- RPMA_LOAD_DURABLE_FILE: the record of l, a write_persist
 * just acknowledged, must be in the file already (the server may answer a
 * persist only once its range is durable); a record missing is counted
 * and named on stderr
 */
static void
durable_check(struct run *r, const struct lop *l)
{
	uint64_t off = l->slot * r->layout.slot_size;
	const uint8_t *want = r->cl->mem + l->moff;
	uint8_t buf[4096];
	uint32_t done = 0;

	atomic_fetch_add(&r->durable_checked, 1);
	while (done < l->len) {
		size_t len = l->len - done < sizeof(buf) ? l->len - done : sizeof(buf);

		if (pread(r->durable_fd, buf, len, (off_t)(off + done)) != (ssize_t)len ||
		    memcmp(buf, want + done, len))
			break;
		done += (uint32_t)len;
	}
	if (done == l->len)
		return;
	if (atomic_fetch_add(&r->durable_missing, 1) < 10)
		fprintf(stderr,
			"rpma-load: durable: the record at %llu (%u bytes, seq %llx) "
			"was acknowledged before it was durable\n",
			(unsigned long long)off, l->len, (unsigned long long)l->seq);
}

/* lop_record -- a completed operation into the thread's figures */
static void
lop_record(struct rthread *t, struct lop *l)
{
	struct run *r = t->r;
	int k = l->kind, status = l->status;
	uint8_t *req = r->cl->mem + l->moff;

	if (atomic_load_explicit(&r->abandoned, memory_order_relaxed))
		return; /* the client's memory may be gone */
	rpmaf__hist_record(&t->hist[k], l->t1 > l->t0 ? l->t1 - l->t0 : 0);
	if (!status && r->verify && k == WL_CALL &&
	    (l->reply_len != l->len || memcmp(req, req + l->len, l->len)))
		status = RUN_E_ECHO;
	if (r->verify && (k == WL_WRITE || k == WL_WRITE_PERSIST)) {
		struct vslot *v = &r->vs[l->slot];

		if (!status && k == WL_WRITE_PERSIST && r->durable_fd >= 0)
			durable_check(r, l);

		*v = (struct vslot){l->seq, l->len, l->crc, status ? VS_UNKNOWN : VS_GOOD};
	}
	if (status)
		note_error(t, k, status);
	else {
		count_add(&t->ops[k], 1);
		count_add(&t->bytes[k], k == WL_CALL ? 2ull * l->len : l->len);
	}
}

/*
 * lop_account -- a completed operation into the thread's figures; its slot
 * freed, the last access to t and l (the run may be freed right after)
 */
static void
lop_account(struct rthread *t, struct lop *l)
{
	lop_record(t, l);
	atomic_store_explicit(&l->state, LOP_FREE, memory_order_release);
}

/* chain_submit -- closed loop, on the thread's worker: submit l now */
static void
chain_submit(struct rthread *t, struct lop *l)
{
	int ret;

	l->t0 = run__now();
	count_add(&t->nsub, 1);
	if ((ret = lop_submit(t, l))) {
		lop_refused(t, l, ret);
		atomic_store_explicit(&l->state, LOP_FREE, memory_order_release);
	}
}

/*
 * chain_next -- closed loop, on the thread's worker: account for l and
 * submit the next operation in its place, the slot busy throughout (the
 * application thread waits for busy slots before the run is freed); after
 * a failure the slot stays idle until the next kick, so that errors cannot
 * spin
 */
static void
chain_next(struct rthread *t, struct lop *l)
{
	if (l->status == 0 && submitting(t, run__now(), 0)) {
		lop_record(t, l);
		chain_submit(t, l);
		return;
	}
	lop_account(t, l);
}

/*
 * kick -- closed loop, on the thread's worker: start every idle slot; the
 * pending flag is cleared last, as the application thread waits for it
 * before the run is freed
 */
static void
kick(struct rpmaf_worker *w, void *arg)
{
	struct rthread *t = arg;

	(void)w;
	for (uint32_t i = 0; i < t->r->wl->queue_depth; i++) {
		struct lop *l = &t->lops[i];

		if (!submitting(t, run__now(), 0))
			break;
		if (atomic_load_explicit(&l->state, memory_order_relaxed) == LOP_FREE)
			chain_submit(t, l);
	}
	atomic_store_explicit(&t->kick_pending, 0, memory_order_release);
}

/* harvest -- account for every completed operation; returns those still in flight */
static unsigned
harvest(struct rthread *t)
{
	unsigned busy = 0;

	for (uint32_t i = 0; i < t->r->wl->queue_depth; i++) {
		struct lop *l = &t->lops[i];
		int s = atomic_load_explicit(&l->state, memory_order_acquire);

		if (s == LOP_DONE)
			lop_account(t, l);
		else
			busy += s == LOP_BUSY;
	}
	return busy;
}

/* free_lop -- a free operation slot, or NULL */
static struct lop *
free_lop(struct rthread *t)
{
	for (uint32_t i = 0; i < t->r->wl->queue_depth; i++)
		if (atomic_load_explicit(&t->lops[i].state, memory_order_relaxed) == LOP_FREE)
			return &t->lops[i];
	return NULL;
}

/* submitting -- whether the thread goes on submitting */
static bool
submitting(struct rthread *t, uint64_t now, uint64_t next)
{
	struct run *r = t->r;

	if (atomic_load_explicit(&r->stop, memory_order_relaxed))
		return false;
	if (t->quota)
		return atomic_load_explicit(&t->nsub, memory_order_relaxed) < t->quota;
	return now < r->stop_at && (!r->interval || next < r->stop_at);
}

/*
 * give_up -- the drain ends with l in flight: its operation never
 * completed (a time-out error, counted as never), unless its completion
 * comes just now, which is then waited for (RACE_WAIT_NS at most) and
 * taken as any other
 */
static void
give_up(struct rthread *t, struct lop *l)
{
	int in_flight = ACCT_IN_FLIGHT;
	uint64_t limit = run__now() + RACE_WAIT_NS;

	if (atomic_compare_exchange_strong(&l->acct, &in_flight, ACCT_GIVEN_UP)) {
		count_add(&t->never, 1);
		note_error(t, l->kind, RPMAF_E_TIMEOUT);
		return;
	}
	while (atomic_load(&l->state) == LOP_BUSY && run__now() < limit)
		run__pause(WAIT_SLOT_NS);
	harvest(t);
}

/*
 * drain -- wait for what is in flight, at most twice the operation time and
 * a second, or INTERRUPT_DRAIN_NS after a signal (what is left then is
 * completed by the pool's deletion, after run_abandon(), and not counted)
 */
static void
drain(struct rthread *t)
{
	uint64_t limit =
	    run__now() + 2000000ull * t->r->cl->cfg->timeouts.operation_ms + DRAIN_SLACK_NS;

	while (harvest(t) && run__now() < limit) {
		if (run_interrupted() && limit > run__now() + INTERRUPT_DRAIN_NS)
			limit = run__now() + INTERRUPT_DRAIN_NS;
		run__pause(WAIT_SLOT_NS);
	}
	if (run_interrupted())
		return;
	for (uint32_t i = 0; i < t->r->wl->queue_depth; i++)
		if (atomic_load(&t->lops[i].state) == LOP_BUSY)
			give_up(t, &t->lops[i]);
}

/*
 * closed_loop -- the application thread of a closed loop: start the idle
 * slots on the worker (at once, then after every failure) until the run
 * ends, then wait for what is in flight
 */
static void
closed_loop(struct rthread *t)
{
	uint64_t now;

	while (submitting(t, now = run__now(), 0)) {
		if (free_lop(t) && !atomic_exchange(&t->kick_pending, 1) &&
		    rpmaf_worker_submit(t->w, &t->kick, kick, t)) {
			atomic_store(&t->kick_pending, 0);
			note_error(t, 0, RPMAF_E_INVAL);
			break;
		}
		uint64_t left = t->r->stop_at > now ? t->r->stop_at - now : 0;

		run__pause(t->quota || left > WAIT_KICK_NS ? WAIT_KICK_NS : left);
	}
	/* a kick still queued finds submitting() false; t must outlive it */
	while (atomic_load_explicit(&t->kick_pending, memory_order_acquire))
		run__pause(WAIT_SLOT_NS);
	drain(t);
}

/* see run_int.h */
void *
run__thread(void *arg)
{
	struct rthread *t = arg;
	struct run *r = t->r;
	uint64_t next = r->start, now;
	struct lop *l;
	int ret;

	if (t->w) {
		closed_loop(t);
		atomic_fetch_add(&r->finished, 1);
		return NULL;
	}
	for (;;) {
		harvest(t);
		now = run__now();
		if (!submitting(t, now, next))
			break;
		if (r->interval && now < next) {
			run__pause(next - now < WAIT_RATE_NS ? next - now : WAIT_RATE_NS);
			continue;
		}
		if (!(l = free_lop(t))) {
			run__pause(WAIT_SLOT_NS);
			continue;
		}
		l->t0 = r->interval ? next : now;
		next += r->interval;
		count_add(&t->nsub, 1);
		if ((ret = lop_submit(t, l))) {
			lop_refused(t, l, ret);
			atomic_store_explicit(&l->state, LOP_FREE, memory_order_relaxed);
		}
	}
	drain(t);
	atomic_fetch_add(&r->finished, 1);
	return NULL;
}
