/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * region.h -- a region entry as the control protocol carries it (in
 * REGION_LIST, REGION_LOOKUP_REPLY and ANNOUNCE): name, size, generation,
 * how writes are made persistent, what clients may do, and the librpma
 * descriptor of the registered memory (opaque bytes here).
 *
 * ASSUMPTIONS
 * Stateless; thread-safe for distinct cursors and structs.
 */

#ifndef RPMAF_PROTO_REGION_H
#define RPMAF_PROTO_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "wire.h"

/* the longest descriptor an entry may carry (librpma's are 21 bytes today) */
#define RPMAF__PROTO_DESC_MAX 64

/* the bytes of an entry before its name and descriptor */
#define RPMAF__PROTO_REGION_FIXED 20

/* the most regions a table may announce in REGION_LIST.total */
#define RPMAF__PROTO_REGIONS_MAX 65536

/* region.persist: what a client does to make its writes persistent */
enum rpmaf__proto_persist {
	RPMAF__PROTO_PERSIST_NONE = 0,	/* volatile memory: flush to visibility only */
	RPMAF__PROTO_PERSIST_APM = 1,	/* a persistent flush (write, then read back) */
	RPMAF__PROTO_PERSIST_GPSPM = 2, /* a PERSIST_REQ to the server */
};
#define RPMAF__PROTO_PERSIST_MAX RPMAF__PROTO_PERSIST_GPSPM

/* region.usage bits (the values of RPMAF_USAGE_* in rpmaf.h) */
#define RPMAF__PROTO_USAGE_READ	 (1u << 0)
#define RPMAF__PROTO_USAGE_WRITE (1u << 1)
#define RPMAF__PROTO_USAGE_FLUSH (1u << 2)
#define RPMAF__PROTO_USAGE_ALL	 0x7u

/* one region entry; name and desc point into a message buffer or the caller's memory */
struct rpmaf__proto_region {
	uint64_t size;	     /* bytes, > 0 */
	uint64_t generation; /* grows at every change of the region; below UINT64_MAX */
	uint8_t persist;     /* enum rpmaf__proto_persist */
	uint8_t usage;	     /* RPMAF__PROTO_USAGE_* bits, at least one */
	uint8_t name_len;
	uint8_t desc_len; /* 1 to RPMAF__PROTO_DESC_MAX; 0 only for a removed region */
	const char *name;
	const uint8_t *desc;
};

/*
 * rpmaf__proto_region_check -- reg obeys the rules of an entry; removed
 * says it announces a removal (which carries no descriptor). field names
 * the entry in messages ("ANNOUNCE.region").
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_INVAL (a NULL pointer with a length), _RANGE (size 0,
 * generation UINT64_MAX, persist or usage out of range, a descriptor where
 * none belongs or none where one does), _STRING or _TOO_BIG (name,
 * descriptor).
 */
int rpmaf__proto_region_check(const struct rpmaf__proto_region *reg, bool removed,
			      const char *field, struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_region_read -- decode and check the entry at r's cursor.
 *
 * RETURN VALUE
 * 0 with *reg pointing into r's bytes; RPMAF__PROTO_E_TRUNCATED or what
 * rpmaf__proto_region_check() returns.
 */
int rpmaf__proto_region_read(struct rpmaf__proto_rd *r, bool removed, const char *field,
			     struct rpmaf__proto_region *reg);

/*
 * rpmaf__proto_region_write -- encode a checked entry at w's cursor.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_NOSPC (the cursor is then where it was).
 */
int rpmaf__proto_region_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_region *reg);

#endif /* RPMAF_PROTO_REGION_H */
