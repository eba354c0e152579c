/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rverify.c -- after a --verify run: read back every slot whose last write
 * completed and check its record; write the journal of those slots.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "run_int.h"

#define VERIFY_WINDOW 16
#define VERIFY_SHOW   10

/* verify_batch -- read the n slots of idx into the read-back buffers and check each */
static void
verify_batch(struct run *r, const uint64_t *idx, unsigned n, uint64_t *bad)
{
	struct client *c = r->cl;
	struct rpmaf_op ops[VERIFY_WINDOW];
	int ret[VERIFY_WINDOW];
	char why[160];

	for (unsigned i = 0; i < n; i++)
		ret[i] = rpmaf_pool_read(
		    c->pool, &ops[i], r->wl->region, idx[i] * r->layout.slot_size, c->mr,
		    r->vbase + i * r->layout.slot_size, r->vs[idx[i]].len, NULL, NULL);
	for (unsigned i = 0; i < n; i++) {
		const struct vslot *v = &r->vs[idx[i]];
		uint64_t off = idx[i] * r->layout.slot_size;

		if (!ret[i])
			ret[i] = rpmaf_op_wait(&ops[i]);
		if (ret[i])
			snprintf(why, sizeof(why), "cannot read it back: %s",
				 rpmaf_err_str(ret[i]));
		else if (!rec_check(c->mem + r->vbase + i * r->layout.slot_size, v->len, off,
				    v->seq, v->len, why, sizeof(why)))
			continue;
		if ((*bad)++ < VERIFY_SHOW)
			fprintf(stderr, "rpma-load: verify: region %s offset %llu: %s\n",
				r->wl->region, (unsigned long long)off, why);
	}
}

/* see run.h */
int
run_verify(struct run *r, uint64_t *checked, uint64_t *bad)
{
	uint64_t idx[VERIFY_WINDOW];
	unsigned n = 0;

	*checked = *bad = 0;
	for (uint64_t s = 0; r->verify && s < r->layout.nslots; s++) {
		if (r->vs[s].state != VS_GOOD)
			continue;
		idx[n++] = s;
		(*checked)++;
		if (n == VERIFY_WINDOW) {
			verify_batch(r, idx, n, bad);
			n = 0;
		}
	}
	if (n)
		verify_batch(r, idx, n, bad);
	return *bad ? -1 : 0;
}

/* see run.h */
int
run_journal(const struct run *r, const char *path)
{
	struct journal j = {.region_size = r->cl->info.size, .layout = r->layout, .run = r->run_id};
	char why[320];
	int ret;

	snprintf(j.region, sizeof(j.region), "%s", r->wl->region);
	if (!(j.e = calloc(r->layout.nslots ? r->layout.nslots : 1, sizeof(*j.e))))
		return fprintf(stderr, "rpma-load: out of memory\n"), -1;
	for (uint64_t s = 0; s < r->layout.nslots; s++)
		if (r->vs[s].state == VS_GOOD)
			j.e[j.n++] = (struct jentry){s, r->vs[s].seq, r->vs[s].len, r->vs[s].crc};
	if ((ret = journal_write(path, &j, why, sizeof(why))))
		fprintf(stderr, "rpma-load: journal %s\n", why);
	journal_fini(&j);
	return ret;
}
