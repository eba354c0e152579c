/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- write a string into the server's persistent memory and make
 * sure it has arrived there with a visibility flush.
 *
 * usage: client ADDR PORT [TEXT]
 */

#include <stdio.h>
#include <stdlib.h>

#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE 4096

/*
 * main -- connect to the server's region (common_region_connect()), write
 * the text (with its terminating zero) at its start, flush it and wait for
 * the flush, disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;
	size_t len;

	common_init("client", argc, argv, 1, "[TEXT]", &args);
	char *text = common_text_arg(&args, 0, BUF_SIZE, &len);

	common_region_connect(&c, &args, text, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	if (c.remote_size < len)
		common_die("the server's region (%zu bytes) is too small", c.remote_size);

	/* the write completes silently; the flush after it reports both */
	COMMON_CHECK(
	    rpma_write(c.conn, c.remote, 0, c.local, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(c.conn, c.remote, 0, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);
	printf("client: wrote '%s'\n", text);

	common_region_disconnect(&c);
	free(text);
	return 0;
}
