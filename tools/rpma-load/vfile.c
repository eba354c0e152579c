/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * vfile.c -- checking a region file's records, with or without the journal.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "record.h"
#include "vfile.h"

#define VFILE_SHOW 10 /* problems shown in full */

/* what a check found */
struct vfile_res {
	uint64_t good, bad;
};

/* vfile_bad -- count a bad record and show the first ones */
static void
vfile_bad(struct vfile_res *r, const char *path, uint64_t off, const char *why)
{
	if (r->bad++ < VFILE_SHOW)
		fprintf(stderr, "rpma-load: %s: offset %" PRIu64 ": %s\n", path, off, why);
}

/* vfile_journal -- the slots of j against the file's bytes */
static void
vfile_journal(const uint8_t *b, size_t size, const struct journal *j, const char *path,
	      struct vfile_res *r)
{
	char why[160];
	uint8_t *seen = calloc(j->layout.nslots, 1);

	for (size_t i = 0; i < j->n; i++) {
		uint64_t off = j->e[i].slot * j->layout.slot_size;
		struct rec_hdr h;

		if (seen)
			seen[j->e[i].slot] = 1;
		if (rec_check(b + off, size - off, off, j->e[i].seq, j->e[i].len, why,
			      sizeof(why)) == 0) {
			memcpy(&h, b + off, sizeof(h));
			if (h.crc == j->e[i].crc) {
				r->good++;
				continue;
			}
			snprintf(why, sizeof(why), "checksum %08x, the journal says %08x", h.crc,
				 j->e[i].crc);
		}
		vfile_bad(r, path, off, why);
	}
	for (uint64_t s = 0; seen && s < j->layout.nslots; s++) {
		uint64_t off = s * j->layout.slot_size;

		if (!seen[s] && !rec_is_blank(b + off) &&
		    rec_check(b + off, j->layout.slot_size, off, 0, 0, why, sizeof(why)))
			vfile_bad(r, path, off, why);
	}
	free(seen);
}

/* vfile_scan -- every record the file holds, found by its magic and offset */
static void
vfile_scan(const uint8_t *b, size_t size, const char *path, struct vfile_res *r)
{
	char why[160];

	for (uint64_t off = 0; off + REC_HDR <= size;) {
		struct rec_hdr h;

		memcpy(&h, b + off, sizeof(h));
		if (h.magic != REC_MAGIC || h.offset != off) {
			off += REC_ALIGN;
			continue;
		}
		if (rec_check(b + off, size - off, off, 0, 0, why, sizeof(why)))
			vfile_bad(r, path, off, why);
		else
			r->good++;
		off += h.slot_size >= REC_HDR && h.slot_size % REC_ALIGN == 0 ? h.slot_size
									      : REC_ALIGN;
	}
}

/* vfile_map -- the file at path, read-only */
static const uint8_t *
vfile_map(const char *path, size_t *size)
{
	struct stat st;
	void *p = MAP_FAILED;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)REC_HDR)
		fprintf(stderr, "rpma-load: %s: %s\n", path,
			fd < 0 || errno ? strerror(errno) : "too small to hold a record");
	else if ((p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
		fprintf(stderr, "rpma-load: %s: mmap: %s\n", path, strerror(errno));
	else
		*size = (size_t)st.st_size;
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* see vfile.h */
int
vfile_check(const char *path, const char *journal_path, FILE *out)
{
	struct vfile_res r = {0, 0};
	struct journal j = {.n = 0};
	const uint8_t *b;
	char why[320];
	size_t size = 0;

	if (journal_path && journal_read(journal_path, &j, why, sizeof(why)))
		return fprintf(stderr, "rpma-load: %s\n", why), 1;
	if (!(b = vfile_map(path, &size)))
		goto err_journal;
	if (journal_path && size < j.region_size) {
		fprintf(stderr, "rpma-load: %s: %zu bytes, the journal's region has %" PRIu64 "\n",
			path, size, j.region_size);
		goto err_unmap;
	}
	if (journal_path)
		vfile_journal(b, size, &j, path, &r);
	else
		vfile_scan(b, size, path, &r);
	fprintf(out, "verify-file %s: %" PRIu64 " records good, %" PRIu64 " bad%s\n", path, r.good,
		r.bad, journal_path ? " (against the journal)" : "");
	if (!journal_path && r.good + r.bad == 0)
		fprintf(stderr, "rpma-load: %s: no record found\n", path);
	munmap((void *)b, size);
	journal_fini(&j);
	return r.bad || r.good == 0 ? 1 : 0;

err_unmap:
	munmap((void *)b, size);
err_journal:
	journal_fini(&j);
	return 1;
}
