/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cfg_field.h -- the one shape of a configuration's setter and getter,
 * shared by conn_cfg.c and srq_cfg.c.
 *
 * Threads: a configuration object has a member lock (pthread_mutex_t) that
 * every setter holds while it stores, so that a reader holding it (the
 * snapshot a connection or SRQ is made from) sees one state the object was
 * in; a getter reads its one field atomically without the lock. Nothing on
 * the data path calls them. The object's owner frees it (*_cfg_delete).
 */

#ifndef RPMA_CFG_FIELD_H
#define RPMA_CFG_FIELD_H

#include <pthread.h>

#include "log.h"

/*
 * RPMA__CFG_FIELD -- define rpma_<obj>_set_<api>(cfg, value) and
 * rpma_<obj>_get_<api>(cfg, out) for the member field of type type of
 * struct rpma_<obj>. check is an expression of value: 0 to take it, or an
 * RPMA_E_* code (having logged why). ERRORS: RPMA_E_INVAL for a NULL cfg
 * or out, or what check says.
 */
#define RPMA__CFG_FIELD(obj, api, field, type, out, check)                                         \
	int rpma_##obj##_set_##api(struct rpma_##obj *cfg, type value)                             \
	{                                                                                          \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cfg is NULL");                                             \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		int ret = (check);                                                                 \
		if (ret)                                                                           \
			return ret;                                                                \
		pthread_mutex_lock(&cfg->lock);                                                    \
		__atomic_store_n(&cfg->field, value, __ATOMIC_RELAXED);                            \
		pthread_mutex_unlock(&cfg->lock);                                                  \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_##obj##_get_##api(const struct rpma_##obj *cfg, type *out)                        \
	{                                                                                          \
		if (cfg == NULL || out == NULL) {                                                  \
			RPMA_LOG_ERROR("cfg or " #out " is NULL");                                 \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		*out = __atomic_load_n(&cfg->field, __ATOMIC_RELAXED);                             \
		return 0;                                                                          \
	}

/*
 * rpma__cfg_lock, rpma__cfg_unlock -- hold a configuration's lock while
 * reading all its fields (the object is const to the caller, the lock is
 * not).
 */
static inline void
rpma__cfg_lock(const pthread_mutex_t *lock)
{
	pthread_mutex_lock((pthread_mutex_t *)lock);
}

/* see rpma__cfg_lock */
static inline void
rpma__cfg_unlock(const pthread_mutex_t *lock)
{
	pthread_mutex_unlock((pthread_mutex_t *)lock);
}

#endif /* RPMA_CFG_FIELD_H */
