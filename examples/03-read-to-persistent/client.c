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

#include "common.h"

#define MAP_SIZE 4096

/*
 * main -- map the file, register it as the destination of reads, connect,
 * read the server's region into it, persist the bytes read and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pmem pm;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *dst_mr;
	struct rpma_cq *cq;
	size_t remote_size;

	common_init("client", argc, argv, 1, "[PATH]", &args);
	common_pmem_map(&pm, common_str_arg(&args, 0, NULL), MAP_SIZE);

	/* start from an empty, persistent string */
	memset(pm.addr, 0, MAP_SIZE);
	pm.persist(pm.addr, MAP_SIZE);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, pm.addr, MAP_SIZE, RPMA_MR_USAGE_READ_DST, &dst_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	struct rpma_mr_remote *src_mr = common_remote_mr(pdata.ptr, pdata.len);

	COMMON_CHECK(rpma_mr_remote_get_size(src_mr, &remote_size));
	size_t len = remote_size < MAP_SIZE ? remote_size : MAP_SIZE;

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_read(conn, dst_mr, 0, src_mr, 0, len, RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);

	/* the read placed the bytes in the mapping; now make them persistent */
	pm.persist(pm.addr, len);

	char *text = pm.addr;

	printf("client: read '%.*s' into persistent memory\n", (int)strnlen(text, len), text);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&src_mr));
	COMMON_CHECK(rpma_mr_dereg(&dst_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	common_pmem_unmap(&pm);
	return 0;
}
