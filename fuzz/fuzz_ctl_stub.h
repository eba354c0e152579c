/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_stub.h -- the worker under a control channel, for the harnesses
 * that drive one side of the channel (fuzz_ctl_server.c, fuzz_ctl_pool.c):
 * fuzz_ctl_stub.c defines the functions of workers/ that the channel and
 * its owner call (buffers, the send queue's admission, the receive
 * buffer's release, timers, submitted functions, attach and close) and the
 * posts of librpma (rpma_send(), rpma_write(), rpma_read(), rpma_flush(),
 * rpma_atomic_write()) over plain memory, so that no device nor thread is
 * needed. One connection at a time.
 *
 * What it checks, on every call the code under test makes: every message
 * sent decodes and fits the peer's receive buffer, nothing is posted once
 * the connection is closed, the receive buffer lent is released once,
 * unadmitted requests were admitted; the admission is the worker's own
 * (workers/credit.c).
 *
 * Time is the stub's: rpmaf__now_ns() is the monotonic clock plus what the
 * timers the input fired have skipped, so a timer always finds its
 * deadline passed, and an input runs in the same order whatever its speed.
 *
 * ASSUMPTIONS: one thread; the harness calls fuzz_ctl_reset() before each
 * input.
 */

#ifndef FUZZ_CTL_STUB_H
#define FUZZ_CTL_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../proto/msg.h"
#include "../workers/worker.h"

#define FUZZ_CTL_SQ_MAX	    16 /* the largest send queue a harness may ask for */
#define FUZZ_CTL_WRS_MAX    64 /* work requests posted and not completed */
#define FUZZ_CTL_WORKS_MAX  64 /* functions submitted and not run */
#define FUZZ_CTL_TIMERS_MAX 4

/* the stand-in worker and its one connection */
struct fuzz_ctl_worker {
	struct rpmaf_worker w;
	struct rpmaf_wconn wconn;
	uint32_t ring[FUZZ_CTL_SQ_MAX]; /* the connection's batches (workers/credit.h) */
	uint32_t buf_size;		/* the worker's buffers, own receive buffer */
	uint32_t peer_max;		/* the peer's receive buffer; 0: RPMAF__PROTO_MSG_MIN */
	const struct rpmaf_wconn_ops *ops;
	void *ctx;
	bool attached, closed;
	bool broken;	       /* a request failed: every later one completes flushed */
	unsigned post_fail_in; /* this many posts from now, one fails (RPMA_E_PROVIDER); 0: none */
	struct {
		uint64_t wr_id;
		bool signaled;
		enum ibv_wc_opcode opcode;
	} wrs[FUZZ_CTL_WRS_MAX]; /* posted, oldest first */
	unsigned nwrs;
	long bufs; /* send buffers given out and not put back */
	struct {
		struct rpmaf_timer *t;
		rpmaf_timer_fn fn;
		void *arg;
		uint64_t due_ns;
	} timers[FUZZ_CTL_TIMERS_MAX];
	unsigned ntimers;
	struct {
		rpmaf_work_fn fn;
		void *arg;
	} works[FUZZ_CTL_WORKS_MAX]; /* a ring */
	unsigned work_head, nworks;
	void *rbuf;	  /* the receive buffer lent to the connection */
	bool released;	  /* ... and posted back */
	uint64_t skew_ns; /* time the fired timers skipped */
	/* the harness's look at every message sent (may be NULL) */
	void (*on_send)(const struct rpmaf__proto_msg *m);
};

extern struct fuzz_ctl_worker Fw;

/*
 * fuzz_ctl_reset -- a fresh worker: buffers of buf_size bytes (nbufs of
 * them), a send queue of sq (at most FUZZ_CTL_SQ_MAX) and a CQ of cq entries
 */
void fuzz_ctl_reset(uint32_t buf_size, uint32_t nbufs, uint32_t sq, uint32_t cq);

/*
 * fuzz_ctl_cfg -- the part of a harness's configuration both sides share:
 * messages of msg_size bytes, credits of them, a send queue of sq, a
 * second to connect
 */
void fuzz_ctl_cfg(struct rpmaf_cfg *cfg, uint32_t msg_size, uint32_t credits, uint32_t sq);

/* fuzz_ctl_drain -- run the functions submitted so far, and those they submit */
void fuzz_ctl_drain(void);

/*
 * fuzz_ctl_recv_step -- parse a receive step's "LEN_LO LEN_HI BYTES" at
 * *pp (before end), advance *pp past it and give the message's length in
 * *len_ptr: beyond buf_size, a receive that failed for its length (no
 * bytes follow); longer than what is left, what is left. Returns the
 * message's bytes.
 */
const uint8_t *fuzz_ctl_recv_step(const uint8_t **pp, const uint8_t *end, size_t *len_ptr);

/*
 * fuzz_ctl_recv -- a receive of the len bytes at p (beyond buf_size: a
 * receive failed with IBV_WC_LOC_LEN_ERR) given to the connection's
 * on_recv, which must return RPMAF_RECV_DONE
 */
void fuzz_ctl_recv(const uint8_t *p, size_t len);

/*
 * fuzz_ctl_recv_hello -- fuzz_ctl_recv() of the peer's message; the first
 * well-formed one of type hello (RPMAF__PROTO_T_HELLO from a client,
 * RPMAF__PROTO_T_HELLO_REPLY from a server) says the peer's receive buffer
 * (peer_max)
 */
void fuzz_ctl_recv_hello(const uint8_t *p, size_t len, uint8_t hello);

/*
 * fuzz_ctl_complete -- the oldest work request completes: well (the
 * unsignaled ones before the first signaled one complete silently), or in
 * error (and every later one, flushed); dropped once the connection is closed
 */
void fuzz_ctl_complete(bool ok);

/*
 * fuzz_ctl_timer_fire -- fire the armed timer of owner arg (NULL: the
 * earliest armed), time skipped to its deadline. false when none is armed.
 */
bool fuzz_ctl_timer_fire(const void *arg);

/* fuzz_ctl_disconnect -- the peer disconnects: the connection's on_event */
void fuzz_ctl_disconnect(void);

/* fuzz_ctl_turn -- a new turn of the worker: its clock (w.now_ns) read again */
void fuzz_ctl_turn(void);

/* fuzz_ctl_check_idle -- the connection is closed and left nothing: no buffer, no timer, no work */
void fuzz_ctl_check_idle(void);

#endif /* FUZZ_CTL_STUB_H */
