/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- send one message that also carries a 32-bit immediate value.
 *
 * usage: client ADDR PORT [IMM [TEXT]]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MSG_SIZE 64

/*
 * main -- connect, send the text with rpma_send_with_imm(), wait for the
 * send to complete and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *send_mr;
	struct rpma_cq *cq;

	common_init("client", argc, argv, 2, "[IMM [TEXT]]", &args);
	uint32_t imm = (uint32_t)common_ulong_arg(&args, 0, 1234, 0, UINT32_MAX);
	const char *text = common_str_arg(&args, 1, "hello from client");
	size_t len = strlen(text) + 1;

	if (len > MSG_SIZE)
		common_die("the text is longer than %d bytes", MSG_SIZE - 1);

	char *buf = common_alloc(MSG_SIZE);

	memcpy(buf, text, len);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));

	struct rpma_conn_req *req = common_req_new(peer, &args, NULL);
	struct rpma_conn *conn = common_connect(&req, NULL, 0);

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(
	    rpma_send_with_imm(conn, send_mr, 0, len, RPMA_F_COMPLETION_ALWAYS, imm, NULL));
	common_wait_one(cq, IBV_WC_SEND, NULL);
	printf("client: sent '%s' with imm %u\n", text, imm);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	return 0;
}
