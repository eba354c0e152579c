/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * path.c -- key paths: parsed into steps, followed through a tree.
 */

#include <string.h>

#include "path.h"

/* path_key_char -- a character a key of a path may have */
static int
path_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* path_index -- "[N]" at s[*i]: N into *index and *i past the ']'; -1 when malformed */
static int
path_index(const char *s, size_t len, size_t *i, size_t *index)
{
	size_t v = 0;
	size_t start = ++*i;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		if (v > 100000000) /* far beyond any list the loader accepts */
			return -1;
		v = v * 10 + (size_t)(s[*i] - '0');
		++*i;
	}
	if (*i == start || *i >= len || s[*i] != ']')
		return -1;
	++*i;
	*index = v;
	return 0;
}

/* see path.h */
int
rpmaf__cfg_path_parse(const char *s, size_t len, struct rpmaf__cfg_seg *segs)
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		size_t start = i;

		while (i < len && path_key_char(s[i]))
			i++;
		if (i == start || n == RPMAF__CFG_PATH_SEGS)
			return -1;
		segs[n++] = (struct rpmaf__cfg_seg){s + start, i - start, 0, i};
		while (i < len && s[i] == '[') {
			if (n == RPMAF__CFG_PATH_SEGS)
				return -1;
			segs[n].key = NULL;
			if (path_index(s, len, &i, &segs[n].index))
				return -1;
			segs[n++].end = i;
		}
		if (i < len && (s[i] != '.' || ++i == len))
			return -1;
	}
	return n > 0 ? n : -1;
}

/*
 * path_step -- the child of node that seg names, or NULL; *where gets the
 * node that shows where the child is written: its key in a mapping
 */
static const struct rpmaf__cfg_node *
path_step(const struct rpmaf__cfg_node *node, const struct rpmaf__cfg_seg *seg,
	  const struct rpmaf__cfg_node **where)
{
	size_t at;

	if (seg->key == NULL) {
		if (node->kind != RPMAF__CFG_SEQ || seg->index >= node->n)
			return NULL;
		*where = node->items[seg->index];
		return *where;
	}
	if (node->kind != RPMAF__CFG_MAP)
		return NULL;
	at = rpmaf__cfg_map_find(node, seg->key, seg->len);
	if (at == 0)
		return NULL;
	*where = node->items[at - 1];
	return node->items[at];
}

/* see path.h */
const struct rpmaf__cfg_node *
rpmaf__cfg_path_find(const struct rpmaf__cfg_node *root, const char *path,
		     const struct rpmaf__cfg_node **nearest)
{
	struct rpmaf__cfg_seg segs[RPMAF__CFG_PATH_SEGS];
	int n = rpmaf__cfg_path_parse(path, strlen(path), segs);
	const struct rpmaf__cfg_node *node = root;
	const struct rpmaf__cfg_node *where = root;

	for (int i = 0; i < n && node; i++)
		node = path_step(node, &segs[i], &where);
	if (nearest)
		*nearest = where;
	return n < 0 ? NULL : node;
}
