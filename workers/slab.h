/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * slab.h -- fixed-size buffers carved from one page-aligned allocation made
 * once (and registered once by the worker), handed out from a stack of free
 * indexes: get and put are O(1) and allocate nothing.
 *
 * ASSUMPTIONS: one thread (the worker's) uses a slab.
 */

#ifndef RPMAF_WORKERS_SLAB_H
#define RPMAF_WORKERS_SLAB_H

#include <stddef.h>
#include <stdint.h>

struct rpmaf__slab {
	char *base;	/* n * bsize bytes, page-aligned */
	size_t bsize;	/* bytes of one buffer */
	uint32_t n;	/* buffers */
	uint32_t nfree; /* entries of free[] in use */
	uint32_t *free; /* indexes of the free buffers; the last one is handed out next */
	uint8_t *busy;	/* busy[i]: buffer i is handed out */
};

/*
 * rpmaf__slab_init -- n buffers of bsize bytes; the first gets hand out
 * buffers 0, 1, 2, ... in that order.
 * ERRORS: RPMAF_E_INVAL (n or bsize 0, or n * bsize overflows), RPMAF_E_NOMEM.
 */
int rpmaf__slab_init(struct rpmaf__slab *s, uint32_t n, size_t bsize);

/* rpmaf__slab_fini -- free everything (buffers handed out included) */
void rpmaf__slab_fini(struct rpmaf__slab *s);

/* rpmaf__slab_get -- a free buffer, or NULL when none is left */
void *rpmaf__slab_get(struct rpmaf__slab *s);

/*
 * rpmaf__slab_put -- give a buffer back.
 * ERRORS: RPMAF_E_INVAL (not the start of a buffer of s, or not handed out).
 */
int rpmaf__slab_put(struct rpmaf__slab *s, void *buf);

/* rpmaf__slab_index -- the index of the buffer that starts at buf, or UINT32_MAX */
uint32_t rpmaf__slab_index(const struct rpmaf__slab *s, const void *buf);

/* rpmaf__slab_size -- bytes of all the buffers (what the worker registers) */
size_t rpmaf__slab_size(const struct rpmaf__slab *s);

#endif /* RPMAF_WORKERS_SLAB_H */
