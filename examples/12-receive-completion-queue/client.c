/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a ping-pong on a connection with a
 * separate receive CQ (rpma_conn_cfg_set_rcq_size()): the pongs complete on
 * the receive CQ, the pings on the main CQ.
 *
 * usage: client ADDR PORT [ROUNDS]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MSG_SIZE sizeof(uint64_t)
#define RCQ_SIZE 4

/*
 * main -- connect with a receive CQ and the number of rounds in the private
 * data, play the rounds and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr, *send_mr;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	uint32_t rcq_size;

	common_init("client", argc, argv, 1, "[ROUNDS]", &args);
	uint32_t rounds = (uint32_t)common_ulong_arg(&args, 0, 5, 1, 1000000);

	uint64_t *recv_buf = common_alloc(MSG_SIZE);
	uint64_t *send_buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, recv_buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, send_buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));
	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_get_rcq_size(cfg, &rcq_size));
	printf("client: receive CQ size %u\n", rcq_size);

	struct rpma_conn_req *req = common_req_new(peer, &args, cfg);
	struct rpma_conn *conn = common_connect(&req, &rounds, sizeof(rounds));

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_conn_get_rcq(conn, &rcq));
	if (rcq == NULL)
		common_die("the connection has no receive CQ");

	uint64_t counter = 0;

	for (uint32_t r = 1; r <= rounds; r++) {
		COMMON_CHECK(rpma_recv(conn, recv_mr, 0, MSG_SIZE, NULL));
		*send_buf = counter;
		COMMON_CHECK(rpma_send(conn, send_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
		common_wait_one(cq, IBV_WC_SEND, NULL);
		common_wait_one(rcq, IBV_WC_RECV, NULL);

		if (*recv_buf != counter + 1)
			common_die("round %u: sent %llu, got %llu", r, (unsigned long long)counter,
				   (unsigned long long)*recv_buf);
		printf("client: round %u: sent %llu, got %llu on the receive CQ\n", r,
		       (unsigned long long)counter, (unsigned long long)*recv_buf);
		counter = *recv_buf;
	}
	printf("client: counter is %llu after %u rounds\n", (unsigned long long)counter, rounds);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(send_buf);
	free(recv_buf);
	return 0;
}
