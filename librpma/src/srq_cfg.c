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

/* the values of a configuration */
struct srq_cfg_values {
	uint32_t rq_size;
	uint32_t rcq_size;
};

struct rpma_srq_cfg {
	pthread_mutex_t lock; /* held by every setter and by rpma__srq_cfg_get_sizes() */
	struct srq_cfg_values v;
};

static const struct srq_cfg_values Srq_cfg_default = {
    .rq_size = RPMA_DEFAULT_SRQ_SIZE,
    .rcq_size = RPMA_DEFAULT_SRQ_SIZE,
};

/* see srq_cfg.h */
void
rpma__srq_cfg_get_sizes(const struct rpma_srq_cfg *cfg, uint32_t *rq_size, uint32_t *rcq_size)
{
	struct srq_cfg_values v = Srq_cfg_default;

	if (cfg != NULL)
		rpma__cfg_read(&cfg->lock, &v, &cfg->v, sizeof(v));
	*rq_size = v.rq_size;
	*rcq_size = v.rcq_size;
}

/* see librpma.h */
RPMA__CFG_LIFE(srq_cfg, Srq_cfg_default, "shared receive queue configuration")

/* see librpma.h: the setters and getters, one line a field */
RPMA__CFG_FIELD(srq_cfg, rq_size, rq_size, uint32_t, rq_size)
RPMA__CFG_FIELD(srq_cfg, rcq_size, rcq_size, uint32_t, rcq_size)
