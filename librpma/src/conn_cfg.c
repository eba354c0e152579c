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
	pthread_mutex_t lock; /* held by every setter and by a snapshot */
	int timeout_ms;
	uint32_t cq_size;
	uint32_t rcq_size;
	uint32_t sq_size;
	uint32_t rq_size;
	bool shared_comp_channel;
	struct rpma_srq *srq;
	struct rpma_cq *cq;  /* a CQ of its own (rpma_cq_new()) for the connections, or NULL */
	struct rpma_cq *rcq; /* the same, for their receives */
};

static const struct rpma_conn_cfg Conn_cfg_default = {
    .lock = PTHREAD_MUTEX_INITIALIZER, /* never taken: the defaults do not change */
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
	if (cfg == NULL) {
		cfg = &Conn_cfg_default;
	} else {
		rpma__cfg_lock(&cfg->lock);
	}
	snap->timeout_ms = cfg->timeout_ms;
	snap->cq_size = cfg->cq_size;
	snap->rcq_size = cfg->rcq_size;
	snap->sq_size = cfg->sq_size;
	snap->rq_size = cfg->rq_size;
	snap->shared_comp_channel = cfg->shared_comp_channel;
	snap->srq = cfg->srq;
	snap->cq = cfg->cq;
	snap->rcq = cfg->rcq;
	if (cfg != &Conn_cfg_default)
		rpma__cfg_unlock(&cfg->lock);
}

/* see librpma.h */
int
rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL) {
		RPMA_LOG_ERROR("cfg_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_conn_cfg *cfg = malloc(sizeof(*cfg));

	if (cfg == NULL) {
		RPMA_LOG_ERROR("cannot allocate a connection configuration");
		return RPMA_E_NOMEM;
	}
	*cfg = Conn_cfg_default;
	pthread_mutex_init(&cfg->lock, NULL);
	*cfg_ptr = cfg;
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL) {
		RPMA_LOG_ERROR("cfg_ptr is NULL");
		return RPMA_E_INVAL;
	}
	if (*cfg_ptr != NULL)
		pthread_mutex_destroy(&(*cfg_ptr)->lock);
	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

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
