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
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MSG_SIZE sizeof(uint64_t)
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
 * rounds_from_req -- the number of rounds a client asked for: a 32-bit
 * number in the private data of its request.
 */
static uint32_t
rounds_from_req(const struct rpma_conn_req *req)
{
	struct rpma_conn_private_data pdata;
	uint32_t rounds;

	COMMON_CHECK(rpma_conn_req_get_private_data(req, &pdata));
	if (pdata.ptr == NULL || pdata.len < sizeof(rounds))
		common_die("the client did not say how many rounds to play");
	memcpy(&rounds, pdata.ptr, sizeof(rounds));
	if (rounds == 0)
		common_die("the client asked for 0 rounds");
	return rounds;
}

/*
 * main -- accept each client on a configuration with a receive CQ and a
 * shared completion channel, and answer every ping.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr, *send_mr;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	bool shared;
	int fd;

	common_init("server", argc, argv, 1, "[CLIENTS]", &args);
	unsigned long clients = common_ulong_arg(&args, 0, 1, 1, 1000);

	uint64_t *recv_buf = common_alloc(MSG_SIZE);
	uint64_t *send_buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	COMMON_CHECK(rpma_mr_reg(peer, recv_buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, send_buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));
	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_set_compl_channel(cfg, true));
	COMMON_CHECK(rpma_conn_cfg_get_compl_channel(cfg, &shared));
	if (!shared)
		common_die("the configuration does not ask for a shared completion channel");

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, cfg);
		uint32_t rounds = rounds_from_req(req);

		COMMON_CHECK(rpma_conn_req_recv(req, recv_mr, 0, MSG_SIZE, NULL));
		struct rpma_conn *conn = common_connect(&req, NULL, 0);

		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		COMMON_CHECK(rpma_conn_get_rcq(conn, &rcq));
		if (rcq == NULL)
			common_die("the connection has no receive CQ");

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
				COMMON_CHECK(rpma_recv(conn, recv_mr, 0, MSG_SIZE, NULL));
			*send_buf = value + 1;
			COMMON_CHECK(
			    rpma_send(conn, send_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
			wait_for(conn, cq, IBV_WC_SEND);
		}

		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	COMMON_CHECK(rpma_ep_shutdown(&ep));
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(send_buf);
	free(recv_buf);
	printf("server: done\n");
	return 0;
}
