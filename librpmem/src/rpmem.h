/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmem.h -- an open remote pool (RPMEMpool): its session, the local
 * memory registered for the framework's writes and reads, the region that
 * holds the remote bytes, and its lanes.
 *
 * LANES
 * A lane is a caller's stream of persists, flushes and reads, used by one
 * thread at a time (librpmem.h): it needs no lock. A persist or a read is
 * one framework operation waited for on the caller's stack; a flush is
 * started in the next of the lane's RPMEM__LANE_OPS slots (waiting for the
 * slot's previous flush first), and a drain waits for every slot in use.
 * Lanes are not connections: the framework spreads every lane's operations
 * over the session's few connections and workers.
 *
 * FAILURES
 * A failed operation whose connection was lost (or timed out, or whose
 * region the daemon withdrew: its connection to the pool is gone) makes
 * the pool dead: every later call fails with the same errno, at once.
 */

#ifndef LIBRPMEM_RPMEM_H
#define LIBRPMEM_RPMEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rpmem_proto.h"
#include "session.h"

/* flushes one lane may have in flight before a drain */
#define RPMEM__LANE_OPS 8

/* the most lanes a pool has, whatever is asked */
#define RPMEM__LANES_MAX 1024

/* the environment variable of the caller's own limit on lanes, as PMDK's librpmem reads it */
#define RPMEM__MAX_NLANES_ENV "RPMEM_MAX_NLANES"

/* the metadata at the start of a pool with headers: no persist below it */
#define RPMEM__HDR_SIZE 4096

struct rpma_mr_local;

struct rpmem__lane {
	struct rpmaf_op ops[RPMEM__LANE_OPS];
	bool busy[RPMEM__LANE_OPS];
	unsigned next; /* the slot the next flush takes */
	int err;       /* the first errno of a flush since the last drain */
};

struct rpmem_pool {
	struct rpmem__session s;
	struct rpma_mr_local *mr; /* the caller's pool memory */
	char *addr;
	size_t size;
	uint64_t id; /* the daemon's pool id */
	char region[RPMEM_PROTO_REGION_MAX + 1];
	bool hdrs; /* the first RPMEM__HDR_SIZE bytes are metadata */
	unsigned nlanes;
	struct rpmem__lane *lanes;
	atomic_int dead; /* 0, or the errno every call now fails with */
};

/*
 * rpmem__pool_break -- the pool failed with err (an errno): from now on
 * every call fails with the first such errno, which is returned.
 * Thread-safe.
 */
int rpmem__pool_break(struct rpmem_pool *rpp, int err);

#endif /* LIBRPMEM_RPMEM_H */
