/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * demo.h -- what the demonstration's server, client and verifier share: the
 * layout of a record, the layout of the server's private data, a clock, and
 * the helpers of demo-common.c.
 *
 * A record of DEMO_RECORD_SIZE bytes (a multiple of 8) sits at offset
 * seq * size of the server's region:
 *
 *	0   magic     "RPMADEMO"
 *	8   seq       the record's number, from 0
 *	16  size      the record's size in bytes
 *	20  reserved  0
 *	24  payload   8-byte words of a sequence derived from seq
 *	-8  checksum  64-bit FNV-1a over the 8-byte words before it
 *
 * All fields are little-endian, as on the only platform this runs on.
 */

#ifndef DEMO_H
#define DEMO_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define DEMO_MAGIC	     0x4f4d4544414d5052ULL /* "RPMADEMO" in memory order */
#define DEMO_HDR_SIZE	     24
#define DEMO_MIN_RECORD_SIZE 64
#define DEMO_MAX_RECORD_SIZE (1u << 20)

/* the server's private data: two sizes, then the two descriptors */
#define DEMO_PDATA_HDR_SIZE 2

struct demo_record_hdr {
	uint64_t magic;
	uint64_t seq;
	uint32_t size;
	uint32_t reserved;
};

_Static_assert(sizeof(struct demo_record_hdr) == DEMO_HDR_SIZE, "record header size");

/*
 * demo_record_size_ok -- whether size is a valid record size.
 */
static inline int
demo_record_size_ok(size_t size)
{
	return size >= DEMO_MIN_RECORD_SIZE && size <= DEMO_MAX_RECORD_SIZE && size % 8 == 0;
}

/*
 * demo_checksum -- 64-bit FNV-1a over the nwords 8-byte words at words.
 */
static inline uint64_t
demo_checksum(const uint64_t *words, size_t nwords)
{
	uint64_t sum = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < nwords; i++) {
		sum ^= words[i];
		sum *= 0x100000001b3ULL;
	}
	return sum;
}

/*
 * demo_payload_word -- the next word of the payload sequence (xorshift64*).
 */
static inline uint64_t
demo_payload_word(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * demo_payload_seed -- the non-zero state the payload of record seq starts from.
 */
static inline uint64_t
demo_payload_seed(uint64_t seq)
{
	return (seq + 1) * 0x9e3779b97f4a7c15ULL | 1;
}

/*
 * demo_record_fill -- write record number seq of size bytes into buf, which
 * must be 8-byte aligned.
 */
static inline void
demo_record_fill(void *buf, uint64_t seq, size_t size)
{
	struct demo_record_hdr hdr = {DEMO_MAGIC, seq, (uint32_t)size, 0};
	uint64_t *words = buf;
	size_t nwords = size / 8;
	uint64_t state = demo_payload_seed(seq);

	memcpy(buf, &hdr, sizeof(hdr));
	for (size_t i = DEMO_HDR_SIZE / 8; i < nwords - 1; i++)
		words[i] = demo_payload_word(&state);
	words[nwords - 1] = demo_checksum(words, nwords - 1);
}

/*
 * demo_record_check -- check that buf (8-byte aligned) holds record number
 * seq of size bytes; returns NULL if it does, else what is wrong.
 */
static inline const char *
demo_record_check(const void *buf, uint64_t seq, size_t size)
{
	const uint64_t *words = buf;
	size_t nwords = size / 8;
	uint64_t state = demo_payload_seed(seq);
	struct demo_record_hdr hdr;

	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != DEMO_MAGIC)
		return "no record (bad magic)";
	if (hdr.seq != seq)
		return "wrong sequence number";
	if (hdr.size != size || hdr.reserved != 0)
		return "wrong record size";
	if (words[nwords - 1] != demo_checksum(words, nwords - 1))
		return "bad checksum";
	for (size_t i = DEMO_HDR_SIZE / 8; i < nwords - 1; i++)
		if (words[i] != demo_payload_word(&state))
			return "wrong payload";
	return NULL;
}

/*
 * demo_now -- seconds on the monotonic clock.
 */
static inline double
demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* demo-common.c */
int demo_parse_ulong(const char *prog, int opt, const char *s, unsigned long min, unsigned long max,
		     unsigned long *val);
int demo_check_librpma(const char *prog);

#endif /* DEMO_H */
