/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the "pong" side of a ping-pong on connections whose CQ and
 * receive CQ share one completion channel: a single file descriptor
 * (rpma_conn_get_compl_fd()) and a single wait (rpma_conn_wait()) serve
 * both queues.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>

#include "channel.h"
#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

/*
 * wait_for -- wait for one completion of the given kind on cq, one of the
 * connection's two CQs: poll it, and when it is empty wait for the shared
 * channel to report any of the two, then look again.
 */
static void
wait_for(struct rpma_conn *conn, struct rpma_cq *cq, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;
	bool is_rcq;
	int ret;

	/* whichever CQ the channel names, look again at the one awaited */
	while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) != 0) {
		if (ret != RPMA_E_NO_COMPLETION)
			common_check(ret, "rpma_cq_get_wc()");
		(void)channel_wait(conn, &is_rcq);
	}
	if (wc.status != IBV_WC_SUCCESS)
		common_die("%s completion failed: %s", common_opcode_2str(opcode),
			   ibv_wc_status_str(wc.status));
	if (wc.opcode != opcode)
		common_die("expected a %s completion, got %s", common_opcode_2str(opcode),
			   common_opcode_2str(wc.opcode));
}

/*
 * main -- accept each client on a configuration with a receive CQ and a
 * shared completion channel, and answer every ping.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pong_server s;
	struct rpma_cq *cq, *rcq;
	int fd;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);
	struct rpma_conn_cfg *cfg = channel_cfg_new();

	common_pong_listen(&s, &args);

	for (unsigned long i = 0; i < clients; i++) {
		uint32_t rounds;
		struct rpma_conn *conn = common_accept_ping(&s, cfg, &rounds);

		common_conn_cqs(conn, &cq, &rcq);

		/* both CQs give the shared channel's descriptor, the connection's one */
		int compl_fd, rcq_fd;

		COMMON_CHECK(rpma_cq_get_fd(cq, &fd));
		COMMON_CHECK(rpma_cq_get_fd(rcq, &rcq_fd));
		COMMON_CHECK(rpma_conn_get_compl_fd(conn, &compl_fd));
		if (fd != compl_fd || rcq_fd != compl_fd)
			common_die("the CQs' descriptors %d and %d are not the channel's %d", fd,
				   rcq_fd, compl_fd);
		printf("server: client %lu connected for %u rounds, CQs share a channel\n", i + 1,
		       rounds);

		for (uint32_t r = 1; r <= rounds; r++) {
			wait_for(conn, rcq, IBV_WC_RECV);

			/* the pong of 08-messages-ping-pong */
			uint64_t value = common_pong(conn, &s, r < rounds);

			printf("server: round %u: got %llu, sending %llu\n", r,
			       (unsigned long long)value, (unsigned long long)(value + 1));
			wait_for(conn, cq, IBV_WC_SEND);
		}

		common_client_gone(&conn, i);
	}

	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	common_pong_server_end(&s);
	return 0;
}
