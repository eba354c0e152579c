/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * kv.h -- what the KV store's server and clients share: the layout of the
 * table in the region, the hash, the bucket check and the call formats.
 *
 * The region "kv" is a header page and then nbuckets buckets of
 * KV_BUCKET_SIZE bytes, an open-addressing hash table with linear probing
 * (at most KV_PROBE_MAX buckets from a key's home bucket, key hash modulo
 * nbuckets). Only the server writes it, with its CPU, one bucket at a time:
 *   version = v + 1 (odd: being changed); state, key, value, checksum;
 *   version = v + 2 (even); persist the bucket; answer the call.
 * A client reads a bucket with one RDMA read and takes it only when it is
 * whole: its version is even and its checksum (over the version and the
 * rest of the bucket) matches. One read is not atomic and its bytes may be
 * read in any order, so the version alone cannot tell a read that
 * overlapped a change; the checksum covers the new version, so a bucket
 * read half before and half after a change does not match. Otherwise the
 * client reads it again.
 *
 * CONCURRENCY
 * The functions below are pure: any thread.
 */

#ifndef KV_H
#define KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KV_REGION	"kv"
#define KV_MAGIC	0x31766b66616d7072ull /* "rpmafkv1" */
#define KV_HDR_SIZE	4096
#define KV_BUCKET_SIZE	256
#define KV_KEY_MAX	40
#define KV_VALUE_MAX	192
#define KV_PROBE_MAX	32
#define KV_NBUCKETS_DEF 4096
#define KV_HANDLER_PUT	1 /* request: struct kv_req + key + value; reply: nothing */
#define KV_HANDLER_DEL	2 /* request: struct kv_req + key; reply: 1 byte, 1 deleted, 0 absent */
#define KV_HANDLER_PING 3 /* request: anything; reply: nothing (what a bare call costs) */
#define KV_REQ_MAX	(sizeof(struct kv_req) + KV_KEY_MAX + KV_VALUE_MAX)

/* bucket states */
#define KV_EMPTY   0 /* never used: a probe stops here */
#define KV_USED	   1 /* holds a key */
#define KV_DELETED 2 /* held a key: a probe goes on past it, a put may reuse it */

/* the first bytes of the region; the rest of the page is zero */
struct kv_hdr {
	uint64_t magic; /* KV_MAGIC once the table is made (written last) */
	uint64_t nbuckets;
	uint64_t bucket_size; /* KV_BUCKET_SIZE */
};

struct kv_bucket {
	uint64_t version; /* odd while the server changes the bucket */
	uint64_t csum;	  /* kv_csum() of the bucket */
	uint32_t state;	  /* KV_EMPTY, KV_USED, KV_DELETED */
	uint16_t klen;
	uint16_t vlen;
	char key[KV_KEY_MAX];
	uint8_t value[KV_VALUE_MAX];
};

_Static_assert(sizeof(struct kv_bucket) == KV_BUCKET_SIZE, "a bucket is KV_BUCKET_SIZE bytes");

/* the head of a put or delete request; the key follows, then the value */
struct kv_req {
	uint16_t klen;
	uint16_t vlen; /* 0 for a delete */
};

/* kv_hash -- the 64-bit FNV-1a hash of a key */
static inline uint64_t
kv_hash(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)key[i]) * 0x100000001b3ull;
	return h;
}

/* kv_csum -- a checksum of the version and of everything after the checksum */
static inline uint64_t
kv_csum(const struct kv_bucket *b)
{
	const uint8_t *p = (const uint8_t *)&b->state;
	uint64_t h = b->version * 0x9e3779b97f4a7c15ull, w;

	for (size_t off = 0; off < KV_BUCKET_SIZE - 16; off += 8) {
		memcpy(&w, p + off, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

/*
 * kv_bucket_whole -- whether a bucket read from the region is one state of
 * it, not a mix of two: an even version, a matching checksum, lengths in range
 */
static inline bool
kv_bucket_whole(const struct kv_bucket *b)
{
#ifdef KV_PLANT_IGNORE_VERSION
	/* a planted bug for the test that shows --verify catches torn reads */
	return b->klen <= KV_KEY_MAX && b->vlen <= KV_VALUE_MAX;
#else
	return !(b->version & 1) && b->csum == kv_csum(b) && b->klen <= KV_KEY_MAX &&
	       b->vlen <= KV_VALUE_MAX;
#endif
}

/* kv_bucket_off -- the offset in the region of bucket i */
static inline size_t
kv_bucket_off(uint64_t i)
{
	return KV_HDR_SIZE + (size_t)i * KV_BUCKET_SIZE;
}

#endif /* KV_H */
