// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * op.c -- the submission side of the pool's operations: the public
 * rpmaf_pool_write(), _read(), _flush(), _atomic_write(), _call(), and
 * rpmaf_op_wait(). A submission looks the region up in the table inside an
 * RCU read-side section, checks the request against it, picks a healthy
 * connection of its target and submits the operation to that connection's
 * worker. When the target has none, the operation takes one of the
 * target's waiting places (RPMAF_E_AGAIN when there is none left) and goes
 * to a slot of the target, where it waits for a connection (wait.c). No
 * lock, no allocation.
 */

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../workers/worker.h"
#include "pool.h"

/* how long rpmaf_op_wait() gives the worker past the deadline to report the time-out */
#define WAIT_GRACE_NS 1000000000ull

/* where the thread's registration as an RCU reader is undone at its exit */
static pthread_key_t Reader_key;
static pthread_once_t Reader_once = PTHREAD_ONCE_INIT;
__thread bool rpmaf__pool_is_reader __attribute__((tls_model("initial-exec")));

/* reader_exit -- unregister a thread the pool registered, as it exits */
static void
reader_exit(void *value)
{
	(void)value;
	rpmaf__regtab_thread_unregister();
}

/* reader_key_make -- the key whose destructor unregisters (once per process) */
static void
reader_key_make(void)
{
	(void)pthread_key_create(&Reader_key, reader_exit);
}

/*
 * rpmaf__pool_reader_register -- register the calling thread as an RCU
 * reader (rpmaf__pool_reader()): any application thread may submit without
 * knowing about RCU.
 */
void
rpmaf__pool_reader_register(void)
{
	if (rpmaf__pool_is_reader || rpmaf__current)
		return;
	(void)pthread_once(&Reader_once, reader_key_make);
	rpmaf__regtab_thread_register();
	(void)pthread_setspecific(Reader_key, (void *)1);
	rpmaf__pool_is_reader = true;
}

/*
 * rpmaf__pool_now_ns -- the workers' clock (rpmaf__now_ns()) for deadlines
 * and latencies: one reading of CLOCK_MONOTONIC for the framework, under a
 * name of the pool's own that a harness may stand in for (fuzz_ctl_pool.c)
 */
uint64_t
rpmaf__pool_now_ns(void)
{
	return rpmaf__now_ns();
}

/*
 * rpmaf__pool_op_now_ns -- the time an operation starts or ends at: on a
 * worker thread its turn's clock (read as the turn polls; what a callback
 * submits or completes is stamped with it, at no cost), elsewhere the clock
 */
uint64_t
rpmaf__pool_op_now_ns(void)
{
	return rpmaf__current ? rpmaf__current->now_ns : rpmaf__pool_now_ns();
}

/* where the calling thread's next pick() starts: its own, so that threads share no counter */
static __thread unsigned Pick_next __attribute__((tls_model("initial-exec")));

/*
 * pick -- a healthy connection of target t, NULL when none: on a worker
 * thread one of that worker's own when it has one (the operation is then
 * posted at once, with no hand-over between threads: a callback that
 * submits the next operation runs to completion on its worker), round
 * robin otherwise (each thread turns on its own)
 */
static struct rpmaf__pool_conn *
pick(struct rpmaf_pool *pool, unsigned t)
{
	struct rpmaf__pool_target *tg = &pool->targets[t];
	struct rpmaf__pool_conn *any = NULL;
	unsigned start;

	if (tg->n == 1) {
		any = &pool->conns[tg->first];
		return atomic_load_explicit(&any->healthy, memory_order_acquire) ? any : NULL;
	}
	start = Pick_next++;

	for (unsigned i = 0; i < tg->n; i++) {
		struct rpmaf__pool_conn *pc = &pool->conns[tg->first + (start + i) % tg->n];

		if (!atomic_load_explicit(&pc->healthy, memory_order_acquire))
			continue;
		if (pc->w == rpmaf__current)
			return pc;
		if (!any) {
			any = pc;
			if (!rpmaf__current)
				break;
		}
	}
	return any;
}

/*
 * pick_waiting -- the slot of target t an operation waits on when none is
 * healthy: one of the calling worker's own when it has one, round robin
 * otherwise; the operation takes one of the target's waiting places.
 * NULL when every place is taken (back-pressure).
 */
static struct rpmaf__pool_conn *
pick_waiting(struct rpmaf_pool *pool, unsigned t, struct rpmaf__pool_op *o)
{
	struct rpmaf__pool_target *tg = &pool->targets[t];
	struct rpmaf__pool_conn *pc = &pool->conns[tg->first + Pick_next++ % tg->n];

	if (atomic_fetch_add_explicit(&tg->waiting, 1, memory_order_relaxed) >= tg->wait_max) {
		atomic_fetch_sub_explicit(&tg->waiting, 1, memory_order_relaxed);
		return NULL;
	}
	for (unsigned i = 0; rpmaf__current && i < tg->n; i++)
		if (pool->conns[tg->first + i].w == rpmaf__current)
			pc = &pool->conns[tg->first + i];
	o->wflags = POOL_W_PLACE;
	return pc;
}

/*
 * pick_conn -- the connection an operation of target t goes to: a healthy
 * one, or a slot to wait on (see pick_waiting()); NULL when neither
 */
static inline struct rpmaf__pool_conn *
pick_conn(struct rpmaf_pool *pool, unsigned t, struct rpmaf__pool_op *o)
{
	struct rpmaf__pool_conn *pc = pick(pool, t);

	o->wflags = 0;
	return pc ? pc : pick_waiting(pool, t, o);
}

/* what a submission asks of a region */
struct want {
	const char *region;
	uint64_t offset, len;
	unsigned usage; /* RPMAF_USAGE_* bits it needs */
};

/* flags_ok -- at most one of the two flags, no other */
static bool
flags_ok(unsigned flags)
{
	return (flags & ~(RPMAF_OP_PERSIST | RPMAF_OP_VISIBLE)) == 0 &&
	       flags != (RPMAF_OP_PERSIST | RPMAF_OP_VISIBLE);
}

/*
 * find -- look the region up and check the request against it; fill what
 * the operation keeps of it and pick its connection. On success the
 * read-side section stays open and *ep is the entry: submit() closes it.
 */
static inline __attribute__((always_inline)) int
find(struct rpmaf_pool *pool, const struct want *wt, struct rpmaf__pool_op *o,
     const struct rpmaf__regtab_entry **ep)
{
	const struct rpmaf__regtab_entry *e;
	int ret = 0;

	rpmaf__pool_reader();
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup_str(pool->tab, wt->region);
	if (!e || e->target >= pool->ntargets)
		ret = RPMAF_E_NOENT;
	else if (wt->offset > e->size || wt->len > e->size - wt->offset ||
		 (e->usage & wt->usage) != wt->usage)
		ret = RPMAF_E_INVAL;
	else if (!(o->pc = pick_conn(pool, e->target, o)))
		ret = RPMAF_E_AGAIN;
	if (ret) {
		rpmaf__regtab_read_unlock();
		return ret;
	}
	o->generation = e->generation;
	o->persist = e->persist;
	*ep = e;
	return 0;
}

/*
 * direct -- the submitting thread is the connection's worker (a callback
 * chaining the next operation), the connection was healthy and nothing
 * submitted earlier is still in the worker's queue: post the operation at
 * once, with the entry found in this section. 0 when posted; otherwise
 * nothing was done and the operation goes through the queue, where it is
 * checked again and completed, queued on the connection or made to wait
 * for one (so a callback never runs inside its submission).
 */
static int
direct(struct rpmaf__pool_op *o, const struct rpmaf__regtab_entry *e)
{
	struct rpmaf_worker *w = o->pc->w;

	if (o->wflags || rpmaf__current != w || rpmaf__submitq_pending(&w->subq))
		return RPMAF_E_AGAIN;
	return rpmaf__pool_op_direct(o->pc, o, e);
}

/*
 * submit -- fill the rest of the operation and hand it to its connection's
 * worker; e (NULL for a call) is the region's entry, found in the read-side
 * section find() left open, which this closes.
 */
static inline __attribute__((always_inline)) int
submit(struct rpmaf_pool *pool, struct rpmaf__pool_op *o, const struct rpmaf__regtab_entry *e,
       unsigned kind, unsigned flags, uint64_t offset, uint64_t len, rpmaf_op_cb cb, void *ctx)
{
	o->cb = cb;
	o->ctx = ctx;
	o->kind = (uint8_t)kind;
	o->flags = (uint8_t)flags;
	o->offset = offset;
	o->len = len;
	o->stage = POOL_S_IDLE; /* its links are set as it is tracked or queued */
	o->reply_len = 0;
	o->status = 0;
	o->magic = cb ? POOL_OP_CALLBACK : POOL_OP_WAITABLE;
	atomic_store_explicit(&o->done, 0, memory_order_relaxed);
	o->deadline_ns = rpmaf__pool_op_now_ns() + pool->op_ns;
	if (e) {
		int ret;

		/* the name goes with the operation: the worker may look it up again */
		memcpy(o->name, e->name, (size_t)e->name_len + 1);
		ret = direct(o, e);
		rpmaf__regtab_read_unlock();
		if (ret == 0)
			return 0;
	}
	return rpmaf_worker_submit(o->pc->w, &o->work, rpmaf__pool_op_run, o);
}

/* usable -- the pool takes operations */
static int
usable(struct rpmaf_pool *pool)
{
	return atomic_load_explicit(&pool->shutdown, memory_order_acquire) ? RPMAF_E_SHUTDOWN : 0;
}

/*
 * usable_find -- the checks every range submission starts with: the pool
 * takes operations, then find() for wt, where a flag (persist or visible)
 * asks the region for the flush usage too
 */
static inline __attribute__((always_inline)) int
usable_find(struct rpmaf_pool *pool, struct want *wt, unsigned flags, struct rpmaf__pool_op *o,
	    const struct rpmaf__regtab_entry **ep)
{
	int ret = usable(pool);

	if (ret)
		return ret;
	if (flags)
		wt->usage |= RPMAF_USAGE_FLUSH;
	return find(pool, wt, o, ep);
}

/*
 * rpmaf_pool_write -- write (and, with a flag, flush) a range: the kind is
 * a write+flush when a flag is given, so that it is counted as one.
 */
int
rpmaf_pool_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region, size_t offset,
		 struct rpma_mr_local *src, size_t src_off, size_t len, unsigned flags,
		 rpmaf_op_cb cb, void *ctx)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	const struct rpmaf__regtab_entry *e;
	struct want wt = {region, offset, len, RPMAF_USAGE_WRITE};
	int ret;

	if (!pool || !op || !region || !src || len == 0 || !flags_ok(flags))
		return RPMAF_E_INVAL;
	if ((ret = usable_find(pool, &wt, flags, o, &e)))
		return ret;
	o->u.rma.mr = src;
	o->u.rma.off = src_off;
	return submit(pool, o, e, flags ? POOL_K_WRITE_FLUSH : POOL_K_WRITE, flags, offset, len, cb,
		      ctx);
}

/* rpmaf_pool_read -- read a range into the caller's registered memory */
int
rpmaf_pool_read(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region, size_t offset,
		struct rpma_mr_local *dst, size_t dst_off, size_t len, rpmaf_op_cb cb, void *ctx)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	const struct rpmaf__regtab_entry *e;
	struct want wt = {region, offset, len, RPMAF_USAGE_READ};
	int ret;

	if (!pool || !op || !region || !dst || len == 0)
		return RPMAF_E_INVAL;
	if ((ret = usable_find(pool, &wt, 0, o, &e)))
		return ret;
	o->u.rma.mr = dst;
	o->u.rma.off = dst_off;
	return submit(pool, o, e, POOL_K_READ, 0, offset, len, cb, ctx);
}

/* rpmaf_pool_flush -- make a range persistent or visible: exactly one flag */
int
rpmaf_pool_flush(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region, size_t offset,
		 size_t len, unsigned flags, rpmaf_op_cb cb, void *ctx)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	const struct rpmaf__regtab_entry *e;
	struct want wt = {region, offset, len, RPMAF_USAGE_FLUSH};
	int ret;

	if (!pool || !op || !region || len == 0 || !flags || !flags_ok(flags))
		return RPMAF_E_INVAL;
	if ((ret = usable_find(pool, &wt, flags, o, &e)))
		return ret;
	return submit(pool, o, e, POOL_K_FLUSH, flags, offset, len, cb, ctx);
}

/* rpmaf_pool_atomic_write -- 8 bytes at an aligned offset, with an optional flush */
int
rpmaf_pool_atomic_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
			size_t offset, const char value[8], unsigned flags, rpmaf_op_cb cb,
			void *ctx)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	const struct rpmaf__regtab_entry *e;
	struct want wt = {region, offset, 8, RPMAF_USAGE_WRITE};
	int ret;

	if (!pool || !op || !region || !value || offset % 8 || !flags_ok(flags))
		return RPMAF_E_INVAL;
	if ((ret = usable_find(pool, &wt, flags, o, &e)))
		return ret;
	memcpy(o->u.value, value, 8);
	return submit(pool, o, e, POOL_K_ATOMIC, flags, offset, 8, cb, ctx);
}

/* target_find -- the index of the target named name; -1 when none */
static int
target_find(const struct rpmaf_pool *pool, const char *name)
{
	for (unsigned t = 0; t < pool->ntargets; t++)
		if (strcmp(pool->cfg->targets[t].name, name) == 0)
			return (int)t;
	return -1;
}

/*
 * rpmaf_pool_call -- an application call: the request must fit one message
 * of this side and of the target's receive buffer (as the target announced
 * it; this side's size until a connection has been made).
 */
int
rpmaf_pool_call(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *target,
		uint32_t handler_id, const void *req, size_t req_len, void *reply, size_t reply_max,
		rpmaf_op_cb cb, void *ctx)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	uint64_t max = pool ? pool->cfg->queues.msg_size - RPMAF__PROTO_APP_REQ_PAYLOAD_OFF : 0;
	uint32_t peer_max;
	int t, ret;

	if (!pool || !op || !target || (!req && req_len) || (!reply && reply_max))
		return RPMAF_E_INVAL;
	if ((ret = usable(pool)))
		return ret;
	if ((t = target_find(pool, target)) < 0)
		return RPMAF_E_NOENT;
	peer_max = atomic_load_explicit(&pool->targets[t].max_req, memory_order_relaxed);
	if (req_len > max || (peer_max && req_len > peer_max))
		return RPMAF_E_INVAL;
	if (!(o->pc = pick_conn(pool, (unsigned)t, o)))
		return RPMAF_E_AGAIN;
	o->u.call.req = req;
	o->u.call.reply = reply;
	o->u.call.reply_max = reply_max;
	o->handler_id = handler_id;
	o->name[0] = '\0';
	o->generation = 0;
	return submit(pool, o, NULL, POOL_K_CALL, 0, 0, req_len, cb, ctx);
}

/* futex_wait -- sleep while *word is val, for at most ns */
static void
futex_wait(_Atomic uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};

	(void)syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/*
 * rpmaf_op_wait -- sleep on the operation's futex word until it completes,
 * bounded by its deadline (and the grace the worker's time-out scan needs
 * to report it).
 */
int
rpmaf_op_wait(struct rpmaf_op *op)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op(op);
	uint64_t limit, now;

	if (!op || o->magic != POOL_OP_WAITABLE || rpmaf__current)
		return RPMAF_E_INVAL;
	limit = o->deadline_ns + WAIT_GRACE_NS;
	while (!atomic_load_explicit(&o->done, memory_order_acquire)) {
		now = rpmaf__pool_now_ns();
		if (now >= limit)
			return RPMAF_E_TIMEOUT; /* the worker is stuck: the op is still its own */
		futex_wait(&o->done, 0, limit - now);
	}
	o->magic = 0;
	return o->status;
}

/* rpmaf_op_reply_len -- the reply's length of a completed call */
size_t
rpmaf_op_reply_len(const struct rpmaf_op *op)
{
	const struct rpmaf__pool_op *o = (const struct rpmaf__pool_op *)(const void *)op;

	if (!op || o->kind != POOL_K_CALL ||
	    !atomic_load_explicit(&((struct rpmaf__pool_op *)o)->done, memory_order_acquire))
		return 0;
	return (size_t)o->reply_len;
}
