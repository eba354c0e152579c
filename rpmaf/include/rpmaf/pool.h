/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf/pool.h -- librpmaf's public API: the client pool (pool/). One part
 * of rpmaf.h, which includes every part: an application includes <rpmaf.h>.
 */

#ifndef RPMAF_PUBLIC_POOL_H
#define RPMAF_PUBLIC_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "errors.h"
#include "server.h"
#include "workers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Pool (pool/)
 *
 * The client side of the framework: targets[i].connections connections to
 * each target of the configuration, spread over the workers, and an
 * asynchronous API of operations on the targets' regions, by name.
 *
 * Connections. A control thread of the pool makes the connections (the
 * blocking part of connecting never runs on a worker) and hands each to
 * its worker, which runs the control protocol on it (doc/PROTOCOL.md):
 * HELLO, AUTH with the key of auth.key_file when the target asks for it,
 * then the target's region list, paged, into the pool's region table (RCU,
 * regtab/), kept current by the target's announcements. A connection is
 * healthy from then until it is lost: the peer disconnects or dies, a
 * completion fails, an operation times out, or the peer stays silent for
 * heartbeat interval x misses (the shorter of this side's
 * timeouts.heartbeat_* and the target's announced ones: a frozen or cut-off
 * target is found within this side's bound, logged as silent and counted).
 * A lost connection is closed first (its resources freed once its
 * completions are drained: nothing of it lands in an operation's memory
 * afterwards); then each operation in flight or queued on it either waits
 * to be posted again (see "Waiting" below) or completes: with
 * RPMAF_E_TIMEOUT for the one that timed out, RPMAF_E_CONNLOST for a call
 * the target may have run. The connection is made again after
 * reconnect.initial_ms, each failed attempt waiting reconnect.multiplier
 * times longer up to reconnect.max_ms, each wait varied at random by up
 * to reconnect.jitter of itself; its regions are listed again. Meanwhile
 * operations go to the target's healthy connections. A target that
 * refuses the key is not retried faster than reconnect.max_ms and the log
 * says why.
 *
 * Waiting. An operation whose target has no healthy connection when it is
 * submitted waits for one rather than failing: it takes one of the
 * target's waiting places (targets[].connections x queues.sq of them; with
 * none left the submission returns RPMAF_E_AGAIN) and is posted, in order,
 * once a connection of the target is ready. An operation whose connection
 * was lost waits the same way (without needing a place) when posting it
 * again does what posting it once does: reads, writes, flushes,
 * write+flush and atomic writes of their fixed range, a call not sent yet,
 * and a call of a handler the target announced idempotent
 * (rpmaf_server_handler_add_flags(), protocol version 2); any other call
 * completes with RPMAF_E_CONNLOST, once. Before it is posted again its
 * region is looked up again: a new registration (the target was started
 * again) is used; a region removed, or no longer holding the range or the
 * usage, completes it with RPMAF_E_NOENT. A waiting operation that
 * reaches its deadline (timeouts.operation_ms after its submission)
 * completes with RPMAF_E_TIMEOUT, once, and a log line of the pool says
 * how many timed out and why (since when the target has had no connection,
 * what was lost, what the last attempt met). So a partition or a frozen
 * target shorter than timeouts.operation_ms (less the time to find it
 * silent and to connect again) costs no operation; a longer one fails
 * each operation once, at its deadline. A region the pool has never
 * learnt of (no connection of its target was ever ready) cannot be found:
 * its operations fail at once with RPMAF_E_NOENT.
 *
 * Operations. Each names a region; the pool finds it in its table (no
 * lock: an RCU read-side section on the calling thread), checks the range
 * and the usage against it, picks a healthy connection of the region's
 * target (on a worker thread one that worker owns, if any, so that a
 * callback submitting the next operation needs no other thread; round
 * robin otherwise) and submits the operation to that connection's
 * worker, which posts it when the connection's queues have room (queued
 * until then, in order; never an overflow) and runs the callback on that
 * worker's thread when it completes. An RDMA operation submitted on that
 * worker's own thread (from a callback) is posted at once when nothing
 * waits before it; a callback never runs inside its submission. Nothing on
 * this path allocates or takes a lock: the operation's storage is the
 * caller's struct rpmaf_op.
 * Every operation completes exactly once, with a status: 0, or
 * RPMAF_E_TIMEOUT (not completed within timeouts.operation_ms of its
 * submission, queueing and waiting for a connection included: a posted
 * one's connection is then treated as lost, since an RDMA operation cannot
 * be cancelled), RPMAF_E_CONNLOST (a call the target may have run was on
 * a lost connection), RPMAF_E_NOENT (the region was removed, or replaced
 * by a new registration, before the operation was posted), RPMAF_E_REMOTE
 * (the target refused it: a remote access error, a failed persist, a
 * failed handler), RPMAF_E_SHUTDOWN (the pool is being deleted).
 *
 * Persistence. RPMAF_OP_PERSIST makes a write durable before the
 * operation completes: with rpma_flush(RPMA_FLUSH_TYPE_PERSISTENT) where
 * the region declares direct write to persistent memory (APM), otherwise
 * with a PERSIST_REQ message answered by the target once it has persisted
 * the range (GPSPM). RPMAF_OP_VISIBLE makes it visible (a flush of type
 * visibility) instead.
 *
 * Messages. Control requests and application calls (rpmaf_pool_call())
 * spend the credits of the target's window (proto/credit.h): an operation
 * with no credit waits for one (counted as a credit stall), so the target
 * never runs out of receive buffers; credits come back on every reply.
 *
 * Threads. Any thread may submit operations; its first call registers it
 * as an RCU reader (urcu-qsbr) and it is unregistered when it exits. The
 * callbacks run on worker threads: they must not block, and may submit
 * further operations.
 * ====================================================================== */

struct rpma_mr_local;
struct rpmaf_pool;

/*
 * the storage of one operation, owned by the caller: it must stay valid and
 * untouched from the submission until its completion (the callback's return,
 * or rpmaf_op_wait()'s), after which it may be reused
 */
struct rpmaf_op {
	uint64_t rpmaf_private[32];
};

/*
 * what runs when an operation completes, on the worker thread of its
 * connection: status 0 or a negative RPMAF_E_* code (see above). op may be
 * reused (submitted again) from inside the callback.
 */
typedef void (*rpmaf_op_cb)(struct rpmaf_op *op, int status, void *ctx);

/* flags of writes and flushes: what the operation guarantees when it completes */
#define RPMAF_OP_PERSIST (1u << 0) /* the data is persistent on the target */
#define RPMAF_OP_VISIBLE (1u << 1) /* the data is visible to the target's CPUs */

/* what a region looks like to the pool (rpmaf_pool_region()) */
struct rpmaf_pool_region {
	uint64_t size;
	uint64_t generation; /* the target's registration of it; a new one after a change */
	unsigned target;     /* index of its target in cfg->targets */
	unsigned usage;	     /* RPMAF_USAGE_* bits */
	bool apm;	     /* persisted by the client (true) or by the target (GPSPM) */
};

/* a snapshot of a pool's counters (rpmaf_pool_get_stats()) */
struct rpmaf_pool_stats {
	uint64_t ops[6];     /* completed, by kind: write, read, flush, write+flush, atomic, call */
	uint64_t bytes[6];   /* their bytes (a call: request and reply) */
	uint64_t errors;     /* operations completed with a status other than 0 */
	uint64_t timeouts;   /* of which RPMAF_E_TIMEOUT */
	uint64_t reconnects; /* connections made again after a loss */
	uint64_t credit_stalls; /* operations that waited for a message credit */
	uint64_t queued;	/* operations that waited for room in their queues */
	uint32_t connections;	/* connections in total (sum of targets[].connections) */
	uint32_t healthy;	/* of which healthy now */
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns; /* of all completed operations */
};

/*
 * rpmaf_pool_new -- make a pool of cfg (which needs at least one target) on
 * peer, whose connections the workers ws own, and start connecting every
 * target; it returns at once (rpmaf_pool_wait_ready() waits). cfg, peer
 * and ws must outlive the pool.
 *
 * RETURN VALUE
 * 0 and *pool_ptr set; or a negative code, *pool_ptr untouched:
 * - RPMAF_E_INVAL   a NULL argument; cfg has no target
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_IO      the key file cannot be read
 * - RPMAF_E_SYS     the control thread cannot be made
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_pool_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer, struct rpmaf_workers *ws,
		   struct rpmaf_pool **pool_ptr);

/*
 * rpmaf_pool_wait_ready -- wait until every target has at least one
 * healthy connection (its regions listed), for at most timeout_ms; and,
 * within that time, until each of the other connections is healthy too or
 * has failed once, so that a target that gave fewer connections than its
 * configuration asks is logged (a warning: how many, and why the others
 * failed: refused, timed out, unreachable, lost; they are retried).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool NULL); RPMAF_E_TIMEOUT (a target is not ready:
 * the log says why); RPMAF_E_AUTH (a target refused the key);
 * RPMAF_E_SHUTDOWN (rpmaf_pool_interrupt() was called, before or during
 * the wait).
 *
 * THREAD SAFETY
 * Thread-safe; not from a worker thread.
 */
int rpmaf_pool_wait_ready(struct rpmaf_pool *pool, unsigned timeout_ms);

/*
 * rpmaf_pool_interrupt -- give up waiting for the pool: every
 * rpmaf_pool_wait_ready() in progress returns RPMAF_E_SHUTDOWN at once
 * (within a few microseconds), and every later one too. Connecting and
 * operations go on; rpmaf_pool_delete(), which the caller typically calls
 * next, abandons a connection attempt in progress rather than waiting
 * for its timeouts.connect_ms.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool NULL).
 *
 * THREAD SAFETY
 * Thread-safe and async-signal-safe: it may be called from a signal
 * handler (it only stores, adds and wakes a futex), as long as the pool is
 * not being deleted at the same time.
 */
int rpmaf_pool_interrupt(struct rpmaf_pool *pool);

/*
 * rpmaf_pool_delete -- stop connecting, complete every operation not yet
 * completed with RPMAF_E_SHUTDOWN (or its real status if it completes
 * first), close every connection, free everything and set *pool_ptr to
 * NULL. Nothing happens when *pool_ptr is NULL. A connection attempt in
 * progress is abandoned at once: the call does not wait for
 * timeouts.connect_ms.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool_ptr NULL).
 *
 * THREAD SAFETY
 * Not from a worker thread; no operation may be submitted during or after
 * the call. The workers must be deleted after the pool, not before.
 */
int rpmaf_pool_delete(struct rpmaf_pool **pool_ptr);

/*
 * rpmaf_pool_write -- write len bytes of src (a region the application
 * registered on the pool's peer with RPMA_MR_USAGE_WRITE_SRC) from src_off
 * into region at offset; with RPMAF_OP_PERSIST or RPMAF_OP_VISIBLE, then
 * flush it as one operation.
 *
 * RETURN VALUE (of the submission; the callback gets the operation's status)
 * 0: the operation was submitted and cb(op, status, ctx) will run exactly
 * once (cb NULL: rpmaf_op_wait() must be called instead). Otherwise nothing
 * was submitted and the callback will not run:
 * - RPMAF_E_INVAL  pool, op, region or src NULL; len 0; offset + len beyond
 *                  the region; both flags, or an unknown one; the region's
 *                  usage lacks write (or flush, with a flag)
 * - RPMAF_E_NOENT  no such region in the table now
 * - RPMAF_E_AGAIN  the region's target has no healthy connection now and
 *                  all its waiting places are taken (back-pressure: retry
 *                  after a completion)
 * - RPMAF_E_SHUTDOWN  the pool is being deleted
 *
 * THREAD SAFETY
 * Any thread, worker threads included. No lock, no allocation.
 */
int rpmaf_pool_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
		     size_t offset, struct rpma_mr_local *src, size_t src_off, size_t len,
		     unsigned flags, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_pool_read -- read len bytes of region from offset into dst (a region
 * the application registered with RPMA_MR_USAGE_READ_DST) at dst_off.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write(); RPMAF_E_INVAL when the region's usage lacks read.
 */
int rpmaf_pool_read(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region, size_t offset,
		    struct rpma_mr_local *dst, size_t dst_off, size_t len, rpmaf_op_cb cb,
		    void *ctx);

/*
 * rpmaf_pool_flush -- make len bytes of region from offset persistent
 * (flags RPMAF_OP_PERSIST) or visible (RPMAF_OP_VISIBLE): exactly one of
 * them. Writes of the same connection completed before are covered; use a
 * write's own flag for a write of this thread still in flight.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write().
 */
int rpmaf_pool_flush(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
		     size_t offset, size_t len, unsigned flags, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_pool_atomic_write -- write the 8 bytes of value into region at
 * offset (8-byte aligned) atomically (rpma_atomic_write()); with
 * RPMAF_OP_PERSIST or RPMAF_OP_VISIBLE, then flush them.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write(); RPMAF_E_INVAL also for an unaligned offset.
 */
int rpmaf_pool_atomic_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
			    size_t offset, const char value[8], unsigned flags, rpmaf_op_cb cb,
			    void *ctx);

/*
 * rpmaf_pool_call -- a message call: send req_len bytes of req to the
 * handler handler_id of target (a name of cfg->targets) and put the reply,
 * up to reply_max bytes, at reply; rpmaf_op_reply_len() gives its length.
 * req and reply must stay valid until the operation completes. A reply
 * longer than reply_max completes the operation with RPMAF_E_REMOTE and
 * nothing copied; no handler for the id gives RPMAF_E_NOENT.
 *
 * RETURN VALUE
 * As rpmaf_pool_write(); RPMAF_E_INVAL also for req_len beyond what one
 * message carries (queues.messages.size and the target's receive buffer,
 * less the 28 bytes of header); RPMAF_E_NOENT for an unknown target.
 *
 * THREAD SAFETY
 * As rpmaf_pool_write().
 */
int rpmaf_pool_call(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *target,
		    uint32_t handler_id, const void *req, size_t req_len, void *reply,
		    size_t reply_max, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_op_wait -- wait for an operation submitted without a callback and
 * return its status (0 or a negative RPMAF_E_* code). It returns at the
 * latest timeouts.operation_ms after the submission (then with
 * RPMAF_E_TIMEOUT). Calling it on an operation submitted with a callback,
 * or not submitted, returns RPMAF_E_INVAL.
 *
 * THREAD SAFETY
 * Any thread but a worker thread (it would wait for itself); one waiter
 * per operation.
 */
int rpmaf_op_wait(struct rpmaf_op *op);

/*
 * rpmaf_op_reply_len -- the length of the reply of a completed call (0 for
 * other operations, or when op is NULL). From the callback, or after
 * rpmaf_op_wait().
 */
size_t rpmaf_op_reply_len(const struct rpmaf_op *op);

/*
 * rpmaf_pool_region -- what the pool knows of region name now.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_NOENT.
 * THREAD SAFETY: any thread (registered as a reader on its first call).
 */
int rpmaf_pool_region(struct rpmaf_pool *pool, const char *name, struct rpmaf_pool_region *info);

/*
 * rpmaf_pool_get_stats -- a snapshot of the pool's counters (each read
 * atomically, not all of one instant).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_get_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_stats *stats);

/* a snapshot of a pool's faults and of what they cost (rpmaf_pool_get_fault_stats()) */
struct rpmaf_pool_fault_stats {
	uint64_t conn_lost;	/* ready connections lost */
	uint64_t peer_silent;	/* of which to the target's silence (frozen or cut off) */
	uint64_t waited;	/* operations that waited for a connection of their target */
	uint64_t retried;	/* operations posted again after their connection was lost */
	uint64_t wait_timeouts; /* operations that timed out waiting for a connection */
	uint32_t waiting;	/* operations waiting for a connection now */
	uint32_t down;		/* connections not healthy now */
};

/*
 * rpmaf_pool_get_fault_stats -- a snapshot of the pool's fault counters
 * (each read atomically, not all of one instant); the rest of the pool's
 * counters are rpmaf_pool_get_stats()'s.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_get_fault_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_fault_stats *stats);

/*
 * rpmaf_pool_dump_json -- write the pool's counters and latency
 * histograms, per worker and per connection, to out as JSON lines (one
 * object per line, the format of stats/json.h).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_IO (a write failed).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_dump_json(const struct rpmaf_pool *pool, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_PUBLIC_POOL_H */
