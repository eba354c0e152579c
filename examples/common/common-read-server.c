/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-read-server.c -- the server of 02-read-to-volatile and
 * 03-read-to-persistent: expose a buffer of ordinary (volatile) memory
 * holding a string for clients to read, whether into volatile or into
 * persistent memory; its descriptor goes to each client in the private
 * data of the acceptance.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-read-server.h"
#include "common-region.h"

#define TEXT	 "hello from server"
#define BUF_SIZE 4096

/*
 * common_read_server_main -- the whole server, usage: server ADDR PORT
 * [CLIENTS]: register the buffer for remote reads, then for each client
 * accept its connection with the buffer's descriptor and wait until it
 * disconnects. Returns the program's exit code.
 */
int
common_read_server_main(int argc, char *argv[])
{
	struct common_args args;
	char desc[COMMON_MR_DESC_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	char *buf = common_alloc(BUF_SIZE);

	memcpy(buf, TEXT, sizeof(TEXT));

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_mr_local *mr =
	    common_region_expose(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, desc);
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn *conn = common_accept(ep, NULL, desc, sizeof(desc));

		printf("server: client %lu connected, exposing '%s'\n", i + 1, buf);
		common_client_gone(&conn, i);
	}

	COMMON_CHECK(rpma_mr_dereg(&mr));
	free(buf);
	common_server_end(&ep, &peer);
	return 0;
}
