/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-messages.c -- message buffers and the ping-pong shared by the
 * examples 08-messages-ping-pong, 09, 12 and 13: the server's side of each
 * stays in its example, as it is what each of them shows; the client's side
 * is the same but for how it waits, written here once.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

/*
 * common_msgs_new -- allocate a receive buffer and a send buffer of size
 * bytes each (common_alloc()) and register them for receiving and sending.
 */
void
common_msgs_new(struct rpma_peer *peer, size_t size, struct common_msgs *m)
{
	m->size = size;
	m->recv_buf = common_alloc(size);
	m->send_buf = common_alloc(size);
	COMMON_CHECK(rpma_mr_reg(peer, m->recv_buf, size, RPMA_MR_USAGE_RECV, &m->recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, m->send_buf, size, RPMA_MR_USAGE_SEND, &m->send_mr));
}

/*
 * common_msgs_delete -- deregister and free both buffers.
 */
void
common_msgs_delete(struct common_msgs *m)
{
	COMMON_CHECK(rpma_mr_dereg(&m->send_mr));
	COMMON_CHECK(rpma_mr_dereg(&m->recv_mr));
	free(m->send_buf);
	free(m->recv_buf);
}

/*
 * common_rounds_from_req -- the number of rounds a client asked for: a
 * 32-bit number in the private data of its request.
 */
uint32_t
common_rounds_from_req(const struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pdata;
	uint32_t rounds;

	COMMON_CHECK(rpma_conn_req_get_private_data(req, &pdata));
	if (pdata.ptr == NULL || pdata.len < sizeof(rounds))
		common_die("the client did not say how many rounds to play");
	memcpy(&rounds, pdata.ptr, sizeof(rounds));
	if (rounds == 0)
		common_die("the client asked for 0 rounds");
	return rounds;
}

/*
 * common_pong_listen -- the start of a ping-pong server: its peer, its
 * buffers for one ping and one pong, and its endpoint, listening.
 */
void
common_pong_listen(struct common_pong_server *s, const struct common_args *args)
{
	s->peer = common_peer_new(args->addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	common_msgs_new(s->peer, COMMON_PING_SIZE, &s->m);
	s->ep = common_listen(s->peer, args->addr, args->port);
}

/*
 * common_accept_ping -- take the next ping client on the configuration cfg:
 * read how many rounds it asked for into *rounds, post the receive of its
 * first ping before accepting, so that the ping finds it, and accept.
 */
struct rpma_conn *
common_accept_ping(struct common_pong_server *s, const struct rpma_conn_cfg *cfg, uint32_t *rounds)
{
	struct rpma_conn_req *req = common_next_req(s->ep, cfg);

	*rounds = common_rounds_from_req(req);
	COMMON_CHECK(rpma_conn_req_recv(req, s->m.recv_mr, 0, COMMON_PING_SIZE, NULL));
	return common_connect(&req, NULL, 0);
}

/*
 * common_pong -- answer the ping that has arrived, as 08-messages-ping-pong's
 * server does: when more pings are to come, post the receive of the next one
 * before the pong goes out, then send the ping's counter plus one. Returns
 * the ping's counter; the caller waits for the completions its own way.
 */
uint64_t
common_pong(struct rpma_conn *conn, struct common_pong_server *s, bool more)
{
	uint64_t *recv_buf = s->m.recv_buf, *send_buf = s->m.send_buf;
	uint64_t value = *recv_buf;

	if (more)
		COMMON_CHECK(rpma_recv(conn, s->m.recv_mr, 0, COMMON_PING_SIZE, NULL));
	*send_buf = value + 1;
	COMMON_CHECK(
	    rpma_send(conn, s->m.send_mr, 0, COMMON_PING_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
	return value;
}

/*
 * common_pong_server_end -- release the buffers, stop listening and delete
 * the peer (common_server_end()).
 */
void
common_pong_server_end(struct common_pong_server *s)
{
	common_msgs_delete(&s->m);
	common_server_end(&s->ep, &s->peer);
}

/*
 * wait_send_recv -- the plain ping-pong's wait: the send and the receive
 * complete on the connection's one CQ.
 */
static void
wait_send_recv(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq)
{
	struct ibv_wc wc;

	(void)conn;
	(void)rcq;
	common_wait_send_recv(cq, &wc);
}

/* the plain ping-pong of 08-messages-ping-pong */
static const struct common_ping_ops Plain_ping = {
    .wait = wait_send_recv,
    .round_note = "",
};

/*
 * ping_rounds -- play the rounds on a connection: post the receive of the
 * pong before the ping goes out, send the counter, wait for both and check
 * that the pong is the counter plus one; returns the last counter.
 */
static uint64_t
ping_rounds(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq,
	    const struct common_msgs *m, uint32_t rounds, const struct common_ping_ops *ops)
{
	uint64_t *recv_buf = m->recv_buf, *send_buf = m->send_buf;
	uint64_t counter = 0;

	for (uint32_t r = 1; r <= rounds; r++) {
		COMMON_CHECK(rpma_recv(conn, m->recv_mr, 0, COMMON_PING_SIZE, NULL));
		*send_buf = counter;
		COMMON_CHECK(rpma_send(conn, m->send_mr, 0, COMMON_PING_SIZE,
				       RPMA_F_COMPLETION_ALWAYS, NULL));
		ops->wait(conn, cq, rcq);

		if (*recv_buf != counter + 1)
			common_die("round %u: sent %llu, got %llu instead of %llu", r,
				   (unsigned long long)counter, (unsigned long long)*recv_buf,
				   (unsigned long long)(counter + 1));
		printf("client: round %u: sent %llu, got %llu%s\n", r, (unsigned long long)counter,
		       (unsigned long long)*recv_buf, ops->round_note);
		counter = *recv_buf;
	}
	return counter;
}

/*
 * common_ping_main -- the client's side of the ping-pong, a whole program:
 * usage: client ADDR PORT [ROUNDS]. It connects with the number of rounds
 * in the private data (on the configuration ops->cfg_new() makes), plays
 * the rounds and disconnects; ops says what an example does differently,
 * NULL for the plain ping-pong. Returns the program's exit code.
 */
int
common_ping_main(int argc, char *argv[], const struct common_ping_ops *ops)
{
	struct common_args args;
	struct rpma_conn_cfg *cfg = NULL;
	struct common_msgs m;
	struct rpma_cq *cq, *rcq;

	if (ops == NULL)
		ops = &Plain_ping;
	common_init("client", argc, argv, 1, "[ROUNDS]", &args);
	uint32_t rounds = (uint32_t)common_ulong_arg(&args, 0, 5, 1, 1000000);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	common_msgs_new(peer, COMMON_PING_SIZE, &m);
	if (ops->cfg_new)
		cfg = ops->cfg_new();

	struct rpma_conn *conn = common_client_connect(peer, &args, cfg, &rounds, sizeof(rounds));

	if (ops->has_rcq) {
		common_conn_cqs(conn, &cq, &rcq);
	} else {
		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		rcq = NULL;
	}
	if (ops->connected)
		ops->connected(conn);

	uint64_t counter = ping_rounds(conn, cq, rcq, &m, rounds, ops);

	printf("client: counter is %llu after %u rounds\n", (unsigned long long)counter, rounds);

	common_disconnect(&conn);
	if (cfg)
		COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	common_msgs_delete(&m);
	COMMON_CHECK(rpma_peer_delete(&peer));
	return 0;
}
