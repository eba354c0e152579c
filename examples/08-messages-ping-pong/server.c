/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the "pong" side of a message ping-pong: receive a counter,
 * send it back incremented by one, for as many rounds as the client asked
 * for in its private data.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

/*
 * main -- for each client: post the first receive before accepting, so that
 * the first ping finds it (common_accept_ping()), then answer every ping
 * with a pong.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pong_server s;
	struct ibv_wc wc;
	struct rpma_cq *cq;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);

	common_pong_listen(&s, &args);

	uint64_t *recv_buf = s.m.recv_buf, *send_buf = s.m.send_buf;

	for (unsigned long i = 0; i < clients; i++) {
		uint32_t rounds;
		struct rpma_conn *conn = common_accept_ping(&s, NULL, &rounds);

		printf("server: client %lu connected for %u rounds\n", i + 1, rounds);
		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		common_wait_one(cq, IBV_WC_RECV, &wc);

		for (uint32_t r = 1; r <= rounds; r++) {
			uint64_t value = *recv_buf;

			printf("server: round %u: got %llu, sending %llu\n", r,
			       (unsigned long long)value, (unsigned long long)(value + 1));
			*send_buf = value + 1;

			/* the next ping needs a buffer before the pong goes out */
			if (r < rounds)
				COMMON_CHECK(
				    rpma_recv(conn, s.m.recv_mr, 0, COMMON_PING_SIZE, NULL));
			COMMON_CHECK(rpma_send(conn, s.m.send_mr, 0, COMMON_PING_SIZE,
					       RPMA_F_COMPLETION_ALWAYS, NULL));
			if (r < rounds)
				common_wait_send_recv(cq, &wc);
			else
				common_wait_one(cq, IBV_WC_SEND, NULL);
		}

		common_client_gone(&conn, i);
	}

	common_pong_server_end(&s);
	return 0;
}
