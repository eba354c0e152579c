/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- show how the log threshold decides what reaches a custom log
 * function: provoke the same error with logging disabled, with the error
 * threshold and with the debug threshold, then connect to the server with
 * everything logged.
 *
 * usage: client ADDR PORT
 */

#include <stdio.h>

#include "common-conn.h"
#include "log-function.h"

/*
 * provoke -- set the threshold, make a call that must fail (a negative
 * timeout) and report how many messages the failure logged.
 */
static void
provoke(struct rpma_conn_cfg *cfg, enum rpma_log_level threshold)
{
	enum rpma_log_level got;

	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, threshold));
	COMMON_CHECK(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &got));
	if (got != threshold)
		common_die("the threshold reads back as %d, not %d", (int)got, (int)threshold);

	int before = log_function_count();
	int ret = rpma_conn_cfg_set_timeout(cfg, -1);

	if (ret != RPMA_E_INVAL)
		common_die("rpma_conn_cfg_set_timeout(-1) returned %d, expected RPMA_E_INVAL", ret);

	int logged = log_function_count() - before;

	printf("client: threshold '%s': the invalid timeout logged %d message%s\n",
	       log_level_name(threshold), logged, logged == 1 ? "" : "s");
}

/*
 * main -- install the log function, provoke the error under three
 * thresholds, connect and disconnect with everything logged, and restore
 * the default logging.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_conn_cfg *cfg;

	common_init("client", argc, argv, 0, NULL, &args);

	COMMON_CHECK(rpma_log_set_function(log_function));
	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_conn_cfg_new(&cfg));

	provoke(cfg, RPMA_LOG_DISABLED);
	/* the text of the failure is kept even when nothing is logged */
	printf("client: rpma_errormsg(): '%s'\n", rpma_errormsg());
	provoke(cfg, RPMA_LOG_LEVEL_ERROR);
	provoke(cfg, RPMA_LOG_LEVEL_DEBUG);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);
	struct rpma_conn *conn = common_client_connect(peer, &args, cfg, NULL, 0);

	printf("client: connected with threshold 'debug'\n");
	common_disconnect(&conn);
	COMMON_CHECK(rpma_peer_delete(&peer));
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	printf("client: %d messages logged in all\n", log_function_count());

	COMMON_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED));
	COMMON_CHECK(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	printf("client: done\n");
	return 0;
}
