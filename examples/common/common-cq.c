/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-cq.c -- waiting for completions, as the librpma examples do it:
 * one completion of an expected kind, or a send and a receive together.
 */

#include <stdbool.h>

#include "common-cq.h"

/*
 * common_opcode_2str -- the name of a completion's opcode, for messages.
 */
const char *
common_opcode_2str(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND:
		return "SEND";
	case IBV_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:
		return "RDMA_READ";
	case IBV_WC_RECV:
		return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return "RECV_RDMA_WITH_IMM";
	default:
		return "other";
	}
}

/*
 * common_wait_one -- wait for exactly one completion on cq and check that it
 * succeeded and is of the expected kind. The CQ is polled before waiting:
 * the library arms it when it is created and after every wait, so a
 * completion that arrives after an empty poll always wakes the wait up.
 */
void
common_wait_one(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	struct ibv_wc local;
	int ret;

	if (wc == NULL)
		wc = &local;
	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret == 0)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			common_check(ret, "rpma_cq_get_wc()");
		COMMON_CHECK(rpma_cq_wait(cq));
	}

	if (wc->status != IBV_WC_SUCCESS)
		common_die("%s completion failed: %s", common_opcode_2str(opcode),
			   ibv_wc_status_str(wc->status));
	if (wc->opcode != opcode)
		common_die("expected a %s completion, got %s (%d)", common_opcode_2str(opcode),
			   common_opcode_2str(wc->opcode), (int)wc->opcode);
}

/*
 * common_wait_send_recv -- wait for the completion of a send and of a
 * receive that share cq, in whichever order they come; the receive's
 * completion is copied to recv_wc.
 */
void
common_wait_send_recv(struct rpma_cq *cq, struct ibv_wc *recv_wc)
{
	bool got_send = false, got_recv = false;
	struct ibv_wc wc;
	int ret;

	while (!got_send || !got_recv) {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION) {
			COMMON_CHECK(rpma_cq_wait(cq));
			continue;
		}
		common_check(ret, "rpma_cq_get_wc()");

		if (wc.status != IBV_WC_SUCCESS)
			common_die("%s completion failed: %s", common_opcode_2str(wc.opcode),
				   ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND && !got_send) {
			got_send = true;
		} else if (wc.opcode == IBV_WC_RECV && !got_recv) {
			got_recv = true;
			*recv_wc = wc;
		} else {
			common_die("unexpected %s completion", common_opcode_2str(wc.opcode));
		}
	}
}

/*
 * common_conn_cqs -- the CQ and the receive CQ of a connection configured
 * with a receive CQ (rpma_conn_cfg_set_rcq_size()); ends the program when
 * it has none.
 */
void
common_conn_cqs(const struct rpma_conn *conn, struct rpma_cq **cq, struct rpma_cq **rcq)
{
	COMMON_CHECK(rpma_conn_get_cq(conn, cq));
	COMMON_CHECK(rpma_conn_get_rcq(conn, rcq));
	if (*rcq == NULL)
		common_die("the connection has no receive CQ");
}
