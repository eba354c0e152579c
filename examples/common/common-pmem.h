/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-pmem.h -- a file mapped with libpmem2, for the librpma examples
 * that keep data in persistent memory; the helpers end the program when
 * they fail (common.h).
 */

#ifndef EXAMPLES_COMMON_PMEM_H
#define EXAMPLES_COMMON_PMEM_H 1

#include <stdbool.h>
#include <stddef.h>

#include <libpmem2.h>

#include "common.h"

/* a file mapped with libpmem2 */
struct common_pmem {
	int fd;
	struct pmem2_map *map;
	void *addr;
	size_t size;
	pmem2_persist_fn persist;
	char path[4096];
	bool is_tmp; /* a temporary file, unlinked at exit */
};

void common_pmem_map(struct common_pmem *pm, const char *path, size_t size);
void common_pmem_unmap(struct common_pmem *pm);

#endif /* EXAMPLES_COMMON_PMEM_H */
