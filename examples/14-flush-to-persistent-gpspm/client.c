/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the client side of the general-purpose server persistency
 * method (GPSPM): write a string into the server's persistent memory, then
 * send a message asking the server to persist that range and wait for its
 * answer. RC ordering delivers the message only after the write.
 *
 * usage: client ADDR PORT [OFFSET [TEXT]]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common-cq.h"
#include "common-region.h"
#include "gpspm.h"

#define BUF_SIZE 4096

/*
 * main -- connect, write the text, ask for it to be persisted, check the
 * answer and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;
	struct rpma_mr_local *req_mr, *resp_mr;
	struct ibv_wc wc;
	size_t len;

	common_init("client", argc, argv, 2, "[OFFSET [TEXT]]", &args);
	size_t offset = common_ulong_arg(&args, 0, 0, 0, BUF_SIZE);
	char *text = common_text_arg(&args, 1, BUF_SIZE, &len);
	struct persist_req *preq = common_alloc(sizeof(*preq));
	struct persist_resp *presp = common_alloc(sizeof(*presp));

	common_region_connect(&c, &args, text, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	COMMON_CHECK(rpma_mr_reg(c.peer, preq, sizeof(*preq), RPMA_MR_USAGE_SEND, &req_mr));
	COMMON_CHECK(rpma_mr_reg(c.peer, presp, sizeof(*presp), RPMA_MR_USAGE_RECV, &resp_mr));
	if (offset > c.remote_size || len > c.remote_size - offset)
		common_die("%zu bytes at offset %zu do not fit the server's region (%zu bytes)",
			   len, offset, c.remote_size);

	COMMON_CHECK(rpma_write(c.conn, c.remote, offset, c.local, 0, len,
				RPMA_F_COMPLETION_ON_ERROR, NULL));

	/* the answer needs a buffer before the request goes out */
	COMMON_CHECK(rpma_recv(c.conn, resp_mr, 0, sizeof(*presp), NULL));
	preq->offset = offset;
	preq->len = len;
	COMMON_CHECK(rpma_send(c.conn, req_mr, 0, sizeof(*preq), RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_send_recv(c.cq, &wc);

	if (presp->status != 0 || presp->offset != offset || presp->len != len)
		common_die("the server did not persist the range (status %lld)",
			   (long long)presp->status);
	printf("client: wrote '%s', the server persisted %zu bytes at offset %zu\n", text, len,
	       offset);

	COMMON_CHECK(rpma_mr_dereg(&resp_mr));
	COMMON_CHECK(rpma_mr_dereg(&req_mr));
	common_region_disconnect(&c);
	free(presp);
	free(preq);
	free(text);
	return 0;
}
