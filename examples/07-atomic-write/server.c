/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a small log for a client to append to: an 8-byte
 * "used" counter at offset 0, which the client updates with an atomic
 * write, followed by the data it appends.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-region.h"

#define LOG_SIZE	4096
#define LOG_DATA_OFFSET 8

/*
 * main -- register the log, then for each client accept it with the log's
 * descriptor, wait until it disconnects and print what the log holds.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	char desc[COMMON_MR_DESC_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	char *log = common_alloc(LOG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_mr_local *mr = common_region_expose(
	    peer, log, LOG_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	    desc);
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn *conn = common_accept_client(ep, i, desc, sizeof(desc));

		common_wait_closed(&conn);

		uint64_t used;

		memcpy(&used, log, sizeof(used));
		if (used > LOG_SIZE - LOG_DATA_OFFSET)
			common_die("the log's used counter is corrupted: %llu",
				   (unsigned long long)used);
		printf("server: log used %llu bytes: '%.*s'\n", (unsigned long long)used, (int)used,
		       log + LOG_DATA_OFFSET);
	}

	COMMON_CHECK(rpma_mr_dereg(&mr));
	free(log);
	common_server_end(&ep, &peer);
	return 0;
}
