/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * record.h -- the records --verify writes, and where they go.
 *
 * Layout of the region under --verify: slots of slot_size bytes from offset
 * 0, then (when the mix has atomic writes) an area of REC_ATOMIC_AREA bytes
 * at the end for them, so that no atomic write lands in a record. Thread t
 * of T writes only the slots s with s % T == t, and never two at once to
 * the same slot, so the last write that completed in a slot is what the
 * slot holds.
 *
 * A record, at the start of its slot, little-endian:
 *   0  magic     "RPMALOAD" (REC_MAGIC)
 *   8  offset    of the record in the region (slot * slot_size)
 *   16 seq       its sequence number: thread << 48 | the thread's count
 *   24 len       bytes of the whole record, header included
 *   28 slot_size the layout's slot size (so a file alone can be scanned)
 *   32 run       the run's identifier (its seed)
 *   40 crc       CRC-32C of the record with this field 0
 *   44 (zero)
 *   48 payload   len - 48 bytes of a pseudo-random stream of (run, seq)
 *
 * ASSUMPTIONS
 * Pure functions of their arguments; thread-safe.
 */

#ifndef RPMA_LOAD_RECORD_H
#define RPMA_LOAD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_MAGIC	0x44414f4c414d5052ull /* "RPMALOAD" in memory, little-endian */
#define REC_HDR		48u
#define REC_ALIGN	64u
#define REC_ATOMIC_AREA 4096u

struct rec_hdr {
	uint64_t magic;
	uint64_t offset;
	uint64_t seq;
	uint32_t len;
	uint32_t slot_size;
	uint64_t run;
	uint32_t crc;
	uint32_t zero;
};

/* where records go in a region */
struct rec_layout {
	uint64_t slot_size; /* a multiple of REC_ALIGN, at least REC_HDR */
	uint64_t nslots;
	uint64_t atomic_off; /* the atomic area; atomic_len 0: none */
	uint64_t atomic_len;
};

/*
 * rec_layout_make -- the layout of a region of region_size bytes for
 * records of up to max_len bytes, with an atomic area or not
 * RETURN VALUE: 0; -1 when not even one slot fits.
 */
int rec_layout_make(struct rec_layout *l, uint64_t region_size, uint64_t max_len, bool atomics);

/* rec_len -- the length of a record for an operation of size bytes (at least REC_HDR) */
uint32_t rec_len(uint64_t size, const struct rec_layout *l);

/* rec_fill -- a record of len bytes at buf for slot offset, seq and run; returns its crc */
uint32_t rec_fill(void *buf, uint32_t len, uint64_t offset, uint64_t seq, uint32_t slot_size,
		  uint64_t run);

/*
 * rec_check -- whether the avail bytes at buf hold a sound record written
 * at offset (its crc, offset, length and slot size), and when seq is not 0,
 * the record of seq of len bytes; why (size bytes) says what is wrong
 * RETURN VALUE: 0; -1 when it is not.
 */
int rec_check(const void *buf, size_t avail, uint64_t offset, uint64_t seq, uint32_t len, char *why,
	      size_t size);

/* rec_is_blank -- no record was ever written at buf (the header is all zeros) */
bool rec_is_blank(const void *buf);

/* rec_crc -- CRC-32C of n bytes at p, continuing crc (0 to start) */
uint32_t rec_crc(uint32_t crc, const void *p, size_t n);

#endif /* RPMA_LOAD_RECORD_H */
