/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the "pong" side of a message ping-pong with several clients at
 * once, receiving through one shared receive queue (SRQ): every connection
 * takes its receive buffers from the SRQ and reports receives on the SRQ's
 * receive CQ; the queue pair number of a completion tells which client sent
 * the message.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define MSG_SIZE    COMMON_PING_SIZE
#define MAX_CLIENTS 64

/* one connected client */
struct client {
	struct rpma_conn *conn;
	struct rpma_cq *cq; /* its own CQ: the completions of the pongs */
	uint32_t qp_num;
	uint32_t rounds;
	uint32_t done;
};

/*
 * find_client -- the client whose queue pair received a message.
 */
static struct client *
find_client(struct client *clients, unsigned long n, uint32_t qp_num)
{
	for (unsigned long i = 0; i < n; i++) {
		if (clients[i].qp_num == qp_num)
			return &clients[i];
	}
	common_die("a message came from an unknown queue pair %u", qp_num);
}

/*
 * main -- create the SRQ and fill it with one receive buffer per client,
 * accept every client on it, then answer pings as they come from any
 * client until all have played all their rounds.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_msgs m;
	struct rpma_srq_cfg *srq_cfg;
	struct rpma_conn_cfg *cfg;
	struct rpma_srq *srq;
	struct rpma_cq *rcq;
	struct client clients[MAX_CLIENTS];
	uint64_t total = 0, handled = 0;

	unsigned long n = common_server_init(argc, argv, MAX_CLIENTS, NULL, &args);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	/* one receive slot and one send slot per client */
	common_msgs_new(peer, n * MSG_SIZE, &m);

	uint64_t *recv_buf = m.recv_buf, *send_buf = m.send_buf;

	COMMON_CHECK(rpma_srq_cfg_new(&srq_cfg));
	COMMON_CHECK(rpma_srq_cfg_set_rq_size(srq_cfg, (uint32_t)n));
	COMMON_CHECK(rpma_srq_cfg_set_rcq_size(srq_cfg, (uint32_t)n));
	COMMON_CHECK(rpma_srq_new(peer, srq_cfg, &srq));
	COMMON_CHECK(rpma_srq_get_rcq(srq, &rcq));
	if (rcq == NULL)
		common_die("the shared receive queue has no receive CQ");

	/* every client has at most one ping in flight: one buffer each is enough */
	for (unsigned long i = 0; i < n; i++)
		COMMON_CHECK(rpma_srq_recv(srq, m.recv_mr, i * MSG_SIZE, MSG_SIZE, (void *)i));

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_srq(cfg, srq));

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < n; i++) {
		struct rpma_conn_req *req = common_next_req(ep, cfg);
		struct client *c = &clients[i];

		c->rounds = common_rounds_from_req(req);
		c->done = 0;
		total += c->rounds;
		c->conn = common_connect(&req, NULL, 0);
		COMMON_CHECK(rpma_conn_get_cq(c->conn, &c->cq));
		COMMON_CHECK(rpma_conn_get_qp_num(c->conn, &c->qp_num));

		struct rpma_cq *conn_rcq;

		COMMON_CHECK(rpma_conn_get_rcq(c->conn, &conn_rcq));
		if (conn_rcq != rcq)
			common_die("the connection does not use the SRQ's receive CQ");
	}
	printf("server: %lu clients connected, %llu rounds to play\n", n,
	       (unsigned long long)total);

	while (handled < total) {
		struct ibv_wc wc;

		common_wait_one(rcq, IBV_WC_RECV, &wc);

		unsigned long slot = (unsigned long)wc.wr_id;

		if (slot >= n)
			common_die("a receive completed with an unknown context %lu", slot);

		struct client *c = find_client(clients, n, wc.qp_num);
		uint64_t value = recv_buf[slot];

		/* give the slot back to the SRQ before answering */
		COMMON_CHECK(
		    rpma_srq_recv(srq, m.recv_mr, slot * MSG_SIZE, MSG_SIZE, (void *)slot));

		size_t send_slot = (size_t)(c - clients);

		send_buf[send_slot] = value + 1;
		COMMON_CHECK(rpma_send(c->conn, m.send_mr, send_slot * MSG_SIZE, MSG_SIZE,
				       RPMA_F_COMPLETION_ALWAYS, NULL));
		common_wait_one(c->cq, IBV_WC_SEND, NULL);
		c->done++;
		handled++;
	}
	printf("server: answered %llu messages from %lu clients through the SRQ\n",
	       (unsigned long long)handled, n);

	for (unsigned long i = 0; i < n; i++)
		common_wait_closed(&clients[i].conn);
	printf("server: all clients disconnected\n");

	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	COMMON_CHECK(rpma_srq_delete(&srq));
	COMMON_CHECK(rpma_srq_cfg_delete(&srq_cfg));
	common_msgs_delete(&m);
	common_server_end(&ep, &peer);
	return 0;
}
