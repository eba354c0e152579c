/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- read a string from the server's memory straight into a local
 * file mapped with libpmem2, then make it persistent there.
 *
 * usage: client ADDR PORT [PATH]
 *
 * Without PATH a temporary file in /tmp is used and removed at exit.
 */

#include <stdio.h>
#include <string.h>

#include "common-cq.h"
#include "common-pmem.h"
#include "common-region.h"

#define MAP_SIZE 4096

/*
 * main -- map the file (it starts as an empty, persistent string), register
 * it as the destination of reads, connect, read the server's region into
 * it, persist the bytes read and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pmem pm;
	struct common_region_client c;

	common_init("client", argc, argv, 1, "[PATH]", &args);
	common_pmem_map(&pm, common_str_arg(&args, 0, NULL), MAP_SIZE);
	common_region_connect(&c, &args, pm.addr, MAP_SIZE, RPMA_MR_USAGE_READ_DST);

	size_t len = c.remote_size < MAP_SIZE ? c.remote_size : MAP_SIZE;

	COMMON_CHECK(
	    rpma_read(c.conn, c.local, 0, c.remote, 0, len, RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);

	/* the read placed the bytes in the mapping; now make them persistent */
	pm.persist(pm.addr, len);

	char *text = pm.addr;

	printf("client: read '%.*s' into persistent memory\n", (int)strnlen(text, len), text);

	common_region_disconnect(&c);
	common_pmem_unmap(&pm);
	return 0;
}
