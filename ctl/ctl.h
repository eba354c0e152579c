/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * ctl.h -- the control channel of one connection: the messages of the
 * control protocol (proto/) sent and received over a connection attached to
 * a worker (workers/), with the protocol's credits and heartbeats. The
 * server (server/) and the pool (pool/) each run one per connection; what a
 * message means is theirs, how it travels is this file's.
 *
 * Receiving. The connection's on_recv callback hands every receive to
 * rpmaf__ctl_recv(), which holds the buffer (the worker lends it to the
 * callback until it is released or the callback returns), decodes the
 * message, counts the credits it returns, notes the peer alive, answers a
 * HEARTBEAT and swallows CREDIT and HEARTBEAT_REPLY itself, and gives any
 * other message to ops->on_msg. The receive buffer is posted back to the
 * worker's SRQ (rpmaf_wconn_recv_release(), which posts at once) as soon
 * as the message has been consumed: when on_msg returns, or earlier, just
 * before the first message on_msg sends has its credits counted, so that a
 * reply always returns the request's own buffer (doc/PROTOCOL.md,
 * "Credits") and the peer never sends into a buffer not yet posted.
 *
 * Sending. rpmaf__ctl_send() encodes a message into a buffer of the
 * worker's slab, spends a credit (the header returns every credit owed),
 * admits one work request on the connection and posts it signaled. It
 * sends only when all three are available; otherwise it returns
 * RPMAF_E_AGAIN and changes nothing, and ops->on_writable runs once any of
 * them may have come back (a send completion, a message returning
 * credits): the owner keeps its own queue of what waits and retries from
 * there. A CREDIT message is sent by the channel itself when the protocol
 * says one is due. rpmaf__ctl_prepare() and rpmaf__ctl_commit() split a
 * send, so that a payload (APP_REQ, APP_REPLY) can be built in place.
 *
 * Completions. The connection's on_wc callback gives every completion to
 * rpmaf__ctl_on_wc() first: a completion of one of the channel's sends
 * (its op_context is a buffer of the worker's slab) is the channel's and
 * returns its buffer; any other is the owner's. A failed send fails the
 * channel.
 *
 * Failure. A message that does not decode, credits the peer could not
 * return, a failed send, a peer silent for the heartbeat interval x
 * misses: the channel logs why (once), stops sending and receiving, and
 * calls ops->on_fail; the owner must then close the connection
 * (rpmaf_wconn_close()) and call rpmaf__ctl_fini(). A message that does not
 * decode or returns credits the peer could not owe is answered first, when
 * a credit allows, by an ERROR with the matching status (doc/PROTOCOL.md,
 * "The session"): an owner that wants it delivered closes the connection
 * once rpmaf__ctl_idle() says the channel's sends have completed. The
 * struct rpmaf__ctl must stay valid until the callback that failed it
 * returns: an owner frees it later (a submitted function), never inside.
 *
 * CONCURRENCY
 * A channel belongs to its connection's worker thread: every function is
 * called on it (from the connection's callbacks, the worker's submitted
 * functions or timers), never concurrently. Nothing here allocates after
 * rpmaf__ctl_init() or takes a lock.
 */

#ifndef RPMAF_CTL_CTL_H
#define RPMAF_CTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpmaf.h"

#include "../proto/credit.h"
#include "../proto/heartbeat.h"
#include "../proto/msg.h"
#include "../workers/wlog.h"

struct ibv_wc;
struct rpmaf__ctl;

/* what a channel calls back, on its worker's thread, with the owner's ctx */
struct rpmaf__ctl_ops {
	/*
	 * on_msg -- a message other than CREDIT, HEARTBEAT and HEARTBEAT_REPLY
	 * arrived; m's pointers point into the receive buffer and are valid
	 * until on_msg returns or sends a message, whichever comes first.
	 * Returns 0, or a negative code to fail the channel (a message the
	 * owner's protocol state refuses; the owner logs what it refused).
	 */
	int (*on_msg)(struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m, void *ctx);
	/* on_writable -- a send refused with RPMAF_E_AGAIN may succeed now (may be NULL) */
	void (*on_writable)(struct rpmaf__ctl *c, void *ctx);
	/*
	 * on_fail -- the channel failed and has stopped (code an RPMAF_E_*
	 * code; the log has why). Called once, from rpmaf__ctl_recv(),
	 * rpmaf__ctl_on_wc(), the heartbeat timer or rpmaf__ctl_fail(), never
	 * from the send functions (they return the code instead). The owner
	 * closes the connection, from inside the callback or later.
	 */
	void (*on_fail)(struct rpmaf__ctl *c, int code, void *ctx);
};

/* the channel's state: the owner's memory, its fields the channel's */
struct rpmaf__ctl {
	struct rpmaf_worker *w;
	struct rpmaf_wconn *wconn; /* NULL until rpmaf__ctl_bind() */
	const struct rpmaf__ctl_ops *ops;
	void *ctx;
	const struct rpmaf__wlog *log;
	const char *peer; /* the peer's address or name, for log lines */
	struct rpmaf__proto_credit credit;
	struct rpmaf__proto_heartbeat hb;
	struct rpmaf_timer hb_timer;
	bool hb_armed;
	uint16_t version;	/* of the session, for the channel's own messages; 0 before */
	uint32_t msg_size;	/* own receive and send buffers */
	uint32_t peer_msg_size; /* the peer's receive buffer; 0 until known */
	void *rbuf;		/* the receive buffer being consumed, not yet released */
	void **inflight;	/* send buffers posted and not completed: sq entries */
	uint32_t ninflight, inflight_max;
	bool failed;
	uint64_t silent_ms; /* failed for the peer's silence: how long it was; 0 otherwise */
	bool credit_soon;   /* rpmaf__ctl_credit_soon(): return the credits at once */
	/*
	 * the owner's, set after rpmaf__ctl_init(): it reports the end of the
	 * connection itself, so a send flushed by it is logged at debug only
	 */
	bool flush_quiet;
	bool flushed; /* it failed on a send flushed: the queue pair went to the error state */
	uint64_t sent, received; /* messages, for the log and the counters */
	uint64_t returned;	 /* credits the peer returned: messages it has processed */
};

/*
 * rpmaf__ctl_init -- a channel for a connection of worker w: window is the
 * credits this side announces (its receive buffers for the connection),
 * msg_size its buffers' size, sq the connection's send queue; ops and ctx
 * are the owner's, log where lines go, peer names the peer in them (must
 * outlive the channel).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, window outside the
 * protocol's bounds); RPMAF_E_NOMEM.
 */
int rpmaf__ctl_init(struct rpmaf__ctl *c, struct rpmaf_worker *w, uint32_t window,
		    uint32_t msg_size, uint32_t sq, const struct rpmaf__ctl_ops *ops, void *ctx,
		    const struct rpmaf__wlog *log, const char *peer);

/* rpmaf__ctl_bind -- the connection is attached: the channel sends and receives on wconn */
void rpmaf__ctl_bind(struct rpmaf__ctl *c, struct rpmaf_wconn *wconn);

/*
 * rpmaf__ctl_start -- the peer's window and receive buffer size are known
 * (from HELLO on the server, HELLO_REPLY on the client), and the session's
 * version: the channel's own messages (CREDIT, HEARTBEAT, HEARTBEAT_REPLY,
 * ERROR) carry it from then on, and those of the peer must.
 * RETURN VALUE: 0; RPMAF_E_PROTO (out of the protocol's bounds: the caller
 * fails the exchange).
 */
int rpmaf__ctl_start(struct rpmaf__ctl *c, uint32_t peer_window, uint32_t peer_msg_size,
		     uint16_t version);

/*
 * rpmaf__ctl_heartbeat_start -- watch the peer: a HEARTBEAT after each
 * interval_ms of silence, the channel failed (RPMAF_E_CONNLOST) after
 * interval_ms x misses; interval_ms 0 watches nothing. Arms a timer of the
 * worker.
 * RETURN VALUE: 0; RPMAF_E_AGAIN (the worker has no room for a timer).
 */
int rpmaf__ctl_heartbeat_start(struct rpmaf__ctl *c, uint32_t interval_ms, uint32_t misses);

/*
 * rpmaf__ctl_recv -- the connection's on_recv: take the receive (see
 * Receiving above). A failed receive (wc->status) fails the channel.
 * RETURN VALUE: what on_recv must return (RPMAF_RECV_KEEP or RPMAF_RECV_DONE).
 */
int rpmaf__ctl_recv(struct rpmaf__ctl *c, const struct ibv_wc *wc, void *buf);

/* rpmaf__ctl_take_wc -- rpmaf__ctl_on_wc() with sends of the channel in flight (ctl.c) */
bool rpmaf__ctl_take_wc(struct rpmaf__ctl *c, const struct ibv_wc *wc);

/*
 * rpmaf__ctl_on_wc -- the connection's on_wc, first: true when the
 * completion was the channel's (then consumed), false when it is the owner's.
 * Inline: it runs on every completion, and with none of the channel's sends
 * in flight the answer is known at once.
 */
static inline bool
rpmaf__ctl_on_wc(struct rpmaf__ctl *c, const struct ibv_wc *wc)
{
	return c->ninflight && rpmaf__ctl_take_wc(c, wc);
}

/*
 * rpmaf__ctl_send -- encode and send m (m->hdr.credits is filled here).
 * RETURN VALUE: 0; RPMAF_E_AGAIN (no credit, no room in the queues or no
 * buffer now: see on_writable); RPMAF_E_INVAL (m does not encode, or is
 * longer than the peer's receive buffer: logged); RPMAF_E_CONNLOST (the
 * channel failed or is not bound); RPMAF_E_RDMA (the post failed: the
 * channel fails).
 */
int rpmaf__ctl_send(struct rpmaf__ctl *c, struct rpmaf__proto_msg *m);

/*
 * rpmaf__ctl_prepare -- take what one send needs (a credit, a work request,
 * a buffer) and give the buffer and its usable size (the smaller of both
 * sides' buffers), so that a payload can be written at
 * RPMAF__PROTO_APP_*_PAYLOAD_OFF before rpmaf__ctl_commit().
 * RETURN VALUE: 0; RPMAF_E_AGAIN; RPMAF_E_CONNLOST.
 */
int rpmaf__ctl_prepare(struct rpmaf__ctl *c, void **buf_ptr, size_t *size_ptr);

/*
 * rpmaf__ctl_hold -- keep back the credit of a message the owner copied
 * aside to serve later (the one being consumed in on_msg, whose buffer is
 * posted again now, or one already owed): it goes back to the peer only
 * after rpmaf__ctl_unhold(), so that the peer cannot send more such
 * messages than the window before they are served (doc/PROTOCOL.md,
 * "Credits"). Not held (false) when its credit has gone back already.
 * CONCURRENCY: the channel's worker thread.
 */
bool rpmaf__ctl_hold(struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_unhold -- a held credit may go back with the next message
 * (the message it kept is served now). CONCURRENCY: as rpmaf__ctl_hold().
 */
void rpmaf__ctl_unhold(struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_commit -- encode m into buf (from rpmaf__ctl_prepare()) and
 * send it; on an encoding error everything prepare took is given back.
 * RETURN VALUE: as rpmaf__ctl_send() but never RPMAF_E_AGAIN.
 */
int rpmaf__ctl_commit(struct rpmaf__ctl *c, void *buf, struct rpmaf__proto_msg *m);

/* rpmaf__ctl_abort -- give back what rpmaf__ctl_prepare() took, nothing sent */
void rpmaf__ctl_abort(struct rpmaf__ctl *c, void *buf);

/*
 * rpmaf__ctl_idle -- no send of the channel is in flight (every one has
 * completed): what it sent last, an ERROR say, has reached the peer.
 */
bool rpmaf__ctl_idle(const struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_credit_soon -- from on_msg: return the credits owed as soon as
 * the buffer of this message is posted again, in a CREDIT when nothing else
 * carries them, so that the peer learns at once that the message was
 * processed (a client's answer to a region's removal: see "returned").
 * Once every message of the peer up to its n-th has been processed and its
 * buffer posted again, the peer's "returned" reaches n (buffers are posted
 * again in the order the messages came, or later).
 */
void rpmaf__ctl_credit_soon(struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_credit_due -- send the CREDIT rpmaf__ctl_credit_soon() asked
 * for if it still waits (no send room then) and can go now: the owner calls
 * it when one of its own sends completed, before it posts more, so that
 * its traffic cannot keep the CREDIT out of the send queue
 */
void rpmaf__ctl_credit_due(struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_can_send -- whether a message may go now: the answer of a
 * message copied aside (after rpmaf__ctl_unhold()) would not get
 * RPMAF_E_AGAIN from rpmaf__ctl_send(); another message still gets it on
 * the last credit when every credit owed is held (rule 3).
 */
bool rpmaf__ctl_can_send(const struct rpmaf__ctl *c);

/*
 * rpmaf__ctl_fail -- fail the channel from outside (the owner found the
 * peer at fault, or its connection was lost): stop, log why unless why is
 * NULL, call on_fail.
 */
void rpmaf__ctl_fail(struct rpmaf__ctl *c, int code, const char *why);

/*
 * rpmaf__ctl_fini -- after the connection was closed (rpmaf_wconn_close():
 * its QP is gone, and the worker posts back the receive buffer it kept):
 * cancel the heartbeat timer, give back every send buffer still in flight
 * (their completions are dropped by the worker), free what
 * rpmaf__ctl_init() allocated (only after a successful init).
 */
void rpmaf__ctl_fini(struct rpmaf__ctl *c);

#endif /* RPMAF_CTL_CTL_H */
