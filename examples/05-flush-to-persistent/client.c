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

#include "common-cq.h"
#include "common-region.h"

#define BUF_SIZE 4096

/*
 * apply_peer_cfg -- rebuild the server's peer configuration from its
 * descriptor, which follows the region's in the private data, and apply it
 * to the connection.
 */
static void
apply_peer_cfg(struct rpma_conn *conn)
{
	struct rpma_conn_private_data pdata;
	struct rpma_peer_cfg *pcfg;
	bool direct;

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	if (pdata.len < COMMON_MR_DESC_SIZE + COMMON_PCFG_DESC_SIZE)
		common_die("the private data is too short: %u bytes", (unsigned)pdata.len);

	const char *desc = (const char *)pdata.ptr + COMMON_MR_DESC_SIZE;

	COMMON_CHECK(rpma_peer_cfg_from_descriptor(desc, COMMON_PCFG_DESC_SIZE, &pcfg));
	COMMON_CHECK(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct));
	printf("client: the server %s direct write to PMem\n",
	       direct ? "supports" : "does not support");
	COMMON_CHECK(rpma_conn_apply_remote_peer_cfg(conn, pcfg));
	COMMON_CHECK(rpma_peer_cfg_delete(&pcfg));
}

/*
 * main -- connect to the server's region (common_region_connect()), apply
 * the server's peer configuration, write the text, flush it to persistence,
 * wait for the flush and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_region_client c;
	int flush_type;
	size_t len;

	common_init("client", argc, argv, 1, "[TEXT]", &args);
	char *text = common_text_arg(&args, 0, BUF_SIZE, &len);

	common_region_connect(&c, &args, text, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	apply_peer_cfg(c.conn);

	COMMON_CHECK(rpma_mr_remote_get_flush_type(c.remote, &flush_type));
	if (c.remote_size < len)
		common_die("the server's region (%zu bytes) is too small", c.remote_size);
	if (!(flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		common_die("the server's region does not support persistent flush");

	COMMON_CHECK(
	    rpma_write(c.conn, c.remote, 0, c.local, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(c.conn, c.remote, 0, len, RPMA_FLUSH_TYPE_PERSISTENT,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(c.cq, IBV_WC_RDMA_READ, NULL);
	printf("client: wrote '%s' and flushed it to persistence\n", text);

	common_region_disconnect(&c);
	free(text);
	return 0;
}
