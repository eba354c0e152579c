/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- receive one message sent with immediate data and print both
 * the message and the 32-bit immediate value.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"

#define MSG_SIZE 64

/*
 * main -- for each client: post a receive before accepting, wait for the
 * message, check that it carries immediate data, print it, wait for the
 * client to disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr;
	struct rpma_cq *cq;
	struct ibv_wc wc;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	char *buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	COMMON_CHECK(rpma_mr_reg(peer, buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);

		memset(buf, 0, MSG_SIZE);
		COMMON_CHECK(rpma_conn_req_recv(req, recv_mr, 0, MSG_SIZE, NULL));
		struct rpma_conn *conn = common_connect(&req, NULL, 0);

		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		common_wait_one(cq, IBV_WC_RECV, &wc);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			common_die("the message came without immediate data");

		/* the immediate data travels in network byte order */
		printf("server: got '%.*s' with imm %u\n", (int)strnlen(buf, wc.byte_len), buf,
		       ntohl(wc.imm_data));

		common_wait_closed(&conn);
	}

	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	free(buf);
	common_server_end(&ep, &peer);
	return 0;
}
