/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn_cfg.h -- internal access to a connection configuration.
 *
 * Threads: any thread may take a snapshot, which holds the configuration's
 * lock (the one its setters hold); the caller owns the snapshot (on its
 * stack) and the configuration stays its user's to free.
 */

#ifndef RPMA_CONN_CFG_H
#define RPMA_CONN_CFG_H

#include "librpma.h"

/*
 * the values of a connection configuration: what it stores (conn_cfg.c),
 * and the copy of them taken under its lock when a connection is created,
 * one state the configuration was in between two setter calls
 */
struct rpma_conn_cfg_snapshot {
	int timeout_ms;
	uint32_t cq_size;
	uint32_t rcq_size;
	uint32_t sq_size;
	uint32_t rq_size;
	bool shared_comp_channel;
	struct rpma_srq *srq;
	struct rpma_cq *cq;  /* a CQ of its own to use instead of making one, or NULL */
	struct rpma_cq *rcq; /* the same, for receives */
};

/*
 * rpma__conn_cfg_snapshot -- read every field of cfg (NULL means the
 * defaults) into snap.
 *
 * ASSUMPTIONS: snap is not NULL.
 * ERRORS: none.
 */
void rpma__conn_cfg_snapshot(const struct rpma_conn_cfg *cfg, struct rpma_conn_cfg_snapshot *snap);

#endif /* RPMA_CONN_CFG_H */
