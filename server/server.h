/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.h -- the layout of a server, shared by the files of server/.
 *
 * OWNERSHIP
 * The constant fields are set by rpmaf_server_new() and
 * rpmaf_server_handler_add() before the server starts and only read after.
 * regs is read by the workers under RCU and by other threads under its
 * mutex, and changed by the control path only (sregion.h). wst[i] belongs
 * to worker i's thread.
 * The fields marked atomic are read and written by any thread (relaxed
 * counters, or the flags and counts the control path waits on).
 */

#ifndef RPMAF_SERVER_SERVER_H
#define RPMAF_SERVER_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rpmaf.h"

#include "../proto/auth.h"
#include "../stats/hist.h"
#include "../workers/wlog.h"
#include "acceptor.h"
#include "churn.h"
#include "sgroup.h"
#include "sregion.h"

struct rpmaf__sconn;

/* an application handler */
struct rpmaf__srv_handler {
	uint32_t id;
	rpmaf_handler_fn fn;   /* answers at once; or NULL and: */
	rpmaf_call_fn call_fn; /* answers later (scall.h) */
	void *arg;
	unsigned flags; /* RPMAF_HANDLER_* */
};

/* a handler with flags, as HANDLER_LIST announces it */
struct rpmaf__srv_listed {
	uint32_t id;
	uint32_t flags; /* RPMAF__PROTO_HANDLER_* */
};

/*
 * what a server keeps per worker, used by that worker's thread only (the
 * histograms: written by it only, read by any thread, hist.h)
 */
struct rpmaf__srv_wstate {
	struct rpmaf__sconn *conns;	 /* its connections, a doubly-linked list */
	uint8_t *scratch;		 /* queues.messages.size bytes: a list page is built here */
	struct rpmaf__hist persist_lat;	 /* ns a persist (GPSPM) took, its group's wait included */
	struct rpmaf__sgroup group;	 /* the persists of the turn (sgroup.h) */
	struct rpmaf__hist *handler_lat; /* ns from an APP_REQ to its reply, per handler */
					 /* (as srv->handlers; made by rpmaf_server_start()) */
};

/* the counters of struct rpmaf_server_stats, relaxed atomics */
struct rpmaf__srv_counters {
	atomic_ullong accepted, rejected, auth_failed, proto_errors, lost, requests, persists,
	    persist_bytes, app_requests, announcements;
};

struct rpmaf_server {
	/* constant */
	const struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	const struct rpmaf__wlog *log; /* the workers' */
	struct rpmaf__proto_key key;
	bool has_key;
	struct rpmaf__srv_handler *handlers;
	uint32_t nhandlers;
	struct rpmaf__srv_listed *listed; /* the handlers with flags, by increasing id */
	uint32_t nlisted;
	struct rpmaf__srv_wstate *wst;	/* one per worker */
	rpmaf_conn_closed_fn closed_fn; /* NULL: none */
	void *closed_arg;

	struct rpmaf__sregtab regs;
	/*
	 * serializes the changes and the removals of regions (the control
	 * path, through acknowledgements): the region a change was made from
	 * stays in the table, and valid, until the change has replaced it
	 */
	pthread_mutex_t reg_lock;

	/* the control path's (not thread-safe, as rpmaf.h says) */
	struct rpmaf__acceptor acc;
	uint64_t start_ns; /* CLOCK_MONOTONIC at rpmaf_server_start(): the uptime's origin */
	bool started;
	bool stopped;

	/* atomic */
	atomic_int stopping;	/* no more connections, no more requests queued */
	atomic_uint nconns;	/* connections accepted and not closed */
	atomic_uint nobjs;	/* connection objects not freed yet */
	atomic_uint held;	/* of which closed, kept by calls not yet answered */
	atomic_ullong pending;	/* requests received and not answered yet */
	atomic_ullong conn_seq; /* numbers connections in the log */
	struct rpmaf__srv_counters st;
	struct rpmaf__churn churn; /* connections come and gone, for the log (churn.h) */
};

/* rpmaf__srv_count -- add n to a counter of the server (any thread) */
static inline void
rpmaf__srv_count(atomic_ullong *c, unsigned long long n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

/*
 * rpmaf__srv_handler_find -- the handler of id, NULL when none.
 * CONCURRENCY: any thread once the server started (the table is constant).
 */
const struct rpmaf__srv_handler *rpmaf__srv_handler_find(const struct rpmaf_server *srv,
							 uint32_t id);

/*
 * rpmaf__srv_handler_record -- one call of handler h answered, ns after its
 * request came, recorded in the histogram of the worker w answering it
 * (none before rpmaf_server_start() made them).
 * CONCURRENCY: w's thread.
 */
static inline void
rpmaf__srv_handler_record(struct rpmaf_server *srv, const struct rpmaf_worker *w,
			  const struct rpmaf__srv_handler *h, uint64_t ns)
{
	struct rpmaf__srv_wstate *ws = &srv->wst[rpmaf_worker_index(w)];

	if (ws->handler_lat)
		rpmaf__hist_record(&ws->handler_lat[h - srv->handlers], ns);
}

#endif /* RPMAF_SERVER_SERVER_H */
