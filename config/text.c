/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * text.c -- UTF-8, control characters and tabs in indentation, checked on
 * the raw bytes with line and column counted as the YAML parser counts them
 * (lines end at LF, CR or CR LF; columns count characters).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "text.h"

/* a cursor over the text that keeps the position of the next character */
struct text_cursor {
	const unsigned char *p;
	const unsigned char *end;
	unsigned line;	 /* 1-based */
	unsigned column; /* 1-based */
	bool indent;	 /* only blanks seen since the line began */
};

/* see text.h */
int32_t
rpmaf__cfg_utf8_decode(const char *s, size_t left, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s;
	int32_t cp;
	size_t len;

	*n = 1;
	if (p[0] < 0x80)
		return p[0];
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return -1;
	for (size_t i = 1; i < len; i++) {
		if (i >= left || (p[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	*n = len;
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return cp;
}

/* text_decode -- the code point at the cursor, see rpmaf__cfg_utf8_decode() */
static int32_t
text_decode(const struct text_cursor *c, size_t *n)
{
	return rpmaf__cfg_utf8_decode((const char *)c->p, (size_t)(c->end - c->p), n);
}

/* text_printable -- whether YAML allows the code point in a document */
static bool
text_printable(int32_t cp)
{
	if (cp == '\t' || cp == '\n' || cp == '\r')
		return true;
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f && cp != 0x85))
		return false;
	return cp != 0xfffe && cp != 0xffff;
}

/* text_advance -- move past the character of n bytes at c->p */
static void
text_advance(struct text_cursor *c, int32_t cp, size_t n)
{
	c->p += n;
	if (cp == '\n' || (cp == '\r' && (c->p == c->end || *c->p != '\n'))) {
		c->line++;
		c->column = 1;
		c->indent = true;
		return;
	}
	if (cp != '\r')
		c->column++;
	if (cp != ' ' && cp != '\t')
		c->indent = false;
}

/* text_fail -- the error what for the character at the cursor */
static int
text_fail(struct rpmaf__cfg_diag *d, const struct text_cursor *c, int ovr, const char *what)
{
	struct rpmaf__cfg_pos pos = {c->line, c->column, ovr};

	return rpmaf__cfg_diag_fail(d, RPMAF_E_PARSE, pos, NULL, "%s", what);
}

/* see text.h */
int
rpmaf__cfg_text_check(struct rpmaf__cfg_diag *d, const char *buf, size_t len, int ovr)
{
	struct text_cursor c = {(const unsigned char *)buf, (const unsigned char *)buf + len, 1, 1,
				true};

	while (c.p < c.end) {
		size_t n;
		int32_t cp = text_decode(&c, &n);

		char what[64];

		if (cp < 0) {
			snprintf(what, sizeof(what), "invalid UTF-8 byte 0x%02x (UTF-8 text)",
				 *c.p);
			return text_fail(d, &c, ovr, what);
		}
		if (cp == 0)
			return text_fail(d, &c, ovr, "NUL byte (UTF-8 text)");
		if (!text_printable(cp)) {
			snprintf(what, sizeof(what), "control character U+%04X (printable text)",
				 (unsigned)cp);
			return text_fail(d, &c, ovr, what);
		}
		if (cp == '\t' && c.indent)
			return text_fail(d, &c, ovr, "tab in indentation (indent with spaces)");
		text_advance(&c, cp, n);
	}
	return 0;
}

/* see text.h */
size_t
rpmaf__cfg_text_offset(const char *buf, size_t len, unsigned line, unsigned column)
{
	struct text_cursor c = {(const unsigned char *)buf, (const unsigned char *)buf + len, 1, 1,
				true};

	while (c.p < c.end && (c.line < line || (c.line == line && c.column < column))) {
		size_t n;
		int32_t cp = text_decode(&c, &n);

		text_advance(&c, cp, n);
	}
	return (size_t)(c.p - (const unsigned char *)buf);
}
