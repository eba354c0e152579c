/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * churn.h -- the connections a server saw come and go, summed up in its
 * log: one line a burst ("server: 1000 clients disconnected in 0.4 s (1000
 * by the client)") instead of one line per connection, which go to the
 * debug level. A burst ends when no connection came (or went) for
 * RPMAF__CHURN_QUIET_MS, or RPMAF__CHURN_MAX_MS after its first one, so
 * that a steady trickle still gets a line now and then.
 *
 * CONCURRENCY
 * rpmaf__churn_note(): any thread (a worker accepting or closing a
 * connection): relaxed atomics, no lock, no allocation.
 * rpmaf__churn_report(): one thread at a time (the acceptor's thread while
 * it runs, then the control path stopping the server). Every event noted
 * is reported once: a count is taken by the report that swaps it out, and
 * a burst that loses its events that way is reported as nothing.
 */

#ifndef RPMAF_SERVER_CHURN_H
#define RPMAF_SERVER_CHURN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../workers/wlog.h"

/* a burst ends this long after its last event, or this long after its first */
#define RPMAF__CHURN_QUIET_MS 1000
#define RPMAF__CHURN_MAX_MS   10000

/* what happened to a connection */
enum rpmaf__churn_kind {
	RPMAF__CHURN_ACCEPTED,	/* taken by a worker */
	RPMAF__CHURN_BY_CLIENT, /* closed: the client disconnected */
	RPMAF__CHURN_LOST,	/* closed: lost (no disconnect, no handshake, silent) */
	RPMAF__CHURN_REFUSED,	/* closed: refused (the protocol broken, the proof failed) */
	RPMAF__CHURN_STOPPING,	/* closed: the server stops */
	RPMAF__CHURN_KINDS
};

/* the events not reported yet; two bursts: of connections accepted (0), of closes (1) */
struct rpmaf__churn {
	atomic_ullong first_ns[2]; /* CLOCK_MONOTONIC of the burst's first event; 0: none */
	atomic_ullong last_ns[2];  /* of its last */
	atomic_uint n[RPMAF__CHURN_KINDS];
};

/* rpmaf__churn_note -- one event of kind k, now. CONCURRENCY: any thread */
void rpmaf__churn_note(struct rpmaf__churn *c, enum rpmaf__churn_kind k);

/*
 * rpmaf__churn_report -- log (at notice) each burst that is over, or every
 * one noted with force: the milliseconds until the next one will be over,
 * -1 when none is pending.
 * CONCURRENCY: one reporter at a time (see above).
 */
int rpmaf__churn_report(struct rpmaf__churn *c, const struct rpmaf__wlog *log, bool force);

#endif /* RPMAF_SERVER_CHURN_H */
