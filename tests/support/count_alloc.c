/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * count_alloc.c -- malloc, calloc and realloc, counted per thread (see
 * count_alloc.h)
 */

#include <stddef.h>

#include "count_alloc.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);

static _Thread_local long Allocs;

/* see count_alloc.h */
long
count_alloc(void)
{
	return Allocs;
}

/* __wrap_malloc -- malloc, counted */
void *
__wrap_malloc(size_t size)
{
	Allocs++;
	return __real_malloc(size);
}

/* __wrap_calloc -- calloc, counted */
void *
__wrap_calloc(size_t n, size_t size)
{
	Allocs++;
	return __real_calloc(n, size);
}

/* __wrap_realloc -- realloc, counted */
void *
__wrap_realloc(void *ptr, size_t size)
{
	Allocs++;
	return __real_realloc(ptr, size);
}
