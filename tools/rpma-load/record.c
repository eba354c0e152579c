/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * record.c -- verification records: their layout in a region, how they are
 * made and how they are checked.
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

#define CRC32C_POLY 0x82f63b78u

static uint32_t Crc_table[256];
static pthread_once_t Crc_once = PTHREAD_ONCE_INIT;

/* crc_table_make -- the byte table of CRC-32C, once per process */
static void
crc_table_make(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? CRC32C_POLY : 0);
		Crc_table[i] = c;
	}
}

/* see record.h */
uint32_t
rec_crc(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	pthread_once(&Crc_once, crc_table_make);
	crc = ~crc;
	while (n--)
		crc = (crc >> 8) ^ Crc_table[(crc ^ *b++) & 0xff];
	return ~crc;
}

/* see record.h */
int
rec_layout_make(struct rec_layout *l, uint64_t region_size, uint64_t max_len, bool atomics)
{
	uint64_t usable = region_size;

	memset(l, 0, sizeof(*l));
	l->slot_size = (max_len < REC_HDR ? REC_HDR : max_len) + REC_ALIGN - 1;
	l->slot_size -= l->slot_size % REC_ALIGN;
	if (atomics) {
		if (region_size < REC_ATOMIC_AREA)
			return -1;
		usable -= REC_ATOMIC_AREA;
		l->atomic_off = usable;
		l->atomic_len = REC_ATOMIC_AREA;
	}
	l->nslots = usable / l->slot_size;
	return l->nslots ? 0 : -1;
}

/* see record.h */
uint32_t
rec_len(uint64_t size, const struct rec_layout *l)
{
	if (size < REC_HDR)
		return REC_HDR;
	return (uint32_t)(size > l->slot_size ? l->slot_size : size);
}

/* rec_stream -- the next byte of the payload stream (xorshift64) */
static inline uint8_t
rec_stream(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint8_t)(*x >> 24);
}

/* see record.h */
uint32_t
rec_fill(void *buf, uint32_t len, uint64_t offset, uint64_t seq, uint32_t slot_size, uint64_t run)
{
	struct rec_hdr h = {.magic = REC_MAGIC,
			    .offset = offset,
			    .seq = seq,
			    .len = len,
			    .slot_size = slot_size,
			    .run = run};
	uint64_t x = (run ^ (seq * 0x9e3779b97f4a7c15ull)) | 1;
	uint8_t *p = (uint8_t *)buf + REC_HDR;

	for (uint32_t i = REC_HDR; i < len; i++)
		*p++ = rec_stream(&x);
	memcpy(buf, &h, sizeof(h));
	h.crc = rec_crc(0, buf, len);
	memcpy(buf, &h, sizeof(h));
	return h.crc;
}

/* rec_sound -- the header h of the record at buf is consistent with itself and its place */
static int
rec_sound(const struct rec_hdr *h, const void *buf, size_t avail, uint64_t offset, char *why,
	  size_t size)
{
	struct rec_hdr z = *h;
	uint32_t crc;

	if (h->magic != REC_MAGIC)
		return snprintf(why, size, "no record (bad magic)"), -1;
	if (h->offset != offset)
		return snprintf(why, size, "the record says offset %llu",
				(unsigned long long)h->offset),
		       -1;
	if (h->len < REC_HDR || h->len > avail || h->len > h->slot_size)
		return snprintf(why, size, "bad length %u", h->len), -1;
	z.crc = 0;
	crc = rec_crc(rec_crc(0, &z, sizeof(z)), (const uint8_t *)buf + REC_HDR, h->len - REC_HDR);
	if (crc != h->crc)
		return snprintf(why, size, "checksum mismatch (%08x, the record says %08x)", crc,
				h->crc),
		       -1;
	return 0;
}

/* see record.h */
int
rec_check(const void *buf, size_t avail, uint64_t offset, uint64_t seq, uint32_t len, char *why,
	  size_t size)
{
	struct rec_hdr h;

	if (avail < REC_HDR)
		return snprintf(why, size, "truncated"), -1;
	memcpy(&h, buf, sizeof(h));
	if (rec_sound(&h, buf, avail, offset, why, size))
		return -1;
	if (seq && h.seq != seq)
		return snprintf(why, size, "sequence %llx, the last write was %llx",
				(unsigned long long)h.seq, (unsigned long long)seq),
		       -1;
	if (len && h.len != len)
		return snprintf(why, size, "length %u, the last write was %u", h.len, len), -1;
	return 0;
}

/* see record.h */
bool
rec_is_blank(const void *buf)
{
	static const uint8_t zero[REC_HDR];

	return memcmp(buf, zero, REC_HDR) == 0;
}
