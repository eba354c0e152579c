/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- accept connections and exchange private data with each
 * client: print what the client sent, answer with a greeting of our own.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdio.h>
#include <string.h>

#include "common-conn.h"

#define GREETING "hello from server"

/*
 * print_private_data -- print the private data of a request as a string;
 * it is not trusted to be terminated.
 */
static void
print_private_data(const struct rpma_conn_private_data *pdata)
{
	if (pdata->ptr == NULL || pdata->len == 0) {
		printf("server: got no private data\n");
		return;
	}
	printf("server: got private data '%.*s'\n", (int)strnlen(pdata->ptr, pdata->len),
	       (const char *)pdata->ptr);
}

/*
 * main -- listen, then for each expected client: take its request, print
 * its private data, accept with ours and wait for it to disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);
		struct rpma_conn_private_data pdata;

		COMMON_CHECK(rpma_conn_req_get_private_data(req, &pdata));
		print_private_data(&pdata);

		struct rpma_conn *conn = common_connect(&req, GREETING, sizeof(GREETING));

		printf("server: connection %lu established\n", i + 1);
		common_wait_closed(&conn);
		printf("server: connection %lu closed\n", i + 1);
	}

	common_server_end(&ep, &peer);
	return 0;
}
