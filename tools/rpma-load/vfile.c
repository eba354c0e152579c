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

/*
 * vfile_read_all -- the n bytes of fd into buf; 0, or -1 with errno set (EIO
 * when the file got shorter meanwhile)
 */
static int
vfile_read_all(int fd, uint8_t *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = pread(fd, buf + done, n - done, (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			errno = got < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)got;
	}
	return 0;
}

/*
 * vfile_load -- the file at path, read into memory (freed by the caller):
 * read, not mapped, so that a hole in a file on a full tmpfs reads as zeros
 * instead of killing the checker with SIGBUS
 */
static uint8_t *
vfile_load(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *b = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		fprintf(stderr, "rpma-load: %s: %s\n", path, strerror(errno));
	else if (st.st_size < (off_t)REC_HDR)
		fprintf(stderr, "rpma-load: %s: too small to hold a record\n", path);
	else if (!(b = malloc((size_t)st.st_size)))
		fprintf(stderr, "rpma-load: %s: no memory for its %lld bytes\n", path,
			(long long)st.st_size);
	else if (vfile_read_all(fd, b, (size_t)st.st_size)) {
		fprintf(stderr, "rpma-load: %s: read: %s\n", path, strerror(errno));
		free(b);
		b = NULL;
	} else
		*size = (size_t)st.st_size;
	if (fd >= 0)
		close(fd);
	return b;
}

/* see vfile.h */
int
vfile_check(const char *path, const char *journal_path, FILE *out)
{
	struct vfile_res r = {0, 0};
	struct journal j = {.n = 0};
	uint8_t *b;
	char why[320];
	size_t size = 0;

	if (journal_path && journal_read(journal_path, &j, why, sizeof(why)))
		return fprintf(stderr, "rpma-load: %s\n", why), 1;
	if (!(b = vfile_load(path, &size)))
		goto err_journal;
	if (journal_path && size < j.region_size) {
		fprintf(stderr, "rpma-load: %s: %zu bytes, the journal's region has %" PRIu64 "\n",
			path, size, j.region_size);
		goto err_free;
	}
	if (journal_path)
		vfile_journal(b, size, &j, path, &r);
	else
		vfile_scan(b, size, path, &r);
	fprintf(out, "verify-file %s: %" PRIu64 " records good, %" PRIu64 " bad%s\n", path, r.good,
		r.bad, journal_path ? " (against the journal)" : "");
	if (!journal_path && r.good + r.bad == 0)
		fprintf(stderr, "rpma-load: %s: no record found\n", path);
	free(b);
	journal_fini(&j);
	return r.bad || r.good == 0 ? 1 : 0;

err_free:
	free(b);
err_journal:
	journal_fini(&j);
	return 1;
}
