/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- write a string into the server's buffer with an RDMA write
 * with immediate data, which also notifies the server.
 *
 * usage: client ADDR PORT [IMM [TEXT]]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE 4096

/*
 * main -- connect to the server's buffer (common_region_connect()), write
 * the text with rpma_write_with_imm(), wait for the write to complete and
 * disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;
	uint32_t imm;
	size_t len;

	common_init("client", argc, argv, 2, "[IMM [TEXT]]", &args);
	imm = (uint32_t)common_ulong_arg(&args, 0, 5678, 0, UINT32_MAX);
	char *text = common_text_arg(&args, 1, BUF_SIZE, &len);

	common_region_connect(&c, &args, text, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	if (c.remote_size < len)
		common_die("the server's buffer (%zu bytes) is too small", c.remote_size);

	COMMON_CHECK(rpma_write_with_imm(c.conn, c.remote, 0, c.local, 0, len,
					 RPMA_F_COMPLETION_ALWAYS, imm, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_WRITE, NULL);
	printf("client: wrote '%s' with imm %u\n", text, imm);

	common_region_disconnect(&c);
	free(text);
	return 0;
}
