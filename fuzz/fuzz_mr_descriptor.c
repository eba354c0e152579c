/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_mr_descriptor.c -- rpma_mr_remote_from_descriptor() on bytes from a
 * peer. Properties: an accepted descriptor describes a valid region and
 * serializes back to the same 21 bytes; a rejected one returns RPMA_E_INVAL or
 * RPMA_E_NOSUPP and leaves nothing allocated.
 */

#include <string.h>

#include "fuzz_common.h"
#include "mr.h"

/* LLVMFuzzerTestOneInput -- one descriptor */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_mr_remote *mr = NULL;
	uint8_t back[RPMA_MR_DESCRIPTOR_SIZE];

	rpma_log_set_function(fuzz_quiet_log);
	long before = Fuzz_live_allocations;
	int ret = rpma_mr_remote_from_descriptor(data, size, &mr);

	if (ret) {
		fuzz_assert(ret == RPMA_E_INVAL || ret == RPMA_E_NOSUPP);
		fuzz_assert(mr == NULL);
		fuzz_assert(Fuzz_live_allocations == before);
		fuzz_assert(size >= RPMA_MR_DESCRIPTOR_SIZE || ret == RPMA_E_INVAL);
		return 0;
	}

	fuzz_assert(size >= RPMA_MR_DESCRIPTOR_SIZE);
	rpma__mr_remote_to_descriptor(mr, back);
	fuzz_assert(memcmp(back, data, RPMA_MR_DESCRIPTOR_SIZE) == 0);

	int usage = data[20];
	int flush_type;

	fuzz_assert(usage != 0 && (usage & ~RPMA_MR_USAGE_ALL) == 0);
	fuzz_assert(rpma_mr_remote_get_flush_type(mr, &flush_type) == 0);
	fuzz_assert(flush_type == (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
					    RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)));

	uint64_t addr, length;
	size_t got_size;

	memcpy(&addr, data, 8);
	memcpy(&length, data + 8, 8);
	addr = le64toh(addr);
	length = le64toh(length);
	fuzz_assert(addr + length >= addr);
	fuzz_assert(rpma_mr_remote_get_size(mr, &got_size) == 0);
	fuzz_assert(got_size == length);

	fuzz_assert(rpma_mr_remote_delete(&mr) == 0 && mr == NULL);
	fuzz_assert(Fuzz_live_allocations == before);
	return 0;
}
