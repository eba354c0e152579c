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

#include "common-conn.h"
#include "common-cq.h"

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
	size_t len;

	common_init("client", argc, argv, 2, "[IMM [TEXT]]", &args);
	uint32_t imm = (uint32_t)common_ulong_arg(&args, 0, 1234, 0, UINT32_MAX);
	char *text = common_text_arg(&args, 1, MSG_SIZE, &len);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, text, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));

	struct rpma_conn *conn = common_client_connect(peer, &args, NULL, NULL, 0);

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(
	    rpma_send_with_imm(conn, send_mr, 0, len, RPMA_F_COMPLETION_ALWAYS, imm, NULL));
	common_wait_one(cq, IBV_WC_SEND, NULL);
	printf("client: sent '%s' with imm %u\n", text, imm);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(text);
	return 0;
}
