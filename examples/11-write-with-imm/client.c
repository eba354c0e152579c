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
#include <string.h>

#include "common.h"

#define BUF_SIZE 4096

/*
 * main -- connect, write the text with rpma_write_with_imm(), wait for the
 * write to complete and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *src_mr;
	struct rpma_cq *cq;
	size_t remote_size;

	common_init("client", argc, argv, 2, "[IMM [TEXT]]", &args);
	uint32_t imm = (uint32_t)common_ulong_arg(&args, 0, 5678, 0, UINT32_MAX);
	const char *text = common_str_arg(&args, 1, "hello from client");
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
		common_die("the server's buffer (%zu bytes) is too small", remote_size);

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_write_with_imm(conn, dst_mr, 0, src_mr, 0, len, RPMA_F_COMPLETION_ALWAYS,
					 imm, NULL));
	common_wait_one(cq, IBV_WC_RDMA_WRITE, NULL);
	printf("client: wrote '%s' with imm %u\n", text, imm);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&dst_mr));
	COMMON_CHECK(rpma_mr_dereg(&src_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
