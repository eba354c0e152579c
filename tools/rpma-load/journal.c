/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * journal.c -- the journal file of --verify: written after a run, read by
 * --verify-file.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

#define JOURNAL_MAGIC "rpma-load journal 1"

/* see journal.h */
int
journal_write(const char *path, const struct journal *j, char *why, size_t size)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return snprintf(why, size, "%s: %s", path, strerror(errno)), -1;
	fprintf(f,
		"%s\nregion %s size %" PRIu64 " slot_size %" PRIu64 " slots %" PRIu64
		" atomic %" PRIu64 " run %" PRIu64 "\nentries %zu\n",
		JOURNAL_MAGIC, j->region, j->region_size, j->layout.slot_size, j->layout.nslots,
		j->layout.atomic_len, j->run, j->n);
	for (size_t i = 0; i < j->n; i++)
		fprintf(f, "%" PRIu64 " %" PRIx64 " %u %08x\n", j->e[i].slot, j->e[i].seq,
			j->e[i].len, j->e[i].crc);
	bad = ferror(f);
	if (fclose(f) || bad)
		return snprintf(why, size, "%s: cannot write", path), -1;
	return 0;
}

/* journal_head -- the three header lines of the journal f into j */
static int
journal_head(FILE *f, struct journal *j)
{
	char magic[64];

	if (!fgets(magic, sizeof(magic), f) || strncmp(magic, JOURNAL_MAGIC "\n", sizeof(magic)))
		return -1;
	if (fscanf(f,
		   "region %71s size %" SCNu64 " slot_size %" SCNu64 " slots %" SCNu64
		   " atomic %" SCNu64 " run %" SCNu64 " entries %zu",
		   j->region, &j->region_size, &j->layout.slot_size, &j->layout.nslots,
		   &j->layout.atomic_len, &j->run, &j->n) != 7)
		return -1;
	if (j->layout.slot_size < REC_HDR || j->layout.slot_size % REC_ALIGN ||
	    j->layout.nslots > j->region_size / j->layout.slot_size || j->n > j->layout.nslots ||
	    j->layout.atomic_len > j->region_size - j->layout.nslots * j->layout.slot_size)
		return -1;
	j->layout.atomic_off = j->region_size - j->layout.atomic_len;
	return 0;
}

/*
 * journal_entries -- the j->n entry lines of f, in increasing slot order
 * (as journal_write() writes them: one entry per slot). The array grows
 * with the lines read, so that a count of entries the file does not hold
 * allocates no more than the lines it does hold need.
 */
static int
journal_entries(FILE *f, struct journal *j)
{
	size_t n = j->n, cap = 0;

	j->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct jentry e, *grown;

		if (fscanf(f, "%" SCNu64 " %" SCNx64 " %u %x", &e.slot, &e.seq, &e.len, &e.crc) !=
			4 ||
		    e.slot >= j->layout.nslots || (i && e.slot <= j->e[i - 1].slot) ||
		    e.len < REC_HDR || e.len > j->layout.slot_size)
			return -1;
		if (i == cap) {
			cap = cap ? cap * 2 : 64;
			if (cap > n)
				cap = n;
			if (!(grown = realloc(j->e, cap * sizeof(*j->e))))
				return -1;
			j->e = grown;
		}
		j->e[j->n++] = e;
	}
	return 0;
}

/* see journal.h */
int
journal_read(const char *path, struct journal *j, char *why, size_t size)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	memset(j, 0, sizeof(*j));
	if (!f)
		return snprintf(why, size, "%s: %s", path, strerror(errno)), -1;
	if (journal_head(f, j) || journal_entries(f, j)) {
		snprintf(why, size, "%s: not a journal of rpma-load (or a damaged one)", path);
		journal_fini(j);
		ret = -1;
	}
	fclose(f);
	return ret;
}

/* see journal.h */
void
journal_fini(struct journal *j)
{
	free(j->e);
	j->e = NULL;
	j->n = 0;
}
