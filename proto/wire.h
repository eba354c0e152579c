/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wire.h -- the byte level of the control protocol: cursors that read and
 * write little-endian integers and byte strings within bounds, and the
 * checks of names and texts shared by every message.
 *
 * A reader never reads past its end and a writer never writes past its
 * size: each step checks first and fails with a message that names the
 * field ("AUTH.name"), which the caller passes in.
 *
 * ASSUMPTIONS
 * A cursor lives on the stack of one encode or decode call.
 */

#ifndef RPMAF_PROTO_WIRE_H
#define RPMAF_PROTO_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* a reader over the bytes of one message (or one part of it) */
struct rpmaf__proto_rd {
	const uint8_t *p;	      /* the bytes */
	size_t len;		      /* how many */
	size_t off;		      /* the next byte to read */
	struct rpmaf__proto_err *err; /* where a failure is described; may be NULL */
	const char *prefix;	      /* put before field names in messages; NULL: none */
};

/* a writer into a caller's buffer */
struct rpmaf__proto_wr {
	uint8_t *p;
	size_t size; /* bytes available */
	size_t off;  /* the next byte to write */
	struct rpmaf__proto_err *err;
};

/*
 * rpmaf__proto_rd_u8 ... _u64 -- read the next integer (little-endian) of
 * the field named field into *v.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_TRUNCATED when the bytes end first (*v untouched).
 */
int rpmaf__proto_rd_u8(struct rpmaf__proto_rd *r, const char *field, uint8_t *v);
int rpmaf__proto_rd_u16(struct rpmaf__proto_rd *r, const char *field, uint16_t *v);
int rpmaf__proto_rd_u32(struct rpmaf__proto_rd *r, const char *field, uint32_t *v);
int rpmaf__proto_rd_u64(struct rpmaf__proto_rd *r, const char *field, uint64_t *v);

/*
 * rpmaf__proto_rd_bytes -- the next n bytes of field: *v points at them in
 * the reader's bytes (nothing is copied).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_TRUNCATED when fewer than n bytes are left.
 */
int rpmaf__proto_rd_bytes(struct rpmaf__proto_rd *r, const char *field, size_t n,
			  const uint8_t **v);

/*
 * rpmaf__proto_rd_end -- the reader has consumed every byte of what (a
 * message name).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_TRAILING when bytes are left.
 */
int rpmaf__proto_rd_end(struct rpmaf__proto_rd *r, const char *what);

/*
 * rpmaf__proto_wr_u8 ... _u64, rpmaf__proto_wr_bytes -- append an integer
 * (little-endian) or n bytes (which may overlap the destination).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_NOSPC when the buffer is too small (nothing written).
 */
int rpmaf__proto_wr_u8(struct rpmaf__proto_wr *w, uint8_t v);
int rpmaf__proto_wr_u16(struct rpmaf__proto_wr *w, uint16_t v);
int rpmaf__proto_wr_u32(struct rpmaf__proto_wr *w, uint32_t v);
int rpmaf__proto_wr_u64(struct rpmaf__proto_wr *w, uint64_t v);
int rpmaf__proto_wr_bytes(struct rpmaf__proto_wr *w, const void *src, size_t n);

/* the longest name (region, client) and the longest ERROR reason, in bytes */
#define RPMAF__PROTO_NAME_MAX	63
#define RPMAF__PROTO_REASON_MAX 127

/*
 * rpmaf__proto_name_check -- len bytes at name are a name: 1 to
 * RPMAF__PROTO_NAME_MAX bytes of ASCII letters, digits, '_', '-' and '.'
 * (the names the configuration allows).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STRING (empty, or a byte outside the set, with its
 * position) or RPMAF__PROTO_E_TOO_BIG, the message naming field.
 */
int rpmaf__proto_name_check(const char *name, size_t len, const char *field,
			    struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_text_check -- len bytes at text are printable ASCII (0x20
 * to 0x7e), at most max of them; empty is allowed.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STRING or RPMAF__PROTO_E_TOO_BIG, naming field.
 */
int rpmaf__proto_text_check(const char *text, size_t len, size_t max, const char *field,
			    struct rpmaf__proto_err *err);

#endif /* RPMAF_PROTO_WIRE_H */
