/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the "pong" side of a ping-pong on connections with a separate
 * receive CQ: receives complete on the receive CQ, sends on the main CQ, so
 * each wait looks for exactly one kind of completion.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MSG_SIZE sizeof(uint64_t)
#define RCQ_SIZE 4

/*
 * rounds_from_req -- the number of rounds a client asked for: a 32-bit
 * number in the private data of its request.
 */
static uint32_t
rounds_from_req(const struct rpma_conn_req *req)
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
 * main -- accept each client on a configuration with a receive CQ and
 * answer every ping: wait on the receive CQ, send, wait on the main CQ.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr, *send_mr;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	struct ibv_wc wc;

	common_init("server", argc, argv, 1, "[CLIENTS]", &args);
	unsigned long clients = common_ulong_arg(&args, 0, 1, 1, 1000);

	uint64_t *recv_buf = common_alloc(MSG_SIZE);
	uint64_t *send_buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	COMMON_CHECK(rpma_mr_reg(peer, recv_buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, send_buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));
	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, cfg);
		uint32_t rounds = rounds_from_req(req);

		COMMON_CHECK(rpma_conn_req_recv(req, recv_mr, 0, MSG_SIZE, NULL));
		struct rpma_conn *conn = common_connect(&req, NULL, 0);

		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		COMMON_CHECK(rpma_conn_get_rcq(conn, &rcq));
		if (rcq == NULL)
			common_die("the connection has no receive CQ");
		printf("server: client %lu connected for %u rounds\n", i + 1, rounds);

		for (uint32_t r = 1; r <= rounds; r++) {
			common_wait_one(rcq, IBV_WC_RECV, &wc);
			uint64_t value = *recv_buf;

			printf("server: round %u: got %llu on the receive CQ\n", r,
			       (unsigned long long)value);
			if (r < rounds)
				COMMON_CHECK(rpma_recv(conn, recv_mr, 0, MSG_SIZE, NULL));
			*send_buf = value + 1;
			COMMON_CHECK(
			    rpma_send(conn, send_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
			common_wait_one(cq, IBV_WC_SEND, NULL);
		}

		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	COMMON_CHECK(rpma_ep_shutdown(&ep));
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(send_buf);
	free(recv_buf);
	printf("server: done\n");
	return 0;
}
