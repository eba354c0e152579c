/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_peer_cfg_descriptor.c -- rpma_peer_cfg_from_descriptor() on bytes
 * from a peer. Properties: an accepted descriptor serializes back to the same
 * byte and agrees with the getter; a rejected one returns RPMA_E_INVAL or
 * RPMA_E_NOSUPP and leaves nothing allocated.
 */

#include "fuzz_common.h"

/* LLVMFuzzerTestOneInput -- one descriptor */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_peer_cfg *pcfg = NULL;
	uint8_t back = 0xff;
	size_t desc_size = 0;
	bool direct;

	rpma_log_set_function(fuzz_quiet_log);
	long before = Fuzz_live_allocations;
	int ret = rpma_peer_cfg_from_descriptor(data, size, &pcfg);

	if (ret) {
		fuzz_assert(ret == RPMA_E_INVAL || ret == RPMA_E_NOSUPP);
		fuzz_assert(pcfg == NULL);
		fuzz_assert(Fuzz_live_allocations == before);
		fuzz_assert(size == 0 || data[0] > 1);
		return 0;
	}

	fuzz_assert(size >= 1 && data[0] <= 1);
	fuzz_assert(rpma_peer_cfg_get_descriptor_size(pcfg, &desc_size) == 0 && desc_size == 1);
	fuzz_assert(rpma_peer_cfg_get_descriptor(pcfg, &back) == 0);
	fuzz_assert(back == data[0]);
	fuzz_assert(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct) == 0);
	fuzz_assert(direct == (data[0] == 1));
	fuzz_assert(rpma_peer_cfg_delete(&pcfg) == 0 && pcfg == NULL);
	fuzz_assert(Fuzz_live_allocations == before);
	return 0;
}
