/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- serve several clients at once from one thread with epoll: the
 * endpoint's descriptor announces connection requests, each connection's
 * event descriptor its events and each CQ's descriptor its completions. All
 * are non-blocking, so no call ever waits for one client while another one
 * needs attention. Every client sends a greeting and gets a welcome back.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define MAX_CLIENTS  16
#define MSG_SIZE     64
#define NAME_MAX_LEN 40

/* what a descriptor in the epoll set belongs to */
enum source { SRC_EP, SRC_EVENT, SRC_CQ };

struct client;

/* the epoll data of one descriptor */
struct source_ctx {
	enum source type;
	struct client *client;
};

/* one client's slot */
struct client {
	bool used;
	unsigned idx;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	int event_fd;
	int cq_fd;
	char name[NAME_MAX_LEN + 1];
	struct source_ctx event_ctx;
	struct source_ctx cq_ctx;
};

/* everything the server keeps */
struct server {
	int epfd;
	struct rpma_ep *ep;
	struct common_msgs msgs; /* MSG_SIZE bytes per slot each way */
	struct client clients[MAX_CLIENTS];
	unsigned long expected, accepted, closed;
};

/*
 * set_nonblock -- make a descriptor non-blocking, so that the librpma call
 * reading it returns at once when there is nothing to take.
 */
static void
set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		common_die("cannot make descriptor %d non-blocking: %s", fd, strerror(errno));
}

/*
 * watch -- add a descriptor to the epoll set.
 */
static void
watch(struct server *s, int fd, struct source_ctx *ctx)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ctx};

	set_nonblock(fd);
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev))
		common_die("epoll_ctl(ADD, %d) failed: %s", fd, strerror(errno));
}

/*
 * unwatch -- remove a descriptor from the epoll set before its owner
 * closes it.
 */
static void
unwatch(struct server *s, int fd)
{
	if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL))
		common_die("epoll_ctl(DEL, %d) failed: %s", fd, strerror(errno));
}

/*
 * accept_one -- take one connection request: reject it when all expected
 * clients have come, otherwise post a receive for the client's greeting,
 * accept it and watch the connection's descriptors.
 */
static void
accept_one(struct server *s, struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pdata;
	struct client *c = NULL;

	for (unsigned i = 0; i < MAX_CLIENTS && s->accepted < s->expected; i++) {
		if (!s->clients[i].used) {
			c = &s->clients[i];
			break;
		}
	}
	if (c == NULL) {
		printf("server: rejecting a connection request: no room\n");
		COMMON_CHECK(rpma_conn_req_delete(&req));
		return;
	}

	COMMON_CHECK(rpma_conn_req_get_private_data(req, &pdata));
	size_t len = pdata.ptr ? strnlen(pdata.ptr, pdata.len) : 0;

	if (len > NAME_MAX_LEN)
		len = NAME_MAX_LEN;

	memcpy(c->name, pdata.ptr ? pdata.ptr : "", len);
	c->name[len] = '\0';

	COMMON_CHECK(rpma_conn_req_recv(req, s->msgs.recv_mr, c->idx * MSG_SIZE, MSG_SIZE, c));
	COMMON_CHECK(rpma_conn_req_connect(&req, NULL, &c->conn));
	c->used = true;
	s->accepted++;

	COMMON_CHECK(rpma_conn_get_event_fd(c->conn, &c->event_fd));
	COMMON_CHECK(rpma_conn_get_cq(c->conn, &c->cq));
	COMMON_CHECK(rpma_cq_get_fd(c->cq, &c->cq_fd));
	c->event_ctx = (struct source_ctx){SRC_EVENT, c};
	c->cq_ctx = (struct source_ctx){SRC_CQ, c};
	watch(s, c->event_fd, &c->event_ctx);
	watch(s, c->cq_fd, &c->cq_ctx);
}

/*
 * handle_ep -- accept every connection request waiting on the endpoint.
 */
static void
handle_ep(struct server *s)
{
	struct rpma_conn_req *req;
	int ret;

	while ((ret = rpma_ep_next_conn_req(s->ep, NULL, &req)) == 0)
		accept_one(s, req);
	if (ret != RPMA_E_NO_EVENT)
		common_check(ret, "rpma_ep_next_conn_req()");
}

/*
 * handle_event -- take the connection events waiting for a client: print
 * the establishment, and on closing disconnect and release the connection.
 */
static void
handle_event(struct server *s, struct client *c)
{
	enum rpma_conn_event ev;
	int ret;

	while ((ret = rpma_conn_next_event(c->conn, &ev)) == 0) {
		switch (ev) {
		case RPMA_CONN_ESTABLISHED:
			printf("server: '%s' connected\n", c->name);
			break;
		case RPMA_CONN_CLOSED:
			unwatch(s, c->event_fd);
			unwatch(s, c->cq_fd);
			COMMON_CHECK(rpma_conn_disconnect(c->conn));
			COMMON_CHECK(rpma_conn_delete(&c->conn));
			c->used = false;
			s->closed++;
			printf("server: '%s' disconnected\n", c->name);
			return;
		default:
			common_die("unexpected event for '%s': %s", c->name,
				   rpma_utils_conn_event_2str(ev));
		}
	}
	if (ret != RPMA_E_NO_EVENT)
		common_check(ret, "rpma_conn_next_event()");
}

/*
 * handle_cq -- take the completion event of a client's CQ, then every
 * completion: answer a greeting with a welcome, let a sent welcome go.
 */
static void
handle_cq(struct server *s, struct client *c)
{
	struct ibv_wc wc;
	int ret = rpma_cq_wait(c->cq);

	if (ret != RPMA_E_NO_COMPLETION)
		common_check(ret, "rpma_cq_wait()");

	while ((ret = rpma_cq_get_wc(c->cq, 1, &wc, NULL)) == 0) {
		if (wc.status != IBV_WC_SUCCESS)
			common_die("a completion for '%s' failed: %s", c->name,
				   ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND)
			continue;
		if (wc.opcode != IBV_WC_RECV)
			common_die("unexpected %s completion", common_opcode_2str(wc.opcode));

		char *msg = (char *)s->msgs.recv_buf + c->idx * MSG_SIZE;
		char *reply = (char *)s->msgs.send_buf + c->idx * MSG_SIZE;

		printf("server: got '%.*s'\n", (int)strnlen(msg, wc.byte_len), msg);
		snprintf(reply, MSG_SIZE, "welcome %s", c->name);
		COMMON_CHECK(rpma_send(c->conn, s->msgs.send_mr, c->idx * MSG_SIZE, MSG_SIZE,
				       RPMA_F_COMPLETION_ALWAYS, c));
	}
	if (ret != RPMA_E_NO_COMPLETION)
		common_check(ret, "rpma_cq_get_wc()");
}

/*
 * main -- listen, watch the endpoint, and dispatch what epoll reports until
 * the expected number of clients have come and gone.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct server s;
	struct source_ctx ep_ctx = {SRC_EP, NULL};
	struct epoll_event events[8];
	int ep_fd;

	memset(&s, 0, sizeof(s));
	s.expected = common_server_init(argc, argv, MAX_CLIENTS, NULL, &args);
	for (unsigned i = 0; i < MAX_CLIENTS; i++)
		s.clients[i].idx = i;

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	common_msgs_new(peer, MAX_CLIENTS * MSG_SIZE, &s.msgs);

	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s.epfd < 0)
		common_die("epoll_create1() failed: %s", strerror(errno));

	s.ep = common_listen(peer, args.addr, args.port);
	COMMON_CHECK(rpma_ep_get_fd(s.ep, &ep_fd));
	watch(&s, ep_fd, &ep_ctx);

	while (s.closed < s.expected) {
		int n = epoll_wait(s.epfd, events, 8, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			common_die("epoll_wait() failed: %s", strerror(errno));
		}
		for (int i = 0; i < n; i++) {
			struct source_ctx *ctx = events[i].data.ptr;

			/* a client released earlier in this batch has nothing left */
			if (ctx->client && !ctx->client->used)
				continue;
			switch (ctx->type) {
			case SRC_EP:
				handle_ep(&s);
				break;
			case SRC_EVENT:
				handle_event(&s, ctx->client);
				break;
			case SRC_CQ:
				handle_cq(&s, ctx->client);
				break;
			}
		}
	}
	printf("server: served %lu clients\n", s.closed);

	unwatch(&s, ep_fd);
	if (close(s.epfd))
		common_die("close() failed: %s", strerror(errno));
	common_msgs_delete(&s.msgs);
	common_server_end(&s.ep, &peer);
	return 0;
}
