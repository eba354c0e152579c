/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_common.h -- what every harness shares: counting the library's live
 * allocations (malloc and free are wrapped at link time), so that a harness
 * can assert that a rejected input allocated nothing, and a quiet log.
 */

#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "librpma.h"

void *__real_malloc(size_t size);
void __real_free(void *ptr);

static long Fuzz_live_allocations;

/* __wrap_malloc -- count what the library allocates */
void *
__wrap_malloc(size_t size)
{
	void *p = __real_malloc(size);

	if (p)
		Fuzz_live_allocations++;
	return p;
}

/* __wrap_free -- and what it frees */
void
__wrap_free(void *ptr)
{
	if (ptr)
		Fuzz_live_allocations--;
	__real_free(ptr);
}

/* fuzz_quiet_log -- rejected inputs are logged by the library; keep them out of the output */
static void
fuzz_quiet_log(enum rpma_log_level level, const char *file_name, const int line_no,
	       const char *function_name, const char *message_format, ...)
{
	(void)level;
	(void)file_name;
	(void)line_no;
	(void)function_name;
	(void)message_format;
}

#endif /* FUZZ_COMMON_H */
