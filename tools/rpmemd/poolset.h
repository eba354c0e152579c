/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * poolset.h -- rpmemd's remote pool set file (poolset(5)), read from bytes:
 *
 *   PMEMPOOLSET               the first line, exactly (a trailing CR is allowed)
 *   OPTION SINGLEHDR          optional: SINGLEHDR or NOHDRS (not both), anywhere below
 *   # a comment               '#' starts a comment anywhere in a line; blank lines are skipped
 *   2G /mnt/pmem0/pool.part0  a part: SIZE PATH, one a line, separated by spaces or tabs
 *   512M pool.part1           a relative PATH names a file beside the set file
 *
 * SIZE is decimal digits with an optional unit, as poolset(5) and PMDK's
 * util_parse_size() take it: B (1); K, M, G, T, P and KiB, MiB, GiB, TiB,
 * PiB (powers of 1024); kB, MB, GB, TB, PB (powers of 1000). A part has at
 * least POOLSET_MIN_PART bytes.
 *
 * Refused, each with its own message: a REPLICA line (a remote pool set has
 * no replicas), an unknown option, an AUTO size (Device DAX), a PATH ending
 * in '/' (directory parts are not supported; a directory named without the
 * slash is left to the code that opens the parts to refuse), two parts with
 * one PATH, a size or a sum of sizes beyond SIZE_MAX, control characters and
 * NUL bytes, and more than the limits below. poolset(5) wants absolute
 * paths; a relative one is taken here as the set file's neighbour. Where
 * a path leads is not looked at here: pool.c refuses a part outside the
 * pool set directory (pool.h, FILES).
 *
 * Every error is a negative errno and one message, "FILE:LINE:COLUMN: what
 * is wrong", LINE and COLUMN counted from 1 (COLUMN in bytes).
 *
 * ASSUMPTIONS
 * The functions keep no state of their own: any thread may call them at any
 * time. A parsed set is read-only; any number of threads may read it, and
 * the one that calls poolset_delete() must be the last.
 */

#ifndef RPMEMD_POOLSET_H
#define RPMEMD_POOLSET_H

#include <limits.h>
#include <stddef.h>

#define POOLSET_MIN_PART  ((size_t)2 << 20) /* bytes of a part: librpmem's RPMEM_MIN_PART */
#define POOLSET_MAX_FILE  ((size_t)1 << 20) /* bytes of a set file */
#define POOLSET_MAX_LINE  8192u		    /* bytes of a line, without its line feed */
#define POOLSET_MAX_PARTS 1024u		    /* parts of a set */
#define POOLSET_ERR_MAX	  (PATH_MAX + 512)  /* holds any message of a set_path below PATH_MAX */

#define POOLSET_OPT_SINGLEHDR (1u << 0) /* a header in the first part only */
#define POOLSET_OPT_NOHDRS    (1u << 1) /* no headers at all */

struct poolset_part {
	char *path;    /* as written, or joined to the set file's directory when relative */
	size_t size;   /* bytes, as written */
	unsigned line; /* the line of the set file that names it */
};

struct poolset {
	unsigned options;	    /* POOLSET_OPT_*, never both */
	unsigned nparts;	    /* 1 to POOLSET_MAX_PARTS */
	struct poolset_part *parts; /* in the order of the file */
};

/*
 * poolset_parse -- the pool set in len bytes at buf, read from the file at
 * set_path (the name in messages, and the directory of relative parts),
 * into *set_ptr (free it with poolset_delete())
 *
 * RETURN VALUE
 * 0; or a negative errno with *set_ptr untouched and, when err is not NULL,
 * the message in err (cut to err_len bytes, NUL included; POOLSET_ERR_MAX is
 * enough when set_path is shorter than PATH_MAX; an invalid argument gets
 * "poolset_parse: invalid argument", without a position):
 * -EINVAL        set_path or set_ptr is NULL, buf is NULL with len not 0, or
 *                the text is not a valid remote pool set
 * -EOVERFLOW     a size, or the sum of the sizes, does not fit in a size_t
 * -E2BIG         len is above POOLSET_MAX_FILE, a line above POOLSET_MAX_LINE,
 *                or there are more than POOLSET_MAX_PARTS parts
 * -ENAMETOOLONG  a part's path, joined to the set file's directory, is
 *                PATH_MAX bytes or longer
 * -ENOMEM        out of memory
 */
int poolset_parse(const char *buf, size_t len, const char *set_path, struct poolset **set_ptr,
		  char *err, size_t err_len);

/*
 * poolset_delete -- free *set_ptr (NULL is fine) and set it to NULL
 */
void poolset_delete(struct poolset **set_ptr);

/*
 * poolset_nhdrs -- how many parts, from the first, begin with a header:
 * every part, the first only (SINGLEHDR) or none (NOHDRS)
 */
unsigned poolset_nhdrs(const struct poolset *set);

/*
 * poolset_pool_size -- the size of the remote pool the set makes, as the
 * librpmem manual defines it: the sum of the sizes of the parts less
 * POOL_HDR_SIZE (4096) bytes for each header (one per part; one with SINGLEHDR; none with
 * NOHDRS). A part counts its size rounded down to a multiple of 4096, as
 * PMDK maps it; for such sizes this is the manual's formula exactly.
 *
 * RETURN VALUE
 * 0 with the size in *size; -EINVAL when set or size is NULL or the headers
 * do not fit in the parts, -EOVERFLOW when the sum does not fit in a size_t
 * (neither happens to a set poolset_parse() returned).
 */
int poolset_pool_size(const struct poolset *set, size_t *size);

#endif /* RPMEMD_POOLSET_H */
