/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf/workers.h -- librpmaf's public API: the worker threads (workers/).
 * One part of rpmaf.h, which includes every part: an application includes
 * <rpmaf.h>.
 */

#ifndef RPMAF_PUBLIC_WORKERS_H
#define RPMAF_PUBLIC_WORKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Workers (workers/)
 *
 * A set of workers.count threads, each owning its connections and polling
 * one send CQ and one receive CQ shared by all of them, so that nothing on
 * the data path takes a lock or allocates. Each worker owns:
 * - a send CQ of queues.cq entries, shared by its connections, and a
 *   shared receive queue (SRQ) of queues.srq.rq receive buffers of
 *   queues.messages.size bytes whose receives complete on a receive CQ of
 *   queues.srq.rcq entries; both CQs on one completion channel;
 * - a slab of 2 * queues.srq.rq buffers of queues.messages.size bytes,
 *   registered once: the first half are the receive buffers, always posted
 *   to the SRQ or lent to a connection's callback, the other half are for
 *   the application's sends and RDMA operations (rpmaf_worker_buf_get());
 * - an epoll loop over the completion channel, its connections' event
 *   descriptors and an eventfd written only when work is submitted to it
 *   while it sleeps; its timers give the loop its timeout.
 *
 * The loop (workers.polling):
 * - busy: poll the CQs, run submitted work and due timers, again and
 *   again; the descriptors are looked at (without waiting) every 64 turns.
 * - adaptive: as busy, and once nothing has happened for workers.spin_us,
 *   sleep in epoll_wait() until a completion, a submission, a connection's
 *   event or a timer. The CQs stay armed: taking a CQ's event from the
 *   channel re-arms it, and a re-armed CQ is polled again before the worker
 *   may sleep (a completion that came before the re-arm raises no event of
 *   its own, and without that poll the worker would sleep with work
 *   waiting); a CQ whose last poll took a full batch is polled again too.
 *   Any other CQ is armed, or its event waits in the channel, so whatever
 *   completes there wakes the sleep. Work submitted at that moment is
 *   caught the same way: the worker announces that it sleeps, then looks
 *   at its queue once more (see rpmaf_worker_submit()).
 * - event: adaptive with no spinning: sleep as soon as a turn has taken
 *   its completions, so that an operation in flight costs one poll, the one
 *   that finds its completion.
 * Each poll takes up to workers.batch completions from each CQ.
 *
 * Admission (credits): a connection's send queue has queues.sq slots, the
 * worker's send CQ queues.cq. Every work request takes one slot of each,
 * signaled or not (a failed request completes even when unsignaled), until
 * it is retired; rpmaf_wconn_admit() refuses with RPMAF_E_AGAIN what does
 * not fit, so neither can overflow. The application posts an admitted
 * batch of n requests with only the last one signaled
 * (RPMA_F_COMPLETION_ALWAYS; the others RPMA_F_COMPLETION_ON_ERROR): its
 * successful completion retires the whole batch, since a QP completes in
 * order. After a failed completion a connection is broken: each of its
 * completions then retires one request, and what it still holds is
 * returned when it is closed and the CQ has been drained.
 * A request's completion may come after the peer's answer to it (the
 * peer's acknowledgement can trail its answer): a message's buffer and
 * credits are free only once its own completion has come, not when its
 * answer does, so a sender that refills its window on answers must be
 * ready for RPMAF_E_AGAIN from rpmaf_worker_buf_get() and
 * rpmaf_wconn_admit() and retry after its next send completion.
 *
 * Receives: each message received is handed to its connection's on_recv
 * callback with its buffer; when the callback returns RPMAF_RECV_DONE the
 * buffer is posted back to the SRQ with the others freed in the same turn
 * of the loop, once the CQs have been polled; RPMAF_RECV_KEEP lends it to
 * the connection until rpmaf_wconn_recv_release(). A message that arrives
 * before its connection is attached is held and handed over by
 * rpmaf_worker_attach() (or dropped after timeouts.connect_ms).
 *
 * Payloads are not sent inline: librpma's API has no inline flag.
 *
 * Threads: "worker thread" below means the thread of the worker the object
 * belongs to, i.e. code running in a callback, a submitted function or a
 * timer of that worker. Callbacks run on it, never concurrently with each
 * other for one worker, and may call every function marked so.
 * ====================================================================== */

struct rpma_peer;
struct rpma_conn;
struct rpma_conn_cfg;
struct rpma_mr_local;
struct ibv_wc;

struct rpmaf_workers; /* the set of worker threads */
struct rpmaf_worker;  /* one of them */
struct rpmaf_wconn;   /* a connection attached to a worker */

/* a function run on a worker thread (rpmaf_worker_submit()) */
typedef void (*rpmaf_work_fn)(struct rpmaf_worker *w, void *arg);

/*
 * the storage of one submission, owned by the caller: it must stay valid
 * and unused from rpmaf_worker_submit() until the function starts, which
 * may then reuse it (submit it again) or free it
 */
struct rpmaf_work {
	void *rpmaf_private[4];
};

struct rpmaf_timer;

/* a function run on a worker thread when a timer expires */
typedef void (*rpmaf_timer_fn)(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg);

/*
 * a timer, owned by the caller: zero it once before its first use; it must
 * stay valid while armed (from rpmaf_worker_timer_add() until it fires or
 * is cancelled); it may be armed again from its own function
 */
struct rpmaf_timer {
	uint64_t rpmaf_private[4];
};

/* what on_recv returns */
#define RPMAF_RECV_DONE 0 /* the worker posts the buffer back to the SRQ */
#define RPMAF_RECV_KEEP 1 /* the connection keeps it: rpmaf_wconn_recv_release() later */

/*
 * The callbacks of a connection, all run on its worker's thread with the
 * ctx given to rpmaf_worker_attach(). Each may be NULL (then completions
 * are only accounted for, buffers posted back, events ignored).
 */
struct rpmaf_wconn_ops {
	/*
	 * on_wc -- a completion of the connection's send queue: a signaled
	 * request or a failed one. It has been accounted for (its batch
	 * retired) before the call.
	 */
	void (*on_wc)(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *ctx);
	/*
	 * on_recv -- a message received into buf (wc->byte_len bytes, or a
	 * failed receive, wc->status). Returns RPMAF_RECV_DONE or
	 * RPMAF_RECV_KEEP. The buffer is lent to the connection during the
	 * call, so the callback may also post it back itself with
	 * rpmaf_wconn_recv_release() (before a reply that returns its credit,
	 * say); then what it returns does not matter. May be called from
	 * inside rpmaf_worker_attach() for a message that arrived before it.
	 */
	int (*on_recv)(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *buf, void *ctx);
	/*
	 * on_event -- a connection event (RPMA_CONN_CLOSED, RPMA_CONN_LOST,
	 * ...; an int holding an enum rpma_conn_event). The callback may
	 * close the connection (rpmaf_wconn_close()).
	 */
	void (*on_event)(struct rpmaf_wconn *wconn, int event, void *ctx);
};

/* counters of one worker (rpmaf_worker_get_stats()) */
struct rpmaf_worker_stats {
	uint64_t polls;	      /* turns of the loop: send CQ polled each, receive CQ when due */
	uint64_t empty_polls; /* of which found no completion */
	uint64_t completions; /* send completions taken */
	uint64_t receives;    /* receive completions taken */
	uint64_t submissions; /* submitted functions run */
	uint64_t timers;      /* timers fired */
	uint64_t sleeps;      /* times the worker slept in epoll_wait() */
	uint64_t wakeups;     /* eventfd writes by submitters */
	uint64_t refused;     /* admissions refused (RPMAF_E_AGAIN) */
	uint64_t dropped;     /* early messages dropped, connection never attached */
	uint32_t cq_used;     /* send CQ slots held now */
	uint32_t cq_used_max; /* the most ever held (never above queues.cq) */
	uint32_t conns;	      /* connections attached and not yet freed */
};

/*
 * rpmaf_workers_new -- start cfg->workers.count worker threads on peer,
 * each pinned to cfg->workers.cpus[i] when the list is given, with its CQs,
 * SRQ (its receive buffers posted), slab, timers (room for
 * 2 * cfg->conns_per_worker + 64) and room for cfg->conns_per_worker
 * connections. cfg is only read during the call; peer must outlive the set.
 *
 * RETURN VALUE
 * 0 and *ws_ptr set, or a negative code with *ws_ptr untouched:
 * - RPMAF_E_INVAL   a NULL argument
 * - RPMAF_E_CONFIG  cfg has no shared receive queue (queues.srq.rq 0)
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_RDMA    a CQ, the SRQ or the registration could not be made
 * - RPMAF_E_SYS     epoll, eventfd, pinning or a thread could not be made
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_workers_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer,
		      struct rpmaf_workers **ws_ptr);

/*
 * rpmaf_workers_delete -- stop every worker (each runs what was submitted
 * to it before it stops), join its thread and free everything; *ws_ptr
 * becomes NULL. Nothing happens when *ws_ptr is NULL.
 *
 * Connections closed with rpmaf_wconn_close() whose slots are not free yet
 * (their completions still being drained) are freed with the set.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL when ws_ptr is NULL, or when a connection is still
 * attached to a worker and not closed, or a slot reserved and not attached
 * (nothing is stopped then); the first RPMAF_E_RDMA of the teardown
 * (everything is freed anyway).
 *
 * THREAD SAFETY
 * Not from a worker thread; not thread-safe against any other use of the
 * set.
 */
int rpmaf_workers_delete(struct rpmaf_workers **ws_ptr);

/* rpmaf_workers_count -- the number of workers (0 when ws is NULL). Thread-safe. */
unsigned rpmaf_workers_count(const struct rpmaf_workers *ws);

/*
 * rpmaf_workers_get -- set *w_ptr to worker i.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, i not below rpmaf_workers_count()).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_workers_get(const struct rpmaf_workers *ws, unsigned i, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_workers_least_loaded -- reserve a connection slot on the worker with
 * the fewest connections (attached or reserved) and set *w_ptr to it. The
 * reservation is consumed by rpmaf_worker_attach() or given back with
 * rpmaf_worker_unreserve().
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_AGAIN (every worker has
 * cfg->conns_per_worker connections).
 *
 * THREAD SAFETY
 * Thread-safe, lock-free.
 */
int rpmaf_workers_least_loaded(struct rpmaf_workers *ws, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_worker_reserve -- reserve a connection slot on w itself.
 * RETURN VALUE: 0; RPMAF_E_INVAL (w NULL); RPMAF_E_AGAIN (w is full).
 * THREAD SAFETY: thread-safe, lock-free.
 */
int rpmaf_worker_reserve(struct rpmaf_worker *w);

/*
 * rpmaf_worker_unreserve -- give back a reservation that will not be
 * attached (the connection failed).
 * RETURN VALUE: 0; RPMAF_E_INVAL (w NULL or no reservation outstanding).
 * THREAD SAFETY: thread-safe, lock-free.
 */
int rpmaf_worker_unreserve(struct rpmaf_worker *w);

/* rpmaf_worker_index -- the index of w in its set. Thread-safe. */
unsigned rpmaf_worker_index(const struct rpmaf_worker *w);

/* rpmaf_worker_is_current -- whether the calling thread is w's thread. Thread-safe. */
bool rpmaf_worker_is_current(const struct rpmaf_worker *w);

/*
 * rpmaf_worker_submit -- run fn(w, arg) on w's thread, after the functions
 * submitted before it from the same thread (FIFO per submitting thread).
 * work is the caller's storage of the submission (see struct rpmaf_work).
 * The eventfd is written only when the worker sleeps.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (w, work or fn NULL).
 *
 * THREAD SAFETY
 * Any thread, the worker's own included. Lock-free (a wait-free enqueue),
 * no allocation. Not against rpmaf_workers_delete().
 */
int rpmaf_worker_submit(struct rpmaf_worker *w, struct rpmaf_work *work, rpmaf_work_fn fn,
			void *arg);

/*
 * rpmaf_worker_conn_cfg -- point a connection configuration at w: its send
 * CQ, receive CQ and SRQ, and an SQ of queues.sq. A request made with it
 * (rpma_conn_req_new(), rpma_ep_next_conn_req()) must be attached to w.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_RDMA (a setter failed).
 *
 * THREAD SAFETY
 * Any thread; not thread-safe against other uses of the same cfg.
 */
int rpmaf_worker_conn_cfg(struct rpmaf_worker *w, struct rpma_conn_cfg *cfg);

/*
 * rpmaf_worker_attach -- make w own conn (made with rpmaf_worker_conn_cfg()
 * of w; established or not): its completions are routed by qp_num to
 * ops->on_wc and ops->on_recv, its connection events to ops->on_event;
 * consumes one reservation (rpmaf_workers_least_loaded(),
 * rpmaf_worker_reserve()). conn belongs to the worker from then on:
 * rpmaf_wconn_close() deletes it. ops must outlive the connection.
 *
 * RETURN VALUE
 * 0 and *wconn_ptr set; or a negative code, conn untouched:
 * - RPMAF_E_INVAL  a NULL argument, not on w's thread, no reservation
 * - RPMAF_E_RDMA   librpma could not give the qp_num or event descriptor
 * - RPMAF_E_SYS    the event descriptor could not be watched
 *
 * THREAD SAFETY
 * Worker thread only (submit a function that calls it).
 */
int rpmaf_worker_attach(struct rpmaf_worker *w, struct rpma_conn *conn,
			const struct rpmaf_wconn_ops *ops, void *ctx,
			struct rpmaf_wconn **wconn_ptr);

/*
 * rpmaf_wconn_close -- stop watching the connection, delete its rpma_conn
 * (rpma_conn_delete(): its QP is destroyed) and set *wconn_ptr to NULL. No
 * callback of it runs afterwards; its remaining completions are taken and
 * dropped, its credits returned and its slot freed once the send CQ has
 * been drained. Buffers it kept (RPMAF_RECV_KEEP) are posted back.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, not on the worker's thread);
 * RPMAF_E_RDMA (rpma_conn_delete() failed; the connection is closed anyway).
 *
 * THREAD SAFETY
 * Worker thread only; callbacks of the connection included.
 */
int rpmaf_wconn_close(struct rpmaf_wconn **wconn_ptr);

/*
 * rpmaf_wconn_admit -- admit a batch of n work requests on the connection:
 * take n slots of its SQ and n of its worker's send CQ. Post exactly n
 * requests then, the last one signaled; a request posted without
 * admission may overflow the queues.
 *
 * RETURN VALUE
 * 0; RPMAF_E_AGAIN (not enough room now: retry after completions; nothing
 * taken); RPMAF_E_INVAL (wconn NULL, n 0 or above queues.sq, a broken or
 * closed connection).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation, no lock.
 */
int rpmaf_wconn_admit(struct rpmaf_wconn *wconn, unsigned n);

/*
 * rpmaf_wconn_unadmit -- give back n requests of the last admitted batch
 * that could not be posted (a post failed). When part of the batch was
 * posted, the connection becomes broken (its signaled request was not).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (wconn NULL, n 0 or more than the last batch).
 *
 * THREAD SAFETY
 * Worker thread only.
 */
int rpmaf_wconn_unadmit(struct rpmaf_wconn *wconn, unsigned n);

/*
 * rpmaf_wconn_outstanding -- work requests admitted and not yet retired
 * (0 when wconn is NULL). Worker thread only.
 */
unsigned rpmaf_wconn_outstanding(const struct rpmaf_wconn *wconn);

/* rpmaf_wconn_get_conn -- the connection (NULL when wconn is NULL). Worker thread only. */
struct rpma_conn *rpmaf_wconn_get_conn(const struct rpmaf_wconn *wconn);

/*
 * rpmaf_wconn_get_worker -- set *w_ptr to the worker that owns the connection.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument). THREAD SAFETY: thread-safe.
 */
int rpmaf_wconn_get_worker(const struct rpmaf_wconn *wconn, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_wconn_recv_release -- post back a receive buffer kept by on_recv
 * (RPMAF_RECV_KEEP), at once (with any other buffer waiting to be posted
 * back): a message sent after the call may return its credit to the peer.
 * A post the SRQ refuses is retried in the loop's next turn.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, buf not a kept receive buffer).
 *
 * THREAD SAFETY
 * Worker thread only.
 */
int rpmaf_wconn_recv_release(struct rpmaf_wconn *wconn, void *buf);

/*
 * rpmaf_worker_buf_get -- a free buffer of queues.messages.size bytes from
 * w's slab, registered in the region rpmaf_worker_buf_mr() gives, for
 * sends and as the local side of reads and writes.
 *
 * RETURN VALUE
 * 0 and *buf_ptr set; RPMAF_E_INVAL (a NULL argument); RPMAF_E_AGAIN (all
 * are in use).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation, no lock.
 */
int rpmaf_worker_buf_get(struct rpmaf_worker *w, void **buf_ptr);

/*
 * rpmaf_worker_buf_put -- give back a buffer from rpmaf_worker_buf_get().
 * RETURN VALUE: 0; RPMAF_E_INVAL (not a buffer handed out by w).
 * THREAD SAFETY: worker thread only.
 */
int rpmaf_worker_buf_put(struct rpmaf_worker *w, void *buf);

/*
 * rpmaf_worker_buf_mr -- the registered region of w's slab and the offset
 * of buf in it (any buffer of the slab, received ones included), for
 * rpma_send(), rpma_write(), rpma_read(), ...
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, buf not in the slab).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_worker_buf_mr(const struct rpmaf_worker *w, const void *buf,
			struct rpma_mr_local **mr_ptr, size_t *offset_ptr);

/*
 * rpmaf_worker_timer_add -- arm t to run fn(w, t, arg) on w's thread in
 * delay_us microseconds (CLOCK_MONOTONIC; timers due at once run in the
 * loop's next turn).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, t already armed); RPMAF_E_AGAIN (w
 * has as many timers armed as it has room for).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation.
 */
int rpmaf_worker_timer_add(struct rpmaf_worker *w, struct rpmaf_timer *t, uint64_t delay_us,
			   rpmaf_timer_fn fn, void *arg);

/*
 * rpmaf_worker_timer_cancel -- disarm t.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, t not armed on w).
 * THREAD SAFETY: worker thread only.
 */
int rpmaf_worker_timer_cancel(struct rpmaf_worker *w, struct rpmaf_timer *t);

/*
 * rpmaf_worker_get_stats -- a copy of w's counters. Each counter is read
 * atomically; they are not a consistent snapshot of one instant.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_worker_get_stats(const struct rpmaf_worker *w, struct rpmaf_worker_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_PUBLIC_WORKERS_H */
