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
#include <string.h>

#include "common.h"

#define BUF_SIZE 4096

/*
 * main -- connect, rebuild the server's region from the private data, read
 * it into a registered local buffer, print what arrived and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *dst_mr;
	struct rpma_cq *cq;
	size_t remote_size;

	common_init("client", argc, argv, 0, NULL, &args);

	char *buf = common_alloc(BUF_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_DST, &dst_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	struct rpma_mr_remote *src_mr = common_remote_mr(pdata.ptr, pdata.len);

	COMMON_CHECK(rpma_mr_remote_get_size(src_mr, &remote_size));
	size_t len = remote_size < BUF_SIZE ? remote_size : BUF_SIZE;

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_read(conn, dst_mr, 0, src_mr, 0, len, RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);

	buf[BUF_SIZE - 1] = '\0';
	printf("client: read '%s'\n", buf);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&src_mr));
	COMMON_CHECK(rpma_mr_dereg(&dst_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
