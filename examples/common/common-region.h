/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-region.h -- one memory region a server exposes to its clients in
 * the librpma examples: the server registers it and sends its descriptor in
 * the private data of the acceptance, a client rebuilds it from there. The
 * helpers end the program when they fail (common.h).
 */

#ifndef EXAMPLES_COMMON_REGION_H
#define EXAMPLES_COMMON_REGION_H 1

#include <stddef.h>

#include <librpma.h>

#include "common.h"

/* the size of a memory region descriptor (rpma_mr_get_descriptor_size()) */
#define COMMON_MR_DESC_SIZE 21

/* the size of a peer configuration descriptor */
#define COMMON_PCFG_DESC_SIZE 1

/* a client connected to a server's region (common_region_connect()) */
struct common_region_client {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;	       /* the connection's CQ */
	struct rpma_mr_local *local;   /* the client's buffer */
	struct rpma_mr_remote *remote; /* the server's region */
	size_t remote_size;	       /* its size in bytes */
};

struct rpma_mr_remote *common_remote_mr(const void *desc, size_t len);
void common_mr_descriptor(const struct rpma_mr_local *mr, void *desc);

struct rpma_mr_local *common_region_expose(struct rpma_peer *peer, void *addr, size_t size,
					   int usage, void *desc);

void common_region_connect(struct common_region_client *c, const struct common_args *args,
			   void *buf, size_t size, int usage);
void common_region_disconnect(struct common_region_client *c);

#endif /* EXAMPLES_COMMON_REGION_H */
