/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- write a string into the server's persistent memory and flush
 * it with RPMA_FLUSH_TYPE_PERSISTENT, which the server allows by declaring
 * direct write to PMem in the peer configuration it sent.
 *
 * usage: client ADDR PORT [TEXT]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BUF_SIZE 4096

/*
 * apply_peer_cfg -- rebuild the server's peer configuration from its
 * descriptor and apply it to the connection.
 */
static void
apply_peer_cfg(struct rpma_conn *conn, const void *desc)
{
	struct rpma_peer_cfg *pcfg;
	bool direct;

	COMMON_CHECK(rpma_peer_cfg_from_descriptor(desc, COMMON_PCFG_DESC_SIZE, &pcfg));
	COMMON_CHECK(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct));
	printf("client: the server %s direct write to PMem\n",
	       direct ? "supports" : "does not support");
	COMMON_CHECK(rpma_conn_apply_remote_peer_cfg(conn, pcfg));
	COMMON_CHECK(rpma_peer_cfg_delete(&pcfg));
}

/*
 * main -- connect, apply the server's peer configuration, write the text,
 * flush it to persistence, wait for the flush and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *src_mr;
	struct rpma_cq *cq;
	size_t remote_size;
	int flush_type;

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
	if (pdata.len < COMMON_MR_DESC_SIZE + COMMON_PCFG_DESC_SIZE)
		common_die("the private data is too short: %u bytes", (unsigned)pdata.len);

	struct rpma_mr_remote *dst_mr = common_remote_mr(pdata.ptr, pdata.len);

	apply_peer_cfg(conn, (char *)pdata.ptr + COMMON_MR_DESC_SIZE);

	COMMON_CHECK(rpma_mr_remote_get_size(dst_mr, &remote_size));
	COMMON_CHECK(rpma_mr_remote_get_flush_type(dst_mr, &flush_type));
	if (remote_size < len)
		common_die("the server's region (%zu bytes) is too small", remote_size);
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		common_die("the server's region does not support persistent flush");

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_write(conn, dst_mr, 0, src_mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(conn, dst_mr, 0, len, RPMA_FLUSH_TYPE_PERSISTENT,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);
	printf("client: wrote '%s' and flushed it to persistence\n", text);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&dst_mr));
	COMMON_CHECK(rpma_mr_dereg(&src_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
