// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * acceptor.c -- a server's listening thread (see acceptor.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <librpma.h>

#include "sconn.h"

/* reject -- take the request without a worker's queues and refuse it */
static void
reject(struct rpmaf__acceptor *a, const char *why)
{
	struct rpmaf_server *srv = a->srv;
	struct rpma_conn_req *req = NULL;

	if (rpma_ep_next_conn_req(a->ep, NULL, &req))
		return;
	(void)rpma_conn_req_delete(&req);
	rpmaf__srv_count(&srv->st.rejected, 1);
	rpmaf__wlog(srv->log, RPMAF_LOG_NOTICE, "server: a connection request refused: %s", why);
}

/* connect_req -- accept the request for worker w (reserved); 0 or RPMA_E_NO_EVENT */
static int
connect_req(struct rpmaf__acceptor *a, struct rpmaf_worker *w)
{
	struct rpmaf_server *srv = a->srv;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpmaf__sconn *sc;
	int ret;

	if ((ret = rpmaf_worker_conn_cfg(w, a->ccfg)) ||
	    (ret = rpma_ep_next_conn_req(a->ep, a->ccfg, &req)) ||
	    (ret = rpma_conn_req_connect(&req, NULL, &conn))) {
		(void)rpmaf_worker_unreserve(w);
		if (ret != RPMA_E_NO_EVENT)
			rpmaf__wlog(srv->log, RPMAF_LOG_WARNING,
				    "server: a connection request failed: %s",
				    ret < -1000 ? rpma_err_2str(ret) : rpmaf_err_str(ret));
		return ret == RPMA_E_NO_EVENT ? ret : 0;
	}
	unsigned long long seq = atomic_fetch_add(&srv->conn_seq, 1) + 1;

	if (rpmaf__sconn_new(srv, w, conn, seq, &sc)) {
		(void)rpma_conn_disconnect(conn);
		(void)rpma_conn_delete(&conn);
		(void)rpmaf_worker_unreserve(w);
		rpmaf__srv_count(&srv->st.rejected, 1);
		rpmaf__wlog(srv->log, RPMAF_LOG_ERROR, "server: client #%llu refused: no memory",
			    seq);
		return 0;
	}
	atomic_fetch_add(&srv->nconns, 1);
	rpmaf__srv_count(&srv->st.accepted, 1);
	rpmaf__sconn_hand_over(sc);
	return 0;
}

/* take_one -- the next request waiting: to the least-loaded worker, or rejected */
static int
take_one(struct rpmaf__acceptor *a)
{
	struct rpmaf_server *srv = a->srv;
	struct rpmaf_worker *w;
	char why[96];

	if (atomic_load(&srv->stopping)) {
		reject(a, "the server stops");
		return 0;
	}
	if (atomic_load(&srv->nconns) >= srv->cfg->listen.max_connections) {
		snprintf(why, sizeof(why), "listen.max_connections (%u) reached",
			 srv->cfg->listen.max_connections);
		reject(a, why);
		return 0;
	}
	if (rpmaf_workers_least_loaded(srv->ws, &w)) {
		reject(a, "every worker is full");
		return 0;
	}
	return connect_req(a, w);
}

/*
 * report_due -- log the bursts of connections come and gone that are over
 * (churn.h); how long the next poll may sleep: until the next burst is
 * over, a burst's quiet time while any connection may close (its count is
 * read first: a close is noted before it is uncounted), else for ever
 */
static int
report_due(struct rpmaf__acceptor *a)
{
	bool any = atomic_load(&a->srv->nconns) > 0;
	int due = rpmaf__churn_report(&a->srv->churn, a->srv->log, false);

	return due >= 0 ? due : any ? RPMAF__CHURN_QUIET_MS : -1;
}

/* thread -- wait for requests (or the stop) and take them; sum up the connections in the log */
static void *
thread(void *arg)
{
	struct rpmaf__acceptor *a = arg;
	struct pollfd pfd[2] = {{.events = POLLIN}, {.fd = a->stop_fd, .events = POLLIN}};

	(void)rpma_ep_get_fd(a->ep, &pfd[0].fd);
	for (;;) {
		if (poll(pfd, 2, report_due(a)) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!pfd[0].revents)
			continue;
		/* a rejected request leaves no event behind: one per wake-up is enough */
		(void)take_one(a);
	}
	return NULL;
}

/* listen_ep -- listen on the configured address with a non-blocking descriptor */
static int
listen_ep(struct rpmaf__acceptor *a, struct rpmaf_server *srv)
{
	const struct rpmaf_cfg_listen *l = &srv->cfg->listen;
	char port[16];
	int fd, ret;

	snprintf(port, sizeof(port), "%u", l->port);
	errno = 0;
	if ((ret = rpma_ep_listen(srv->peer, l->address, port, &a->ep))) {
		/* the provider's errno, when its cleanup kept it, says which */
		const char *why =
		    errno == EADDRINUSE ? "the port is in use (another server?): choose another "
					  "with listen.port"
		    : errno == EADDRNOTAVAIL ? "not an address of this host: fix listen.address"
					     : "not a local address, or the port is in use: check "
					       "listen.address and listen.port";

		rpmaf__wlog(srv->log, RPMAF_LOG_ERROR, "server: cannot listen on %s:%s: %s (%s)",
			    l->address, port, ret == RPMA_E_PROVIDER ? why : "librpma",
			    rpma_err_2str(ret));
		return RPMAF_E_RDMA;
	}
	if (rpma_ep_get_fd(a->ep, &fd) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
		(void)rpma_ep_shutdown(&a->ep);
		return RPMAF_E_SYS;
	}
	/* the application says "listening" (with what it serves): the library's line is detail */
	rpmaf__wlog(srv->log, RPMAF_LOG_INFO, "server: accepting connections on %s:%s", l->address,
		    port);
	return 0;
}

/* see acceptor.h */
int
rpmaf__acceptor_start(struct rpmaf__acceptor *a, struct rpmaf_server *srv)
{
	int ret;

	a->srv = srv;
	if (rpma_conn_cfg_new(&a->ccfg))
		return RPMAF_E_NOMEM;
	if ((a->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
		ret = RPMAF_E_SYS;
		goto err_cfg;
	}
	if ((ret = listen_ep(a, srv)))
		goto err_fd;
	if (pthread_create(&a->thread, NULL, thread, a)) {
		ret = RPMAF_E_SYS;
		goto err_ep;
	}
	a->running = true;
	return 0;

err_ep:
	(void)rpma_ep_shutdown(&a->ep);
err_fd:
	close(a->stop_fd);
err_cfg:
	(void)rpma_conn_cfg_delete(&a->ccfg);
	return ret;
}

/* see acceptor.h */
void
rpmaf__acceptor_stop(struct rpmaf__acceptor *a)
{
	uint64_t one = 1;

	if (!a->running)
		return;
	if (write(a->stop_fd, &one, sizeof(one)) != sizeof(one))
		rpmaf__wlog(a->srv->log, RPMAF_LOG_ERROR, "server: waking the acceptor: %s",
			    strerror(errno));
	(void)pthread_join(a->thread, NULL);
	a->running = false;
	(void)rpma_ep_shutdown(&a->ep);
	close(a->stop_fd);
	(void)rpma_conn_cfg_delete(&a->ccfg);
}
