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

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define RCQ_SIZE 4

/*
 * main -- accept each client on a configuration with a receive CQ and
 * answer every ping: wait on the receive CQ, send, wait on the main CQ.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pong_server s;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	struct ibv_wc wc;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));

	common_pong_listen(&s, &args);

	for (unsigned long i = 0; i < clients; i++) {
		uint32_t rounds;
		struct rpma_conn *conn = common_accept_ping(&s, cfg, &rounds);

		common_conn_cqs(conn, &cq, &rcq);
		printf("server: client %lu connected for %u rounds\n", i + 1, rounds);

		for (uint32_t r = 1; r <= rounds; r++) {
			common_wait_one(rcq, IBV_WC_RECV, &wc);
			printf("server: round %u: got %llu on the receive CQ\n", r,
			       (unsigned long long)*(uint64_t *)s.m.recv_buf);

			/* the pong of 08-messages-ping-pong: its send completes on the CQ */
			common_pong(conn, &s, r < rounds);
			common_wait_one(cq, IBV_WC_SEND, NULL);
		}

		common_client_gone(&conn, i);
	}

	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	common_pong_server_end(&s);
	return 0;
}
