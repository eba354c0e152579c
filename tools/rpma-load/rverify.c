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

/* unreachable -- whether a read's status says the target could not be reached */
static bool
unreachable(int code)
{
	return code == RPMAF_E_AGAIN || code == RPMAF_E_CONNLOST || code == RPMAF_E_TIMEOUT ||
	       code == RPMAF_E_SHUTDOWN;
}

/* verify_show -- one record that is bad, or not checked, on stderr (the first few) */
static void
verify_show(const struct run *r, uint64_t *shown, uint64_t off, const char *what)
{
	if ((*shown)++ < VERIFY_SHOW)
		fprintf(stderr, "rpma-load: verify: region %s offset %llu: %s\n", r->wl->region,
			(unsigned long long)off, what);
}

/*
 * verify_batch -- read the n slots of idx into the read-back buffers and
 * check each; returns how many could not be read because the target could
 * not be reached
 */
static unsigned
verify_batch(struct run *r, const uint64_t *idx, unsigned n, uint64_t *bad, uint64_t *unchecked,
	     uint64_t *shown)
{
	struct client *c = r->cl;
	struct rpmaf_op ops[VERIFY_WINDOW];
	int ret[VERIFY_WINDOW];
	unsigned lost = 0;
	char why[200];

	for (unsigned i = 0; i < n; i++)
		ret[i] = rpmaf_pool_read(
		    c->pool, &ops[i], r->wl->region, idx[i] * r->layout.slot_size, c->mr,
		    r->vbase + i * r->layout.slot_size, r->vs[idx[i]].len, NULL, NULL);
	for (unsigned i = 0; i < n; i++) {
		const struct vslot *v = &r->vs[idx[i]];
		uint64_t off = idx[i] * r->layout.slot_size;

		if (!ret[i])
			ret[i] = rpmaf_op_wait(&ops[i]);
		if (ret[i]) {
			snprintf(why, sizeof(why), "not checked (%s): %s",
				 unreachable(ret[i]) ? "target unreachable" : "cannot read it back",
				 run_err_str(ret[i]));
			(*unchecked)++;
			if (unreachable(ret[i])) {
				lost++;
				continue; /* the summary says it, once */
			}
		} else if (!rec_check(c->mem + r->vbase + i * r->layout.slot_size, v->len, off,
				      v->seq, v->len, why, sizeof(why))) {
			continue;
		} else {
			(*bad)++;
		}
		verify_show(r, shown, off, why);
	}
	return lost;
}

/* no_healthy -- the pool has no healthy connection now */
static bool
no_healthy(const struct run *r)
{
	struct rpmaf_pool_stats st;

	return rpmaf_pool_get_stats(r->cl->pool, &st) == 0 && st.healthy == 0;
}

/* see run.h */
int
run_verify(struct run *r, uint64_t *checked, uint64_t *bad, uint64_t *unchecked)
{
	uint64_t idx[VERIFY_WINDOW], shown = 0;
	bool give_up = false;
	unsigned n = 0;

	*checked = *bad = *unchecked = 0;
	for (uint64_t s = 0; r->verify && s < r->layout.nslots; s++) {
		if (r->vs[s].state != VS_GOOD)
			continue;
		if (give_up || run_interrupted()) {
			(*unchecked)++;
			continue;
		}
		idx[n++] = s;
		if (n == VERIFY_WINDOW) {
			give_up =
			    verify_batch(r, idx, n, bad, unchecked, &shown) == n && no_healthy(r);
			n = 0;
		}
	}
	if (n && !run_interrupted())
		verify_batch(r, idx, n, bad, unchecked, &shown);
	else
		*unchecked += n;
	*checked = 0;
	for (uint64_t s = 0; r->verify && s < r->layout.nslots; s++)
		*checked += r->vs[s].state == VS_GOOD;
	*checked -= *unchecked;
	return *bad || *unchecked ? -1 : 0;
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
