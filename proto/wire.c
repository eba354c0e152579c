/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wire.c -- bounded little-endian reading and writing, and the name and
 * text checks. Integers are assembled byte by byte, so the code is the same
 * on any host byte order and never makes an unaligned access.
 */

#include <string.h>

#include "wire.h"

/* rd_take -- n more bytes of field are there: return where they start, or NULL */
static const uint8_t *
rd_take(struct rpmaf__proto_rd *r, const char *field, size_t n)
{
	const uint8_t *at;

	if (r->len - r->off < n) {
		rpmaf__proto_fail(r->err, RPMAF__PROTO_E_TRUNCATED,
				  "%s%s: truncated: %zu bytes needed at byte %zu, %zu left",
				  r->prefix ? r->prefix : "", field, n, r->off, r->len - r->off);
		return NULL;
	}
	at = r->p + r->off;
	r->off += n;
	return at;
}

/* rd_le -- the n-byte little-endian integer of field */
static int
rd_le(struct rpmaf__proto_rd *r, const char *field, size_t n, uint64_t *v)
{
	const uint8_t *at = rd_take(r, field, n);
	uint64_t x = 0;

	if (at == NULL)
		return RPMAF__PROTO_E_TRUNCATED;
	for (size_t i = n; i > 0; i--)
		x = (x << 8) | at[i - 1];
	*v = x;
	return 0;
}

/*
 * RD_UINT -- rpmaf__proto_rd_u<bits>() of wire.h: rd_le() of bits / 8
 * bytes into the caller's integer, which is left alone on an error; one
 * body for the four widths, the same code a function written out would be
 */
#define RD_UINT(bits)                                                                              \
	int rpmaf__proto_rd_u##bits(struct rpmaf__proto_rd *r, const char *field,                  \
				    uint##bits##_t *v)                                             \
	{                                                                                          \
		uint64_t x;                                                                        \
		int ret = rd_le(r, field, (bits) / 8, &x);                                         \
                                                                                                   \
		if (ret == 0)                                                                      \
			*v = (uint##bits##_t)x;                                                    \
		return ret;                                                                        \
	}

RD_UINT(8)
RD_UINT(16)
RD_UINT(32)
RD_UINT(64)

/* see wire.h */
int
rpmaf__proto_rd_bytes(struct rpmaf__proto_rd *r, const char *field, size_t n, const uint8_t **v)
{
	const uint8_t *at = rd_take(r, field, n);

	if (at == NULL)
		return RPMAF__PROTO_E_TRUNCATED;
	*v = at;
	return 0;
}

/* see wire.h */
int
rpmaf__proto_rd_end(struct rpmaf__proto_rd *r, const char *what)
{
	if (r->off == r->len)
		return 0;
	return rpmaf__proto_fail(r->err, RPMAF__PROTO_E_TRAILING,
				 "%s: %zu trailing bytes after the last field (at byte %zu)", what,
				 r->len - r->off, r->off);
}

/* wr_room -- n more bytes fit */
static int
wr_room(struct rpmaf__proto_wr *w, size_t n)
{
	if (w->size - w->off >= n)
		return 0;
	return rpmaf__proto_fail(w->err, RPMAF__PROTO_E_NOSPC,
				 "message does not fit: %zu bytes needed at byte %zu of a %zu-byte "
				 "buffer",
				 n, w->off, w->size);
}

/* wr_le -- append the n-byte little-endian form of v */
static int
wr_le(struct rpmaf__proto_wr *w, size_t n, uint64_t v)
{
	int ret = wr_room(w, n);

	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++, v >>= 8)
		w->p[w->off + i] = (uint8_t)v;
	w->off += n;
	return 0;
}

/* WR_UINT -- rpmaf__proto_wr_u<bits>() of wire.h: wr_le() of bits / 8 bytes */
#define WR_UINT(bits)                                                                              \
	int rpmaf__proto_wr_u##bits(struct rpmaf__proto_wr *w, uint##bits##_t v)                   \
	{                                                                                          \
		return wr_le(w, (bits) / 8, v);                                                    \
	}

WR_UINT(8)
WR_UINT(16)
WR_UINT(32)
WR_UINT(64)

/* see wire.h */
int
rpmaf__proto_wr_bytes(struct rpmaf__proto_wr *w, const void *src, size_t n)
{
	int ret = wr_room(w, n);

	if (ret)
		return ret;
	if (n)
		memmove(w->p + w->off, src, n);
	w->off += n;
	return 0;
}

/* name_byte_ok -- c may appear in a name */
static int
name_byte_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* see wire.h */
int
rpmaf__proto_name_check(const char *name, size_t len, const char *field,
			struct rpmaf__proto_err *err)
{
	if (len == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_STRING,
					 "%s: empty (a name of 1 to %d bytes)", field,
					 RPMAF__PROTO_NAME_MAX);
	if (len > RPMAF__PROTO_NAME_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TOO_BIG,
					 "%s: %zu bytes long (a name of 1 to %d bytes)", field, len,
					 RPMAF__PROTO_NAME_MAX);
	for (size_t i = 0; i < len; i++)
		if (!name_byte_ok((unsigned char)name[i]))
			return rpmaf__proto_fail(err, RPMAF__PROTO_E_STRING,
						 "%s: byte %zu is 0x%02x (a name is letters, "
						 "digits, '_', '-' and '.')",
						 field, i, (unsigned char)name[i]);
	return 0;
}

/* see wire.h */
int
rpmaf__proto_text_check(const char *text, size_t len, size_t max, const char *field,
			struct rpmaf__proto_err *err)
{
	if (len > max)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TOO_BIG,
					 "%s: %zu bytes long (at most %zu)", field, len, max);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c > 0x7e)
			return rpmaf__proto_fail(err, RPMAF__PROTO_E_STRING,
						 "%s: byte %zu is 0x%02x (printable ASCII only)",
						 field, i, c);
	}
	return 0;
}
