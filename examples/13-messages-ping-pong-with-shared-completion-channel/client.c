/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a ping-pong on a connection whose CQ and
 * receive CQ share one completion channel (rpma_conn_cfg_set_compl_channel()):
 * the client waits on that one channel with rpma_conn_wait(), which says
 * which of the two CQs has something. The rest of the game is that of
 * 08-messages-ping-pong (common_ping_main() in common/common-messages.c).
 *
 * usage: client ADDR PORT [ROUNDS]
 */

#include <stdio.h>

#include "channel.h"
#include "common-messages.h"

/*
 * wait_both -- wait for the completion of the ping (on the CQ) and of the
 * pong (on the receive CQ), in any order: poll both, and while something is
 * missing wait on the shared channel, whose event names the CQ to look at.
 */
static void
wait_both(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq)
{
	bool got_send = false, got_recv = false;
	struct ibv_wc wc;
	bool is_rcq;
	int ret;

	for (;;) {
		if (!got_send && (ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) != RPMA_E_NO_COMPLETION) {
			common_check(ret, "rpma_cq_get_wc(cq)");
			if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND)
				common_die("the ping failed: %s", ibv_wc_status_str(wc.status));
			got_send = true;
		}
		if (!got_recv &&
		    (ret = rpma_cq_get_wc(rcq, 1, &wc, NULL)) != RPMA_E_NO_COMPLETION) {
			common_check(ret, "rpma_cq_get_wc(rcq)");
			if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
				common_die("the pong failed: %s", ibv_wc_status_str(wc.status));
			got_recv = true;
		}
		if (got_send && got_recv)
			return;

		if (channel_wait(conn, &is_rcq) != (is_rcq ? rcq : cq))
			common_die("rpma_conn_wait() named a CQ that does not match is_rcq");
	}
}

/*
 * say_connected -- report the connection with its shared channel.
 */
static void
say_connected(struct rpma_conn *conn)
{
	(void)conn;
	printf("client: connected, CQ and receive CQ share a completion channel\n");
}

/*
 * main -- play the ping-pong on a connection with a receive CQ and a shared
 * completion channel.
 */
int
main(int argc, char *argv[])
{
	static const struct common_ping_ops ops = {
	    .cfg_new = channel_cfg_new,
	    .has_rcq = true,
	    .connected = say_connected,
	    .wait = wait_both,
	    .round_note = "",
	};

	return common_ping_main(argc, argv, &ops);
}
