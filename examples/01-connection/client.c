/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- connect to the server with a greeting in the private data,
 * print the server's answer that came back with the acceptance, disconnect.
 *
 * usage: client ADDR PORT [GREETING]
 */

#include <stdio.h>
#include <string.h>

#include "common-conn.h"

/* the longest private data a client may send */
#define CLIENT_PDATA_MAX 56

/*
 * main -- connect with the greeting, print the server's private data and
 * disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_private_data pdata;

	common_init("client", argc, argv, 1, "[GREETING]", &args);
	const char *greeting = common_str_arg(&args, 0, "hello from client");

	if (strlen(greeting) + 1 > CLIENT_PDATA_MAX)
		common_die("the greeting is longer than %d bytes", CLIENT_PDATA_MAX - 1);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);
	struct rpma_conn *conn =
	    common_client_connect(peer, &args, NULL, greeting, strlen(greeting) + 1);

	printf("client: connection established\n");
	COMMON_CHECK(rpma_conn_get_private_data(conn, &pdata));
	if (pdata.ptr == NULL || pdata.len == 0)
		common_die("the server sent no private data");
	printf("client: got private data '%.*s'\n", (int)strnlen(pdata.ptr, pdata.len),
	       (const char *)pdata.ptr);

	common_disconnect(&conn);
	printf("client: connection closed\n");
	COMMON_CHECK(rpma_peer_delete(&peer));
	return 0;
}
