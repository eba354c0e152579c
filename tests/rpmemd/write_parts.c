/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * write_parts.c -- the part files of a pool set, written with rpmemd's set
 * file parser and part headers, for Debian's pmempool to read
 * (tests/rpmemd/test-pmempool.sh):
 *
 *   write-parts SET COMPAT INCOMPAT self|remote
 *
 * The attributes are those of a libpmemobj pool: "PMEMOBJ", major 6, the
 * features given, random pool set and first part UUIDs, this machine's
 * architecture flags as user flags. The replica UUIDs name the first part
 * itself (self: a pool of one replica) or another replica (remote: as a
 * client's attributes for its remote replica). Each part is created at its
 * size, its header written when it has one; then the headers are read
 * back, verified as a set, and their attributes compared with those given.
 * Prints the remote pool's size. Exits 0, 1 on an error, 77 on a machine
 * whose architecture flags it does not know.
 */

#include <fcntl.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "pool_hdr.h"
#include "poolset.h"

#if defined(__x86_64__)
#define MACHINE 62
#elif defined(__aarch64__)
#define MACHINE 183
#elif defined(__powerpc64__)
#define MACHINE 21
#elif defined(__riscv) && __riscv_xlen == 64
#define MACHINE 243
#else
#define MACHINE 0 /* unknown: the test is skipped */
#endif

/* arch_flags -- this machine's architecture flags, as libpmemobj records them */
static void
arch_flags(unsigned char *f)
{
	const size_t align[] = {alignof(char),	      alignof(short),	  alignof(int),
				alignof(long),	      alignof(long long), alignof(size_t),
				alignof(off_t),	      alignof(float),	  alignof(double),
				alignof(long double), alignof(void *)};
	uint64_t desc = 0;

	for (unsigned i = 0; i < sizeof(align) / sizeof(align[0]); i++)
		desc |= (uint64_t)((align[i] - 1) & 0xf) << (4 * i);
	memset(f, 0, POOL_HDR_ARCH_LEN);
	for (int i = 0; i < 8; i++)
		f[i] = (unsigned char)(desc >> (8 * i));
	f[8] = 2; /* 64-bit */
	f[9] = 1; /* little-endian */
	f[14] = (unsigned char)(MACHINE & 0xff);
	f[15] = (unsigned char)(MACHINE >> 8);
}

/* attr_make -- the attributes of a libpmemobj pool with the given features */
static int
attr_make(struct pool_hdr_attr *attr, uint32_t compat, uint32_t incompat, int remote)
{
	memset(attr, 0, sizeof(*attr));
	memcpy(attr->id.signature, "PMEMOBJ", 8);
	attr->id.major = 6;
	attr->id.compat_features = compat;
	attr->id.incompat_features = incompat;
	if (getrandom(attr->id.poolset_uuid, 16, 0) != 16 ||
	    getrandom(attr->id.uuid, 16, 0) != 16 || getrandom(attr->prev_uuid, 16, 0) != 16)
		return -1;
	if (!remote)
		memcpy(attr->prev_uuid, attr->id.uuid, POOL_HDR_UUID_LEN);
	memcpy(attr->next_uuid, attr->prev_uuid, POOL_HDR_UUID_LEN);
	arch_flags(attr->user_flags);
	return 0;
}

/* read_set -- the set file at path, parsed */
static struct poolset *
read_set(const char *path)
{
	static char text[POOLSET_MAX_FILE + 1];
	char err[POOLSET_ERR_MAX];
	struct poolset *set = NULL;
	FILE *f = fopen(path, "r");
	size_t len;

	if (f == NULL) {
		perror(path);
		return NULL;
	}
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	if (poolset_parse(text, len, path, &set, err, sizeof(err)))
		fprintf(stderr, "%s\n", err);
	return set;
}

/* write_part -- a new part file of the part's size, hdr at its start unless hdr is NULL */
static int
write_part(const struct poolset_part *part, const struct pool_hdr *hdr)
{
	unsigned char buf[POOL_HDR_SIZE];
	int fd = open(part->path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	int ret = -1;

	if (fd < 0) {
		perror(part->path);
		return -1;
	}
	if (ftruncate(fd, (off_t)part->size)) {
		perror("ftruncate");
		goto out_close;
	}
	if (hdr) {
		pool_hdr_encode(hdr, buf);
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
			perror("pwrite");
			goto out_close;
		}
	}
	ret = 0;
out_close:
	close(fd);
	return ret;
}

/* write_parts -- every part of the set, the first nhdrs with their headers */
static int
write_parts(const struct poolset *set, const struct pool_hdr_attr *attr)
{
	unsigned nhdrs = poolset_nhdrs(set);
	unsigned char(*uuids)[POOL_HDR_UUID_LEN] = calloc(set->nparts, POOL_HDR_UUID_LEN);
	struct pool_hdr hdr;
	int ret = -1;

	if (uuids == NULL || (nhdrs && pool_hdr_uuids_new(attr, nhdrs, uuids)))
		goto out_free;
	for (unsigned i = 0; i < set->nparts; i++) {
		if (i < nhdrs && pool_hdr_build(attr, (const unsigned char(*)[16])uuids, nhdrs, i,
						(uint64_t)time(NULL), &hdr))
			goto out_free;
		if (write_part(&set->parts[i], i < nhdrs ? &hdr : NULL))
			goto out_free;
	}
	ret = 0;
out_free:
	free(uuids);
	return ret;
}

/* read_back -- the headers read from the parts: each valid, all agreeing, attr given back */
static int
read_back(const struct poolset *set, const struct pool_hdr_attr *attr)
{
	unsigned nhdrs = poolset_nhdrs(set);
	struct pool_hdr *hdrs = calloc(nhdrs ? nhdrs : 1, sizeof(*hdrs));
	unsigned char buf[POOL_HDR_SIZE];
	char err[POOL_HDR_ERR_MAX + POOLSET_ERR_MAX];
	struct pool_hdr_attr back;
	int ret = -1;

	for (unsigned i = 0; hdrs && i < nhdrs; i++) {
		int fd = open(set->parts[i].path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 0);

		if (fd >= 0)
			close(fd);
		if (pool_hdr_decode(set->parts[i].path, buf, n < 0 ? 0 : (size_t)n, &hdrs[i], err,
				    sizeof(err)))
			goto out_free;
	}
	if (hdrs == NULL || (nhdrs && pool_hdr_check_set(hdrs, nhdrs, err, sizeof(err))))
		goto out_free;
	if (nhdrs) {
		pool_hdr_get_attr(&hdrs[0], &back);
		snprintf(err, sizeof(err), "the attributes read back differ from those written");
		if (memcmp(&back, attr, sizeof(back)) != 0)
			goto out_free;
	}
	ret = 0;
out_free:
	if (ret)
		fprintf(stderr, "%s\n", hdrs ? err : "out of memory");
	free(hdrs);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct pool_hdr_attr attr;
	struct poolset *set;
	size_t size = 0;
	int ret = 1;

	if (MACHINE == 0) {
		printf("SKIP write-parts: no architecture flags known for this machine\n");
		return 77;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s SET COMPAT INCOMPAT self|remote\n", argv[0]);
		return 1;
	}
	set = read_set(argv[1]);
	if (set == NULL)
		return 1;
	if (attr_make(&attr, (uint32_t)strtoul(argv[2], NULL, 0),
		      (uint32_t)strtoul(argv[3], NULL, 0), strcmp(argv[4], "remote") == 0))
		perror("getrandom");
	else if (write_parts(set, &attr) == 0 && read_back(set, &attr) == 0 &&
		 poolset_pool_size(set, &size) == 0)
		ret = 0;
	if (ret == 0)
		printf("remote pool size %zu\n", size);
	poolset_delete(&set);
	return ret;
}
