/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- route the library's log messages to a function of our own,
 * provoke errors and show what the library logs about them, then serve a
 * client as usual.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdio.h>
#include <stdlib.h>

#include "common-conn.h"
#include "log-function.h"

#define BUF_SIZE 4096

/*
 * expect_error -- check that a call provoked on purpose failed with the
 * expected code, and print the code and rpma_errormsg().
 */
static void
expect_error(int ret, int expected, const char *what)
{
	if (ret != expected)
		common_die("%s returned %d (%s), expected %s", what, ret,
			   ret < 0 ? rpma_err_2str(ret) : "success", rpma_err_2str(expected));
	printf("server: %s failed as expected: %s; rpma_errormsg(): '%s'\n", what,
	       rpma_err_2str(ret), rpma_errormsg());
}

/*
 * main -- install the log function with an error threshold, provoke an
 * invalid registration, accept each client, provoke a wait on a channel
 * that is not shared, and restore the default logging at the end.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *mr;
	enum rpma_log_level level;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);

	COMMON_CHECK(rpma_log_set_function(log_function));
	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR));
	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level));
	printf("server: log threshold is '%s'\n", log_level_name(level));

	char *buf = common_alloc(BUF_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	/* a region of 0 bytes cannot be registered */
	expect_error(rpma_mr_reg(peer, buf, 0, RPMA_MR_USAGE_READ_SRC, &mr), RPMA_E_INVAL,
		     "rpma_mr_reg(size 0)");

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn *conn = common_accept(ep, NULL, NULL, 0);

		/* this connection's CQs have completion channels of their own */
		expect_error(rpma_conn_wait(conn, 0, NULL, NULL), RPMA_E_NOT_SHARED_CHNL,
			     "rpma_conn_wait()");
		common_client_gone(&conn, i);
	}

	COMMON_CHECK(rpma_ep_shutdown(&ep));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	printf("server: %d messages logged\n", log_function_count());

	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	printf("server: done\n");
	return 0;
}
