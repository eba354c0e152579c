/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * scall.h -- application calls answered later (rpmaf_call_fn handlers):
 * the call a handler keeps, its answer carried back to the connection's
 * worker, and the answers waiting there for a credit.
 *
 * CONCURRENCY
 * A call is made on the connection's worker thread (rpmaf__scall_start())
 * and answered once from any thread (rpmaf_call_reply()); the answer is
 * handed to that worker with rpmaf_worker_submit(), and everything else
 * runs there. A call holds its connection's memory: a connection closed
 * with calls unanswered is freed when the last of them is answered (the
 * answers are dropped).
 */

#ifndef RPMAF_SERVER_SCALL_H
#define RPMAF_SERVER_SCALL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rpmaf.h"

struct rpmaf__sconn;
struct rpmaf__srv_handler;
struct rpmaf__proto_msg;

struct rpmaf_call {
	struct rpmaf_work work;		    /* the answer's trip to the worker */
	struct rpmaf__sconn *sc;	    /* constant */
	uint64_t conn_id;		    /* constant */
	uint64_t req_id;		    /* constant */
	uint32_t handler_id;		    /* constant */
	const struct rpmaf__srv_handler *h; /* constant: its handler */
	uint64_t start_ns;		    /* constant: the request came (CLOCK_MONOTONIC) */
	atomic_int answered;		    /* rpmaf_call_reply() ran */
	int status;			    /* the answer: 0 or the handler's negative code */
	size_t len;			    /* bytes of reply */
	size_t max;			    /* room in reply */
	struct rpmaf_call *next;	    /* in the connection's queue of answers to send */
	uint8_t reply[];
};

/*
 * rpmaf__scall_start -- APP_REQ m for handler h of sc, which answers later:
 * make the call and run the handler with it (an allocation failure is
 * answered APP_FAILED at once). RETURN VALUE: 0 (the request is taken);
 * RPMAF_E_AGAIN (no credit to answer a failure now: nothing done).
 * CONCURRENCY: sc's worker thread.
 */
int rpmaf__scall_start(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m,
		       const struct rpmaf__srv_handler *h);

/*
 * rpmaf__scall_send -- send the oldest answer waiting on sc.
 * RETURN VALUE: 0 (sent; or, when it does not encode, dropped and the
 * connection refused with INTERNAL); RPMAF_E_AGAIN (no credit now).
 * CONCURRENCY: sc's worker thread.
 */
int rpmaf__scall_send(struct rpmaf__sconn *sc);

/*
 * rpmaf__scall_drop_all -- sc is closing: drop the answers waiting on it.
 * CONCURRENCY: sc's worker thread.
 */
void rpmaf__scall_drop_all(struct rpmaf__sconn *sc);

#endif /* RPMAF_SERVER_SCALL_H */
