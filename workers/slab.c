// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * slab.c -- a worker's preallocated message and operation buffers.
 */

#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "slab.h"

#define SLAB_ALIGN 4096

/* see slab.h */
int
rpmaf__slab_init(struct rpmaf__slab *s, uint32_t n, size_t bsize)
{
	memset(s, 0, sizeof(*s));
	if (n == 0 || bsize == 0 || bsize > SIZE_MAX / n - SLAB_ALIGN)
		return RPMAF_E_INVAL;
	size_t total = ((size_t)n * bsize + SLAB_ALIGN - 1) / SLAB_ALIGN * SLAB_ALIGN;

	s->base = aligned_alloc(SLAB_ALIGN, total);
	s->free = calloc(n, sizeof(*s->free));
	s->busy = calloc(n, sizeof(*s->busy));
	if (!s->base || !s->free || !s->busy) {
		rpmaf__slab_fini(s);
		return RPMAF_E_NOMEM;
	}
	memset(s->base, 0, total);
	s->bsize = bsize;
	s->n = n;
	for (uint32_t i = 0; i < n; i++)
		s->free[i] = n - 1 - i;
	s->nfree = n;
	return 0;
}

/* see slab.h */
void
rpmaf__slab_fini(struct rpmaf__slab *s)
{
	free(s->base);
	free(s->free);
	free(s->busy);
	memset(s, 0, sizeof(*s));
}

/* see slab.h */
void *
rpmaf__slab_get(struct rpmaf__slab *s)
{
	if (s->nfree == 0)
		return NULL;
	uint32_t i = s->free[--s->nfree];

	s->busy[i] = 1;
	return s->base + (size_t)i * s->bsize;
}

/* see slab.h */
uint32_t
rpmaf__slab_index(const struct rpmaf__slab *s, const void *buf)
{
	const char *p = buf;

	if (!p || !s->base || p < s->base || p >= s->base + (size_t)s->n * s->bsize)
		return UINT32_MAX;
	size_t off = (size_t)(p - s->base);

	if (off % s->bsize)
		return UINT32_MAX;
	return (uint32_t)(off / s->bsize);
}

/* see slab.h */
int
rpmaf__slab_put(struct rpmaf__slab *s, void *buf)
{
	uint32_t i = rpmaf__slab_index(s, buf);

	if (i == UINT32_MAX || !s->busy[i])
		return RPMAF_E_INVAL;
	s->busy[i] = 0;
	s->free[s->nfree++] = i;
	return 0;
}

/* see slab.h */
size_t
rpmaf__slab_size(const struct rpmaf__slab *s)
{
	return (size_t)s->n * s->bsize;
}
