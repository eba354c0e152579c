/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_poolset.c -- libFuzzer harness of rpmemd's pool set file parser and
 * part header decoder (tools/rpmemd/poolset.h, pool_hdr.h): both read bytes
 * that come from files.
 *
 * Each input is read four ways. Properties:
 * - as a set file (read from SET_PATH): an accepted set has 1 to
 *   POOLSET_MAX_PARTS parts of POOLSET_MIN_PART bytes or more, distinct
 *   absolute paths shorter than PATH_MAX, not both options, and a pool size
 *   that poolset_pool_size() computes without overflow and that equals the
 *   documented formula (computed here in 128 bits); a rejected one returns a
 *   documented code, leaves the output untouched, and its message is one
 *   printable line "SET_PATH:LINE:COLUMN: ..." with LINE and COLUMN from 1;
 * - its first 4096 bytes (zero-padded) as a part header: a decoded header
 *   re-encodes to the same bytes; a rejected one fails with -EUCLEAN and a
 *   message naming the part;
 * - the same bytes with the checksum made right: never refused for the
 *   checksum, and re-encoded to the same bytes when accepted;
 * - its first 104 bytes as a pool's attributes: zero ones build no header;
 *   others build the headers of a set of 1 to 4 parts that agree as a set,
 *   each decodes back to itself, and the first part's gives back exactly
 *   the attributes.
 * Nothing leaks (AddressSanitizer's leak check).
 */

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_assert.h"
#include "pool_hdr.h"
#include "poolset.h"

#define SET_PATH  "/fuzz/dir/t.set"
#define PART_NAME "part0"

/* check_printable -- a message: one printable line */
static void
check_printable(const char *msg)
{
	fuzz_assert(msg[0] != '\0');
	for (const char *p = msg; *p; p++)
		fuzz_assert((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
}

/* check_paths -- the parts' paths: absolute, short enough, no directory, all different */
static void
check_paths(const struct poolset *set)
{
	for (unsigned i = 0; i < set->nparts; i++) {
		size_t len = strlen(set->parts[i].path);

		fuzz_assert(len >= 2 && len < PATH_MAX && set->parts[i].path[0] == '/');
		fuzz_assert(set->parts[i].path[len - 1] != '/');
		fuzz_assert(i == 0 || set->parts[i].line > set->parts[i - 1].line);
		for (unsigned j = 0; j < i; j++)
			fuzz_assert(strcmp(set->parts[i].path, set->parts[j].path) != 0);
	}
}

/* check_set -- an accepted set obeys the rules and its size is the formula */
static void
check_set(const struct poolset *set)
{
	unsigned __int128 sum = 0, rounded = 0;
	unsigned nhdrs = poolset_nhdrs(set);
	size_t size;

	fuzz_assert(set->nparts >= 1 && set->nparts <= POOLSET_MAX_PARTS);
	fuzz_assert((set->options & ~(POOLSET_OPT_SINGLEHDR | POOLSET_OPT_NOHDRS)) == 0);
	fuzz_assert(set->options != (POOLSET_OPT_SINGLEHDR | POOLSET_OPT_NOHDRS));
	fuzz_assert(nhdrs ==
		    (set->options ? (set->options == POOLSET_OPT_NOHDRS ? 0 : 1) : set->nparts));
	for (unsigned i = 0; i < set->nparts; i++) {
		fuzz_assert(set->parts[i].size >= POOLSET_MIN_PART);
		sum += set->parts[i].size;
		rounded += set->parts[i].size / 4096 * 4096;
	}
	fuzz_assert(sum <= SIZE_MAX);
	check_paths(set);
	fuzz_assert(poolset_pool_size(set, &size) == 0);
	fuzz_assert((unsigned __int128)size == rounded - (unsigned __int128)nhdrs * 4096);
}

/* check_rejected -- a rejected set: a documented code and "SET_PATH:LINE:COL: " */
static void
check_rejected(int ret, const char *err)
{
	unsigned line, col;
	int n = 0;

	fuzz_assert(ret == -EINVAL || ret == -EOVERFLOW || ret == -E2BIG || ret == -ENAMETOOLONG);
	check_printable(err);
	fuzz_assert(sscanf(err, SET_PATH ":%u:%u: %n", &line, &col, &n) == 2 && n > 0);
	fuzz_assert(line >= 1 && col >= 1 && err[n] != '\0');
}

/* fuzz_set -- the input as a set file */
static void
fuzz_set(const uint8_t *data, size_t size)
{
	static char err[POOLSET_ERR_MAX];
	struct poolset *untouched = (struct poolset *)err, *set = untouched;
	int ret = poolset_parse((const char *)data, size, SET_PATH, &set, err, sizeof(err));

	if (ret == 0) {
		check_set(set);
		poolset_delete(&set);
		fuzz_assert(set == NULL);
		return;
	}
	fuzz_assert(set == untouched);
	check_rejected(ret, err);
}

/* decode_reencode -- decode buf; when accepted it re-encodes to the same bytes */
static int
decode_reencode(const unsigned char *buf, char *err, size_t err_len)
{
	static unsigned char again[POOL_HDR_SIZE];
	struct pool_hdr hdr;
	int ret = pool_hdr_decode(PART_NAME, buf, POOL_HDR_SIZE, &hdr, err, err_len);

	if (ret) {
		fuzz_assert(ret == -EUCLEAN);
		check_printable(err);
		fuzz_assert(strncmp(err, PART_NAME ": ", strlen(PART_NAME ": ")) == 0);
		return ret;
	}
	pool_hdr_encode(&hdr, again);
	fuzz_assert(memcmp(again, buf, POOL_HDR_SIZE) == 0);
	return 0;
}

/* fuzz_hdr -- the first 4096 bytes as a header, as they are and with the checksum made right */
static void
fuzz_hdr(const uint8_t *data, size_t size)
{
	static unsigned char buf[POOL_HDR_SIZE];
	char err[POOL_HDR_ERR_MAX + 32];
	uint64_t csum;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, data, size < sizeof(buf) ? size : sizeof(buf));
	decode_reencode(buf, err, sizeof(err));

	csum = pool_hdr_checksum(buf);
	for (int i = 0; i < 8; i++)
		buf[4088 + i] = (unsigned char)(csum >> (8 * i));
	if (decode_reencode(buf, err, sizeof(err)) != 0)
		fuzz_assert(strstr(err, "pool header checksum") == NULL);
}

/* is_zero -- the len bytes at p are all zero */
static int
is_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++) {
		if (b[i])
			return 0;
	}
	return 1;
}

/* fuzz_attr -- the first 104 bytes as attributes: a set of headers built, decoded, read back */
static void
fuzz_attr(const uint8_t *data, size_t size)
{
	unsigned char uuids[4][POOL_HDR_UUID_LEN];
	unsigned char buf[POOL_HDR_SIZE];
	struct pool_hdr hdrs[4], back;
	struct pool_hdr_attr attr, out;
	unsigned n = size ? 1 + data[size - 1] % 4 : 1;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, data, size < sizeof(attr) ? size : sizeof(attr));
	memset(uuids, 0, sizeof(uuids));
	if (is_zero(&attr, sizeof(attr))) {
		fuzz_assert(pool_hdr_build(&attr, (const unsigned char(*)[POOL_HDR_UUID_LEN])uuids,
					   1, 0, 0, &hdrs[0]) == -EINVAL);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		memcpy(uuids[i], attr.id.uuid, POOL_HDR_UUID_LEN);
		uuids[i][0] ^= (unsigned char)i;
	}
	for (unsigned i = 0; i < n; i++) {
		fuzz_assert(pool_hdr_build(&attr, (const unsigned char(*)[POOL_HDR_UUID_LEN])uuids,
					   n, i, i, &hdrs[i]) == 0);
		pool_hdr_encode(&hdrs[i], buf);
		fuzz_assert(pool_hdr_decode(PART_NAME, buf, sizeof(buf), &back, NULL, 0) == 0);
		back.checksum = hdrs[i].checksum;
		fuzz_assert(memcmp(&back, &hdrs[i], sizeof(back)) == 0);
	}
	fuzz_assert(pool_hdr_check_set(hdrs, n, NULL, 0) == 0);
	pool_hdr_get_attr(&hdrs[0], &out);
	fuzz_assert(memcmp(&out, &attr, sizeof(attr)) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_set(data, size);
	fuzz_hdr(data, size);
	fuzz_attr(data, size);
	return 0;
}
