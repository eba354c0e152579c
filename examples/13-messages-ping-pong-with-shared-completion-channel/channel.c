/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * channel.c -- the completion channel both sides of this example share
 * between a connection's CQ and its receive CQ
 * (rpma_conn_cfg_set_compl_channel()): one descriptor,
 * rpma_conn_get_compl_fd(), and one wait, rpma_conn_wait(), serve both.
 */

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "channel.h"
#include "common.h"

#define RCQ_SIZE 4

/*
 * channel_cfg_new -- a connection configuration with a receive CQ of
 * RCQ_SIZE entries whose completion channel is shared with the CQ.
 */
struct rpma_conn_cfg *
channel_cfg_new(void)
{
	struct rpma_conn_cfg *cfg;
	bool shared;

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_set_compl_channel(cfg, true));
	COMMON_CHECK(rpma_conn_cfg_get_compl_channel(cfg, &shared));
	if (!shared)
		common_die("the configuration does not ask for a shared completion channel");
	return cfg;
}

/*
 * channel_wait -- wait until the shared channel reports a completion on
 * either CQ: poll its descriptor, then take the event with rpma_conn_wait().
 * Returns the CQ the event names; *is_rcq says whether it is the receive CQ.
 */
struct rpma_cq *
channel_wait(struct rpma_conn *conn, bool *is_rcq)
{
	struct pollfd pfd = {.events = POLLIN};
	struct rpma_cq *woken;

	COMMON_CHECK(rpma_conn_get_compl_fd(conn, &pfd.fd));
	if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
		common_die("poll() failed: %s", strerror(errno));
	COMMON_CHECK(rpma_conn_wait(conn, 0, &woken, is_rcq));
	return woken;
}
