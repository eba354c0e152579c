/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- expose a file mapped with libpmem2 and declare that RDMA
 * writes reach persistent memory directly, so that clients may flush their
 * writes with RPMA_FLUSH_TYPE_PERSISTENT. The private data of the acceptance
 * carries the region's descriptor followed by the peer configuration's.
 *
 * usage: server ADDR PORT [CLIENTS [PATH]]
 *
 * Without PATH a temporary file in /tmp is used and removed at exit.
 */

#include <stdio.h>
#include <string.h>

#include "common-conn.h"
#include "common-pmem.h"
#include "common-region.h"

#define MAP_SIZE 4096

/* the private data: region descriptor, then peer configuration descriptor */
#define PDATA_SIZE (COMMON_MR_DESC_SIZE + COMMON_PCFG_DESC_SIZE)

/*
 * peer_cfg_descriptor -- build a peer configuration that declares direct
 * write to PMem and serialize it into desc.
 */
static void
peer_cfg_descriptor(void *desc)
{
	struct rpma_peer_cfg *pcfg;
	size_t size;

	COMMON_CHECK(rpma_peer_cfg_new(&pcfg));
	COMMON_CHECK(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true));
	COMMON_CHECK(rpma_peer_cfg_get_descriptor_size(pcfg, &size));
	if (size != COMMON_PCFG_DESC_SIZE)
		common_die("unexpected peer configuration descriptor size: %zu", size);
	COMMON_CHECK(rpma_peer_cfg_get_descriptor(pcfg, desc));
	COMMON_CHECK(rpma_peer_cfg_delete(&pcfg));
}

/*
 * main -- map and register the file for writes and persistent flushes, then
 * accept each client with both descriptors and print what it wrote.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_pmem pm;
	char pdata[PDATA_SIZE];

	unsigned long clients = common_server_init(argc, argv, 1000, "[PATH]", &args);

	common_pmem_map(&pm, common_str_arg(&args, 1, NULL), MAP_SIZE);

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);
	struct rpma_mr_local *mr = common_region_expose(
	    peer, pm.addr, MAP_SIZE, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
	    pdata);

	peer_cfg_descriptor(pdata + COMMON_MR_DESC_SIZE);

	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		struct rpma_conn *conn = common_accept_client(ep, i, pdata, sizeof(pdata));

		common_wait_closed(&conn);

		/*
		 * On a platform that really writes to PMem directly the client's
		 * flush already made the data persistent; a file on an ordinary
		 * file system still needs this.
		 */
		pm.persist(pm.addr, MAP_SIZE);
		char *text = pm.addr;

		printf("server: got '%.*s'\n", (int)strnlen(text, MAP_SIZE), text);
	}

	COMMON_CHECK(rpma_mr_dereg(&mr));
	common_pmem_unmap(&pm);
	common_server_end(&ep, &peer);
	return 0;
}
