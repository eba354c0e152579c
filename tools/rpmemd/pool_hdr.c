/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool_hdr.c -- the 4 KiB header of a part file, in PMDK's format: built
 * from a pool's attributes, encoded, decoded, verified (see pool_hdr.h)
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "pool_hdr.h"

/* the byte offsets of the fields in a part file (pool_hdr.h tells them) */
enum hdr_offset {
	OFF_SIGNATURE = 0,
	OFF_MAJOR = 8,
	OFF_COMPAT = 12,
	OFF_INCOMPAT = 16,
	OFF_RO_COMPAT = 20,
	OFF_POOLSET_UUID = 24,
	OFF_UUID = 40,
	OFF_PREV_PART = 56,
	OFF_NEXT_PART = 72,
	OFF_PREV_REPL = 88,
	OFF_NEXT_REPL = 104,
	OFF_CRTIME = 120,
	OFF_ARCH = 128,
	OFF_UNUSED = 144,
	OFF_UNUSED2 = 2048,
	OFF_SDS = 4024,
	OFF_CHECKSUM = 4088,
};

#define SDS_OFF_CHECKSUM 56 /* of the shutdown state's own checksum, within it */

_Static_assert(OFF_CHECKSUM + 8 == POOL_HDR_SIZE, "the checksum ends the header");
_Static_assert(OFF_SDS + POOL_HDR_SDS_LEN == OFF_CHECKSUM, "the shutdown state ends at 4088");
_Static_assert(sizeof(struct pool_hdr_attr) == 104, "struct rpmem_pool_attr is 104 bytes");
_Static_assert(offsetof(struct pool_hdr_attr, id.poolset_uuid) == 24, "rpmem_pool_attr layout");
_Static_assert(offsetof(struct pool_hdr_attr, next_uuid) == 56, "rpmem_pool_attr layout");
_Static_assert(offsetof(struct pool_hdr_attr, user_flags) == 88, "rpmem_pool_attr layout");

/* a field kept as bytes or as a little-endian integer: where in the file, where in memory */
struct field {
	size_t off;
	size_t mem;
	size_t len;
};

#define FIELD(o, m, l)                                                                             \
	{                                                                                          \
		o, offsetof(struct pool_hdr, m), l                                                 \
	}

static const struct field Byte_fields[] = {
    FIELD(OFF_SIGNATURE, id.signature, POOL_HDR_SIG_LEN),
    FIELD(OFF_POOLSET_UUID, id.poolset_uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_UUID, id.uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_PREV_PART, prev_part_uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_NEXT_PART, next_part_uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_PREV_REPL, prev_repl_uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_NEXT_REPL, next_repl_uuid, POOL_HDR_UUID_LEN),
    FIELD(OFF_ARCH, arch_flags, POOL_HDR_ARCH_LEN),
    FIELD(OFF_SDS, sds, POOL_HDR_SDS_LEN),
};

static const struct field Int_fields[] = {
    FIELD(OFF_MAJOR, id.major, 4),
    FIELD(OFF_COMPAT, id.compat_features, 4),
    FIELD(OFF_INCOMPAT, id.incompat_features, 4),
    FIELD(OFF_RO_COMPAT, id.ro_compat_features, 4),
    FIELD(OFF_CRTIME, crtime, 8),
    FIELD(OFF_CHECKSUM, checksum, 8),
};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* get_le -- the len-byte (4 or 8) little-endian integer at p */
static uint64_t
get_le(const unsigned char *p, size_t len)
{
	uint64_t v = 0;

	for (size_t i = len; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/* put_le -- v as a len-byte (4 or 8) little-endian integer at p */
static void
put_le(unsigned char *p, size_t len, uint64_t v)
{
	for (size_t i = 0; i < len; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * fletcher64 -- PMDK's checksum of the len bytes at p (a multiple of 4):
 * the 8 bytes at csum_off and every byte from end on count as zero
 */
static uint64_t
fletcher64(const unsigned char *p, size_t len, size_t csum_off, size_t end)
{
	uint32_t lo = 0, hi = 0;

	for (size_t off = 0; off < len; off += 4) {
		bool zero = off >= end || off == csum_off || off == csum_off + 4;

		lo += zero ? 0 : (uint32_t)get_le(p + off, 4);
		hi += lo;
	}
	return (uint64_t)hi << 32 | lo;
}

/* see pool_hdr.h */
uint64_t
pool_hdr_checksum(const unsigned char *buf)
{
	bool two_k = get_le(buf + OFF_INCOMPAT, 4) & POOL_FEAT_CKSUM_2K;

	return fletcher64(buf, POOL_HDR_SIZE, OFF_CHECKSUM, two_k ? OFF_UNUSED2 : OFF_CHECKSUM);
}

/* sds_checksum -- the checksum of the shutdown state in the header at buf */
static uint64_t
sds_checksum(const unsigned char *buf)
{
	return fletcher64(buf + OFF_SDS, POOL_HDR_SDS_LEN, SDS_OFF_CHECKSUM, POOL_HDR_SDS_LEN);
}

/* uuid_random -- a random version 4 UUID, laid out as PMDK stores one */
static int
uuid_random(unsigned char *uuid)
{
	size_t got = 0;

	while (got < POOL_HDR_UUID_LEN) {
		ssize_t n = getrandom(uuid + got, POOL_HDR_UUID_LEN - got, 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		got += n > 0 ? (size_t)n : 0;
	}
	uuid[7] = (unsigned char)((uuid[7] & 0x0f) | 0x40);
	uuid[8] = (unsigned char)((uuid[8] & 0x3f) | 0x80);
	return 0;
}

/* see pool_hdr.h */
int
pool_hdr_uuids_new(const struct pool_hdr_attr *attr, unsigned n,
		   unsigned char (*uuids)[POOL_HDR_UUID_LEN])
{
	if (attr == NULL || uuids == NULL || n == 0)
		return -EINVAL;
	memcpy(uuids[0], attr->id.uuid, POOL_HDR_UUID_LEN);
	for (unsigned i = 1; i < n; i++) {
		int ret = uuid_random(uuids[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/* attr_is_zero -- the attributes are all zero: a pool without headers (NOHDRS) */
static bool
attr_is_zero(const struct pool_hdr_attr *attr)
{
	const unsigned char *p = (const unsigned char *)attr;

	return p[0] == 0 && memcmp(p, p + 1, sizeof(*attr) - 1) == 0;
}

/* see pool_hdr.h */
int
pool_hdr_build(const struct pool_hdr_attr *attr, const unsigned char (*uuids)[POOL_HDR_UUID_LEN],
	       unsigned n, unsigned i, uint64_t crtime, struct pool_hdr *hdr)
{
	if (attr == NULL || uuids == NULL || hdr == NULL || n == 0 || i >= n ||
	    attr_is_zero(attr) || memcmp(uuids[0], attr->id.uuid, POOL_HDR_UUID_LEN) != 0)
		return -EINVAL;
	memset(hdr, 0, sizeof(*hdr));
	hdr->id = attr->id;
	memcpy(hdr->id.uuid, uuids[i], POOL_HDR_UUID_LEN);
	memcpy(hdr->prev_part_uuid, uuids[i ? i - 1 : n - 1], POOL_HDR_UUID_LEN);
	memcpy(hdr->next_part_uuid, uuids[i + 1 < n ? i + 1 : 0], POOL_HDR_UUID_LEN);
	memcpy(hdr->prev_repl_uuid, attr->prev_uuid, POOL_HDR_UUID_LEN);
	memcpy(hdr->next_repl_uuid, attr->next_uuid, POOL_HDR_UUID_LEN);
	hdr->crtime = crtime;
	memcpy(hdr->arch_flags, attr->user_flags, POOL_HDR_ARCH_LEN);
	return 0;
}

/* see pool_hdr.h */
void
pool_hdr_encode(const struct pool_hdr *hdr, unsigned char *buf)
{
	const unsigned char *mem = (const unsigned char *)hdr;

	memset(buf, 0, POOL_HDR_SIZE);
	for (size_t k = 0; k < NELEMS(Byte_fields); k++)
		memcpy(buf + Byte_fields[k].off, mem + Byte_fields[k].mem, Byte_fields[k].len);
	put_le(buf + OFF_MAJOR, 4, hdr->id.major);
	put_le(buf + OFF_COMPAT, 4, hdr->id.compat_features);
	put_le(buf + OFF_INCOMPAT, 4, hdr->id.incompat_features);
	put_le(buf + OFF_RO_COMPAT, 4, hdr->id.ro_compat_features);
	put_le(buf + OFF_CRTIME, 8, hdr->crtime);
	put_le(buf + OFF_CHECKSUM, 8, pool_hdr_checksum(buf));
}

/* fields_decode -- every field of the header at buf into *hdr */
static void
fields_decode(const unsigned char *buf, struct pool_hdr *hdr)
{
	unsigned char *mem = (unsigned char *)hdr;

	memset(hdr, 0, sizeof(*hdr));
	for (size_t k = 0; k < NELEMS(Byte_fields); k++)
		memcpy(mem + Byte_fields[k].mem, buf + Byte_fields[k].off, Byte_fields[k].len);
	for (size_t k = 0; k < NELEMS(Int_fields); k++) {
		uint64_t v = get_le(buf + Int_fields[k].off, Int_fields[k].len);
		uint32_t v32 = (uint32_t)v;

		if (Int_fields[k].len == 4)
			memcpy(mem + Int_fields[k].mem, &v32, sizeof(v32));
		else
			memcpy(mem + Int_fields[k].mem, &v, sizeof(v));
	}
}

/* fail -- the message in the caller's buffer, if any; a header's faults are -EUCLEAN */
__attribute__((format(printf, 3, 4))) static int
fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err_len == 0)
		return -EUCLEAN;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -EUCLEAN;
}

/* first_nonzero -- the offset of the first non-zero byte of buf in [from, to), or 0 */
static size_t
first_nonzero(const unsigned char *buf, size_t from, size_t to)
{
	for (size_t off = from; off < to; off++) {
		if (buf[off])
			return off;
	}
	return 0;
}

/* sum_check -- 0 when what's stored checksum is the one its contents give, else the fault */
static int
sum_check(const char *name, const char *what, uint64_t stored, uint64_t computed, char *err,
	  size_t err_len)
{
	if (stored == computed)
		return 0;
	return fail(err, err_len,
		    "%s: %s checksum 0x%016" PRIx64 ", its contents give 0x%016" PRIx64, name, what,
		    stored, computed);
}

/* verify -- the header at buf stands on its own: size, contents, checksums, zero bytes */
static int
verify(const char *name, const unsigned char *buf, size_t len, char *err, size_t err_len)
{
	size_t off;
	int ret;

	if (len < POOL_HDR_SIZE)
		return fail(err, err_len, "%s: %zu bytes, a pool header has %d", name, len,
			    POOL_HDR_SIZE);
	if (buf[0] == 0 && memcmp(buf, buf + 1, POOL_HDR_SIZE - 1) == 0)
		return fail(err, err_len, "%s: no pool header: its %d bytes are all zero", name,
			    POOL_HDR_SIZE);
	ret = sum_check(name, "pool header", get_le(buf + OFF_CHECKSUM, 8), pool_hdr_checksum(buf),
			err, err_len);
	if (ret)
		return ret;
	off = first_nonzero(buf, OFF_UNUSED, OFF_SDS);
	if (off)
		return fail(err, err_len,
			    "%s: pool header byte %zu is not zero (bytes %d to %d are reserved)",
			    name, off, OFF_UNUSED, OFF_SDS - 1);
	return sum_check(name, "shutdown state", get_le(buf + OFF_SDS + SDS_OFF_CHECKSUM, 8),
			 sds_checksum(buf), err, err_len);
}

/* see pool_hdr.h */
int
pool_hdr_decode(const char *name, const unsigned char *buf, size_t len, struct pool_hdr *hdr,
		char *err, size_t err_len)
{
	int ret;

	if (err && err_len)
		err[0] = '\0';
	if (name == NULL || buf == NULL || hdr == NULL) {
		if (err && err_len)
			snprintf(err, err_len, "pool_hdr_decode: invalid argument");
		return -EINVAL;
	}
	ret = verify(name, buf, len, err, err_len);
	if (ret)
		return ret;
	fields_decode(buf, hdr);
	return 0;
}

/* differs_from_first -- the first field that all parts share and h does not, or NULL */
static const char *
differs_from_first(const struct pool_hdr *h, const struct pool_hdr *first)
{
	if (memcmp(h->id.signature, first->id.signature, POOL_HDR_SIG_LEN) != 0)
		return "signature";
	if (h->id.major != first->id.major)
		return "major version";
	if (h->id.compat_features != first->id.compat_features)
		return "compat features";
	if (h->id.incompat_features != first->id.incompat_features)
		return "incompat features";
	if (h->id.ro_compat_features != first->id.ro_compat_features)
		return "ro_compat features";
	if (memcmp(h->id.poolset_uuid, first->id.poolset_uuid, POOL_HDR_UUID_LEN) != 0)
		return "pool set UUID";
	if (memcmp(h->prev_repl_uuid, first->prev_repl_uuid, POOL_HDR_UUID_LEN) != 0)
		return "previous replica UUID";
	if (memcmp(h->next_repl_uuid, first->next_repl_uuid, POOL_HDR_UUID_LEN) != 0)
		return "next replica UUID";
	if (memcmp(h->arch_flags, first->arch_flags, POOL_HDR_ARCH_LEN) != 0)
		return "architecture flags";
	return NULL;
}

/* see pool_hdr.h */
int
pool_hdr_check_set(const struct pool_hdr *hdrs, unsigned n, char *err, size_t err_len)
{
	if (err && err_len)
		err[0] = '\0';
	if (hdrs == NULL || n == 0)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		const char *what = differs_from_first(&hdrs[i], &hdrs[0]);
		unsigned prev = i ? i - 1 : n - 1;
		unsigned next = i + 1 < n ? i + 1 : 0;

		if (what)
			return fail(err, err_len, "part %u: its %s differs from part 0's", i, what);
		if (memcmp(hdrs[i].prev_part_uuid, hdrs[prev].id.uuid, POOL_HDR_UUID_LEN) != 0)
			return fail(err, err_len,
				    "part %u: its previous part UUID is not part %u's UUID", i,
				    prev);
		if (memcmp(hdrs[i].next_part_uuid, hdrs[next].id.uuid, POOL_HDR_UUID_LEN) != 0)
			return fail(err, err_len,
				    "part %u: its next part UUID is not part %u's UUID", i, next);
	}
	return 0;
}

/* see pool_hdr.h */
void
pool_hdr_get_attr(const struct pool_hdr *hdr, struct pool_hdr_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->id = hdr->id;
	memcpy(attr->next_uuid, hdr->next_repl_uuid, POOL_HDR_UUID_LEN);
	memcpy(attr->prev_uuid, hdr->prev_repl_uuid, POOL_HDR_UUID_LEN);
	memcpy(attr->user_flags, hdr->arch_flags, POOL_HDR_ARCH_LEN);
}
