// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the plain librpma server the benchmark writes to
 */

#include <errno.h>
#include <librpma.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"
#include "util.h"

#define SERVER_DESC_MAX 64 /* room for a region's descriptor */
#define SERVER_EVENTS	64 /* epoll events taken at once */

/* one accepted connection */
struct server_conn {
	struct rpma_conn *conn;
	int fd; /* its event descriptor, watched by the server's epoll set */
	struct server_conn *prev, *next; /* the server's list of connections */
};

/* the server; everything is used by its one thread */
struct server {
	struct rpma_peer *peer;
	void *region;
	size_t size;
	bool apm; /* the caller's memory, flushed to persistence by the clients */
	struct rpma_mr_local *mr;
	char desc[SERVER_DESC_MAX];
	size_t desc_len;
	struct rpma_conn_cfg *ccfg;
	struct rpma_ep *ep;
	int epfd;
	unsigned port;
	struct server_conn *conns; /* connections not yet deleted */
};

static volatile sig_atomic_t Server_stop;

/* server_on_signal -- SIGTERM and SIGINT end the serving loop, not the process */
static void
server_on_signal(int sig)
{
	(void)sig;
	Server_stop = 1;
}

/* server_pcfg -- APM: the peer configuration's descriptor (direct write to PMem) leads */
static int
server_pcfg(struct server *s)
{
	struct rpma_peer_cfg *pcfg;
	size_t len;
	int ret;

	if ((ret = rpma_peer_cfg_new(&pcfg)))
		return ret;
	if ((ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true)) == 0 &&
	    (ret = rpma_peer_cfg_get_descriptor_size(pcfg, &len)) == 0) {
		if (len > sizeof(s->desc))
			ret = RPMA_E_INVAL;
		else if ((ret = rpma_peer_cfg_get_descriptor(pcfg, s->desc)) == 0)
			s->desc_len = len;
	}
	(void)rpma_peer_cfg_delete(&pcfg);
	return ret;
}

/* server_region -- the region clients write into, and its descriptor for them */
static int
server_region(struct server *s)
{
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC;
	size_t len = 0;
	int ret = 0;

	if (!s->region) {
		s->size = SERVER_REGION_SIZE;
		s->region =
		    mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s->region == MAP_FAILED) {
			s->region = NULL;
			fprintf(stderr, "server: mmap: %s\n", strerror(errno));
			return -1;
		}
	}
	if (s->apm) {
		usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
		ret = server_pcfg(s);
	}
	if (ret == 0)
		ret = rpma_mr_reg(s->peer, s->region, s->size, usage, &s->mr);
	if (ret == 0)
		ret = rpma_mr_get_descriptor_size(s->mr, &len);
	if (ret == 0 && s->desc_len + len > sizeof(s->desc))
		ret = RPMA_E_INVAL;
	if (ret == 0)
		ret = rpma_mr_get_descriptor(s->mr, s->desc + s->desc_len);
	if (ret) {
		fprintf(stderr, "server: region: %s\n", rpma_err_2str(ret));
		return -1;
	}
	s->desc_len += len;
	return 0;
}

/* server_listen -- the first free port of the range: another run may hold one */
static int
server_listen(struct server *s, unsigned first, unsigned last)
{
	char port[16];
	int ret = RPMA_E_INVAL;

	for (unsigned p = first; p <= last; p++) {
		snprintf(port, sizeof(port), "%u", p);
		ret = rpma_ep_listen(s->peer, UTIL_ADDR, port, &s->ep);
		if (ret == 0) {
			s->port = p;
			return 0;
		}
	}
	fprintf(stderr, "server: no port of %u..%u could be listened on: %s\n", first, last,
		rpma_err_2str(ret));
	return -1;
}

/* server_watch -- add fd to the epoll set with ptr as its data (NULL: the endpoint) */
static int
server_watch(struct server *s, int fd, void *ptr)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};

	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		fprintf(stderr, "server: epoll_ctl: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* server_open -- everything but the connections, so serving only accepts and closes */
static int
server_open(struct server *s, unsigned first, unsigned last)
{
	int ret, fd;

	if ((ret = util_peer_new(&s->peer))) {
		fprintf(stderr, "server: no device for %s: %s\n", UTIL_ADDR, rpma_err_2str(ret));
		return -1;
	}
	if (server_region(s))
		return -1;
	/* the clients never send: a tiny queue set per connection */
	if ((ret = rpma_conn_cfg_new(&s->ccfg)) || (ret = rpma_conn_cfg_set_sq_size(s->ccfg, 1)) ||
	    (ret = rpma_conn_cfg_set_rq_size(s->ccfg, 1)) ||
	    (ret = rpma_conn_cfg_set_cq_size(s->ccfg, 2))) {
		fprintf(stderr, "server: connection configuration: %s\n", rpma_err_2str(ret));
		return -1;
	}
	if (server_listen(s, first, last))
		return -1;
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		fprintf(stderr, "server: epoll_create1: %s\n", strerror(errno));
		return -1;
	}
	(void)rpma_ep_get_fd(s->ep, &fd);
	return server_watch(s, fd, NULL);
}

/* server_accept -- take one request and answer it with the region's descriptor */
static int
server_accept(struct server *s)
{
	struct rpma_conn_private_data pd = {.ptr = s->desc, .len = (uint8_t)s->desc_len};
	struct rpma_conn_req *req;
	struct server_conn *c;
	int ret;

	if ((ret = rpma_ep_next_conn_req(s->ep, s->ccfg, &req))) {
		/* a request that went away before it was taken is not the server's failure */
		fprintf(stderr, "server: next request: %s\n", rpma_err_2str(ret));
		return 0;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		(void)rpma_conn_req_delete(&req);
		fprintf(stderr, "server: out of memory\n");
		return -1;
	}
	if ((ret = rpma_conn_req_connect(&req, &pd, &c->conn))) {
		fprintf(stderr, "server: accept: %s\n", rpma_err_2str(ret));
		free(c);
		return 0;
	}
	(void)rpma_conn_get_event_fd(c->conn, &c->fd);
	if (server_watch(s, c->fd, c)) {
		(void)rpma_conn_delete(&c->conn);
		free(c);
		return -1;
	}
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	return 0;
}

/* server_conn_delete -- forget a connection: unwatched first, its descriptor dies with it */
static void
server_conn_delete(struct server *s, struct server_conn *c)
{
	(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	(void)rpma_conn_disconnect(c->conn);
	(void)rpma_conn_delete(&c->conn);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

/* server_conn_event -- a connection that closed (or broke) is deleted at once */
static void
server_conn_event(struct server *s, struct server_conn *c)
{
	enum rpma_conn_event ev;
	int ret = rpma_conn_next_event(c->conn, &ev);

	if (ret == RPMA_E_NO_EVENT || (ret == 0 && ev == RPMA_CONN_ESTABLISHED))
		return;
	server_conn_delete(s, c);
}

/* server_loop -- serve until a signal; a short timeout so the flag is seen */
static int
server_loop(struct server *s)
{
	struct epoll_event evs[SERVER_EVENTS];

	while (!Server_stop) {
		int n = epoll_wait(s->epfd, evs, SERVER_EVENTS, 100);

		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "server: epoll_wait: %s\n", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL) {
				if (server_accept(s))
					return -1;
			} else {
				server_conn_event(s, evs[i].data.ptr);
			}
		}
	}
	return 0;
}

/* server_close -- the connections still open, then what server_open() made, in reverse */
static void
server_close(struct server *s)
{
	while (s->conns)
		server_conn_delete(s, s->conns);
	if (s->epfd >= 0)
		close(s->epfd);
	(void)rpma_ep_shutdown(&s->ep);
	(void)rpma_conn_cfg_delete(&s->ccfg);
	(void)rpma_mr_dereg(&s->mr);
	if (s->region && !s->apm)
		munmap(s->region, s->size);
	(void)rpma_peer_delete(&s->peer);
}

/* server_ready -- tell the parent (or the user) where the server listens */
static int
server_ready(const struct server *s, int ready_fd)
{
	if (ready_fd < 0) {
		printf("rpmaf-bench server: listening on %s:%u\n", UTIL_ADDR, s->port);
		fflush(stdout);
		return 0;
	}
	if (write(ready_fd, &s->port, sizeof(s->port)) != (ssize_t)sizeof(s->port)) {
		fprintf(stderr, "server: cannot tell the parent its port: %s\n", strerror(errno));
		return -1;
	}
	close(ready_fd);
	return 0;
}

/* server_serve -- s set up by the caller: open, tell where, serve, close */
static int
server_serve(struct server *s, unsigned first, unsigned last, int ready_fd)
{
	struct sigaction sa = {.sa_handler = server_on_signal};
	int ret = -1;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (server_open(s, first, last) == 0 && server_ready(s, ready_fd) == 0)
		ret = server_loop(s);
	server_close(s);
	return ret;
}

/* server_run -- see server.h */
int
server_run(unsigned first, unsigned last, int ready_fd)
{
	struct server s = {.epfd = -1};

	return server_serve(&s, first, last, ready_fd);
}

/* server_run_apm -- see server.h */
int
server_run_apm(void *ptr, size_t size, unsigned first, unsigned last, int ready_fd)
{
	struct server s = {.epfd = -1, .region = ptr, .size = size, .apm = true};

	return server_serve(&s, first, last, ready_fd);
}
