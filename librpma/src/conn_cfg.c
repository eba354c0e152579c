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

/* timeout_check -- a timeout is not negative */
static int
timeout_check(int timeout_ms)
{
	if (timeout_ms >= 0)
		return 0;
	RPMA_LOG_ERROR("timeout_ms (%d) is negative", timeout_ms);
	return RPMA_E_INVAL;
}

/*
 * cq_check -- only a CQ of its own (rpma_cq_new()) is taken: a connection's
 * or an SRQ's CQ is freed with its owner
 */
static int
cq_check(const char *name, struct rpma_cq *cq)
{
	if (cq == NULL || rpma__cq_is_own(cq))
		return 0;
	RPMA_LOG_ERROR("%s was not made by rpma_cq_new()", name);
	return RPMA_E_INVAL;
}

/* see librpma.h: the setters and getters, one line a field */
RPMA__CFG_FIELD(conn_cfg, timeout, timeout_ms, int, timeout_ms, timeout_check(value))
RPMA__CFG_FIELD(conn_cfg, cq_size, cq_size, uint32_t, cq_size, 0)
RPMA__CFG_FIELD(conn_cfg, rcq_size, rcq_size, uint32_t, rcq_size, 0)
RPMA__CFG_FIELD(conn_cfg, sq_size, sq_size, uint32_t, sq_size, 0)
RPMA__CFG_FIELD(conn_cfg, rq_size, rq_size, uint32_t, rq_size, 0)
RPMA__CFG_FIELD(conn_cfg, compl_channel, shared_comp_channel, bool, shared, 0)
RPMA__CFG_FIELD(conn_cfg, srq, srq, struct rpma_srq *, srq_ptr, 0)
RPMA__CFG_FIELD(conn_cfg, cq, cq, struct rpma_cq *, cq_ptr, cq_check("cq", value))
RPMA__CFG_FIELD(conn_cfg, rcq, rcq, struct rpma_cq *, rcq_ptr, cq_check("rcq", value))
