/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- route the library's log messages to a function of our own,
 * provoke errors and show what the library logs about them, then serve a
 * client as usual.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define BUF_SIZE 4096

/* how many messages reached log_function(); updated atomically */
static int Logged;

/*
 * level_name -- a short name of a log level.
 */
static const char *
level_name(enum rpma_log_level level)
{
	switch (level) {
	case RPMA_LOG_LEVEL_FATAL:
		return "fatal";
	case RPMA_LOG_LEVEL_ERROR:
		return "error";
	case RPMA_LOG_LEVEL_WARNING:
		return "warning";
	case RPMA_LOG_LEVEL_NOTICE:
		return "notice";
	case RPMA_LOG_LEVEL_INFO:
		return "info";
	case RPMA_LOG_LEVEL_DEBUG:
		return "debug";
	default:
		return "?";
	}
}

/*
 * log_function -- print a library message on standard output with its
 * level and origin. One printf() per message keeps it thread-safe, as the
 * library requires.
 */
static void
log_function(enum rpma_log_level level, const char *file_name, const int line_no,
	     const char *function_name, const char *message_format, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, message_format);
	vsnprintf(msg, sizeof(msg), message_format, ap);
	va_end(ap);

	__atomic_add_fetch(&Logged, 1, __ATOMIC_RELAXED);
	printf("server: log: [%s] %s() at %s:%d: %s\n", level_name(level), function_name, file_name,
	       line_no, msg);
}

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

	common_init("server", argc, argv, 1, "[CLIENTS]", &args);
	unsigned long clients = common_ulong_arg(&args, 0, 1, 1, 1000);

	COMMON_CHECK(rpma_log_set_function(log_function));
	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR));
	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level));
	printf("server: log threshold is '%s'\n", level_name(level));

	char *buf = common_alloc(BUF_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	/* a region of 0 bytes cannot be registered */
	expect_error(rpma_mr_reg(peer, buf, 0, RPMA_MR_USAGE_READ_SRC, &mr), RPMA_E_INVAL,
		     "rpma_mr_reg(size 0)");

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);
		struct rpma_conn *conn = common_connect(&req, NULL, 0);

		/* this connection's CQs have completion channels of their own */
		expect_error(rpma_conn_wait(conn, 0, NULL, NULL), RPMA_E_NOT_SHARED_CHNL,
			     "rpma_conn_wait()");
		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	COMMON_CHECK(rpma_ep_shutdown(&ep));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(buf);
	printf("server: %d messages logged\n", __atomic_load_n(&Logged, __ATOMIC_RELAXED));

	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	printf("server: done\n");
	return 0;
}
