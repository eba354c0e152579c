/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * journal.h -- what --verify wrote last where, kept in a small text file
 * (--journal PATH) so that --verify-file can check a region file exactly:
 *
 *   rpma-load journal 1
 *   region NAME size BYTES slot_size BYTES slots N run RUN
 *   entries N
 *   SLOT SEQ LEN CRC          (one line per slot written; SEQ, CRC in hex)
 *
 * ASSUMPTIONS
 * A journal object belongs to one thread.
 */

#ifndef RPMA_LOAD_JOURNAL_H
#define RPMA_LOAD_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct jentry {
	uint64_t slot;
	uint64_t seq;
	uint32_t len;
	uint32_t crc;
};

struct journal {
	char region[72];
	uint64_t region_size;
	struct rec_layout layout;
	uint64_t run;
	size_t n;
	struct jentry *e; /* n entries, allocated */
};

/*
 * journal_write -- j into the file at path (replaced)
 * RETURN VALUE: 0; -1 with why (size bytes) saying what failed.
 */
int journal_write(const char *path, const struct journal *j, char *why, size_t size);

/*
 * journal_read -- the file at path into j (free with journal_fini())
 * RETURN VALUE: 0; -1 with why saying what is wrong (and j empty).
 */
int journal_read(const char *path, struct journal *j, char *why, size_t size);

/* journal_fini -- free the entries of j */
void journal_fini(struct journal *j);

#endif /* RPMA_LOAD_JOURNAL_H */
