/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- one of several clients of the epoll-based server: introduce
 * itself by name in the private data, send a greeting, print the welcome
 * it gets back and disconnect.
 *
 * usage: client ADDR PORT [NAME]
 */

#include <stdio.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define MSG_SIZE     64
#define NAME_MAX_LEN 40

/*
 * main -- connect with the name, exchange a greeting and a welcome,
 * disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_msgs m;
	struct rpma_cq *cq;
	struct ibv_wc wc;

	common_init("client", argc, argv, 1, "[NAME]", &args);
	const char *name = common_str_arg(&args, 0, "client");

	if (strlen(name) > NAME_MAX_LEN)
		common_die("the name is longer than %d characters", NAME_MAX_LEN);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	common_msgs_new(peer, MSG_SIZE, &m);

	char *recv_buf = m.recv_buf, *send_buf = m.send_buf;
	struct rpma_conn *conn = common_client_connect(peer, &args, NULL, name, strlen(name) + 1);

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_recv(conn, m.recv_mr, 0, MSG_SIZE, NULL));
	snprintf(send_buf, MSG_SIZE, "hello from %s", name);
	COMMON_CHECK(
	    rpma_send(conn, m.send_mr, 0, strlen(send_buf) + 1, RPMA_F_COMPLETION_ALWAYS, NULL));
	common_wait_send_recv(cq, &wc);
	printf("client: got '%.*s'\n", (int)strnlen(recv_buf, wc.byte_len), recv_buf);

	common_disconnect(&conn);
	common_msgs_delete(&m);
	COMMON_CHECK(rpma_peer_delete(&peer));
	return 0;
}
