/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_pool_hdr.c -- the 4 KiB part header in PMDK's format: the layout of
 * the attributes, the checksum against headers Debian's pmempool wrote,
 * build/encode/decode round trips, the attributes back bit for bit, the part
 * chain, and each way a header or a set of headers can be wrong.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pool_hdr.h"

#define NAME "p.part"

/*
 * The first 144 bytes of the header that Debian 12's pmempool 1.12.1 wrote
 * for "pmempool create obj --layout=x" (incompat 0x6: CKSUM_2K and SDS);
 * every other byte is zero but the checksum, PMDK_CSUM_2K at 4088. After
 * "pmempool feature -d" of both features, incompat is 0 and the checksum
 * PMDK_CSUM_4K.
 */
static const unsigned char Pmdk_head[144] = {
    0x50, 0x4d, 0x45, 0x4d, 0x4f, 0x42, 0x4a, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5b, 0xae, 0x46, 0x08, 0xd9, 0xa0, 0x89, 0x4e,
    0x81, 0x22, 0x2f, 0xd6, 0x97, 0xc0, 0x92, 0xed, 0x46, 0x98, 0xba, 0x27, 0x53, 0xb0, 0x99, 0x4c,
    0x86, 0x3b, 0x28, 0xed, 0xed, 0x95, 0x9f, 0xca, 0x46, 0x98, 0xba, 0x27, 0x53, 0xb0, 0x99, 0x4c,
    0x86, 0x3b, 0x28, 0xed, 0xed, 0x95, 0x9f, 0xca, 0x46, 0x98, 0xba, 0x27, 0x53, 0xb0, 0x99, 0x4c,
    0x86, 0x3b, 0x28, 0xed, 0xed, 0x95, 0x9f, 0xca, 0x46, 0x98, 0xba, 0x27, 0x53, 0xb0, 0x99, 0x4c,
    0x86, 0x3b, 0x28, 0xed, 0xed, 0x95, 0x9f, 0xca, 0x46, 0x98, 0xba, 0x27, 0x53, 0xb0, 0x99, 0x4c,
    0x86, 0x3b, 0x28, 0xed, 0xed, 0x95, 0x9f, 0xca, 0x2e, 0xe7, 0x06, 0x6b, 0x00, 0x00, 0x00, 0x00,
    0x10, 0x73, 0x77, 0x37, 0xf7, 0x07, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x00,
};
#define PMDK_CSUM_2K 0xa13fbbade76aa76bull
#define PMDK_CSUM_4K 0xa13fa3c5e76aa765ull

/* pmdk_header -- Debian's header into buf, with incompat and checksum as given */
static void
pmdk_header(unsigned char *buf, uint8_t incompat, uint64_t csum)
{
	memset(buf, 0, POOL_HDR_SIZE);
	memcpy(buf, Pmdk_head, sizeof(Pmdk_head));
	buf[16] = incompat;
	for (int i = 0; i < 8; i++)
		buf[4088 + i] = (unsigned char)(csum >> (8 * i));
}

/* le64_at -- the little-endian u64 at buf + off */
static uint64_t
le64_at(const unsigned char *buf, size_t off)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | buf[off + (size_t)i];
	return v;
}

/* attr_fill -- attributes with every byte set, seeded with seed */
static void
attr_fill(struct pool_hdr_attr *attr, unsigned seed)
{
	unsigned char *p = (unsigned char *)attr;

	for (size_t i = 0; i < sizeof(*attr); i++)
		p[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

/* expect_decode_err -- decoding len bytes of buf fails with -EUCLEAN and exactly msg */
static void
expect_decode_err(const unsigned char *buf, size_t len, const char *msg)
{
	char err[POOL_HDR_ERR_MAX + 64];
	struct pool_hdr hdr, untouched;

	memset(&hdr, 0xa5, sizeof(hdr));
	untouched = hdr;
	assert_int_equal(pool_hdr_decode(NAME, buf, len, &hdr, err, sizeof(err)), -EUCLEAN);
	assert_string_equal(err, msg);
	assert_memory_equal(&hdr, &untouched, sizeof(hdr));
}

/* decode_ok -- decode the header at buf and assert success */
static void
decode_ok(const unsigned char *buf, struct pool_hdr *hdr)
{
	char err[POOL_HDR_ERR_MAX + 64];
	int ret = pool_hdr_decode(NAME, buf, POOL_HDR_SIZE, hdr, err, sizeof(err));

	if (ret)
		fail_msg("unexpected error %d: %s", ret, err);
	assert_string_equal(err, "");
}

/* struct rpmem_pool_attr: 104 bytes, no padding, librpmem's offsets */
static void
test_attr_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct pool_hdr_attr), 104);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.signature), 0);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.major), 8);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.compat_features), 12);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.incompat_features), 16);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.ro_compat_features), 20);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.poolset_uuid), 24);
	assert_int_equal(offsetof(struct pool_hdr_attr, id.uuid), 40);
	assert_int_equal(offsetof(struct pool_hdr_attr, next_uuid), 56);
	assert_int_equal(offsetof(struct pool_hdr_attr, prev_uuid), 72);
	assert_int_equal(offsetof(struct pool_hdr_attr, user_flags), 88);
}

/* the checksum of headers PMDK wrote, with the first 2 KiB covered and with all of it */
static void
test_checksum_pmdk(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE];
	struct pool_hdr hdr;

	pmdk_header(buf, 0x6, PMDK_CSUM_2K);
	assert_int_equal(pool_hdr_checksum(buf), PMDK_CSUM_2K);
	pmdk_header(buf, 0x0, PMDK_CSUM_4K);
	assert_int_equal(pool_hdr_checksum(buf), PMDK_CSUM_4K);
	decode_ok(buf, &hdr);
	assert_int_equal(hdr.checksum, PMDK_CSUM_4K);
}

/* the checksum's definition on single words: lo sums, hi sums lo after every word */
static void
test_checksum_words(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE] = {0};

	assert_int_equal(pool_hdr_checksum(buf), 0);
	buf[600 * 4] = 5; /* word 600 */
	assert_int_equal(pool_hdr_checksum(buf), (uint64_t)(5 * (1024 - 600)) << 32 | 5);
	buf[16] = POOL_FEAT_CKSUM_2K; /* word 4; word 600 (byte 2400) no longer counts */
	assert_int_equal(pool_hdr_checksum(buf), (uint64_t)(2 * (1024 - 4)) << 32 | 2);
	buf[600 * 4] = 0;
	buf[16] = 0;
	buf[4088] = 0xff; /* the checksum's own words count as zero */
	buf[4095] = 0xff;
	assert_int_equal(pool_hdr_checksum(buf), 0);
	buf[4087] = 0x80; /* word 1021, the last one counted: 2^31, added to hi 3 times */
	assert_int_equal(pool_hdr_checksum(buf), (uint64_t)(0x80000000u * 3u) << 32 | 0x80000000u);
}

/* Debian's header decodes, its fields in host order, and re-encodes to the same bytes */
static void
test_decode_pmdk(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE], out[POOL_HDR_SIZE];
	struct pool_hdr hdr;

	pmdk_header(buf, 0x6, PMDK_CSUM_2K);
	decode_ok(buf, &hdr);
	assert_memory_equal(hdr.id.signature, "PMEMOBJ", 8);
	assert_int_equal(hdr.id.major, 6);
	assert_int_equal(hdr.id.compat_features, 1);
	assert_int_equal(hdr.id.incompat_features, 6);
	assert_int_equal(hdr.id.ro_compat_features, 0);
	assert_memory_equal(hdr.id.poolset_uuid, Pmdk_head + 24, 16);
	assert_memory_equal(hdr.id.uuid, Pmdk_head + 40, 16);
	assert_memory_equal(hdr.next_repl_uuid, Pmdk_head + 40, 16);
	assert_int_equal(hdr.crtime, 0x6b06e72e);
	assert_memory_equal(hdr.arch_flags, Pmdk_head + 128, 16);
	assert_int_equal(hdr.checksum, PMDK_CSUM_2K);
	pool_hdr_encode(&hdr, out);
	assert_memory_equal(out, buf, POOL_HDR_SIZE);
}

/* build_set -- the headers of n parts for attr, checked as a set */
static void
build_set(const struct pool_hdr_attr *attr, unsigned n, struct pool_hdr *hdrs,
	  unsigned char (*uuids)[POOL_HDR_UUID_LEN])
{
	char err[POOL_HDR_ERR_MAX];

	assert_int_equal(pool_hdr_uuids_new(attr, n, uuids), 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(pool_hdr_build(attr,
						(const unsigned char(*)[POOL_HDR_UUID_LEN])uuids, n,
						i, 1700000000 + i, &hdrs[i]),
				 0);
	assert_int_equal(pool_hdr_check_set(hdrs, n, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* encode, decode, encode: the same bytes and the same header */
static void
expect_round_trip(const struct pool_hdr *hdr)
{
	unsigned char buf[POOL_HDR_SIZE], again[POOL_HDR_SIZE];
	struct pool_hdr back;

	pool_hdr_encode(hdr, buf);
	decode_ok(buf, &back);
	assert_int_equal(back.checksum, pool_hdr_checksum(buf));
	back.checksum = hdr->checksum;
	assert_memory_equal(&back, hdr, sizeof(back));
	pool_hdr_encode(&back, again);
	assert_memory_equal(again, buf, POOL_HDR_SIZE);
}

/* the attributes come back bit for bit from the first part's header, for any values */
static void
test_attr_round_trip(void **state)
{
	(void)state;
	for (unsigned seed = 0; seed < 16; seed++) {
		struct pool_hdr_attr attr, back;
		unsigned char uuids[4][POOL_HDR_UUID_LEN];
		struct pool_hdr hdrs[4];
		unsigned char buf[POOL_HDR_SIZE];
		struct pool_hdr decoded;

		attr_fill(&attr, seed);
		attr.id.incompat_features ^= seed & 1 ? POOL_FEAT_CKSUM_2K : 0;
		build_set(&attr, 1 + seed % 4, hdrs, uuids);
		for (unsigned i = 0; i < 1 + seed % 4; i++)
			expect_round_trip(&hdrs[i]);
		pool_hdr_encode(&hdrs[0], buf);
		decode_ok(buf, &decoded);
		memset(&back, 0x5a, sizeof(back));
		pool_hdr_get_attr(&decoded, &back);
		assert_memory_equal(&back, &attr, sizeof(attr));
	}
}

/* every field lands at its offset, little-endian; reserved bytes and the sds are zero */
static void
test_encode_layout(void **state)
{
	(void)state;
	struct pool_hdr_attr attr;
	unsigned char uuids[1][POOL_HDR_UUID_LEN];
	unsigned char buf[POOL_HDR_SIZE];
	struct pool_hdr hdr;

	attr_fill(&attr, 3);
	attr.id.major = 0x01020304;
	attr.id.compat_features = 0x11121314;
	attr.id.incompat_features = 0x21222324;
	attr.id.ro_compat_features = 0x31323334;
	memcpy(uuids[0], attr.id.uuid, POOL_HDR_UUID_LEN);
	assert_int_equal(pool_hdr_build(&attr, (const unsigned char(*)[16])uuids, 1, 0,
					0x0102030405060708ull, &hdr),
			 0);
	pool_hdr_encode(&hdr, buf);
	assert_memory_equal(buf, attr.id.signature, 8);
	assert_memory_equal(buf + 8, "\x04\x03\x02\x01\x14\x13\x12\x11\x24\x23\x22\x21", 12);
	assert_memory_equal(buf + 20, "\x34\x33\x32\x31", 4);
	assert_memory_equal(buf + 24, attr.id.poolset_uuid, 16);
	assert_memory_equal(buf + 40, attr.id.uuid, 16);
	assert_memory_equal(buf + 56, attr.id.uuid, 16); /* the only part is its own neighbour */
	assert_memory_equal(buf + 72, attr.id.uuid, 16);
	assert_memory_equal(buf + 88, attr.prev_uuid, 16);
	assert_memory_equal(buf + 104, attr.next_uuid, 16);
	assert_memory_equal(buf + 120, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	assert_memory_equal(buf + 128, attr.user_flags, 16);
	for (size_t off = 144; off < 4088; off++)
		assert_int_equal(buf[off], 0);
	assert_int_equal(le64_at(buf, 4088), pool_hdr_checksum(buf));
}

/* the parts' links form a ring: each names its neighbours, the first one attr->id.uuid */
static void
test_chain(void **state)
{
	(void)state;
	struct pool_hdr_attr attr;
	unsigned char uuids[3][POOL_HDR_UUID_LEN];
	struct pool_hdr hdrs[3];

	attr_fill(&attr, 9);
	build_set(&attr, 3, hdrs, uuids);
	assert_memory_equal(hdrs[0].id.uuid, attr.id.uuid, 16);
	for (unsigned i = 0; i < 3; i++) {
		assert_memory_equal(hdrs[i].id.uuid, uuids[i], 16);
		assert_memory_equal(hdrs[i].prev_part_uuid, uuids[(i + 2) % 3], 16);
		assert_memory_equal(hdrs[i].next_part_uuid, uuids[(i + 1) % 3], 16);
		assert_memory_equal(hdrs[i].id.poolset_uuid, attr.id.poolset_uuid, 16);
		assert_memory_equal(hdrs[i].prev_repl_uuid, attr.prev_uuid, 16);
		assert_memory_equal(hdrs[i].next_repl_uuid, attr.next_uuid, 16);
		assert_int_equal(hdrs[i].crtime, 1700000000 + i);
	}
}

/* new part UUIDs: the first is the attribute, the others random, version 4, distinct */
static void
test_uuids_new(void **state)
{
	(void)state;
	struct pool_hdr_attr attr;
	unsigned char uuids[8][POOL_HDR_UUID_LEN];

	attr_fill(&attr, 1);
	assert_int_equal(pool_hdr_uuids_new(&attr, 8, uuids), 0);
	assert_memory_equal(uuids[0], attr.id.uuid, 16);
	for (unsigned i = 1; i < 8; i++) {
		assert_int_equal(uuids[i][7] >> 4, 4);
		assert_int_equal(uuids[i][8] >> 6, 2);
		for (unsigned j = 0; j < i; j++)
			assert_memory_not_equal(uuids[i], uuids[j], 16);
	}
	assert_int_equal(pool_hdr_uuids_new(NULL, 8, uuids), -EINVAL);
	assert_int_equal(pool_hdr_uuids_new(&attr, 0, uuids), -EINVAL);
	assert_int_equal(pool_hdr_uuids_new(&attr, 8, NULL), -EINVAL);
}

/* build refuses zero attributes and what would not give a valid chain */
static void
test_build_args(void **state)
{
	(void)state;
	struct pool_hdr_attr attr;
	unsigned char uuids[2][POOL_HDR_UUID_LEN];
	const unsigned char(*u)[POOL_HDR_UUID_LEN] = (const unsigned char(*)[16])uuids;
	struct pool_hdr hdr;

	attr_fill(&attr, 2);
	assert_int_equal(pool_hdr_uuids_new(&attr, 2, uuids), 0);
	assert_int_equal(pool_hdr_build(NULL, u, 2, 0, 0, &hdr), -EINVAL);
	assert_int_equal(pool_hdr_build(&attr, NULL, 2, 0, 0, &hdr), -EINVAL);
	assert_int_equal(pool_hdr_build(&attr, u, 2, 0, 0, NULL), -EINVAL);
	assert_int_equal(pool_hdr_build(&attr, u, 0, 0, 0, &hdr), -EINVAL);
	assert_int_equal(pool_hdr_build(&attr, u, 2, 2, 0, &hdr), -EINVAL);
	uuids[0][5] ^= 1;
	assert_int_equal(pool_hdr_build(&attr, u, 2, 0, 0, &hdr), -EINVAL);
	memset(&attr, 0, sizeof(attr));
	memset(uuids, 0, sizeof(uuids));
	assert_int_equal(pool_hdr_build(&attr, u, 2, 0, 0, &hdr), -EINVAL);
	attr.user_flags[15] = 1; /* any byte that is not zero makes a header */
	assert_int_equal(pool_hdr_build(&attr, u, 2, 0, 0, &hdr), 0);
	expect_round_trip(&hdr);
}

/* valid_header -- an encoded header of attributes seeded with seed, incompat as given */
static void
valid_header(unsigned char *buf, unsigned seed, uint32_t incompat)
{
	struct pool_hdr_attr attr;
	unsigned char uuids[1][POOL_HDR_UUID_LEN];
	struct pool_hdr hdr;

	attr_fill(&attr, seed);
	attr.id.incompat_features = incompat;
	memcpy(uuids[0], attr.id.uuid, POOL_HDR_UUID_LEN);
	assert_int_equal(pool_hdr_build(&attr, (const unsigned char(*)[16])uuids, 1, 0, 42, &hdr),
			 0);
	pool_hdr_encode(&hdr, buf);
}

/* expect_csum_err -- buf, its byte off changed, fails on the checksum */
static void
expect_csum_err(unsigned char *buf, size_t off)
{
	char msg[160];

	buf[off] ^= 0x10;
	snprintf(
	    msg, sizeof(msg), NAME ": pool header checksum 0x%016llx, its contents give 0x%016llx",
	    (unsigned long long)le64_at(buf, 4088), (unsigned long long)pool_hdr_checksum(buf));
	expect_decode_err(buf, POOL_HDR_SIZE, msg);
	buf[off] ^= 0x10;
}

/* a changed byte anywhere the checksum covers is found, 4 KiB and 2 KiB variants */
static void
test_corrupt_checksum(void **state)
{
	(void)state;
	static const size_t offs[] = {0,  7,   8,   12,	 17,  20,  24,	 40,   56,   72,
				      88, 104, 120, 128, 143, 144, 1000, 2047, 4088, 4095};
	unsigned char buf[POOL_HDR_SIZE];
	struct pool_hdr hdr;

	valid_header(buf, 4, 0);
	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++)
		expect_csum_err(buf, offs[k]);
	expect_csum_err(buf, 2048);
	expect_csum_err(buf, 4024);
	valid_header(buf, 4, POOL_FEAT_CKSUM_2K);
	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++)
		expect_csum_err(buf, offs[k]);
	decode_ok(buf, &hdr);
}

/* rechecksum -- the header's checksum made right again after a change */
static void
rechecksum(unsigned char *buf)
{
	uint64_t c = pool_hdr_checksum(buf);

	for (int i = 0; i < 8; i++)
		buf[4088 + i] = (unsigned char)(c >> (8 * i));
}

/* reserved bytes that are not zero, covered by the checksum or not */
static void
test_corrupt_reserved(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE];

	valid_header(buf, 5, 0);
	buf[200] = 1;
	rechecksum(buf);
	expect_decode_err(buf, POOL_HDR_SIZE,
			  NAME
			  ": pool header byte 200 is not zero (bytes 144 to 4023 are reserved)");
	valid_header(buf, 5, POOL_FEAT_CKSUM_2K);
	buf[3000] = 0x80; /* beyond the 2 KiB the checksum covers */
	expect_decode_err(buf, POOL_HDR_SIZE,
			  NAME
			  ": pool header byte 3000 is not zero (bytes 144 to 4023 are reserved)");
	buf[3000] = 0;
	buf[4023] = 1;
	expect_decode_err(buf, POOL_HDR_SIZE,
			  NAME
			  ": pool header byte 4023 is not zero (bytes 144 to 4023 are reserved)");
}

/* set_sds -- a shutdown state in the header: dirty, a count, and its own checksum */
static void
set_sds(unsigned char *buf, int valid)
{
	unsigned char sds[64] = {0};
	uint32_t lo = 0, hi = 0;

	sds[0] = 7;    /* usc */
	sds[8] = 0x99; /* device id checksum */
	sds[16] = 1;   /* dirty */
	for (int w = 0; w < 14; w++) {
		lo += (uint32_t)sds[4 * w] | (uint32_t)sds[4 * w + 1] << 8;
		hi += lo;
	}
	hi += lo; /* the two words of the checksum count as zero */
	hi += lo;
	for (int i = 0; i < 4; i++) {
		sds[56 + i] = (unsigned char)(lo >> (8 * i));
		sds[60 + i] = (unsigned char)(hi >> (8 * i));
	}
	sds[56] ^= valid ? 0 : 1;
	memcpy(buf + 4024, sds, sizeof(sds));
	rechecksum(buf);
}

/* a shutdown state is kept as it is when valid, refused when its checksum is wrong */
static void
test_sds(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE], out[POOL_HDR_SIZE];
	struct pool_hdr hdr;
	char msg[160];

	valid_header(buf, 6, 0);
	set_sds(buf, 1);
	decode_ok(buf, &hdr);
	assert_memory_equal(hdr.sds, buf + 4024, 64);
	pool_hdr_encode(&hdr, out);
	assert_memory_equal(out, buf, POOL_HDR_SIZE);

	valid_header(buf, 6, POOL_FEAT_CKSUM_2K);
	set_sds(buf, 0);
	snprintf(msg, sizeof(msg),
		 NAME ": shutdown state checksum 0x%016llx, its contents give 0x%016llx",
		 (unsigned long long)le64_at(buf, 4080),
		 (unsigned long long)le64_at(buf, 4080) ^ 1);
	expect_decode_err(buf, POOL_HDR_SIZE, msg);
}

/* too few bytes, all zero, bad arguments */
static void
test_decode_errors(void **state)
{
	(void)state;
	unsigned char buf[POOL_HDR_SIZE] = {0};
	struct pool_hdr hdr;
	char err[64];

	expect_decode_err(buf, POOL_HDR_SIZE, NAME ": no pool header: its 4096 bytes are all zero");
	valid_header(buf, 7, 0);
	expect_decode_err(buf, POOL_HDR_SIZE - 1, NAME ": 4095 bytes, a pool header has 4096");
	expect_decode_err(buf, 0, NAME ": 0 bytes, a pool header has 4096");
	assert_int_equal(pool_hdr_decode(NULL, buf, POOL_HDR_SIZE, &hdr, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "pool_hdr_decode: invalid argument");
	assert_int_equal(pool_hdr_decode(NAME, NULL, POOL_HDR_SIZE, &hdr, err, 5), -EINVAL);
	assert_string_equal(err, "pool");
	assert_int_equal(pool_hdr_decode(NAME, buf, POOL_HDR_SIZE, NULL, NULL, 0), -EINVAL);
	assert_int_equal(pool_hdr_decode(NAME, buf, 10, &hdr, NULL, 0), -EUCLEAN);
	assert_int_equal(pool_hdr_decode(NAME, buf, 10, &hdr, err, 0), -EUCLEAN);
	assert_int_equal(pool_hdr_decode(NAME, buf, POOL_HDR_SIZE + 1, &hdr, NULL, 0), 0);
}

/* expect_set_err -- the headers of a set, one of them changed, disagree with msg */
static void
expect_set_err(const struct pool_hdr *hdrs, unsigned n, const char *msg)
{
	char err[POOL_HDR_ERR_MAX];

	assert_int_equal(pool_hdr_check_set(hdrs, n, err, sizeof(err)), -EUCLEAN);
	assert_string_equal(err, msg);
}

/* each field the parts share, changed in one part, is found */
static void
test_set_fields(void **state)
{
	(void)state;
	static const struct {
		size_t off, len;
		const char *what;
	} fields[] = {
	    {offsetof(struct pool_hdr, id.signature), 8, "signature"},
	    {offsetof(struct pool_hdr, id.major), 4, "major version"},
	    {offsetof(struct pool_hdr, id.compat_features), 4, "compat features"},
	    {offsetof(struct pool_hdr, id.incompat_features), 4, "incompat features"},
	    {offsetof(struct pool_hdr, id.ro_compat_features), 4, "ro_compat features"},
	    {offsetof(struct pool_hdr, id.poolset_uuid), 16, "pool set UUID"},
	    {offsetof(struct pool_hdr, prev_repl_uuid), 16, "previous replica UUID"},
	    {offsetof(struct pool_hdr, next_repl_uuid), 16, "next replica UUID"},
	    {offsetof(struct pool_hdr, arch_flags), 16, "architecture flags"},
	};
	struct pool_hdr_attr attr;
	unsigned char uuids[3][POOL_HDR_UUID_LEN];
	struct pool_hdr hdrs[3];
	char msg[128];

	attr_fill(&attr, 11);
	build_set(&attr, 3, hdrs, uuids);
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		unsigned char *p = (unsigned char *)&hdrs[2] + fields[k].off + fields[k].len - 1;

		*p ^= 0x40;
		snprintf(msg, sizeof(msg), "part 2: its %s differs from part 0's", fields[k].what);
		expect_set_err(hdrs, 3, msg);
		*p ^= 0x40;
	}
	assert_int_equal(pool_hdr_check_set(hdrs, 3, NULL, 0), 0);
}

/* broken links: a changed link, a part missing, parts in another order, a foreign part */
static void
test_set_links(void **state)
{
	(void)state;
	struct pool_hdr_attr attr;
	unsigned char uuids[3][POOL_HDR_UUID_LEN];
	struct pool_hdr hdrs[3], other[3], tmp;

	attr_fill(&attr, 12);
	build_set(&attr, 3, hdrs, uuids);
	hdrs[1].prev_part_uuid[0] ^= 1;
	expect_set_err(hdrs, 3, "part 1: its previous part UUID is not part 0's UUID");
	hdrs[1].prev_part_uuid[0] ^= 1;
	hdrs[2].next_part_uuid[15] ^= 1;
	expect_set_err(hdrs, 3, "part 2: its next part UUID is not part 0's UUID");
	hdrs[2].next_part_uuid[15] ^= 1;
	expect_set_err(hdrs, 2, "part 0: its previous part UUID is not part 1's UUID");
	tmp = hdrs[1];
	hdrs[1] = hdrs[2];
	hdrs[2] = tmp;
	expect_set_err(hdrs, 3, "part 0: its previous part UUID is not part 2's UUID");
	hdrs[2] = hdrs[1];
	hdrs[1] = tmp;
	build_set(&attr, 3, other, uuids);
	hdrs[2] = other[2];
	expect_set_err(hdrs, 3, "part 0: its previous part UUID is not part 2's UUID");
	assert_int_equal(pool_hdr_check_set(NULL, 3, NULL, 0), -EINVAL);
	assert_int_equal(pool_hdr_check_set(hdrs, 0, NULL, 0), -EINVAL);
	assert_int_equal(pool_hdr_check_set(hdrs, 3, NULL, 0), -EUCLEAN);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attr_layout),
	    cmocka_unit_test(test_checksum_pmdk),
	    cmocka_unit_test(test_checksum_words),
	    cmocka_unit_test(test_decode_pmdk),
	    cmocka_unit_test(test_attr_round_trip),
	    cmocka_unit_test(test_encode_layout),
	    cmocka_unit_test(test_chain),
	    cmocka_unit_test(test_uuids_new),
	    cmocka_unit_test(test_build_args),
	    cmocka_unit_test(test_corrupt_checksum),
	    cmocka_unit_test(test_corrupt_reserved),
	    cmocka_unit_test(test_sds),
	    cmocka_unit_test(test_decode_errors),
	    cmocka_unit_test(test_set_fields),
	    cmocka_unit_test(test_set_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
