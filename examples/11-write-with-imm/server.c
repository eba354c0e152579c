/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a buffer for a client's RDMA write with immediate data:
 * the write consumes an empty receive, so the server learns that the data
 * has arrived (and gets the immediate value) without polling the memory.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE 4096

/*
 * main -- register the buffer for writes, then for each client post an
 * empty receive, accept with the buffer's descriptor, wait for the write's
 * notification and print what was written.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_cq *cq;
	struct ibv_wc wc;
	char desc[COMMON_MR_DESC_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	char *buf = common_alloc(BUF_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_mr_local *mr =
	    common_region_expose(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST, desc);
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);

		memset(buf, 0, BUF_SIZE);
		/* an empty receive: the write brings the data, the receive the news */
		COMMON_CHECK(rpma_conn_req_recv(req, NULL, 0, 0, NULL));
		struct rpma_conn *conn = common_connect(&req, desc, sizeof(desc));

		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		common_wait_one(cq, IBV_WC_RECV_RDMA_WITH_IMM, &wc);
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			common_die("the write came without immediate data");

		printf("server: got '%.*s' with imm %u\n", (int)strnlen(buf, BUF_SIZE), buf,
		       ntohl(wc.imm_data));

		common_wait_closed(&conn);
	}

	COMMON_CHECK(rpma_mr_dereg(&mr));
	free(buf);
	common_server_end(&ep, &peer);
	return 0;
}
