/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool.h -- the layout of a pool, its connections and its operations,
 * shared by the files of pool/:
 *   pool.c     rpmaf_pool_new(), _wait_ready(), _delete(), _region()
 *   connect.c  the control thread: connecting, backoff, handing over
 *   conn.c     a connection on its worker: attach, callbacks, loss
 *   session.c  the control protocol of a connection: handshake, region list
 *   op.c       the submission API and rpmaf_op_wait() (any thread)
 *   post.c     an operation on its worker: post, queue, complete
 *   stats.c    rpmaf_pool_get_stats(), rpmaf_pool_dump_json()
 *
 * OWNERSHIP
 * A connection (struct rpmaf__pool_conn) is owned, by turns, by the pool's
 * control thread and by its worker's thread; its atomic state says which:
 * PC_DOWN and PC_CONNECTING belong to the control thread, PC_WORKER to the
 * worker (from the attach work on; the control thread stores PC_WORKER
 * before it submits that work), PC_LOST is handed back (the worker wrote
 * handback and released the connection; the control thread takes it). The
 * fields are grouped below by owner. Counters are written by the worker
 * only (one writer, stats/) and read by anyone. Nothing is guarded by a
 * lock.
 *
 * An operation (struct rpmaf__pool_op, inside the caller's struct
 * rpmaf_op) is written by the submitting thread until rpmaf_worker_submit(),
 * then by the connection's worker until it completes; done is its futex
 * word, read by rpmaf_op_wait().
 */

#ifndef RPMAF_POOL_POOL_H
#define RPMAF_POOL_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <librpma.h>

#include "rpmaf.h"

#include "../ctl/ctl.h"
#include "../proto/auth.h"
#include "../proto/session.h"
#include "../regtab/regtab.h"
#include "../stats/counters.h"
#include "../stats/hist.h"
#include "../workers/wlog.h"
#include "../workers/worker.h"

/* operation kinds, in the order of struct rpmaf_pool_stats.ops[] */
enum rpmaf__pool_kind {
	POOL_K_WRITE,
	POOL_K_READ,
	POOL_K_FLUSH,
	POOL_K_WRITE_FLUSH,
	POOL_K_ATOMIC,
	POOL_K_CALL,
	POOL_K_MAX
};

/* where an operation is on its worker; tracked by its connection unless IDLE */
enum rpmaf__pool_stage {
	POOL_S_IDLE,	/* not on a connection's lists */
	POOL_S_WAIT,	/* waiting for room or credits (on the wait queue) */
	POOL_S_POSTED,	/* RDMA requests posted, waiting for the completion */
	POOL_S_PERSIST, /* GPSPM: written, the PERSIST_REQ waits (on the wait queue) */
	POOL_S_REPLY,	/* a message sent, waiting for its reply (req_id) */
};

/* op->magic: what rpmaf_op_wait() may wait for */
#define POOL_OP_WAITABLE 0x77616974u /* submitted without a callback */
#define POOL_OP_CALLBACK 0x63616c6cu /* submitted with a callback */

/* the private layout of a struct rpmaf_op */
struct rpmaf__pool_op {
	struct rpmaf_work work;		      /* the submission to the worker */
	struct rpmaf__pool_op *next;	      /* the connection's wait queue */
	struct rpmaf__pool_op *tprev, *tnext; /* the connection's tracked list */
	struct rpmaf__pool_conn *pc;
	rpmaf_op_cb cb;
	void *ctx;
	uint64_t deadline_ns; /* submission + timeouts.operation_ms (CLOCK_MONOTONIC) */
	uint64_t generation;  /* of the region when it was submitted */
	uint64_t offset;      /* in the region */
	uint64_t len;	      /* bytes; a call: the request's */
	union {
		struct {
			struct rpma_mr_local *mr;
			uint64_t off;
		} rma;
		char value[8]; /* atomic write */
		struct {
			const void *req;
			void *reply;
			uint64_t reply_max;
		} call;
	} u;
	uint64_t req_id;       /* of the message in flight (POOL_S_REPLY) */
	uint64_t reply_len;    /* a call's, once completed */
	_Atomic uint32_t done; /* 0 until completed (futex word) */
	uint32_t magic;	       /* POOL_OP_* */
	int32_t status;	       /* the completion's, for rpmaf_op_wait() */
	uint32_t handler_id;
	uint8_t kind;			       /* enum rpmaf__pool_kind */
	uint8_t flags;			       /* RPMAF_OP_* */
	uint8_t stage;			       /* enum rpmaf__pool_stage */
	uint8_t persist;		       /* the region's enum rpmaf__proto_persist */
	char name[RPMAF__REGTAB_NAME_MAX + 1]; /* the region, NUL-terminated */
};

_Static_assert(sizeof(struct rpmaf__pool_op) <= sizeof(struct rpmaf_op),
	       "struct rpmaf_op is too small for the pool's operation");
_Static_assert(_Alignof(struct rpmaf__pool_op) <= _Alignof(struct rpmaf_op),
	       "struct rpmaf_op is not aligned enough for the pool's operation");

/* the owner of a connection (struct rpmaf__pool_conn.state) */
enum rpmaf__pool_conn_state {
	PC_DOWN,       /* control thread: waiting for due_ms to connect */
	PC_CONNECTING, /* control thread: connecting */
	PC_WORKER,     /* its worker: attached (or about to be) */
	PC_LOST,       /* handed back by the worker: closed, handback says why */
};

/* the control protocol's phase on the worker */
enum rpmaf__pool_phase {
	PH_HELLO,   /* HELLO sent */
	PH_AUTH,    /* AUTH sent */
	PH_LIST,    /* listing the regions */
	PH_READY,   /* healthy */
	PH_FAILING, /* lost: the teardown is due */
};

/* why a connection came back to the control thread */
enum rpmaf__pool_handback {
	HB_LOST,   /* it was healthy: wait reconnect.initial_ms */
	HB_FAILED, /* the attempt failed: wait longer */
	HB_AUTH,   /* the target refused the key: wait reconnect.max_ms */
	HB_CLOSED, /* the pool is shutting down: never again */
};

struct rpmaf_pool;

struct rpmaf__pool_conn {
	/* constant */
	struct rpmaf_pool *pool;
	unsigned idx;	 /* in pool->conns */
	unsigned target; /* index in cfg->targets */
	struct rpmaf_worker *w;
	struct rpma_conn_cfg *ccfg;
	char peer[96]; /* "target#i address:port", for the log */

	/* atomic */
	_Atomic int state;   /* enum rpmaf__pool_conn_state */
	atomic_bool healthy; /* ready for operations */

	/* the control thread's (and the worker's, across the hand-over) */
	uint64_t due_ms;     /* PC_DOWN: when to connect */
	uint32_t backoff_ms; /* the wait before the next attempt */
	/* why the last attempt failed (static text), NULL after a success: the control */
	/* thread's, read by rpmaf_pool_wait_ready()'s summary (relaxed) */
	const char *_Atomic why_down;
	unsigned fails;		/* attempts failed in a row for why_down (the control thread's) */
	struct rpma_conn *conn; /* established, handed to the attach work */
	int handback;		/* enum rpmaf__pool_handback, written before PC_LOST */
	struct rpmaf_work attach_work, close_work;

	/* the worker's */
	struct rpmaf_wconn *wconn;
	struct rpmaf__ctl ctl;
	bool ctl_inited;
	struct rpmaf__proto_client sess;
	int phase;	 /* enum rpmaf__pool_phase */
	bool ever_ready; /* a connection of this slot was healthy once: the next one is a reconnect
			  */
	bool was_ready, torn, teardown_queued, list_pending, auth_suspect;
	int fail_code;
	struct rpmaf__pool_op *culprit; /* the operation whose failure lost the connection */
	int culprit_status;
	uint64_t next_req_id;
	uint64_t hs_deadline_ns; /* the handshake and the listing must end by then */
	uint32_t list_next;	 /* the next page's start */
	uint64_t list_gen;	 /* the table generation of the listing's first page */
	char (*seen)[RPMAF__REGTAB_NAME_MAX + 1]; /* regions listed in this listing */
	uint32_t nseen, seen_max;
	struct rpmaf__pool_op *wq_head, *wq_tail; /* operations waiting, in order */
	struct rpmaf__pool_op *tr_head, *tr_tail; /* every operation on the connection */
	struct rpmaf_timer scan;
	bool scan_armed;
	struct rpmaf_work teardown_work;

	/* counters: written by the worker, read by anyone */
	struct rpmaf__ctrs ctrs;
	_Atomic uint64_t queued;
	struct rpmaf__hist lat;
};

/* a target: its connections are conns[first .. first + n) */
struct rpmaf__pool_target {
	unsigned first, n;
	atomic_bool auth_failed;  /* the last attempt's key was refused */
	_Atomic uint32_t max_req; /* bytes of a call's request one message carries; 0 unknown */
};

struct rpmaf_pool {
	/* constant */
	const struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	const struct rpmaf__wlog *log;
	struct rpmaf__regtab *tab;
	struct rpmaf__proto_key key;
	bool has_key;
	struct rpma_peer_cfg *pcfg; /* applied to every connection: persistent flushes allowed */
	uint64_t op_ns;		    /* timeouts.operation_ms in ns */
	uint64_t scan_us;	    /* the period of a connection's time-out scan */
	unsigned nconns;
	struct rpmaf__pool_conn *conns;
	unsigned ntargets;
	struct rpmaf__pool_target *targets;

	/* atomic */
	atomic_int shutdown;	 /* rpmaf_pool_delete() has begun */
	atomic_int stop;	 /* the control thread must end */
	_Atomic uint32_t events; /* bumped (and woken) when a connection gets ready or is refused */
	atomic_int interrupted;	 /* rpmaf_pool_interrupt(): waits for readiness return at once */
	_Atomic uint32_t closing; /* connections still to close at shutdown (futex word) */

	/* the control thread's */
	pthread_t thread;
	bool thread_started;
	int efd; /* eventfd: a connection was handed back, or stop */
	unsigned seed;
};

/* the private operation of a caller's struct rpmaf_op */
static inline struct rpmaf__pool_op *
rpmaf__pool_op(struct rpmaf_op *op)
{
	return (struct rpmaf__pool_op *)(void *)op;
}

/* ---------------------------------------------------------------- connect.c */

/* rpmaf__pool_control_main -- the control thread (pthread start routine; arg: the pool) */
void *rpmaf__pool_control_main(void *arg);

/*
 * rpmaf__pool_handback -- the worker gives the connection back to the
 * control thread (state PC_LOST) for the reason why, and wakes it.
 * CONCURRENCY: the connection's worker thread, last touch of pc.
 */
void rpmaf__pool_handback(struct rpmaf__pool_conn *pc, int why);

/* rpmaf__pool_wake -- wake the control thread. Any thread. */
void rpmaf__pool_wake(struct rpmaf_pool *pool);

/* rpmaf__pool_notify -- wake rpmaf_pool_wait_ready() callers. Any thread. */
void rpmaf__pool_notify(struct rpmaf_pool *pool);

/* ---------------------------------------------------------------- conn.c */

/*
 * rpmaf__pool_conn_attach -- the work the control thread submits with an
 * established pc->conn: attach it, start the channel and the handshake.
 * CONCURRENCY: pc's worker thread (a submitted function).
 */
void rpmaf__pool_conn_attach(struct rpmaf_worker *w, void *arg);

/*
 * rpmaf__pool_conn_close -- the work the control thread submits at
 * shutdown: tear the connection down (its operations complete with
 * RPMAF_E_SHUTDOWN) and count it closed.
 * CONCURRENCY: pc's worker thread (a submitted function).
 */
void rpmaf__pool_conn_close(struct rpmaf_worker *w, void *arg);

/*
 * rpmaf__pool_conn_fail -- the connection is lost (code: why): it stops
 * taking operations at once and is torn down from a submitted function;
 * culprit (may be NULL) completes with culprit_status, the others with
 * RPMAF_E_CONNLOST. Logs why when why is not NULL. Idempotent.
 * CONCURRENCY: pc's worker thread, not from inside a channel callback
 * (those return an error instead).
 */
void rpmaf__pool_conn_fail(struct rpmaf__pool_conn *pc, int code, struct rpmaf__pool_op *culprit,
			   int culprit_status, const char *why);

/* ---------------------------------------------------------------- session.c */

/*
 * rpmaf__pool_session_start -- send HELLO on a connection just attached.
 * RETURN VALUE: 0; a negative RPMAF_E_* code (the connection must fail).
 * CONCURRENCY: pc's worker thread.
 */
int rpmaf__pool_session_start(struct rpmaf__pool_conn *pc);

/*
 * rpmaf__pool_session_msg -- the channel's on_msg: the handshake, the
 * region list, announcements and the replies to operations.
 * RETURN VALUE: 0; a negative code fails the channel (pc->fail_code says why).
 * CONCURRENCY: pc's worker thread.
 */
int rpmaf__pool_session_msg(struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m, void *ctx);

/*
 * rpmaf__pool_session_kick -- send what waits for credits: a page request of
 * the region list. 0, or a negative code to fail the connection with.
 * CONCURRENCY: pc's worker thread.
 */
int rpmaf__pool_session_kick(struct rpmaf__pool_conn *pc);

/* ---------------------------------------------------------------- post.c */

/*
 * rpmaf__pool_op_run -- the work an operation is submitted as: post it on
 * its connection (or queue it), or complete it when it cannot be.
 * CONCURRENCY: the connection's worker thread (a submitted function).
 */
void rpmaf__pool_op_run(struct rpmaf_worker *w, void *arg);

/*
 * rpmaf__pool_op_direct -- post op, whose submission found entry e and
 * picked pc, at once instead of submitting it. 0 when posted (it completes
 * later, as a submitted one does); RPMAF_E_AGAIN when it cannot be posted
 * at once, for any reason: nothing was done, the caller submits it, and
 * the queued path checks it again, queues or completes it.
 * ASSUMPTIONS: on pc's worker thread (pc healthy, hence the worker's),
 * inside the read-side section in which e was found.
 */
int rpmaf__pool_op_direct(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o,
			  const struct rpmaf__regtab_entry *e);

/*
 * rpmaf__pool_op_complete -- complete op with status: off the connection's
 * lists, counted, then its callback runs or its waiter is woken. op may be
 * reused from then on.
 * CONCURRENCY: the connection's worker thread.
 */
void rpmaf__pool_op_complete(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op, int status);

/*
 * rpmaf__pool_op_wc -- a successful completion of op's last request.
 * CONCURRENCY: the connection's worker thread.
 */
void rpmaf__pool_op_wc(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_op_reply -- a reply to request req_id arrived: the operation
 * waiting for it (NULL when none: it was completed already).
 * CONCURRENCY: the connection's worker thread.
 */
struct rpmaf__pool_op *rpmaf__pool_op_find(struct rpmaf__pool_conn *pc, uint64_t req_id);

/*
 * rpmaf__pool_pump -- post the waiting operations, in order, while the
 * connection has room and credits.
 * CONCURRENCY: the connection's worker thread.
 */
void rpmaf__pool_pump(struct rpmaf__pool_conn *pc);

/* ---------------------------------------------------------------- op.c */

/* the calling thread was registered by rpmaf__pool_reader_register() */
extern __thread bool rpmaf__pool_is_reader __attribute__((tls_model("initial-exec")));

/* rpmaf__pool_reader_register -- the registration of rpmaf__pool_reader() (op.c) */
void rpmaf__pool_reader_register(void);

/*
 * rpmaf__pool_reader -- make the calling thread an RCU reader of the
 * urcu-memb flavour if it is not yet one (its first call), unregistered
 * when it exits. Worker threads are readers already.
 * CONCURRENCY: any thread.
 */
static inline void
rpmaf__pool_reader(void)
{
	if (!rpmaf__pool_is_reader && !rpmaf__current)
		rpmaf__pool_reader_register();
}

/* rpmaf__pool_now_ns -- CLOCK_MONOTONIC in ns */
uint64_t rpmaf__pool_now_ns(void);

/*
 * rpmaf__pool_op_now_ns -- an operation's timestamp (deadline, latency): the
 * turn's clock on a worker thread, CLOCK_MONOTONIC elsewhere
 */
uint64_t rpmaf__pool_op_now_ns(void);

#endif /* RPMAF_POOL_POOL_H */
