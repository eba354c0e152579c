/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a file mapped with libpmem2 for clients to write into;
 * when a client has disconnected, make what it wrote persistent and print it.
 *
 * usage: server ADDR PORT [CLIENTS [PATH]]
 *
 * Without PATH a temporary file in /tmp is used and removed at exit.
 */

#include <stdio.h>
#include <string.h>

#include "common-conn.h"
#include "common-pmem.h"
#include "common-region.h"

#define MAP_SIZE 4096

/*
 * main -- map the file, register it for remote writes and visibility
 * flushes, then for each client accept it with the region's descriptor,
 * wait until it disconnects and persist the string it left.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pmem pm;
	char desc[COMMON_MR_DESC_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, "[PATH]", &args);

	common_pmem_map(&pm, common_str_arg(&args, 1, NULL), MAP_SIZE);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_mr_local *mr = common_region_expose(
	    peer, pm.addr, MAP_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	    desc);
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn *conn = common_accept_client(ep, i, desc, sizeof(desc));

		common_wait_closed(&conn);

		/* the client's writes are in the mapping: make them persistent */
		pm.persist(pm.addr, MAP_SIZE);
		char *text = pm.addr;

		printf("server: got '%.*s' and persisted it\n", (int)strnlen(text, MAP_SIZE), text);
	}

	COMMON_CHECK(rpma_mr_dereg(&mr));
	common_pmem_unmap(&pm);
	common_server_end(&ep, &peer);
	return 0;
}
