/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- append a string to the server's log: write the data, make it
 * visible, then publish the new length with an 8-byte atomic write, so that
 * the log never claims bytes that have not arrived.
 *
 * usage: client ADDR PORT [TEXT]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE	4096
#define LOG_DATA_OFFSET 8

/*
 * main -- connect to the server's log (common_region_connect()), write the
 * text after the used counter, flush, write the counter atomically, flush
 * again and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;
	size_t size;

	common_init("client", argc, argv, 1, "[TEXT]", &args);

	/* the log keeps the text without its terminating zero */
	char *text = common_text_arg(&args, 0, BUF_SIZE, &size);
	uint64_t len = size - 1;

	common_region_connect(&c, &args, text, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	if (c.remote_size < LOG_DATA_OFFSET + len)
		common_die("the server's log (%zu bytes) is too small", c.remote_size);

	/* the data first, made visible before the counter says it is there */
	COMMON_CHECK(rpma_write(c.conn, c.remote, LOG_DATA_OFFSET, c.local, 0, len,
				RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(c.conn, c.remote, LOG_DATA_OFFSET, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);

	/* then the counter, in one 8-byte atomic store */
	char used[RPMA_ATOMIC_WRITE_ALIGNMENT];

	memcpy(used, &len, sizeof(used));
	COMMON_CHECK(
	    rpma_atomic_write(c.conn, c.remote, 0, used, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(c.conn, c.remote, 0, sizeof(used), RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);
	printf("client: appended '%s' and set used to %llu\n", text, (unsigned long long)len);

	common_region_disconnect(&c);
	free(text);
	return 0;
}
