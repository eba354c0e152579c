/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a buffer of ordinary (volatile) memory holding a
 * string for clients to read: its descriptor goes to each client in the
 * private data of the acceptance.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define TEXT	 "hello from server"
#define BUF_SIZE 4096

/*
 * main -- register the buffer for remote reads, then for each client accept
 * its connection with the buffer's descriptor and wait until it disconnects.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *mr;
	char desc[COMMON_MR_DESC_SIZE];

	common_init("server", argc, argv, 1, "[CLIENTS]", &args);
	unsigned long clients = common_ulong_arg(&args, 0, 1, 1, 1000);

	char *buf = common_alloc(BUF_SIZE);

	memcpy(buf, TEXT, sizeof(TEXT));

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	COMMON_CHECK(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr));
	common_mr_descriptor(mr, desc);

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);
		struct rpma_conn *conn = common_connect(&req, desc, sizeof(desc));

		printf("server: client %lu connected, exposing '%s'\n", i + 1, buf);
		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	COMMON_CHECK(rpma_ep_shutdown(&ep));
	COMMON_CHECK(rpma_mr_dereg(&mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	printf("server: done\n");
	return 0;
}
