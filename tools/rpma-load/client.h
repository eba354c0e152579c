/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.h -- the client side rpma-load drives: the framework configuration
 * (its targets), an RDMA peer, the workers, the pool, the target region,
 * and the application memory operations read into and write from.
 *
 * ASSUMPTIONS
 * Opened and closed by the main thread; once open, the load's threads use
 * the pool and the memory (each its own part of it).
 */

#ifndef RPMA_LOAD_CLIENT_H
#define RPMA_LOAD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "rpmaf.h"

struct client {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
	const char *region;	       /* the workload's region */
	struct rpmaf_pool_region info; /* what the pool knows of it */
	const char *target;	       /* the name of its target */
	uint8_t *mem;		       /* registered: write source and read destination */
	size_t mem_size;
	struct rpma_mr_local *mr;
};

/*
 * client_open -- load the configuration at cfg_path (with the overrides),
 * start the peer, the workers and the pool, wait (timeouts.connect_ms at
 * most) for every target and look region up; a signal (run.h) ends the wait
 * RETURN VALUE: 0; -1 with a message on stderr, or with none after a signal
 * (what is open is closed).
 */
int client_open(struct client *c, const char *cfg_path, const char *const *sets, unsigned nsets,
		const char *region);

/*
 * client_mem -- size bytes of memory registered for writes from and reads into,
 * in place of what an earlier call made
 * RETURN VALUE: 0; -1 with a message on stderr.
 */
int client_mem(struct client *c, size_t size);

/* client_close -- everything client_open() and client_mem() made, in reverse */
void client_close(struct client *c);

#endif /* RPMA_LOAD_CLIENT_H */
