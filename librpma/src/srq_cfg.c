/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * srq_cfg.c -- the shared receive queue configuration. Each setter stores
 * its field under the configuration's lock and each getter loads its field
 * atomically, so that any thread may use it; both sizes are read together
 * under the lock.
 */

#include <stdlib.h>

#include "cfg_field.h"
#include "log.h"
#include "srq_cfg.h"

#define RPMA_DEFAULT_SRQ_SIZE 20

struct rpma_srq_cfg {
	pthread_mutex_t lock; /* held by every setter and by rpma__srq_cfg_get_sizes() */
	uint32_t rq_size;
	uint32_t rcq_size;
};

/* see srq_cfg.h */
void
rpma__srq_cfg_get_sizes(const struct rpma_srq_cfg *cfg, uint32_t *rq_size, uint32_t *rcq_size)
{
	if (cfg == NULL) {
		*rq_size = RPMA_DEFAULT_SRQ_SIZE;
		*rcq_size = RPMA_DEFAULT_SRQ_SIZE;
		return;
	}
	rpma__cfg_lock(&cfg->lock);
	*rq_size = cfg->rq_size;
	*rcq_size = cfg->rcq_size;
	rpma__cfg_unlock(&cfg->lock);
}

/* see librpma.h */
int
rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL) {
		RPMA_LOG_ERROR("cfg_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_srq_cfg *cfg = malloc(sizeof(*cfg));

	if (cfg == NULL) {
		RPMA_LOG_ERROR("cannot allocate a shared receive queue configuration");
		return RPMA_E_NOMEM;
	}
	pthread_mutex_init(&cfg->lock, NULL);
	cfg->rq_size = RPMA_DEFAULT_SRQ_SIZE;
	cfg->rcq_size = RPMA_DEFAULT_SRQ_SIZE;
	*cfg_ptr = cfg;
	return 0;
}

/* see librpma.h */
int
rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr)
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

/* see librpma.h: the setters and getters, one line a field */
RPMA__CFG_FIELD(srq_cfg, rq_size, rq_size, uint32_t, rq_size, 0)
RPMA__CFG_FIELD(srq_cfg, rcq_size, rcq_size, uint32_t, rcq_size, 0)
