/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a ping-pong on a connection whose CQ and
 * receive CQ share one completion channel (rpma_conn_cfg_set_compl_channel()):
 * the client waits on that one channel with rpma_conn_wait(), which says
 * which of the two CQs has something.
 *
 * usage: client ADDR PORT [ROUNDS]
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
 * wait_both -- wait for the completion of the ping (on the CQ) and of the
 * pong (on the receive CQ), in any order: poll both, and while something is
 * missing wait on the shared channel, whose event names the CQ to look at.
 */
static void
wait_both(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq)
{
	struct pollfd pfd = {.events = POLLIN};
	bool got_send = false, got_recv = false;
	struct rpma_cq *woken;
	struct ibv_wc wc;
	bool is_rcq;
	int ret;

	COMMON_CHECK(rpma_conn_get_compl_fd(conn, &pfd.fd));
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

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			common_die("poll() failed: %s", strerror(errno));
		COMMON_CHECK(rpma_conn_wait(conn, 0, &woken, &is_rcq));
		if (woken != (is_rcq ? rcq : cq))
			common_die("rpma_conn_wait() named a CQ that does not match is_rcq");
	}
}

/*
 * main -- connect with a receive CQ and a shared completion channel, play
 * the rounds and disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct rpma_mr_local *recv_mr, *send_mr;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;

	common_init("client", argc, argv, 1, "[ROUNDS]", &args);
	uint32_t rounds = (uint32_t)common_ulong_arg(&args, 0, 5, 1, 1000000);

	uint64_t *recv_buf = common_alloc(MSG_SIZE);
	uint64_t *send_buf = common_alloc(MSG_SIZE);
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);

	COMMON_CHECK(rpma_mr_reg(peer, recv_buf, MSG_SIZE, RPMA_MR_USAGE_RECV, &recv_mr));
	COMMON_CHECK(rpma_mr_reg(peer, send_buf, MSG_SIZE, RPMA_MR_USAGE_SEND, &send_mr));
	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_set_compl_channel(cfg, true));

	struct rpma_conn_req *req = common_req_new(peer, &args, cfg);
	struct rpma_conn *conn = common_connect(&req, &rounds, sizeof(rounds));

	COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
	COMMON_CHECK(rpma_conn_get_rcq(conn, &rcq));
	if (rcq == NULL)
		common_die("the connection has no receive CQ");
	printf("client: connected, CQ and receive CQ share a completion channel\n");

	uint64_t counter = 0;

	for (uint32_t r = 1; r <= rounds; r++) {
		COMMON_CHECK(rpma_recv(conn, recv_mr, 0, MSG_SIZE, NULL));
		*send_buf = counter;
		COMMON_CHECK(rpma_send(conn, send_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL));
		wait_both(conn, cq, rcq);

		if (*recv_buf != counter + 1)
			common_die("round %u: sent %llu, got %llu", r, (unsigned long long)counter,
				   (unsigned long long)*recv_buf);
		printf("client: round %u: sent %llu, got %llu\n", r, (unsigned long long)counter,
		       (unsigned long long)*recv_buf);
		counter = *recv_buf;
	}
	printf("client: counter is %llu after %u rounds\n", (unsigned long long)counter, rounds);

	common_disconnect(&conn);
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	COMMON_CHECK(rpma_mr_dereg(&send_mr));
	COMMON_CHECK(rpma_mr_dereg(&recv_mr));
	COMMON_CHECK(rpma_peer_delete(&peer));
	free(send_buf);
	free(recv_buf);
	return 0;
}
