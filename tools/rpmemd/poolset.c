/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * poolset.c -- rpmemd's remote pool set file: its lines, words, sizes and
 * parts (see poolset.h)
 */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool_hdr.h"
#include "poolset.h"

#define SIGNATURE "PMEMPOOLSET"
#define QUOTE_MAX 48		      /* bytes of a word quoted in a message */
#define QUOTE_BUF (QUOTE_MAX * 4 + 4) /* room for them escaped, "..." and a NUL */

/* one line of the file, without its line feed and a CR before it */
struct line {
	const char *p;
	size_t len;
	unsigned no;
};

/* one word of a line: bytes between spaces and tabs */
struct word {
	const char *p;
	size_t len;
	unsigned col;
};

/* a size unit of poolset(5) */
struct unit {
	const char *name;
	uint64_t mul;
};

static const struct unit Units[] = {
    {"B", 1},
    {"K", 1ull << 10},
    {"M", 1ull << 20},
    {"G", 1ull << 30},
    {"T", 1ull << 40},
    {"P", 1ull << 50},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"PiB", 1ull << 50},
    {"kB", 1000ull},
    {"MB", 1000000ull},
    {"GB", 1000000000ull},
    {"TB", 1000000000000ull},
    {"PB", 1000000000000000ull},
};

/* the state of one parse */
struct parser {
	const char *file; /* the set file's path, for messages and relative parts */
	char *err;	  /* the caller's message buffer, err_len bytes (NULL: none) */
	size_t err_len;
	const char *buf; /* the file's bytes */
	size_t len;
	size_t pos;	 /* where the next line starts */
	unsigned lineno; /* the number of the last line read */
	struct poolset *set;
	unsigned cap; /* parts allocated at set->parts */
	size_t total; /* the sum of the parts' sizes so far */
};

/* fail -- put "FILE:LINE:COL: what" in the caller's buffer, if any; return code */
__attribute__((format(printf, 5, 6))) static int
fail(const struct parser *ps, int code, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err == NULL || ps->err_len == 0)
		return code;
	n = snprintf(ps->err, ps->err_len, "%s:%u:%u: ", ps->file, line, col);
	if (n < 0 || (size_t)n >= ps->err_len)
		return code;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* quote -- a word as printable text (\xNN escapes), cut to QUOTE_MAX bytes, for a message */
static const char *
quote(const struct word *w, char out[QUOTE_BUF])
{
	size_t n = w->len < QUOTE_MAX ? w->len : QUOTE_MAX;
	char *o = out;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w->p[i];

		if (c >= 0x20 && c < 0x7f)
			*o++ = (char)c;
		else
			o += sprintf(o, "\\x%02x", c);
	}
	strcpy(o, w->len > QUOTE_MAX ? "..." : "");
	return out;
}

/* line_next -- the next line of the file into *ln; false after the last one */
static bool
line_next(struct parser *ps, struct line *ln)
{
	size_t rest = ps->len - ps->pos;
	const char *start, *nl;
	size_t len;

	if (rest == 0)
		return false;
	start = ps->buf + ps->pos;
	nl = memchr(start, '\n', rest);
	len = nl ? (size_t)(nl - start) : rest;
	ps->pos += len + (nl != NULL);
	if (len > 0 && start[len - 1] == '\r')
		len--;
	ln->p = start;
	ln->len = len;
	ln->no = ++ps->lineno;
	return true;
}

/* line_check -- refuse an overlong line or a control byte in it, then cut its comment off */
static int
line_check(const struct parser *ps, struct line *ln)
{
	const char *hash;

	if (ln->len > POOLSET_MAX_LINE)
		return fail(ps, -E2BIG, ln->no, POOLSET_MAX_LINE + 1, "line longer than %u bytes",
			    POOLSET_MAX_LINE);
	for (size_t i = 0; i < ln->len; i++) {
		unsigned char c = (unsigned char)ln->p[i];

		if (c == '\0')
			return fail(ps, -EINVAL, ln->no, (unsigned)i + 1, "NUL byte in the text");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(ps, -EINVAL, ln->no, (unsigned)i + 1,
				    "control character 0x%02x in the text", c);
	}
	hash = memchr(ln->p, '#', ln->len);
	if (hash)
		ln->len = (size_t)(hash - ln->p);
	return 0;
}

/* is_blank -- a byte that separates words */
static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* word_next -- the next word of a line from byte *at on; false when none is left */
static bool
word_next(const struct line *ln, size_t *at, struct word *w)
{
	size_t i = *at;
	size_t start;

	while (i < ln->len && is_blank(ln->p[i]))
		i++;
	if (i == ln->len)
		return false;
	start = i;
	while (i < ln->len && !is_blank(ln->p[i]))
		i++;
	w->p = ln->p + start;
	w->len = i - start;
	w->col = (unsigned)start + 1;
	*at = i;
	return true;
}

/* word_is -- the word is exactly s */
static bool
word_is(const struct word *w, const char *s)
{
	return w->len == strlen(s) && memcmp(w->p, s, w->len) == 0;
}

/* unit_find -- the multiplier of the unit named by len bytes at p; false if there is none */
static bool
unit_find(const char *p, size_t len, uint64_t *mul)
{
	for (size_t i = 0; i < sizeof(Units) / sizeof(Units[0]); i++) {
		if (strlen(Units[i].name) == len && memcmp(Units[i].name, p, len) == 0) {
			*mul = Units[i].mul;
			return true;
		}
	}
	return false;
}

/* size_parse -- a part's size: decimal digits and an optional unit, within a size_t */
static int
size_parse(const struct parser *ps, unsigned line, const struct word *w, size_t *size)
{
	char q[QUOTE_BUF];
	uint64_t v = 0, mul = 1;
	bool over = false;
	size_t i = 0;

	if (word_is(w, "AUTO"))
		return fail(ps, -EINVAL, line, w->col,
			    "size AUTO (a whole Device DAX) is not supported in a remote pool set");
	for (; i < w->len && w->p[i] >= '0' && w->p[i] <= '9'; i++) {
		over |= __builtin_mul_overflow(v, 10, &v);
		over |= __builtin_add_overflow(v, (uint64_t)(w->p[i] - '0'), &v);
	}
	if (i == 0)
		return fail(ps, -EINVAL, line, w->col,
			    "invalid size '%s': decimal digits expected, then an optional unit",
			    quote(w, q));
	if (i < w->len && !unit_find(w->p + i, w->len - i, &mul))
		return fail(ps, -EINVAL, line, w->col + (unsigned)i,
			    "unknown unit in size '%s' (B; K, M, G, T, P; KiB, MiB, GiB, TiB, PiB; "
			    "kB, MB, GB, TB, PB)",
			    quote(w, q));
	over |= __builtin_mul_overflow(v, mul, &v);
	if (over || v > SIZE_MAX)
		return fail(ps, -EOVERFLOW, line, w->col, "size '%s' is too large", quote(w, q));
	*size = (size_t)v;
	return 0;
}

/* path_join -- a part's path: the word, after the set file's directory when relative */
static int
path_join(const struct parser *ps, unsigned line, const struct word *w, char **path)
{
	const char *slash = w->p[0] == '/' ? NULL : strrchr(ps->file, '/');
	size_t dir_len = slash ? (size_t)(slash - ps->file) + 1 : 0;
	char q[QUOTE_BUF];
	char *p;

	if (w->p[w->len - 1] == '/')
		return fail(ps, -EINVAL, line, w->col,
			    "'%s' ends in '/': directory parts are not supported", quote(w, q));
	if (dir_len + w->len >= PATH_MAX)
		return fail(ps, -ENAMETOOLONG, line, w->col,
			    "the part's path is %zu bytes long, the limit is %d", dir_len + w->len,
			    PATH_MAX - 1);
	p = malloc(dir_len + w->len + 1);
	if (p == NULL)
		return fail(ps, -ENOMEM, line, w->col, "out of memory");
	memcpy(p, ps->file, dir_len);
	memcpy(p + dir_len, w->p, w->len);
	p[dir_len + w->len] = '\0';
	*path = p;
	return 0;
}

/* path_unique -- no part so far has the path: two parts cannot share a file */
static int
path_unique(const struct parser *ps, unsigned line, const struct word *w, const char *path)
{
	char q[QUOTE_BUF];

	for (unsigned i = 0; i < ps->set->nparts; i++) {
		if (strcmp(ps->set->parts[i].path, path) == 0)
			return fail(ps, -EINVAL, line, w->col,
				    "'%s' is already the part of line %u", quote(w, q),
				    ps->set->parts[i].line);
	}
	return 0;
}

/* part_append -- a part at the end of the set, the array grown as needed */
static int
part_append(struct parser *ps, unsigned line, char *path, size_t size)
{
	struct poolset *set = ps->set;

	if (set->nparts == ps->cap) {
		unsigned cap = ps->cap ? ps->cap * 2 : 4;
		struct poolset_part *parts = realloc(set->parts, cap * sizeof(*parts));

		if (parts == NULL)
			return -ENOMEM;
		set->parts = parts;
		ps->cap = cap;
	}
	set->parts[set->nparts].path = path;
	set->parts[set->nparts].size = size;
	set->parts[set->nparts].line = line;
	set->nparts++;
	return 0;
}

/* parse_part -- a line "SIZE PATH": a part of at least POOLSET_MIN_PART bytes */
static int
parse_part(struct parser *ps, const struct line *ln, size_t at, const struct word *size_w)
{
	struct word path_w, extra;
	char q[QUOTE_BUF];
	char *path = NULL;
	size_t size = 0;
	int ret;

	if (!word_next(ln, &at, &path_w))
		return fail(ps, -EINVAL, ln->no, size_w->col,
			    "a part is 'SIZE PATH': the path is missing");
	if (word_next(ln, &at, &extra))
		return fail(ps, -EINVAL, ln->no, extra.col, "unexpected '%s' after the part's path",
			    quote(&extra, q));
	if (ps->set->nparts == POOLSET_MAX_PARTS)
		return fail(ps, -E2BIG, ln->no, size_w->col, "more than %u parts",
			    POOLSET_MAX_PARTS);
	ret = size_parse(ps, ln->no, size_w, &size);
	if (ret)
		return ret;
	if (size < POOLSET_MIN_PART)
		return fail(ps, -EINVAL, ln->no, size_w->col,
			    "part size %zu is below the minimum, %zu (2 MiB)", size,
			    POOLSET_MIN_PART);
	if (__builtin_add_overflow(ps->total, size, &ps->total))
		return fail(ps, -EOVERFLOW, ln->no, size_w->col,
			    "the sizes of the parts add up to more than %zu", (size_t)SIZE_MAX);
	ret = path_join(ps, ln->no, &path_w, &path);
	if (ret)
		return ret;
	ret = path_unique(ps, ln->no, &path_w, path);
	if (ret)
		goto err_free_path;
	ret = part_append(ps, ln->no, path, size);
	if (ret) {
		fail(ps, ret, ln->no, path_w.col, "out of memory");
		goto err_free_path;
	}
	return 0;

err_free_path:
	free(path);
	return ret;
}

/* parse_options -- the words after OPTION: SINGLEHDR or NOHDRS, never both in one set */
static int
parse_options(struct parser *ps, const struct line *ln, size_t at, const struct word *kw)
{
	const unsigned both = POOLSET_OPT_SINGLEHDR | POOLSET_OPT_NOHDRS;
	char q[QUOTE_BUF];
	struct word w;
	bool any = false;

	while (word_next(ln, &at, &w)) {
		if (word_is(&w, "SINGLEHDR"))
			ps->set->options |= POOLSET_OPT_SINGLEHDR;
		else if (word_is(&w, "NOHDRS"))
			ps->set->options |= POOLSET_OPT_NOHDRS;
		else
			return fail(ps, -EINVAL, ln->no, w.col,
				    "unknown option '%s' (SINGLEHDR or NOHDRS expected)",
				    quote(&w, q));
		if ((ps->set->options & both) == both)
			return fail(ps, -EINVAL, ln->no, w.col,
				    "options SINGLEHDR and NOHDRS exclude each other");
		any = true;
	}
	if (!any)
		return fail(ps, -EINVAL, ln->no, kw->col,
			    "OPTION without a name (SINGLEHDR or NOHDRS expected)");
	return 0;
}

/* parse_line -- a line after the first: nothing, OPTION, REPLICA (refused) or a part */
static int
parse_line(struct parser *ps, struct line *ln)
{
	struct word w;
	size_t at = 0;
	int ret;

	ret = line_check(ps, ln);
	if (ret)
		return ret;
	if (!word_next(ln, &at, &w))
		return 0;
	if (word_is(&w, "OPTION"))
		return parse_options(ps, ln, at, &w);
	if (word_is(&w, "REPLICA"))
		return fail(ps, -EINVAL, ln->no, w.col,
			    "REPLICA is not allowed in a remote pool set (it has no replicas)");
	return parse_part(ps, ln, at, &w);
}

/* parse_signature -- the first line is exactly PMEMPOOLSET */
static int
parse_signature(struct parser *ps)
{
	struct line ln;

	if (!line_next(ps, &ln) || ln.len != strlen(SIGNATURE) ||
	    memcmp(ln.p, SIGNATURE, ln.len) != 0)
		return fail(ps, -EINVAL, 1, 1, "the first line must be exactly '" SIGNATURE "'");
	return 0;
}

/* fail_no_parts -- the error of a set without parts, placed at the end of the file */
static int
fail_no_parts(const struct parser *ps)
{
	const char *nl = memrchr(ps->buf, '\n', ps->len);
	size_t last = nl ? (size_t)(nl - ps->buf) + 1 : 0;
	unsigned line = ps->lineno + (last == ps->len);

	return fail(ps, -EINVAL, line, (unsigned)(ps->len - last) + 1,
		    "no parts: at least one line 'SIZE PATH' expected");
}

/* see poolset.h */
int
poolset_parse(const char *buf, size_t len, const char *set_path, struct poolset **set_ptr,
	      char *err, size_t err_len)
{
	struct parser ps = {set_path, err, err_len, buf, len, 0, 0, NULL, 0, 0};
	struct line ln;
	int ret;

	if (err && err_len)
		err[0] = '\0';
	if (set_path == NULL || set_ptr == NULL || (buf == NULL && len != 0)) {
		if (err && err_len)
			snprintf(err, err_len, "poolset_parse: invalid argument");
		return -EINVAL;
	}
	if (len > POOLSET_MAX_FILE)
		return fail(&ps, -E2BIG, 1, 1, "the file is %zu bytes long, the limit is %zu", len,
			    POOLSET_MAX_FILE);
	ps.set = calloc(1, sizeof(*ps.set));
	if (ps.set == NULL)
		return fail(&ps, -ENOMEM, 1, 1, "out of memory");
	ret = parse_signature(&ps);
	while (ret == 0 && line_next(&ps, &ln))
		ret = parse_line(&ps, &ln);
	if (ret == 0 && ps.set->nparts == 0)
		ret = fail_no_parts(&ps);
	if (ret) {
		poolset_delete(&ps.set);
		return ret;
	}
	*set_ptr = ps.set;
	return 0;
}

/* see poolset.h */
void
poolset_delete(struct poolset **set_ptr)
{
	struct poolset *set = set_ptr ? *set_ptr : NULL;

	if (set == NULL)
		return;
	for (unsigned i = 0; i < set->nparts; i++)
		free(set->parts[i].path);
	free(set->parts);
	free(set);
	*set_ptr = NULL;
}

/* see poolset.h */
unsigned
poolset_nhdrs(const struct poolset *set)
{
	if (set->options & POOLSET_OPT_NOHDRS)
		return 0;
	if (set->options & POOLSET_OPT_SINGLEHDR)
		return 1;
	return set->nparts;
}

/* see poolset.h */
int
poolset_pool_size(const struct poolset *set, size_t *size)
{
	size_t sum = 0, hdrs;

	if (set == NULL || size == NULL)
		return -EINVAL;
	for (unsigned i = 0; i < set->nparts; i++) {
		size_t mapped = set->parts[i].size & ~(size_t)(POOL_HDR_SIZE - 1);

		if (__builtin_add_overflow(sum, mapped, &sum))
			return -EOVERFLOW;
	}
	hdrs = (size_t)poolset_nhdrs(set) * POOL_HDR_SIZE;
	if (sum < hdrs)
		return -EINVAL;
	*size = sum - hdrs;
	return 0;
}
