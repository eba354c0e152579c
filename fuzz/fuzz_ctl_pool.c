/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_pool.c -- libFuzzer harness of the client's side of the control
 * channel: sequences of server messages, send completions and failures,
 * timers, disconnections and reconnections through the pool's real code
 * (ctl/ctl.c, pool/conn.c's callbacks and loss, pool/session.c's handshake,
 * region list and announcements, pool/post.c's operations and replies,
 * pool/op.c's submissions, regtab/ for the region table), the connection's
 * state and the table kept from one step to the next.
 *
 * The worker under the connection is fuzz_ctl_stub.c's (shared with
 * fuzz_ctl_server.c). The control thread of the pool (pool/connect.c) is
 * this file's: it attaches the connection and takes it back. Two seams are
 * made at link time, nothing in pool/ changes: the nonce of the session is
 * fixed (--wrap=rpmaf__proto_auth_nonce), so that a seed can carry the
 * server's proof, and the clock of pool/conn.c and post.c is the stub's
 * (--wrap=rpmaf__pool_now_ns), so that a timer fired finds its deadline
 * passed. And the region table's grace periods are the harness's
 * (--wrap=urcu_qsbr_call_rcu,urcu_qsbr_barrier: see grace()).
 *
 * An input is a byte of set-up (bit 0: the pool has a key), then steps,
 * each a byte (modulo 9):
 *   0 LEN_LO LEN_HI BYTES  the server's message of LEN bytes (longer than the
 *                          buffer: a receive failed with IBV_WC_LOC_LEN_ERR)
 *   1 / 2                  the oldest work request completes / fails
 *   3                      the earliest timer fires (the connection's scan,
 *                          the channel's heartbeat)
 *   4                      the server disconnects; once the connection was
 *                          handed back: connect again
 *   5 A B                  a call: handler A & 3, a request of (A >> 3) * 8
 *                          bytes, a reply buffer of B bytes; submitted from
 *                          the worker's thread when A & 4
 *   6 A B                  an operation on region "r<A & 3>": a write, a
 *                          read, a flush, an atomic write or a persistent
 *                          write (((A >> 2) & 7) % 5) at offset B * 8; from the
 *                          worker's thread when A & 0x80
 *   7                      the pool shuts down (rpmaf_pool_delete()'s
 *                          close on the worker); submissions fail from then on
 *   8 A                    the (A & 3) + 1-th post of a work request from
 *                          now fails
 *
 * Properties, after every step:
 * - whatever the client sends decodes, fits the server's buffer (what its
 *   HELLO_REPLY announced, RPMAF__PROTO_MSG_MIN before), is a message a
 *   client sends (HELLO first, requests with growing req_ids), and nothing
 *   follows the client's ERROR nor the connection's close;
 * - every operation submitted completes exactly once, never inside its
 *   submission, successfully only on a ready connection; one the lost
 *   connection leaves either fails then or waits for the next connection
 *   (a call the server may have run, of a handler not announced
 *   idempotent, always fails); a call's reply fits its buffer;
 * - the connection's tracked operations and those waiting for a
 *   connection are all in flight, and each waiting one holds a waiting
 *   place of the target, no other does; the channel has no more sends in
 *   flight than its send queue; healthy means ready;
 * - every live entry of the region table is well formed, of the target,
 *   and found again by its name; once a listing is complete, none is left
 *   that the listing's table held (not newer) and did not name;
 * - a lost connection is handed back once, and leaves nothing but the
 *   operations waiting for the next one (with the slot's scan timer): no
 *   buffer, no other timer; at the end of the input the pool's drain
 *   completes those, and nothing is left (AddressSanitizer's leak check).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pool/pool.h"
#include "fuzz_assert.h"
#include "fuzz_ctl_stub.h"

#define MSG_SIZE   512
#define CREDITS	   4
#define SQ	   8
#define MAX_OPS	   16
#define REGIONS	   4 /* r0 to r3 */
#define STEP_KINDS 9

/* an operation of the input */
struct slot {
	struct rpmaf_op op;
	bool inflight;
	uint8_t *reply; /* exactly reply_max bytes: a reply beyond it is an overflow */
	size_t reply_max;
};

static struct rpmaf_cfg Cfg;
static struct rpmaf_cfg_target Target = {"t0", "192.0.2.1", 7204, 1};
static struct rpmaf__wlog Log;
static struct rpmaf_pool Pool;
static struct rpmaf__pool_target Tg;
static struct rpmaf__pool_conn Pc;
static struct slot Slots[MAX_OPS];
static uint8_t Req[256];

/* the state of the input: the connection's hand-backs, its messages, the submission under way */
static struct {
	unsigned handbacks; /* of the current attachment: 0 or 1 */
	bool submitting;    /* inside a submission: no callback may run */
	bool error_sent;    /* the client sent ERROR on this connection */
	uint64_t sent;	    /* messages sent on this connection */
	uint64_t last_req;  /* the req_id of its last request */
	bool was_ready;	    /* ready at the last check of the table */
} In;

/* __wrap_rpmaf__proto_auth_nonce -- a fixed nonce: a seed can carry the server's proof */
int
__wrap_rpmaf__proto_auth_nonce(uint8_t nonce[RPMAF__PROTO_NONCE_SIZE])
{
	memset(nonce, 0x5a, RPMAF__PROTO_NONCE_SIZE);
	return 0;
}

/* __wrap_rpmaf__pool_now_ns -- the stub's clock, which timers fired move on */
uint64_t
__wrap_rpmaf__pool_now_ns(void)
{
	return rpmaf__now_ns();
}

/*
 * The table's grace periods are the harness's: its thread is the only RCU
 * reader, so once it is outside any read-side section (between steps, or
 * when the table is deleted) every entry retired before has outlived its
 * readers. The callbacks the table defers run then, in order, on this
 * thread: an entry kept past its section is a use after free
 * AddressSanitizer reports at once, and an input frees what it allocated.
 */
static struct {
	struct rcu_head **head;
	void (**func)(struct rcu_head *);
	size_t n, max;
} Deferred;

void __real_urcu_qsbr_barrier(void);

/* __wrap_urcu_qsbr_call_rcu -- the table retires an entry: its callback waits for grace() */
void
__wrap_urcu_qsbr_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *))
{
	if (Deferred.n == Deferred.max) {
		size_t max = Deferred.max ? Deferred.max * 2 : 64;

		Deferred.head = realloc(Deferred.head, max * sizeof(*Deferred.head));
		Deferred.func = realloc(Deferred.func, max * sizeof(*Deferred.func));
		fuzz_assert(Deferred.head && Deferred.func);
		Deferred.max = max;
	}
	Deferred.head[Deferred.n] = head;
	Deferred.func[Deferred.n++] = func;
}

/* grace -- a grace period: run every callback deferred so far */
static void
grace(void)
{
	for (size_t i = 0; i < Deferred.n; i++)
		Deferred.func[i](Deferred.head[i]);
	Deferred.n = 0;
}

/* __wrap_urcu_qsbr_barrier -- the table's rcu_barrier(): the harness's callbacks, then liburcu's */
void
__wrap_urcu_qsbr_barrier(void)
{
	grace();
	__real_urcu_qsbr_barrier();
}

/* see pool.h: the control thread takes the connection back */
void
rpmaf__pool_handback(struct rpmaf__pool_conn *pc, int why)
{
	fuzz_assert(pc == &Pc && In.handbacks == 0 && pc->torn);
	fuzz_assert(!atomic_load(&pc->healthy) && pc->wconn == NULL && !pc->ctl_inited);
	fuzz_assert(pc->tr_head == NULL && pc->wq_head == NULL && pc->seen == NULL);
	In.handbacks++;
	pc->handback = why;
	atomic_store(&pc->state, PC_LOST);
}

/* see pool.h: no control thread to wake */
void
rpmaf__pool_wake(struct rpmaf_pool *pool)
{
	(void)pool;
}

/* see pool.h: no one waits */
void
rpmaf__pool_notify(struct rpmaf_pool *pool)
{
	atomic_fetch_add(&pool->events, 1);
}

/* obj_new -- the table's descriptor hook: an object to post to (a descriptor of 0 is refused) */
static int
obj_new(const uint8_t *desc, size_t desc_len, void *arg, void **obj)
{
	(void)arg;
	if (desc_len == 0 || desc[0] == 0)
		return RPMAF_E_RDMA;
	*obj = malloc(1);
	return *obj ? 0 : RPMAF_E_NOMEM;
}

/* obj_delete -- after a grace period */
static void
obj_delete(void *obj, void *arg)
{
	(void)arg;
	free(obj);
}

/* is_request -- a client's message that asks for an answer (its req_id is fresh) */
static bool
is_request(unsigned type)
{
	return type == RPMAF__PROTO_T_HELLO || type == RPMAF__PROTO_T_AUTH ||
	       type == RPMAF__PROTO_T_REGION_LIST_REQ || type == RPMAF__PROTO_T_PERSIST_REQ ||
	       type == RPMAF__PROTO_T_APP_REQ || type == RPMAF__PROTO_T_HANDLER_LIST_REQ;
}

/* on_send -- every message the client sends: a client's, in order */
static void
on_send(const struct rpmaf__proto_msg *m)
{
	unsigned t = m->hdr.type;

	fuzz_assert(!In.error_sent);
	fuzz_assert((In.sent == 0) == (t == RPMAF__PROTO_T_HELLO));
	fuzz_assert(is_request(t) || t == RPMAF__PROTO_T_HEARTBEAT ||
		    t == RPMAF__PROTO_T_HEARTBEAT_REPLY || t == RPMAF__PROTO_T_CREDIT ||
		    t == RPMAF__PROTO_T_ERROR);
	if (is_request(t)) {
		fuzz_assert(m->hdr.req_id > In.last_req);
		In.last_req = m->hdr.req_id;
	}
	In.error_sent = t == RPMAF__PROTO_T_ERROR;
	In.sent++;
}

/* op_done -- an operation's callback: once, outside its submission, failed once lost */
static void
op_done(struct rpmaf_op *op, int status, void *ctx)
{
	struct slot *s = ctx;

	fuzz_assert(op == &s->op && s->inflight && !In.submitting);
	fuzz_assert(status <= 0);
	if (status == 0) {
		fuzz_assert(Pc.phase == PH_READY);
		fuzz_assert(rpmaf_op_reply_len(op) <= s->reply_max);
	}
	s->inflight = false;
	free(s->reply);
	s->reply = NULL;
}

/* slot_free -- an operation slot not in flight; NULL when all are */
static struct slot *
slot_free(void)
{
	for (unsigned i = 0; i < MAX_OPS; i++)
		if (!Slots[i].inflight)
			return &Slots[i];
	return NULL;
}

/* submitted -- after a submission returned ret: in flight when accepted */
static void
submitted(struct slot *s, int ret)
{
	In.submitting = false;
	rpmaf__current = NULL;
	if (ret == 0)
		return;
	s->inflight = false;
	free(s->reply);
	s->reply = NULL;
}

/* step_call -- an application call */
static void
step_call(uint8_t a, uint8_t b)
{
	struct slot *s = slot_free();

	if (!s)
		return;
	s->reply_max = b;
	s->reply = b ? malloc(b) : NULL;
	fuzz_assert(!b || s->reply);
	s->inflight = true;
	In.submitting = true;
	rpmaf__current = (a & 4) ? &Fw.w : NULL;
	submitted(s, rpmaf_pool_call(&Pool, &s->op, "t0", a & 3, Req, (size_t)(a >> 3) * 8,
				     s->reply, s->reply_max, op_done, s));
}

/* step_rma -- an operation on a region */
static void
step_rma(uint8_t a, uint8_t b)
{
	static const char value[8];
	struct rpma_mr_local *mr = (struct rpma_mr_local *)Req;
	struct slot *s = slot_free();
	char name[3] = {'r', (char)('0' + a % REGIONS), '\0'};
	size_t off = (size_t)b * 8;
	int ret;

	if (!s)
		return;
	s->reply_max = 0;
	s->inflight = true;
	In.submitting = true;
	rpmaf__current = (a & 0x80) ? &Fw.w : NULL;
	switch (((a >> 2) & 7) % 5) {
	case 0:
		ret = rpmaf_pool_write(&Pool, &s->op, name, off, mr, 0, 64, 0, op_done, s);
		break;
	case 1:
		ret = rpmaf_pool_read(&Pool, &s->op, name, off, mr, 0, 64, op_done, s);
		break;
	case 2:
		ret = rpmaf_pool_flush(&Pool, &s->op, name, off, 64, RPMAF_OP_PERSIST, op_done, s);
		break;
	case 3:
		ret = rpmaf_pool_atomic_write(&Pool, &s->op, name, off, value, RPMAF_OP_VISIBLE,
					      op_done, s);
		break;
	default:
		ret = rpmaf_pool_write(&Pool, &s->op, name, off, mr, 0, 64, RPMAF_OP_PERSIST,
				       op_done, s);
		break;
	}
	submitted(s, ret);
}

/* step_shutdown -- the pool is deleted: its control thread closes the connection on its worker */
static void
step_shutdown(void)
{
	if (atomic_exchange(&Pool.shutdown, 1))
		return;
	if (atomic_load(&Pc.state) != PC_WORKER)
		return;
	atomic_fetch_add(&Pool.closing, 1);
	(void)rpmaf_worker_submit(&Fw.w, &Pc.close_work, rpmaf__pool_conn_close, &Pc);
}

/* entry_check -- a live entry of the table: well formed, the target's, found by its name */
static int
entry_check(const struct rpmaf__regtab_entry *e, void *arg)
{
	(void)arg;
	fuzz_assert(e->target == Pc.target && !e->tombstone && e->obj != NULL);
	fuzz_assert(e->name_len >= 1 && e->name_len <= RPMAF__REGTAB_NAME_MAX);
	fuzz_assert(strlen(e->name) == e->name_len && e->desc_len > 0 && e->size > 0);
	fuzz_assert(rpmaf__regtab_lookup(Pool.tab, e->name, e->name_len) == e);
	return 0;
}

/* listed_check -- after a full listing, an entry of the target as old as it was listed */
static int
listed_check(const struct rpmaf__regtab_entry *e, void *arg)
{
	bool seen = false;

	(void)arg;
	if (e->target != Pc.target || e->generation > Pc.list_gen)
		return 0; /* announced after the listing's table */
	for (uint32_t i = 0; i < Pc.nseen && !seen; i++)
		seen = strcmp(Pc.seen[i], e->name) == 0;
	fuzz_assert(seen);
	return 0;
}

/* waiting -- the operations waiting for a connection: each in flight, holding a place */
static unsigned
waiting(void)
{
	unsigned n = 0;

	for (const struct rpmaf__pool_op *o = Pc.pq_head; o; o = o->next) {
		fuzz_assert(o->pc == &Pc && o->stage == POOL_S_IDLE);
		fuzz_assert(((struct slot *)o->ctx)->inflight && (o->wflags & POOL_W_PLACE));
		n++;
	}
	fuzz_assert(n == Pc.npq && (n == 0) == (Pc.pq_tail == NULL));
	fuzz_assert(!n || Pc.scan_armed);
	return n;
}

/*
 * check -- the invariants between steps; the table's after a message (only
 * those change it); the waiting places once the worker has run everything
 * (drained)
 */
static void
check(bool table, bool drained)
{
	unsigned inflight = 0, tracked = 0, npq = waiting();

	for (unsigned i = 0; i < MAX_OPS; i++)
		inflight += Slots[i].inflight;
	for (const struct rpmaf__pool_op *o = Pc.tr_head; o; o = o->tnext) {
		fuzz_assert(o->pc == &Pc && o->stage != POOL_S_IDLE);
		fuzz_assert(((struct slot *)o->ctx)->inflight && !(o->wflags & POOL_W_PLACE));
		tracked++;
	}
	fuzz_assert(tracked + npq <= inflight);
	if (drained)
		fuzz_assert(atomic_load(&Tg.waiting) == npq);
	for (const struct rpmaf__pool_op *o = Pc.wq_head; o; o = o->next)
		fuzz_assert(o->stage == POOL_S_WAIT || o->stage == POOL_S_PERSIST);
	if (atomic_load(&Pc.healthy))
		fuzz_assert(Pc.phase == PH_READY && !Fw.closed);
	if (Pc.ctl_inited)
		fuzz_assert(Pc.ctl.ninflight <= Pc.ctl.inflight_max);
	if (!Fw.closed)
		fuzz_assert(Fw.wconn.acct.sq.used <= SQ);
	if (!table)
		return;
	rpmaf__regtab_read_lock();
	(void)rpmaf__regtab_foreach(Pool.tab, entry_check, NULL);
	if (Pc.phase == PH_READY && !In.was_ready)
		(void)rpmaf__regtab_foreach(Pool.tab, listed_check, NULL);
	rpmaf__regtab_read_unlock();
	In.was_ready = Pc.phase == PH_READY;
}

/*
 * attach -- the control thread hands an established connection to its
 * worker (the worker's clock and timers go on: the slot's scan may be
 * armed for the operations that wait)
 */
static void
attach(void)
{
	uint64_t skew = Fw.skew_ns;
	unsigned ntimers = Fw.ntimers;
	__typeof__(Fw.timers) timers;

	memcpy(timers, Fw.timers, sizeof(timers));
	fuzz_ctl_reset(MSG_SIZE, 2 * SQ, SQ, 4 * SQ);
	Fw.skew_ns = skew;
	memcpy(Fw.timers, timers, sizeof(timers));
	Fw.ntimers = ntimers;
	Fw.on_send = on_send;
	In.handbacks = 0;
	In.error_sent = false;
	In.sent = In.last_req = 0;
	Pc.conn = (struct rpma_conn *)&Fw;
	atomic_store(&Pc.state, PC_WORKER);
	(void)rpmaf_worker_submit(&Fw.w, &Pc.attach_work, rpmaf__pool_conn_attach, &Pc);
	fuzz_ctl_drain();
	fuzz_assert(Fw.attached && Fw.w.now_ns);
}

/*
 * lost -- the connection was handed back: nothing left of it but the
 * operations waiting for the next one, and the scan timer that watches them
 */
static void
lost(void)
{
	unsigned inflight = 0;

	fuzz_assert(In.handbacks == 1 && atomic_load(&Pc.state) == PC_LOST);
	for (unsigned i = 0; i < MAX_OPS; i++)
		inflight += Slots[i].inflight;
	fuzz_assert(inflight == waiting());
	if (Pc.pq_head) {
		fuzz_assert(Fw.ntimers == 1 && Fw.timers[0].t == &Pc.scan);
		Fw.ntimers = 0;
		fuzz_ctl_check_idle();
		Fw.ntimers = 1;
		return;
	}
	fuzz_ctl_check_idle();
}

/* drain -- the pool's deletion: what waits completes (shutdown), nothing is left */
static void
drain(void)
{
	atomic_store(&Pool.shutdown, 1);
	atomic_store(&Pool.closing, 1);
	(void)rpmaf_worker_submit(&Fw.w, &Pc.drain_work, rpmaf__pool_drain, &Pc);
	fuzz_ctl_drain();
	for (unsigned i = 0; i < MAX_OPS; i++)
		fuzz_assert(!Slots[i].inflight);
	fuzz_assert(atomic_load(&Tg.waiting) == 0 && !Pc.scan_armed);
	fuzz_ctl_check_idle();
}

/* LLVMFuzzerInitialize -- a pool of one target, one connection, a quiet log */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_ctl_cfg(&Cfg, MSG_SIZE, CREDITS, SQ);
	Cfg.timeouts.operation_ms = 1000;
	Cfg.ntargets = 1;
	Cfg.targets = &Target;
	Log.level = RPMAF_LOG_DEBUG; /* every line formatted, then dropped */
	fuzz_assert((Log.out = fopen("/dev/null", "w")) != NULL);
	Pool.cfg = &Cfg;
	Pool.log = &Log;
	Pool.op_ns = (uint64_t)Cfg.timeouts.operation_ms * 1000000ull;
	Pool.scan_us = 100000;
	Pool.nconns = 1;
	Pool.conns = &Pc;
	Pool.ntargets = 1;
	Pool.targets = &Tg;
	Pool.key.len = 32;
	memset(Pool.key.bytes, 0x4b, Pool.key.len);
	Tg.n = 1;
	Tg.wait_max = SQ;
	rpmaf__pool_reader_register(); /* the table's reader, as an application thread is */
	return 0;
}

/* the live entries of the table, collected to be removed */
struct names {
	char (*name)[RPMAF__REGTAB_NAME_MAX + 1];
	uint64_t *gen;
	size_t n, max;
};

/* names_cb -- collect one live entry */
static int
names_cb(const struct rpmaf__regtab_entry *e, void *arg)
{
	struct names *nm = arg;

	if (nm->n == nm->max)
		return 1;
	memcpy(nm->name[nm->n], e->name, sizeof(e->name));
	nm->gen[nm->n++] = e->generation;
	return 0;
}

/*
 * table_empty -- empty the table for the next input (a table made and
 * deleted for each input would cost grace periods): every entry removed,
 * every tombstone pruned. false when one cannot be (its generation is the
 * largest): the caller deletes the table then.
 */
static bool
table_empty(void)
{
	struct names nm = {0};
	bool ok = true;

	rpmaf__regtab_read_lock();
	nm.max = rpmaf__regtab_count(Pool.tab);
	rpmaf__regtab_read_unlock();
	nm.name = calloc(nm.max + 1, sizeof(*nm.name));
	nm.gen = calloc(nm.max + 1, sizeof(*nm.gen));
	fuzz_assert(nm.name && nm.gen);
	rpmaf__regtab_read_lock();
	(void)rpmaf__regtab_foreach(Pool.tab, names_cb, &nm);
	rpmaf__regtab_read_unlock();
	for (size_t i = 0; i < nm.n && ok; i++)
		ok =
		    nm.gen[i] != UINT64_MAX &&
		    rpmaf__regtab_remove(Pool.tab, nm.name[i], strlen(nm.name[i]), UINT64_MAX) == 0;
	free(nm.gen);
	free(nm.name);
	(void)rpmaf__regtab_prune(Pool.tab);
	grace();
	return ok;
}

/* pool_new -- the pool of an input: an empty table, the connection down */
static void
pool_new(bool has_key)
{
	const struct rpmaf__regtab_ops ops = {obj_new, obj_delete, NULL};

	if (!Pool.tab)
		fuzz_assert(rpmaf__regtab_new(&ops, &Pool.tab) == 0);
	Pool.has_key = has_key;
	atomic_store(&Pool.shutdown, 0);
	atomic_store(&Pool.closing, 0);
	free(Pc.idem);
	memset(&Pc, 0, sizeof(Pc));
	Pc.pool = &Pool;
	Pc.w = &Fw.w;
	snprintf(Pc.peer, sizeof(Pc.peer), "t0#0 192.0.2.1:7204");
	rpmaf__ctrs_init(&Pc.ctrs);
	rpmaf__hist_init(&Pc.lat);
	atomic_init(&Tg.max_req, 0);
	atomic_init(&Tg.auth_failed, false);
	atomic_init(&Tg.waiting, 0);
	snprintf(Pc.down_why, sizeof(Pc.down_why), "not connected yet");
	memset(&In, 0, sizeof(In));
	memset(&Fw, 0, sizeof(Fw));
}

/* step -- one step of the input at *pp */
static void
step(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp, *msg;
	uint8_t kind = *p++ % STEP_KINDS, a, b;
	size_t len;

	fuzz_ctl_turn();
	if (kind == 8)
		a = p < end ? *p++ : 0;
	if (kind == 5 || kind == 6) {
		a = p < end ? *p++ : 0;
		b = p < end ? *p++ : 0;
	}
	switch (kind) {
	case 0:
		msg = fuzz_ctl_recv_step(&p, end, &len);
		if (!Fw.closed)
			fuzz_ctl_recv_hello(msg, len, RPMAF__PROTO_T_HELLO_REPLY);
		break;
	case 1:
	case 2:
		fuzz_ctl_complete(kind == 1);
		break;
	case 3:
		(void)fuzz_ctl_timer_fire(NULL);
		break;
	case 4:
		if (In.handbacks && !atomic_load(&Pool.shutdown)) {
			lost();
			attach();
		} else {
			fuzz_ctl_disconnect();
		}
		break;
	case 5:
		step_call(a, b);
		break;
	case 6:
		step_rma(a, b);
		break;
	case 7:
		step_shutdown();
		break;
	default:
		Fw.post_fail_in = 1 + (a & 3);
		break;
	}
	*pp = p;
	check(false, false);
	fuzz_ctl_drain();
	check(kind == 0, true);
	grace();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	pool_new(size && (data[0] & 1));
	p += size ? 1 : 0;
	attach();
	while (p < end)
		step(&p, end);
	if (!In.handbacks)
		fuzz_ctl_disconnect();
	fuzz_ctl_drain();
	lost();
	fuzz_assert(atomic_load(&Pool.closing) == 0);
	drain();
	fuzz_assert(atomic_load(&Pool.closing) == 0);
	if (!table_empty())
		fuzz_assert(rpmaf__regtab_delete(&Pool.tab) == 0);
	return 0;
}
