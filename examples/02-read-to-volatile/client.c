/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- read a string from the server's memory into a local buffer
 * of ordinary (volatile) memory with one RDMA read.
 *
 * usage: client ADDR PORT
 */

#include <stdio.h>
#include <stdlib.h>

#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE 4096

/*
 * main -- register a local buffer as the destination of reads, connect and
 * rebuild the server's region from the private data (common_region_connect()),
 * read the region into the buffer, print what arrived and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;

	common_init("client", argc, argv, 0, NULL, &args);

	char *buf = common_alloc(BUF_SIZE);

	common_region_connect(&c, &args, buf, BUF_SIZE, RPMA_MR_USAGE_READ_DST);

	size_t len = c.remote_size < BUF_SIZE ? c.remote_size : BUF_SIZE;

	COMMON_CHECK(
	    rpma_read(c.conn, c.local, 0, c.remote, 0, len, RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);

	buf[BUF_SIZE - 1] = '\0';
	printf("client: read '%s'\n", buf);

	common_region_disconnect(&c);
	free(buf);
	return 0;
}
