/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * peer_cfg.c -- the peer configuration: whether the platform makes RDMA
 * writes persistent on arrival (direct write to PMem), and its descriptor.
 */

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "peer_cfg.h"

struct rpma_peer_cfg {
	bool direct_write_to_pmem; /* accessed atomically */
};

/* see librpma.h */
int
rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL) {
		RPMA_LOG_ERROR("pcfg_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_peer_cfg *cfg = malloc(sizeof(*cfg));

	if (cfg == NULL) {
		RPMA_LOG_ERROR("cannot allocate a peer configuration");
		return RPMA_E_NOMEM;
	}
	cfg->direct_write_to_pmem = false;
	*pcfg_ptr = cfg;
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL) {
		RPMA_LOG_ERROR("pcfg_ptr is NULL");
		return RPMA_E_INVAL;
	}
	free(*pcfg_ptr);
	*pcfg_ptr = NULL;
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported)
{
	if (pcfg == NULL) {
		RPMA_LOG_ERROR("pcfg is NULL");
		return RPMA_E_INVAL;
	}
	__atomic_store_n(&pcfg->direct_write_to_pmem, supported, __ATOMIC_RELAXED);
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported)
{
	if (pcfg == NULL || supported == NULL) {
		RPMA_LOG_ERROR("pcfg or supported is NULL");
		return RPMA_E_INVAL;
	}
	*supported = __atomic_load_n(&pcfg->direct_write_to_pmem, __ATOMIC_RELAXED);
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc)
{
	if (pcfg == NULL || desc == NULL) {
		RPMA_LOG_ERROR("pcfg or desc is NULL");
		return RPMA_E_INVAL;
	}
	*(uint8_t *)desc = __atomic_load_n(&pcfg->direct_write_to_pmem, __ATOMIC_RELAXED) ? 1 : 0;
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size)
{
	if (pcfg == NULL || desc_size == NULL) {
		RPMA_LOG_ERROR("pcfg or desc_size is NULL");
		return RPMA_E_INVAL;
	}
	*desc_size = RPMA_PEER_CFG_DESCRIPTOR_SIZE;
	return 0;
}

/* see librpma.h */
int
rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size, struct rpma_peer_cfg **pcfg_ptr)
{
	if (desc == NULL || pcfg_ptr == NULL) {
		RPMA_LOG_ERROR("desc or pcfg_ptr is NULL");
		return RPMA_E_INVAL;
	}
	if (desc_size < RPMA_PEER_CFG_DESCRIPTOR_SIZE) {
		RPMA_LOG_ERROR("peer configuration descriptor of %zu bytes, expected %d", desc_size,
			       RPMA_PEER_CFG_DESCRIPTOR_SIZE);
		return RPMA_E_INVAL;
	}

	uint8_t value = *(const uint8_t *)desc;

	if (value > 1) {
		RPMA_LOG_ERROR("invalid direct-write-to-PMem value in descriptor: %u", value);
		return RPMA_E_INVAL;
	}

	struct rpma_peer_cfg *cfg;
	int ret = rpma_peer_cfg_new(&cfg);

	if (ret)
		return ret;
	cfg->direct_write_to_pmem = value == 1;
	*pcfg_ptr = cfg;
	return 0;
}
