/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn_cfg.c -- the connection configuration. Every field is read and written
 * atomically, so the getters and setters are safe from any thread.
 */

#include <stdlib.h>

#include "conn_cfg.h"
#include "cq.h"
#include "log.h"

#define RPMA_DEFAULT_Q_SIZE   10
#define RPMA_DEFAULT_RCQ_SIZE 0

struct rpma_conn_cfg {
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

#define LOAD(field)	    __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)

/* see conn_cfg.h */
void
rpma__conn_cfg_snapshot(const struct rpma_conn_cfg *cfg, struct rpma_conn_cfg_snapshot *snap)
{
	if (cfg == NULL)
		cfg = &Conn_cfg_default;
	snap->timeout_ms = LOAD(cfg->timeout_ms);
	snap->cq_size = LOAD(cfg->cq_size);
	snap->rcq_size = LOAD(cfg->rcq_size);
	snap->sq_size = LOAD(cfg->sq_size);
	snap->rq_size = LOAD(cfg->rq_size);
	snap->shared_comp_channel = LOAD(cfg->shared_comp_channel);
	snap->srq = LOAD(cfg->srq);
	snap->cq = LOAD(cfg->cq);
	snap->rcq = LOAD(cfg->rcq);
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
	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms)
{
	if (cfg == NULL || timeout_ms < 0) {
		RPMA_LOG_ERROR("cfg is NULL or timeout_ms (%d) is negative", timeout_ms);
		return RPMA_E_INVAL;
	}
	STORE(cfg->timeout_ms, timeout_ms);
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms)
{
	if (cfg == NULL || timeout_ms == NULL) {
		RPMA_LOG_ERROR("cfg or timeout_ms is NULL");
		return RPMA_E_INVAL;
	}
	*timeout_ms = LOAD(cfg->timeout_ms);
	return 0;
}

/*
 * CONN_CFG_U32 -- define the setter and getter of one uint32_t field; they
 * differ only by the field's name.
 */
#define CONN_CFG_U32(name)                                                                         \
	int rpma_conn_cfg_set_##name(struct rpma_conn_cfg *cfg, uint32_t name)                     \
	{                                                                                          \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cfg is NULL");                                             \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		STORE(cfg->name, name);                                                            \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_conn_cfg_get_##name(const struct rpma_conn_cfg *cfg, uint32_t *name)              \
	{                                                                                          \
		if (cfg == NULL || name == NULL) {                                                 \
			RPMA_LOG_ERROR("cfg or " #name " is NULL");                                \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		*name = LOAD(cfg->name);                                                           \
		return 0;                                                                          \
	}

/* see librpma.h */
CONN_CFG_U32(cq_size)
CONN_CFG_U32(rcq_size)
CONN_CFG_U32(sq_size)
CONN_CFG_U32(rq_size)

/* see librpma.h */
int
rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared)
{
	if (cfg == NULL) {
		RPMA_LOG_ERROR("cfg is NULL");
		return RPMA_E_INVAL;
	}
	STORE(cfg->shared_comp_channel, shared);
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared)
{
	if (cfg == NULL || shared == NULL) {
		RPMA_LOG_ERROR("cfg or shared is NULL");
		return RPMA_E_INVAL;
	}
	*shared = LOAD(cfg->shared_comp_channel);
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq)
{
	if (cfg == NULL) {
		RPMA_LOG_ERROR("cfg is NULL");
		return RPMA_E_INVAL;
	}
	STORE(cfg->srq, srq);
	return 0;
}

/* see librpma.h */
int
rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr)
{
	if (cfg == NULL || srq_ptr == NULL) {
		RPMA_LOG_ERROR("cfg or srq_ptr is NULL");
		return RPMA_E_INVAL;
	}
	*srq_ptr = LOAD(cfg->srq);
	return 0;
}

/*
 * CONN_CFG_CQ -- define the setter and getter of one CQ field; they differ
 * only by the field's name. Only a CQ of its own (rpma_cq_new()) is taken:
 * a connection's or an SRQ's CQ is freed with its owner.
 */
#define CONN_CFG_CQ(name)                                                                          \
	int rpma_conn_cfg_set_##name(struct rpma_conn_cfg *cfg, struct rpma_cq *name)              \
	{                                                                                          \
		if (cfg == NULL) {                                                                 \
			RPMA_LOG_ERROR("cfg is NULL");                                             \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		if (name != NULL && !rpma__cq_is_own(name)) {                                      \
			RPMA_LOG_ERROR(#name " was not made by rpma_cq_new()");                    \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		STORE(cfg->name, name);                                                            \
		return 0;                                                                          \
	}                                                                                          \
	int rpma_conn_cfg_get_##name(const struct rpma_conn_cfg *cfg, struct rpma_cq **name##_ptr) \
	{                                                                                          \
		if (cfg == NULL || name##_ptr == NULL) {                                           \
			RPMA_LOG_ERROR("cfg or " #name "_ptr is NULL");                            \
			return RPMA_E_INVAL;                                                       \
		}                                                                                  \
		*name##_ptr = LOAD(cfg->name);                                                     \
		return 0;                                                                          \
	}

/* see librpma.h */
CONN_CFG_CQ(cq)
CONN_CFG_CQ(rcq)
