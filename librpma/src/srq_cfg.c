/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * srq_cfg.c -- the shared receive queue configuration; fields are accessed
 * atomically so that any thread may use it.
 */

#include <stdlib.h>

#include "log.h"
#include "srq_cfg.h"

#define RPMA_DEFAULT_SRQ_SIZE 20

struct rpma_srq_cfg {
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
	*rq_size = __atomic_load_n(&cfg->rq_size, __ATOMIC_RELAXED);
	*rcq_size = __atomic_load_n(&cfg->rcq_size, __ATOMIC_RELAXED);
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
	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

/*
 * SRQ_CFG_U32 -- define the setter and getter of one size field.
 */
#define SRQ_CFG_U32(name)                                                                          \
	int rpma_srq_cfg_set_##name(struct rpma_srq_cfg *cfg, uint32_t name)                       \
	{                                                                                          \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cfg is NULL");                                             \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		__atomic_store_n(&cfg->name, name, __ATOMIC_RELAXED);                              \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_srq_cfg_get_##name(const struct rpma_srq_cfg *cfg, uint32_t *name)                \
	{                                                                                          \
		if (cfg == NULL || name == NULL) {                                                 \
			RPMA_LOG_ERROR("cfg or " #name " is NULL");                                \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		*name = __atomic_load_n(&cfg->name, __ATOMIC_RELAXED);                             \
		return 0;                                                                          \
	}

/* see librpma.h */
SRQ_CFG_U32(rq_size)
SRQ_CFG_U32(rcq_size)
