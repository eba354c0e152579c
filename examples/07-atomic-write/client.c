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

#include "common.h"

#define BUF_SIZE	4096
#define LOG_DATA_OFFSET 8

/*
 * main -- connect, write the text after the used counter, flush, write the
 * counter atomically, flush again and disconnect.
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
	uint64_t len = strlen(text);

	if (len > BUF_SIZE)
		common_die("the text is longer than %d bytes", BUF_SIZE);

	char *buf = common_alloc(BUF_SIZE);

	memcpy(buf, text, len);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	struct rpma_mr_remote *log_mr = common_remote_mr(pdata.ptr, pdata.len);

	COMMON_CHECK(rpma_mr_remote_get_size(log_mr, &remote_size));
	if (remote_size < LOG_DATA_OFFSET + len)
		common_die("the server's log (%zu bytes) is too small", remote_size);
	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));

	/* the data first, made visible before the counter says it is there */
	COMMON_CHECK(rpma_write(conn, log_mr, LOG_DATA_OFFSET, src_mr, 0, len,
				RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(conn, log_mr, LOG_DATA_OFFSET, len, RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);

	/* then the counter, in one 8-byte atomic store */
	char used[RPMA_ATOMIC_WRITE_ALIGNMENT];

	memcpy(used, &len, sizeof(used));
	COMMON_CHECK(rpma_atomic_write(conn, log_mr, 0, used, RPMA_F_COMPLETION_ON_ERROR, NULL));
	COMMON_CHECK(rpma_flush(conn, log_mr, 0, sizeof(used), RPMA_FLUSH_TYPE_VISIBILITY,
				RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_one(cq, IBV_WC_RDMA_READ, NULL);
	printf("client: appended '%s' and set used to %llu\n", text, (unsigned long long)len);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&log_mr));
	COMMON_CHECK(rpma_mr_dereg(&src_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
