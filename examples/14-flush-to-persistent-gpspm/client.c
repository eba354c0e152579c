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
#include <string.h>

#include "common.h"

#define BUF_SIZE 4096

/* a client's request: persist len bytes at offset */
struct persist_req {
	uint64_t offset;
	uint64_t len;
};

/* the server's answer: the range and 0, or -1 when the range was invalid */
struct persist_resp {
	uint64_t offset;
	uint64_t len;
	int64_t status;
};

/*
 * main -- connect, write the text, ask for it to be persisted, check the
 * answer and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;
	struct rpma_mr_local *src_mr, *req_mr, *resp_mr;
	struct rpma_cq *cq;
	struct ibv_wc wc;
	size_t remote_size;

	common_init("client", argc, argv, 2, "[OFFSET [TEXT]]", &args);
	size_t offset = common_ulong_arg(&args, 0, 0, 0, BUF_SIZE);
	const char *text = common_str_arg(&args, 1, "hello from client");
	size_t len = strlen(text) + 1;

	if (len > BUF_SIZE)
		common_die("the text is longer than %d bytes", BUF_SIZE - 1);

	char *buf = common_alloc(BUF_SIZE);
	struct persist_req *preq = common_alloc(sizeof(*preq));
	struct persist_resp *presp = common_alloc(sizeof(*presp));

	memcpy(buf, text, len);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC, &src_mr));
	COMMON_CHECK(rpma_mr_reg(peer, preq, sizeof(*preq), RPMA_MR_USAGE_SEND, &req_mr));
	COMMON_CHECK(rpma_mr_reg(peer, presp, sizeof(*presp), RPMA_MR_USAGE_RECV, &resp_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	struct rpma_mr_remote *dst_mr = common_remote_mr(pdata.ptr, pdata.len);

	COMMON_CHECK(rpma_mr_remote_get_size(dst_mr, &remote_size));
	if (offset > remote_size || len > remote_size - offset)
		common_die("%zu bytes at offset %zu do not fit the server's region (%zu bytes)",
			   len, offset, remote_size);

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(
	    rpma_write(conn, dst_mr, offset, src_mr, 0, len, RPMA_F_COMPLETION_ON_ERROR, NULL));

	/* the answer needs a buffer before the request goes out */
	COMMON_CHECK(rpma_recv(conn, resp_mr, 0, sizeof(*presp), NULL));
	preq->offset = offset;
	preq->len = len;
	COMMON_CHECK(rpma_send(conn, req_mr, 0, sizeof(*preq), RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_send_recv(cq, &wc);

	if (presp->status != 0 || presp->offset != offset || presp->len != len)
		common_die("the server did not persist the range (status %lld)",
			   (long long)presp->status);
	printf("client: wrote '%s', the server persisted %zu bytes at offset %zu\n", text, len,
	       offset);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_remote_delete(&dst_mr));
	COMMON_CHECK(rpma_mr_dereg(&resp_mr));
	COMMON_CHECK(rpma_mr_dereg(&req_mr));
	COMMON_CHECK(rpma_mr_dereg(&src_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(presp);
	free(preq);
	free(buf);
	return 0;
}
