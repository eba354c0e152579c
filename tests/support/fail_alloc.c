/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fail_alloc.c -- malloc, calloc and realloc that fail on demand (see
 * fail_alloc.h)
 */

#include <stddef.h>

#include "fail_alloc.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);

static long Fail_after = -1;

/* see fail_alloc.h */
void
fail_alloc_after(long n)
{
	Fail_after = n;
}

/* alloc_fails -- this allocation is one that must fail */
static int
alloc_fails(void)
{
	if (Fail_after < 0)
		return 0;
	if (Fail_after == 0)
		return 1;
	Fail_after--;
	return 0;
}

/* __wrap_malloc -- malloc, failing on demand */
void *
__wrap_malloc(size_t size)
{
	return alloc_fails() ? NULL : __real_malloc(size);
}

/* __wrap_calloc -- calloc, failing on demand */
void *
__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

/* __wrap_realloc -- realloc, failing on demand */
void *
__wrap_realloc(void *ptr, size_t size)
{
	return alloc_fails() ? NULL : __real_realloc(ptr, size);
}
