/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-region.c -- one memory region a server exposes to its clients: the
 * server registers it and sends its descriptor in the private data of the
 * acceptance, the client rebuilds it from there.
 */

#include "common-region.h"
#include "common-conn.h"

/*
 * common_remote_mr -- rebuild the peer's memory region from its descriptor
 * in received private data.
 */
struct rpma_mr_remote *
common_remote_mr(const void *desc, size_t len)
{
	struct rpma_mr_remote *mr;

	if (desc == NULL || len < COMMON_MR_DESC_SIZE)
		common_die("the private data (%zu bytes) holds no memory region descriptor", len);
	COMMON_CHECK(rpma_mr_remote_from_descriptor(desc, COMMON_MR_DESC_SIZE, &mr));
	return mr;
}

/*
 * common_mr_descriptor -- write the descriptor of a local region into desc
 * (COMMON_MR_DESC_SIZE bytes), after checking that the library agrees on
 * its size.
 */
void
common_mr_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	size_t size;

	COMMON_CHECK(rpma_mr_get_descriptor_size(mr, &size));
	if (size != COMMON_MR_DESC_SIZE)
		common_die("unexpected memory region descriptor size: %zu", size);
	COMMON_CHECK(rpma_mr_get_descriptor(mr, desc));
}

/*
 * common_region_expose -- register size bytes at addr for usage and write
 * the region's descriptor into desc (COMMON_MR_DESC_SIZE bytes), which the
 * server then sends to its clients in the private data.
 */
struct rpma_mr_local *
common_region_expose(struct rpma_peer *peer, void *addr, size_t size, int usage, void *desc)
{
	struct rpma_mr_local *mr;

	COMMON_CHECK(rpma_mr_reg(peer, addr, size, usage, &mr));
	common_mr_descriptor(mr, desc);
	return mr;
}

/*
 * common_region_connect -- the client's side: create the peer, register the
 * client's buffer (size bytes at buf) for usage, connect to the server and
 * rebuild the server's region from the descriptor at the start of the
 * private data that came with the acceptance.
 */
void
common_region_connect(struct common_region_client *c, const struct common_args *args, void *buf,
		      size_t size, int usage)
{
	struct rpma_conn_private_data pdata;

	c->peer = common_peer_new(args->addr, RPMA_UTIL_IBV_CONTEXT_REMOTE);
	COMMON_CHECK(rpma_mr_reg(c->peer, buf, size, usage, &c->local));
	c->conn = common_client_connect(c->peer, args, NULL, NULL, 0);
	COMMON_CHECK(rpma_conn_get_private_data(c->conn, &pdata));
	c->remote = common_remote_mr(pdata.ptr, pdata.len);
	COMMON_CHECK(rpma_mr_remote_get_size(c->remote, &c->remote_size));
	COMMON_CHECK(rpma_conn_get_cq(c->conn, &c->cq));
}

/*
 * common_region_disconnect -- close the connection from the client's side,
 * then release both regions and the peer.
 */
void
common_region_disconnect(struct common_region_client *c)
{
	common_disconnect(&c->conn);
	COMMON_CHECK(rpma_mr_remote_delete(&c->remote));
	COMMON_CHECK(rpma_mr_dereg(&c->local));
	COMMON_CHECK(rpma_peer_delete(&c->peer));
}
