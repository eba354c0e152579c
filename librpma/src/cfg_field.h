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
#include <stdlib.h>
#include <string.h>

#include "log.h"

/*
 * RPMA__CFG_LIFE -- define rpma_<obj>_new(cfg_ptr), which makes a
 * struct rpma_<obj> { pthread_mutex_t lock; <values> v; } with v = dflt,
 * and rpma_<obj>_delete(cfg_ptr), which frees it and sets *cfg_ptr to NULL
 * (NULL is fine). what names the object in the log. ERRORS: RPMA_E_INVAL
 * for a NULL cfg_ptr, RPMA_E_NOMEM.
 */
#define RPMA__CFG_LIFE(obj, dflt, what)                                                            \
	int rpma_##obj##_new(struct rpma_##obj **cfg_ptr)                                          \
	{                                                                                          \
		if (cfg_ptr == NULL) {                                                             \
			RPMA_LOG_ERROR("cfg_ptr is NULL");                                         \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		struct rpma_##obj *cfg = malloc(sizeof(*cfg));                                     \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cannot allocate a " what);                                 \
			return RPMA_E_NOMEM;                                                       \
		}                                                                                  \
		pthread_mutex_init(&cfg->lock, NULL);                                              \
		cfg->v = (dflt);                                                                   \
		*cfg_ptr = cfg;                                                                    \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_##obj##_delete(struct rpma_##obj **cfg_ptr)                                       \
	{                                                                                          \
		if (cfg_ptr == NULL) {                                                             \
			RPMA_LOG_ERROR("cfg_ptr is NULL");                                         \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		if (*cfg_ptr != NULL)                                                              \
			pthread_mutex_destroy(&(*cfg_ptr)->lock);                                  \
		free(*cfg_ptr);                                                                    \
		*cfg_ptr = NULL;                                                                   \
		return 0;                                                                          \
	}

/*
 * RPMA__CFG_FIELD_IF -- define rpma_<obj>_set_<api>(cfg, value) and
 * rpma_<obj>_get_<api>(cfg, out) for the member v.field of type type of
 * struct rpma_<obj>. bad is a condition on value that refuses it, logged
 * (in the setter's name) with the printf format and arguments that follow.
 * ERRORS: RPMA_E_INVAL for a NULL cfg or out, or a bad value.
 */
#define RPMA__CFG_FIELD_IF(obj, api, field, type, out, bad, ...)                                   \
	int rpma_##obj##_set_##api(struct rpma_##obj *cfg, type value)                             \
	{                                                                                          \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cfg is NULL");                                             \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		if (bad) {                                                                         \
			RPMA_LOG_ERROR(__VA_ARGS__);                                               \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		pthread_mutex_lock(&cfg->lock);                                                    \
		__atomic_store_n(&cfg->v.field, value, __ATOMIC_RELAXED);                          \
		pthread_mutex_unlock(&cfg->lock);                                                  \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_##obj##_get_##api(const struct rpma_##obj *cfg, type *out)                        \
	{                                                                                          \
		if (cfg == NULL || out == NULL) {                                                  \
			RPMA_LOG_ERROR("cfg or " #out " is NULL");                                 \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		*out = __atomic_load_n(&cfg->v.field, __ATOMIC_RELAXED);                           \
		return 0;                                                                          \
	}

/* RPMA__CFG_FIELD -- RPMA__CFG_FIELD_IF for a field that takes every value */
#define RPMA__CFG_FIELD(obj, api, field, type, out)                                                \
	RPMA__CFG_FIELD_IF(obj, api, field, type, out, 0, "%s", "")

/*
 * rpma__cfg_read -- copy size bytes of a configuration's values from src to
 * dst under its lock: one state it was in (the object is const to the
 * caller, its lock is not).
 */
static inline void
rpma__cfg_read(const pthread_mutex_t *lock, void *dst, const void *src, size_t size)
{
	pthread_mutex_lock((pthread_mutex_t *)lock);
	memcpy(dst, src, size);
	pthread_mutex_unlock((pthread_mutex_t *)lock);
}

#endif /* RPMA_CFG_FIELD_H */
