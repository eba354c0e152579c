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
#include <string.h>

#include "common.h"

#define BUF_SIZE 4096

/*
 * main -- connect, write the text (with its terminating zero) at the start
 * of the server's region, flush it and wait for the flush, disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *src_mr;
	struct rpma_cq *cq;
	size_t remote_size;

	common_init("client", argc, argv, 1, "[TEXT]", &args);
	const char *text = common_str_arg(&args, 0, "hello from client");
	size_t len = strlen(text) + 1;

	if (len > BUF_SIZE)
		common_die("the text is longer than %d bytes", BUF_SIZE - 1);

	char *buf = common_alloc(BUF_SIZE);

	memcpy(buf, text, len);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	struct rpma_mr_remote *dst_mr = common_remote_mr(pdata.ptr, pdata.len);

	COMMON_CHECK(rpma_mr_remote_get_size(dst_mr, &remote_size));
	if (remote_size < len)
		common_die("the server's region (%zu bytes) is too small", remote_size);

	/* the write completes silently; the flush after it reports both */
	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_write(conn, dst_mr, 0, src_mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(conn, dst_mr, 0, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);
	printf("client: wrote '%s'\n", text);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&dst_mr));
	COMMON_CHECK(rpma_mr_dereg(&src_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
