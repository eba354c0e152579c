/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * acceptor.h -- a server's listening thread: it takes each connection
 * request, hands it to the least-loaded worker, or rejects it (full,
 * stopping), and logs which.
 *
 * CONCURRENCY
 * rpmaf__acceptor_start() and rpmaf__acceptor_stop() run on the control
 * path, one at a time; the thread owns the endpoint in between.
 */

#ifndef RPMAF_SERVER_ACCEPTOR_H
#define RPMAF_SERVER_ACCEPTOR_H

#include <pthread.h>
#include <stdbool.h>

struct rpma_ep;
struct rpma_conn_cfg;
struct rpmaf_server;

struct rpmaf__acceptor {
	struct rpmaf_server *srv;
	struct rpma_ep *ep;	    /* listening between start and stop */
	struct rpma_conn_cfg *ccfg; /* pointed at the chosen worker for each request */
	int stop_fd;		    /* an eventfd: written to stop the thread */
	pthread_t thread;
	bool running;
};

/*
 * rpmaf__acceptor_start -- listen on listen.address:listen.port and start
 * the thread.
 * RETURN VALUE: 0; RPMAF_E_RDMA (cannot listen: logged); RPMAF_E_SYS (the
 * eventfd or the thread). On failure nothing listens.
 */
int rpmaf__acceptor_start(struct rpmaf__acceptor *a, struct rpmaf_server *srv);

/* rpmaf__acceptor_stop -- stop the thread, join it and stop listening (idempotent) */
void rpmaf__acceptor_stop(struct rpmaf__acceptor *a);

#endif /* RPMAF_SERVER_ACCEPTOR_H */
