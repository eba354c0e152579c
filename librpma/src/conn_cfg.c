/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn_cfg.c -- the connection configuration. Each setter stores its field
 * under the configuration's lock and each getter loads its field
 * atomically, so both are safe from any thread; a snapshot, taken under the
 * lock, is one state the configuration was in between setter calls.
 */

#include <stdlib.h>

#include "cfg_field.h"
#include "conn_cfg.h"
#include "cq.h"
#include "log.h"

#define RPMA_DEFAULT_Q_SIZE   10
#define RPMA_DEFAULT_RCQ_SIZE 0

struct rpma_conn_cfg {
	pthread_mutex_t lock;		 /* held by every setter and by a snapshot */
	struct rpma_conn_cfg_snapshot v; /* the values (conn_cfg.h) */
};

static const struct rpma_conn_cfg_snapshot Conn_cfg_default = {
    .timeout_ms = RPMA_DEFAULT_TIMEOUT_MS,
    .cq_size = RPMA_DEFAULT_Q_SIZE,
    .rcq_size = RPMA_DEFAULT_RCQ_SIZE,
    .sq_size = RPMA_DEFAULT_Q_SIZE,
    .rq_size = RPMA_DEFAULT_Q_SIZE,
    .shared_comp_channel = false,
    .srq = NULL,
    .cq = NULL,
    .rcq = NULL,
};

/* see conn_cfg.h */
void
rpma__conn_cfg_snapshot(const struct rpma_conn_cfg *cfg, struct rpma_conn_cfg_snapshot *snap)
{
	if (cfg == NULL)
		*snap = Conn_cfg_default;
	else
		rpma__cfg_read(&cfg->lock, snap, &cfg->v, sizeof(*snap));
}

/* see librpma.h */
RPMA__CFG_LIFE(conn_cfg, Conn_cfg_default, "connection configuration")

/* see librpma.h: the setters and getters, one line a field */
RPMA__CFG_FIELD_IF(conn_cfg, timeout, timeout_ms, int, timeout_ms, value < 0,
		   "cfg is NULL or timeout_ms (%d) is negative", value)
RPMA__CFG_FIELD(conn_cfg, cq_size, cq_size, uint32_t, cq_size)
RPMA__CFG_FIELD(conn_cfg, rcq_size, rcq_size, uint32_t, rcq_size)
RPMA__CFG_FIELD(conn_cfg, sq_size, sq_size, uint32_t, sq_size)
RPMA__CFG_FIELD(conn_cfg, rq_size, rq_size, uint32_t, rq_size)
RPMA__CFG_FIELD(conn_cfg, compl_channel, shared_comp_channel, bool, shared)
RPMA__CFG_FIELD(conn_cfg, srq, srq, struct rpma_srq *, srq_ptr)
/* only a CQ of its own (rpma_cq_new()): a connection's or an SRQ's CQ is freed with its owner */
RPMA__CFG_FIELD_IF(conn_cfg, cq, cq, struct rpma_cq *, cq_ptr, value && !rpma__cq_is_own(value),
		   "cq was not made by rpma_cq_new()")
RPMA__CFG_FIELD_IF(conn_cfg, rcq, rcq, struct rpma_cq *, rcq_ptr, value && !rpma__cq_is_own(value),
		   "rcq was not made by rpma_cq_new()")
