/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * sconn.h -- one client connection of a server: its session (HELLO, AUTH,
 * then requests), its control channel (ctl/), the requests that wait for a
 * credit and the announcements that wait to be sent.
 *
 * CONCURRENCY
 * A connection is made by the acceptor thread (rpmaf__sconn_new()) and
 * from rpmaf__sconn_hand_over() on belongs to its worker's thread: every
 * other function runs there (a connection callback, a timer, a submitted
 * function). Its memory is freed by a function submitted to that worker
 * after it was closed.
 */

#ifndef RPMAF_SERVER_SCONN_H
#define RPMAF_SERVER_SCONN_H

#include <stdbool.h>
#include <stdint.h>

#include "server.h"

#include "../ctl/ctl.h"
#include "../proto/session.h"

struct rpma_conn;
struct rpmaf_worker;
struct rpmaf__sregion;

/* announcements a connection may have waiting for credits before it is closed */
#define RPMAF__SCONN_ANN_MAX 32

/* an announcement of a region's change, as every connection sends it */
struct rpmaf__sconn_ann {
	uint64_t table_generation;
	uint32_t event;			   /* enum rpmaf__proto_event */
	struct rpmaf__proto_region region; /* name and desc point into the arrays below */
	char name[RPMAF__PROTO_NAME_MAX + 1];
	uint8_t desc[RPMAF__PROTO_DESC_MAX];
};

/* a persist answered by a group commit (sgroup.h), its reply waiting for a credit */
struct rpmaf__sconn_preply {
	uint64_t req_id;
	uint32_t status;
};

/* a connection: every field its worker thread's, but srv, w (constant) */
struct rpmaf__sconn {
	struct rpmaf_server *srv;
	struct rpmaf_worker *w;
	struct rpma_conn *conn;	   /* until attached */
	struct rpmaf_wconn *wconn; /* attached, until closed */
	struct rpmaf__ctl ctl;
	struct rpmaf__proto_server sess;
	uint8_t nonce[RPMAF__PROTO_NONCE_SIZE];
	char peer[96];		  /* how the log names it: "client #N ADDRESS:PORT (worker W)" */
	struct rpmaf_work work;	  /* attach, then free */
	struct rpmaf_timer timer; /* the handshake's deadline, then the ERROR's linger */
	bool timer_armed;
	bool ctl_ok;   /* the channel was initialised */
	bool ready;    /* authenticated (or no key): requests are served */
	bool closing;  /* an ERROR was sent: nothing more is served, the close waits */
	bool awaiting; /* the channel broke: closing, the client's disconnect awaited (on_fail) */
	const char *close_why; /* closing: why, a static string, and how it is counted */
	uint8_t close_kind;    /* (enum rpmaf__churn_kind) */
	bool closed;
	uint32_t msg_size;
	uint8_t *pend;	    /* pend_cap requests of msg_size bytes waiting for a credit */
	uint32_t *pend_len; /* their lengths */
	uint32_t pend_head, npend, pend_cap;
	struct rpmaf__sconn_preply *preply; /* persist replies waiting for a credit, a ring */
	uint32_t preply_head, npreply, preply_cap;
	struct rpmaf__sconn_ann ann[RPMAF__SCONN_ANN_MAX]; /* a ring */
	uint32_t ann_head, nann;
	uint64_t id;		 /* rpmaf_call_conn_id(): its number in the log */
	uint64_t ann_queued_gen; /* table generation of the last announcement queued */
	/* the last announcement sent that clients confirm (a removal, a change) */
	uint64_t cf_sent_gen, cf_sent_seq;	    /* its table generation; ctl.sent after it */
	uint32_t ncalls;			    /* calls made and not done with (scall.h) */
	struct rpmaf_call *calls_head, *calls_tail; /* answers waiting for a credit */
	bool freeing;				    /* closed: freed once ncalls is 0 */
	bool held;				    /* freed late: counted in srv->held */
	struct rpmaf__sconn *next, *prev;	    /* in its worker's list */
};

/*
 * rpmaf__sconn_serve -- answer request m (REGION_LIST_REQ,
 * REGION_LOOKUP_REQ, PERSIST_REQ, APP_REQ) of a ready connection (serve.c).
 * RETURN VALUE: 0 (answered, or the connection was refused);
 * RPMAF_E_AGAIN (nothing done: no credit or room to answer now).
 */
int rpmaf__sconn_serve(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m);

/*
 * rpmaf__sconn_persist_reply -- answer the persist req_id with status
 * (a group commit's, sgroup.h): sent now, or after those waiting before it
 * once a credit comes (rpmaf__sconn_flush()). Its request's credit was
 * held (rpmaf__ctl_hold()) and goes back with it, so a client keeps no more
 * than the window waiting; one with more than the ring holds is refused
 * (BUSY). Nothing on a closing
 * connection. No allocation. CONCURRENCY: sc's worker thread.
 */
void rpmaf__sconn_persist_reply(struct rpmaf__sconn *sc, uint64_t req_id, uint32_t status);

/*
 * rpmaf__sconn_refuse -- the client broke the protocol or failed the proof:
 * log why, count it in counter, send ERROR status (answering req_id) when
 * a credit allows, and close once it has gone.
 */
void rpmaf__sconn_refuse(struct rpmaf__sconn *sc, uint32_t status, uint64_t req_id,
			 atomic_ullong *counter, const char *why);

/*
 * rpmaf__sconn_msg_init -- out, emptied, a message of type in sc's session
 * (its protocol version) answering req_id (0: a message of the server's own)
 */
void rpmaf__sconn_msg_init(const struct rpmaf__sconn *sc, enum rpmaf__proto_type type,
			   uint64_t req_id, struct rpmaf__proto_msg *out);

/*
 * rpmaf__sconn_reply -- send the answer out, counted in the server's
 * requests; one that does not encode gets the connection refused (INTERNAL).
 * RETURN VALUE: 0 (sent, or the connection was refused); RPMAF_E_AGAIN
 * (nothing sent: no credit or room now). CONCURRENCY: sc's worker thread.
 */
int rpmaf__sconn_reply(struct rpmaf__sconn *sc, struct rpmaf__proto_msg *out);

/*
 * rpmaf__sconn_new -- the state of connection conn, accepted for worker w
 * (a slot reserved there), numbered seq in the log.
 * RETURN VALUE: 0; RPMAF_E_NOMEM; RPMAF_E_SYS (no nonce).
 * CONCURRENCY: the acceptor thread.
 */
int rpmaf__sconn_new(struct rpmaf_server *srv, struct rpmaf_worker *w, struct rpma_conn *conn,
		     unsigned long long seq, struct rpmaf__sconn **sc_ptr);

/*
 * rpmaf__sconn_hand_over -- submit the connection to its worker, which
 * attaches it and serves it from then on (or closes it and gives the
 * reservation back when it cannot). CONCURRENCY: the acceptor thread.
 */
void rpmaf__sconn_hand_over(struct rpmaf__sconn *sc);

/*
 * rpmaf__sconn_flush -- send what waits (persist replies, requests,
 * announcements, answers of calls) while the channel can. CONCURRENCY: sc's worker thread.
 */
void rpmaf__sconn_flush(struct rpmaf__sconn *sc);

/*
 * rpmaf__sconn_maybe_free -- free a closed connection whose last call is
 * done with (nothing when it is not closed or calls remain).
 * CONCURRENCY: sc's worker thread.
 */
void rpmaf__sconn_maybe_free(struct rpmaf__sconn *sc);

/* rpmaf__sconn_ann_make -- the announcement of event about r at table generation gen */
void rpmaf__sconn_ann_make(struct rpmaf__sconn_ann *a, uint32_t event, uint64_t gen,
			   const struct rpmaf__sregion *r);

/*
 * rpmaf__sconn_announce_all -- send (or queue) a copy of a to every ready
 * connection of worker w. CONCURRENCY: w's thread.
 */
void rpmaf__sconn_announce_all(struct rpmaf_server *srv, struct rpmaf_worker *w,
			       const struct rpmaf__sconn_ann *a);

/*
 * rpmaf__sconn_unacked -- how many ready connections of worker w were told
 * of the removal or change at table generation gen and have not yet shown
 * that they processed it (the credits they returned do not cover the
 * announcement): they may still have operations on the region (its old
 * registration) in flight.
 * CONCURRENCY: w's thread.
 */
unsigned rpmaf__sconn_unacked(struct rpmaf_server *srv, struct rpmaf_worker *w, uint64_t gen);

/* rpmaf__sconn_close_all -- close every connection of worker w. CONCURRENCY: w's thread */
void rpmaf__sconn_close_all(struct rpmaf_server *srv, struct rpmaf_worker *w);

#endif /* RPMAF_SERVER_SCONN_H */
