/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * qpmap.h -- qp_num -> connection, the routing of a worker's completions:
 * an open-addressing hash table with linear probing and backward-shift
 * deletion (no tombstones), sized once for the worker's connections.
 *
 * ASSUMPTIONS: one thread (the worker's) uses a map.
 */

#ifndef RPMAF_WORKERS_QPMAP_H
#define RPMAF_WORKERS_QPMAP_H

#include <stdint.h>

struct rpmaf__qpmap_slot {
	uint32_t qp_num;
	void *val; /* NULL: the slot is empty */
};

struct rpmaf__qpmap {
	struct rpmaf__qpmap_slot *slot;
	uint32_t mask; /* slots - 1; slots is a power of two, at least twice max */
	uint32_t n;
	uint32_t max;
};

/* rpmaf__qpmap_init -- room for max entries. ERRORS: RPMAF_E_INVAL (max 0), RPMAF_E_NOMEM */
int rpmaf__qpmap_init(struct rpmaf__qpmap *m, uint32_t max);

/* rpmaf__qpmap_fini -- free the table */
void rpmaf__qpmap_fini(struct rpmaf__qpmap *m);

/*
 * rpmaf__qpmap_insert -- map qp_num to val (not NULL).
 * ERRORS: RPMAF_E_INVAL (val NULL, qp_num already mapped), RPMAF_E_AGAIN (max entries).
 */
int rpmaf__qpmap_insert(struct rpmaf__qpmap *m, uint32_t qp_num, void *val);

/* rpmaf__qpmap_get -- what qp_num maps to, or NULL */
void *rpmaf__qpmap_get(const struct rpmaf__qpmap *m, uint32_t qp_num);

/* rpmaf__qpmap_remove -- unmap qp_num. ERRORS: RPMAF_E_INVAL (not mapped) */
int rpmaf__qpmap_remove(struct rpmaf__qpmap *m, uint32_t qp_num);

#endif /* RPMAF_WORKERS_QPMAP_H */
