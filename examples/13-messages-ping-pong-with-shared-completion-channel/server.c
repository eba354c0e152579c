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

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define RCQ_SIZE 4

/*
 * wait_for -- wait for one completion of the given kind on cq, one of the
 * connection's two CQs: poll it, and when it is empty wait for the shared
 * channel to report any of the two, then look again.
 */
static void
wait_for(struct rpma_conn *conn, struct rpma_cq *cq, enum ibv_wc_opcode opcode)
{
	struct pollfd pfd = {.events = POLLIN};
	struct rpma_cq *woken;
	struct ibv_wc wc;
	bool is_rcq;
	int ret;

	COMMON_CHECK(rpma_conn_get_compl_fd(conn, &pfd.fd));
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == 0)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			common_check(ret, "rpma_cq_get_wc()");

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			common_die("poll() failed: %s", strerror(errno));
		COMMON_CHECK(rpma_conn_wait(conn, 0, &woken, &is_rcq));
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
	struct common_msgs m;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	bool shared;
	int fd;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_set_compl_channel(cfg, true));
	COMMON_CHECK(rpma_conn_cfg_get_compl_channel(cfg, &shared));
	if (!shared)
		common_die("the configuration does not ask for a shared completion channel");

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	common_msgs_new(peer, COMMON_PING_SIZE, &m);

	uint64_t *recv_buf = m.recv_buf, *send_buf = m.send_buf;
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		uint32_t rounds;
		struct rpma_conn *conn = common_accept_ping(ep, cfg, &m, &rounds);

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
			uint64_t value = *recv_buf;

			printf("server: round %u: got %llu, sending %llu\n", r,
			       (unsigned long long)value, (unsigned long long)(value + 1));
			if (r < rounds)
				COMMON_CHECK(rpma_recv(conn, m.recv_mr, 0, COMMON_PING_SIZE, NULL));
			*send_buf = value + 1;
			COMMON_CHECK(rpma_send(conn, m.send_mr, 0, COMMON_PING_SIZE,
					       RPMA_F_COMPLETION_ALWAYS, NULL));
			wait_for(conn, cq, IBV_WC_SEND);
		}

		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	common_msgs_delete(&m);
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	common_server_end(&ep, &peer);
	return 0;
}
