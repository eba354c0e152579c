/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * diag.c -- error messages of the configuration loader and "did you mean"
 * suggestions (a Damerau-Levenshtein distance over short words).
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "scalar.h"

/* the longest file name or override a message shows whole */
#define DIAG_SOURCE_MAX 160
/* words longer than this are never close to a key */
#define SUGGEST_WORD_MAX 64

/* see diag.h */
void
rpmaf__cfg_diag_init(struct rpmaf__cfg_diag *d, const char *name, const char *const *overrides,
		     struct rpmaf_cfg_err *err)
{
	d->name = name;
	d->overrides = overrides;
	d->err = err;
	d->code = 0;
	if (err) {
		err->code = 0;
		err->line = 0;
		err->column = 0;
		err->override = -1;
		err->msg[0] = '\0';
	}
}

/* see diag.h */
char *
rpmaf__cfg_quote(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0;
	size_t room = size - 6; /* the quotes, "..." and the NUL */

	buf[o++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int need = (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') ? 4 : 1;

		if (o + need > room) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (need == 4)
			o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/*
 * diag_override -- "--set STRING: " with the override's control and
 * non-ASCII bytes as \xNN and a long one cut
 */
static int
diag_override(const char *s, char *buf, size_t size)
{
	size_t o = (size_t)snprintf(buf, size, "--set ");
	size_t shown = 0;

	for (; *s && o + 8 < size; s++, shown++) {
		unsigned char c = (unsigned char)*s;

		if (shown == DIAG_SOURCE_MAX) {
			o += (size_t)snprintf(buf + o, size - o, "...");
			break;
		}
		if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	return (int)o + snprintf(buf + o, size - o, ": ");
}

/* see diag.h */
char *
rpmaf__cfg_diag_key(char *buf, size_t size, const char *key, size_t len)
{
	if (len > 64 || len == 0 || !rpmaf__cfg_scalar_name_ok(key, len) || memchr(key, '.', len))
		return rpmaf__cfg_quote(buf, size, key, len);
	snprintf(buf, size, "%.*s", (int)len, key);
	return buf;
}

/* diag_source -- the start of a message: "FILE:L:C: ", "FILE: " or "--set X: " */
static int
diag_source(const struct rpmaf__cfg_diag *d, struct rpmaf__cfg_pos pos, char *buf, size_t size)
{
	const char *name = d->name;
	size_t n;

	if (pos.ovr >= 0)
		return diag_override(d->overrides[pos.ovr], buf, size);
	n = strlen(name);
	if (n > DIAG_SOURCE_MAX) /* keep the end of a long path, where the file name is */
		name += n - DIAG_SOURCE_MAX;
	if (pos.line == 0)
		return snprintf(buf, size, "%s%s: ", n > DIAG_SOURCE_MAX ? "..." : "", name);
	return snprintf(buf, size, "%s%s:%u:%u: ", n > DIAG_SOURCE_MAX ? "..." : "", name, pos.line,
			pos.column);
}

/* see diag.h */
int
rpmaf__cfg_diag_fail(struct rpmaf__cfg_diag *d, int code, struct rpmaf__cfg_pos pos,
		     const char *path, const char *fmt, ...)
{
	struct rpmaf_cfg_err *err = d->err;
	va_list ap;
	int n;

	if (d->code != 0)
		return code;
	d->code = code;
	if (err == NULL)
		return code;
	err->code = code;
	err->line = pos.ovr >= 0 ? 0 : pos.line;
	err->column = pos.ovr >= 0 ? 0 : pos.column;
	err->override = pos.ovr;
	n = diag_source(d, pos, err->msg, sizeof(err->msg));
	if (path && path[0] && n >= 0 && (size_t)n < sizeof(err->msg))
		n += snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, "%s: ", path);
	if (n >= 0 && (size_t)n < sizeof(err->msg)) {
		va_start(ap, fmt);
		vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* see diag.h */
int
rpmaf__cfg_diag_nomem(struct rpmaf__cfg_diag *d)
{
	struct rpmaf__cfg_pos none = {0, 0, -1};

	return rpmaf__cfg_diag_fail(d, RPMAF_E_NOMEM, none, NULL, "out of memory");
}

/* min3 -- the smallest of three */
static size_t
min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * suggest_distance -- the optimal string alignment distance between a and b
 * (insertions, deletions, substitutions and swaps of neighbours); both at
 * most SUGGEST_WORD_MAX bytes
 */
static size_t
suggest_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[SUGGEST_WORD_MAX + 1][SUGGEST_WORD_MAX + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

/* see diag.h */
const char *
rpmaf__cfg_suggest(const char *word, size_t len, const char *const *cands)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX;

	if (len == 0 || len > SUGGEST_WORD_MAX)
		return NULL;
	for (; *cands; cands++) {
		size_t lc = strlen(*cands);
		size_t limit = lc / 3 > 1 ? lc / 3 : 1;
		size_t dist;

		if (lc > SUGGEST_WORD_MAX)
			continue;
		dist = suggest_distance(word, len, *cands, lc);
		if (dist <= limit && dist < best_dist) {
			best = *cands;
			best_dist = dist;
		}
	}
	return best;
}
