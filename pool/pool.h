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
 *   wait.c     an operation waiting for a connection, retried after a loss
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
 * A connection slot's waiting list (operations that wait for a connection
 * of their target: submitted while none was healthy, or put back after
 * their connection was lost) and its scan timer belong to the slot's
 * worker whatever the state: the control thread never touches them.
 *
 * An operation (struct rpmaf__pool_op, inside the caller's struct
 * rpmaf_op) is written by the submitting thread until rpmaf_worker_submit(),
 * then by the connection's worker until it completes (or, waiting, until
 * that worker submits it to another slot's worker, which owns it from
 * then on); done is its futex word, read by rpmaf_op_wait().
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
	POOL_S_IDLE,	/* not on a connection's lists (maybe on the slot's waiting list) */
	POOL_S_WAIT,	/* waiting for room or credits (on the wait queue) */
	POOL_S_POSTED,	/* RDMA requests posted, waiting for the completion */
	POOL_S_PERSIST, /* GPSPM: written, the PERSIST_REQ waits (on the wait queue) */
	POOL_S_REPLY,	/* a message sent, waiting for its reply (req_id) */
};

/* op->wflags: what an operation has been through (wait.c) */
#define POOL_W_PLACE   0x1 /* it holds one of its target's waiting places */
#define POOL_W_WAITED  0x2 /* it waited for a connection (counted once) */
#define POOL_W_RETRIED 0x4 /* its connection was lost under it: it was put back */

/* op->magic: what rpmaf_op_wait() may wait for */
#define POOL_OP_WAITABLE 0x77616974u /* submitted without a callback */
#define POOL_OP_CALLBACK 0x63616c6cu /* submitted with a callback */

/* the private layout of a struct rpmaf_op */
struct rpmaf__pool_op {
	struct rpmaf_work work;		      /* the submission to the worker */
	struct rpmaf__pool_op *next;	      /* the wait queue, or the slot's waiting list */
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
	void *rmr; /* the remote region's object, while its requests wait for the turn's end */
	/*
	 * the signaled one of a group (post.c, GROUPS): the group's first
	 * operation, which links the others through next up to this one
	 */
	struct rpmaf__pool_op *grp;
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
	uint8_t wflags;			       /* POOL_W_* */
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
	PH_HELLO,    /* HELLO sent */
	PH_AUTH,     /* AUTH sent */
	PH_LIST,     /* listing the regions */
	PH_HANDLERS, /* listing the idempotent handlers (protocol version 2) */
	PH_READY,    /* healthy */
	PH_FAILING,  /* lost: the teardown is due */
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
	bool
	    culprit_retry; /* the culprit failed with the link, not for itself: it may be retried */
	bool hb_lost;	   /* the connection was lost to the peer's silence (heartbeats) */
	char fail_why[80]; /* why it failed, for the waiting operations' log line */
	uint64_t next_req_id;
	uint64_t hs_deadline_ns; /* the handshake and the listing must end by then */
	uint32_t list_next;	 /* the next page's start */
	uint64_t list_gen;	 /* the table generation of the listing's first page */
	char (*seen)[RPMAF__REGTAB_NAME_MAX + 1]; /* regions listed in this listing */
	uint32_t nseen, seen_max;
	struct rpmaf__pool_op *wq_head, *wq_tail; /* operations waiting, in order */
	/* operations whose requests go out at the turn's end, in order (linked by next) */
	struct rpmaf__pool_op *pend_head, *pend_tail;
	unsigned pend_wrs; /* their requests */
	struct rpmaf__turn_end pend_end;
	struct rpmaf__pool_op *tr_head, *tr_tail; /* every operation on the connection */
	struct rpmaf_timer scan; /* the deadlines: the connection's, and the waiting list's */
	bool scan_armed;
	struct rpmaf_work teardown_work;
	uint32_t *idem;		  /* the target's idempotent handlers, sorted (this session's) */
	uint32_t nidem, idem_max; /* ids in idem; its room */
	uint32_t hl_next;	  /* the handler list's next page's start */

	/* the worker's, whatever the state (wait.c) */
	struct rpmaf__pool_op *pq_head, *pq_tail; /* operations waiting for a connection */
	uint32_t npq;
	uint64_t down_ns;  /* since when the slot has had no ready connection */
	char down_why[96]; /* why: the last loss's fail_why, or "not connected yet" */
	uint64_t expired;  /* waiting operations timed out, not logged yet */
	struct rpmaf_work drain_work;

	/* counters: written by the worker, read by anyone */
	struct rpmaf__ctrs ctrs;
	_Atomic uint64_t queued;
	struct rpmaf__hist lat;
};

/* a target: its connections are conns[first .. first + n) */
struct rpmaf__pool_target {
	unsigned first, n;
	uint32_t wait_max;	  /* operations that may wait for a connection (constant) */
	_Atomic uint32_t waiting; /* operations waiting for a connection, or on their way to */
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
 * culprit (may be NULL) completes with culprit_status (unless the caller
 * then sets culprit_retry: the link failed under it), the others go back
 * to waiting for a connection when they may be posted again
 * (rpmaf__pool_retryable()) or complete with RPMAF_E_CONNLOST, or
 * RPMAF_E_TIMEOUT past their deadline. Logs why when why is not NULL.
 * Idempotent.
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
 * rpmaf__pool_op_wc -- a successful completion of op's last request, the
 * signaled one of its group: the group's operations before it are done too.
 * CONCURRENCY: the connection's worker thread.
 */
void rpmaf__pool_op_wc(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_pend_drop -- the connection is lost: the operations waiting
 * for the turn's end are not posted (they are tracked: the teardown
 * handles them).
 * CONCURRENCY: the connection's worker thread.
 */
void rpmaf__pool_pend_drop(struct rpmaf__pool_conn *pc);

/*
 * rpmaf__pool_pend_init -- the slot's turn-end function (once, at creation).
 * CONCURRENCY: before the slot is used.
 */
void rpmaf__pool_pend_init(struct rpmaf__pool_conn *pc);

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

/*
 * rpmaf__pool_op_start -- op may go on its ready connection: it is tracked,
 * then posted, or queued until room or credits come back.
 * ASSUMPTIONS: pc's worker thread; pc->phase is PH_READY; op is on no list.
 */
void rpmaf__pool_op_start(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/* rpmaf__pool_op_untrack -- op leaves the connection's tracked list. pc's worker thread. */
void rpmaf__pool_op_untrack(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/* ---------------------------------------------------------------- wait.c */

/*
 * rpmaf__pool_wait -- op cannot go on pc now (no ready connection): it goes
 * to another slot of its target that is healthy (submitted to that slot's
 * worker), or waits on pc's list, in order, until pc's connection is ready
 * or its deadline passes. It takes a waiting place of its target when it
 * holds none (never refused: the bound is applied at submission).
 * CONCURRENCY: pc's worker thread.
 */
void rpmaf__pool_wait(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_retry -- op was on pc's connection when it was lost and may
 * be posted again (rpmaf__pool_retryable()): off the tracked list, back to
 * waiting (rpmaf__pool_wait()).
 * CONCURRENCY: pc's worker thread, in the teardown.
 */
void rpmaf__pool_retry(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_retryable -- op, left on a lost connection, may be posted
 * again: anything but a call, and a call that was not sent or whose
 * handler the target announced idempotent
 * CONCURRENCY: pc's worker thread.
 */
bool rpmaf__pool_retryable(const struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_wait_flush -- pc's connection is ready: post its waiting
 * operations in order (each region looked up again: a changed one is taken
 * with its new generation, one removed or no longer holding the range
 * fails the operation with RPMAF_E_NOENT).
 * CONCURRENCY: pc's worker thread.
 */
void rpmaf__pool_wait_flush(struct rpmaf__pool_conn *pc);

/*
 * rpmaf__pool_wait_refresh -- the region of an operation that waited, as
 * the table has it now that a connection listed it: its generation and
 * persistence are taken (a target started again registers its regions
 * anew). false when the region is gone or no longer holds the operation's
 * range or use (the operation is then to fail with RPMAF_E_NOENT).
 * CONCURRENCY: pc's worker thread.
 */
bool rpmaf__pool_wait_refresh(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_wait_scan -- the scan timer's look at pc's waiting list at
 * now: operations past their deadline fail with RPMAF_E_TIMEOUT (one log
 * line says how many and why), the others move to a healthy slot of the
 * target if pc has no ready connection. Returns whether operations still
 * wait (the timer is to be armed again).
 * CONCURRENCY: pc's worker thread.
 */
bool rpmaf__pool_wait_scan(struct rpmaf__pool_conn *pc, uint64_t now);

/*
 * rpmaf__pool_wait_expire -- op waited (or was put back) and its deadline
 * passed: it fails with RPMAF_E_TIMEOUT, counted for the slot's next log
 * line. op is on no list.
 * CONCURRENCY: pc's worker thread.
 */
void rpmaf__pool_wait_expire(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_wait_release -- op leaves waiting for good (posted, or
 * completed): its waiting place goes back to its target.
 * CONCURRENCY: the thread that owns op.
 */
void rpmaf__pool_wait_release(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *op);

/*
 * rpmaf__pool_wait_down -- pc's ready connection is lost (pc->fail_why):
 * counted; what waits from now on is told since when and why.
 * CONCURRENCY: pc's worker thread, in the teardown.
 */
void rpmaf__pool_wait_down(struct rpmaf__pool_conn *pc);

/*
 * rpmaf__pool_drain -- the work rpmaf_pool_delete() submits for every slot
 * once the connections are closed: what still waits completes with
 * RPMAF_E_SHUTDOWN, the scan timer is cancelled, the slot counted drained
 * (pool->closing).
 * CONCURRENCY: the slot's worker thread (a submitted function).
 */
void rpmaf__pool_drain(struct rpmaf_worker *w, void *arg);

/* ---------------------------------------------------------------- conn.c, again */

/* rpmaf__pool_scan_arm -- arm the slot's scan timer unless it is armed. pc's worker thread. */
void rpmaf__pool_scan_arm(struct rpmaf__pool_conn *pc);

/* ---------------------------------------------------------------- op.c */

/* the calling thread was registered by rpmaf__pool_reader_register() */
extern __thread bool rpmaf__pool_is_reader __attribute__((tls_model("initial-exec")));

/* rpmaf__pool_reader_register -- the registration of rpmaf__pool_reader() (op.c) */
void rpmaf__pool_reader_register(void);

/*
 * rpmaf__pool_reader -- make the calling thread an RCU reader of the
 * region table (rpmaf__regtab_thread_register(): urcu-qsbr, offline between its sections) if it is
 * not yet one (its first call), unregistered when it exits. Worker threads are readers already.
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
