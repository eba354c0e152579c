/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a message ping-pong with a server that
 * receives through a shared receive queue: send a counter, receive it back
 * incremented by the server, send that again, for ROUNDS rounds; the
 * counter ends equal to the number of rounds. The client itself is no
 * different from the one of 08-messages-ping-pong.
 *
 * usage: client ADDR PORT [ROUNDS]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MSG_SIZE sizeof(uint64_t)

/*
 * main -- connect with the number of rounds in the private data, play the
 * rounds checking every answer, disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr, *send_mr;
	struct ibv_wc wc;
	struct rpma_cq *cq;

	common_init("client", argc, argv, 1, "[ROUNDS]", &args);
	uint32_t rounds = (uint32_t)common_ulong_arg(&args, 0, 5, 1, 1000000);

	uint64_t *recv_buf = common_alloc(MSG_SIZE);
	uint64_t *send_buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, recv_buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, send_buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, &rounds, sizeof(rounds));

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));

	uint64_t counter = 0;

	for (uint32_t r = 1; r <= rounds; r++) {
		/* the pong needs a buffer before the ping goes out */
		COMMON_CHECK(rpma_recv(conn, recv_mr, 0, MSG_SIZE, NULL));
		*send_buf = counter;
		COMMON_CHECK(rpma_send(conn, send_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
		common_wait_send_recv(cq, &wc);

		if (*recv_buf != counter + 1)
			common_die("round %u: sent %llu, got %llu instead of %llu", r,
				   (unsigned long long)counter, (unsigned long long)*recv_buf,
				   (unsigned long long)(counter + 1));
		printf("client: round %u: sent %llu, got %llu\n", r, (unsigned long long)counter,
		       (unsigned long long)*recv_buf);
		counter = *recv_buf;
	}
	printf("client: counter is %llu after %u rounds\n", (unsigned long long)counter, rounds);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(send_buf);
	free(recv_buf);
	return 0;
}
