// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * qpmap.c -- the qp_num routing table of a worker.
 */

#include <stdlib.h>

#include "qpmap.h"
#include "rpmaf.h"

/* qpmap_home -- the first slot to probe for qp_num (a multiplicative hash) */
static inline uint32_t
qpmap_home(const struct rpmaf__qpmap *m, uint32_t qp_num)
{
	return (uint32_t)((qp_num * 2654435761u) >> 7) & m->mask;
}

/* qpmap_find -- the slot holding qp_num, or the empty slot where it would go */
static uint32_t
qpmap_find(const struct rpmaf__qpmap *m, uint32_t qp_num)
{
	uint32_t i = qpmap_home(m, qp_num);

	while (m->slot[i].val && m->slot[i].qp_num != qp_num)
		i = (i + 1) & m->mask;
	return i;
}

/* see qpmap.h */
int
rpmaf__qpmap_init(struct rpmaf__qpmap *m, uint32_t max)
{
	uint32_t slots = 2;

	if (max == 0 || max > (1u << 30))
		return RPMAF_E_INVAL;
	while (slots < 2 * max)
		slots *= 2;
	m->slot = calloc(slots, sizeof(*m->slot));
	if (!m->slot)
		return RPMAF_E_NOMEM;
	m->mask = slots - 1;
	m->n = 0;
	m->max = max;
	return 0;
}

/* see qpmap.h */
void
rpmaf__qpmap_fini(struct rpmaf__qpmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->n = m->max = 0;
}

/* see qpmap.h */
int
rpmaf__qpmap_insert(struct rpmaf__qpmap *m, uint32_t qp_num, void *val)
{
	if (!val)
		return RPMAF_E_INVAL;
	uint32_t i = qpmap_find(m, qp_num);

	if (m->slot[i].val)
		return RPMAF_E_INVAL;
	if (m->n == m->max)
		return RPMAF_E_AGAIN;
	m->slot[i].qp_num = qp_num;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

/* see qpmap.h */
void *
rpmaf__qpmap_get(const struct rpmaf__qpmap *m, uint32_t qp_num)
{
	return m->slot[qpmap_find(m, qp_num)].val;
}

/* see qpmap.h */
int
rpmaf__qpmap_remove(struct rpmaf__qpmap *m, uint32_t qp_num)
{
	uint32_t i = qpmap_find(m, qp_num);

	if (!m->slot[i].val)
		return RPMAF_E_INVAL;
	m->slot[i].val = NULL;
	m->n--;
	/* shift back the entries of the run after i that may not stay behind the hole */
	for (uint32_t j = (i + 1) & m->mask; m->slot[j].val; j = (j + 1) & m->mask) {
		uint32_t home = qpmap_home(m, m->slot[j].qp_num);

		/* the entry at j may move to i when i lies cyclically in [home, j) */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slot[i] = m->slot[j];
			m->slot[j].val = NULL;
			i = j;
		}
	}
	return 0;
}
