/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the general-purpose server persistency method (GPSPM): clients
 * write into a file mapped with libpmem2, then ask the server in a message
 * to persist a range; the server persists it with the libpmem2 persist
 * function and answers. No remote flush is needed, so this works whatever
 * the platform declares about direct write to PMem.
 *
 * usage: server ADDR PORT [CLIENTS [PATH]]
 *
 * Without PATH a temporary file in /tmp is used and removed at exit.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-pmem.h"
#include "common-region.h"
#include "gpspm.h"

#define MAP_SIZE 4096

/*
 * main -- map and register the file, then for each client: post a receive
 * for its request, accept with the region's descriptor, persist the range it
 * names, answer and wait for the client to disconnect.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pmem pm;
	struct rpma_mr_local *req_mr, *resp_mr;
	struct rpma_cq *cq;
	char desc[COMMON_MR_DESC_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, "[PATH]", &args);

	common_pmem_map(&pm, common_str_arg(&args, 1, NULL), MAP_SIZE);

	struct persist_req *preq = common_alloc(sizeof(*preq));
	struct persist_resp *presp = common_alloc(sizeof(*presp));
	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	/* only writes: persistence is the server's own job here */
	struct rpma_mr_local *mr =
	    common_region_expose(peer, pm.addr, MAP_SIZE, RPMA_MR_USAGE_WRITE_DST, desc);

	COMMON_CHECK(rpma_mr_reg(peer, preq, sizeof(*preq), RPMA_MR_USAGE_RECV, &req_mr));
	COMMON_CHECK(rpma_mr_reg(peer, presp, sizeof(*presp), RPMA_MR_USAGE_SEND, &resp_mr));

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn_req *req = common_next_req(ep, NULL);
		struct ibv_wc wc;

		COMMON_CHECK(rpma_conn_req_recv(req, req_mr, 0, sizeof(*preq), NULL));
		struct rpma_conn *conn = common_connect(&req, desc, sizeof(desc));

		COMMON_CHECK(rpma_conn_get_cq(conn, &cq));
		common_wait_one(cq, IBV_WC_RECV, &wc);
		if (wc.byte_len != sizeof(*preq))
			common_die("a persist request of %u bytes", wc.byte_len);

		/* the client's writes came before its message: they are in place */
		presp->offset = preq->offset;
		presp->len = preq->len;
		if (preq->offset > MAP_SIZE || preq->len > MAP_SIZE - preq->offset) {
			presp->status = -1;
			printf("server: refused to persist %llu bytes at offset %llu\n",
			       (unsigned long long)preq->len, (unsigned long long)preq->offset);
		} else {
			char *start = (char *)pm.addr + preq->offset;

			pm.persist(start, preq->len);
			presp->status = 0;
			printf("server: persisted %llu bytes at offset %llu: '%.*s'\n",
			       (unsigned long long)preq->len, (unsigned long long)preq->offset,
			       (int)strnlen(start, preq->len), start);
		}

		COMMON_CHECK(
		    rpma_send(conn, resp_mr, 0, sizeof(*presp), RPMA_F_COMPLETION_ALWAYS, NULL));
		common_wait_one(cq, IBV_WC_SEND, NULL);
		common_wait_closed(&conn);
	}

	COMMON_CHECK(rpma_mr_dereg(&resp_mr));
	COMMON_CHECK(rpma_mr_dereg(&req_mr));
	COMMON_CHECK(rpma_mr_dereg(&mr));
	free(presp);
	free(preq);
	common_pmem_unmap(&pm);
	common_server_end(&ep, &peer);
	return 0;
}
