/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * override.c -- applying "--set key.path=value" to a document tree.
 */

#include <stdio.h>
#include <string.h>

#include "override.h"
#include "path.h"
#include "text.h"

struct override {
	struct rpmaf__cfg_diag *d;
	int idx;
	struct rpmaf__cfg_seg segs[RPMAF__CFG_PATH_SEGS];
	int nsegs;
	const char *path; /* the key.path part of the string */
	size_t path_len;
};

/* override_fail -- an error for this override, about its path up to step i */
static int
override_fail(struct override *o, int i, const char *what, const char *expected)
{
	struct rpmaf__cfg_pos pos = {0, 0, o->idx};
	size_t len = o->segs[i].end;

	return rpmaf__cfg_diag_fail(o->d, RPMAF_E_PARSE, pos, NULL, "%.*s: %s (%s)", (int)len,
				    o->path, what, expected);
}

/* override_insert -- add key step i with value to the mapping map */
static int
override_insert(struct override *o, struct rpmaf__cfg_node *map, int i,
		struct rpmaf__cfg_node *value)
{
	struct rpmaf__cfg_pos pos = {0, 0, o->idx};
	struct rpmaf__cfg_node *key;

	if (map->n >= 2 * RPMAF_CFG_MAX_ITEMS)
		return override_fail(o, i, "one entry too many", "a shorter mapping");
	key = rpmaf__cfg_node_new(RPMAF__CFG_SCALAR, pos, o->segs[i].key, o->segs[i].len);
	if (key == NULL)
		return rpmaf__cfg_diag_nomem(o->d);
	key->plain = true;
	if (rpmaf__cfg_node_append(map, key)) {
		rpmaf__cfg_node_delete(key);
		return rpmaf__cfg_diag_nomem(o->d);
	}
	if (rpmaf__cfg_node_append(map, value)) {
		map->n--;
		rpmaf__cfg_node_delete(key);
		return rpmaf__cfg_diag_nomem(o->d);
	}
	return 0;
}

/*
 * override_slot -- the place of step i's value in node (a pointer into its
 * items), creating a missing key with an empty mapping when more steps follow
 * (value is NULL) or with value at the last step; *slot NULL after the call
 * when value was inserted as a new key
 */
static int
override_slot(struct override *o, struct rpmaf__cfg_node *node, int i,
	      struct rpmaf__cfg_node *value, struct rpmaf__cfg_node ***slot)
{
	const struct rpmaf__cfg_seg *s = &o->segs[i];
	struct rpmaf__cfg_pos pos = {0, 0, o->idx};
	char expected[64];
	size_t at;
	int ret;

	*slot = NULL;
	if (s->key == NULL) {
		if (node->kind != RPMAF__CFG_SEQ)
			return override_fail(o, i, "not a list", "an index into a list");
		snprintf(expected, sizeof(expected), "an index below %zu", node->n);
		if (s->index >= node->n)
			return override_fail(o, i, "no such entry", expected);
		*slot = &node->items[s->index];
		return 0;
	}
	if (node->kind != RPMAF__CFG_MAP)
		return override_fail(o, i, "the value holding this key is not a mapping",
				     "a path through mappings");
	at = rpmaf__cfg_map_find(node, s->key, s->len);
	if (at) {
		*slot = &node->items[at];
		return 0;
	}
	if (i + 1 < o->nsegs && o->segs[i + 1].key == NULL)
		return override_fail(o, i + 1, "no such entry", "an existing list");
	if (value == NULL && (value = rpmaf__cfg_node_new(RPMAF__CFG_MAP, pos, NULL, 0)) == NULL)
		return rpmaf__cfg_diag_nomem(o->d);
	if ((ret = override_insert(o, node, i, value))) {
		if (i + 1 < o->nsegs)
			rpmaf__cfg_node_delete(value);
		return ret;
	}
	if (i + 1 < o->nsegs)
		*slot = &node->items[node->n - 1];
	return 0;
}

/* override_put -- walk the path from root and put value (taken over) at its end */
static int
override_put(struct override *o, struct rpmaf__cfg_node *root, struct rpmaf__cfg_node *value)
{
	struct rpmaf__cfg_node *node = root;
	struct rpmaf__cfg_node **slot;
	int ret;

	if ((unsigned)o->nsegs + value->height > RPMAF_CFG_MAX_DEPTH) {
		ret = override_fail(o, o->nsegs - 1, "nests too deep", "a flatter value");
		goto err_value;
	}
	for (int i = 0; i < o->nsegs - 1; i++) {
		if ((ret = override_slot(o, node, i, NULL, &slot)))
			goto err_value;
		node = *slot;
	}
	if ((ret = override_slot(o, node, o->nsegs - 1, value, &slot)))
		goto err_value;
	if (slot) { /* replace an existing value */
		rpmaf__cfg_node_delete(*slot);
		*slot = value;
	}
	return 0;

err_value:
	rpmaf__cfg_node_delete(value);
	return ret;
}

/* see override.h */
int
rpmaf__cfg_override_apply(struct rpmaf__cfg_diag *d, struct rpmaf__cfg_node *root, int idx)
{
	const char *s = d->overrides[idx];
	const char *eq = strchr(s, '=');
	struct rpmaf__cfg_pos pos = {0, 0, idx};
	struct override o = {.d = d, .idx = idx, .path = s};
	struct rpmaf__cfg_node *value;
	char quoted[80];
	int ret;

	if (eq == NULL || eq == s)
		return rpmaf__cfg_diag_fail(d, RPMAF_E_PARSE, pos, NULL,
					    "not key.path=value (e.g. workers.count=2)");
	o.path_len = (size_t)(eq - s);
	o.nsegs = rpmaf__cfg_path_parse(s, o.path_len, o.segs);
	if (o.nsegs < 0 || o.segs[0].key == NULL)
		return rpmaf__cfg_diag_fail(
		    d, RPMAF_E_PARSE, pos, NULL,
		    "%s is not a key path (keys joined by '.', list "
		    "entries as [N]: regions[0].size)",
		    rpmaf__cfg_quote(quoted, sizeof(quoted), s, o.path_len));
	if ((ret = rpmaf__cfg_text_check(d, eq + 1, strlen(eq + 1), idx)))
		return ret;
	if ((ret = rpmaf__cfg_doc_parse(d, eq + 1, strlen(eq + 1), idx, &value)))
		return ret;
	return override_put(&o, root, value);
}

/* see override.h */
int
rpmaf__cfg_tree(struct rpmaf__cfg_diag *d, const char *buf, size_t len, unsigned n_overrides,
		struct rpmaf__cfg_node **root)
{
	int ret;

	/* libyaml, told the text is UTF-8, would take a BOM for a character of the first line */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	if ((ret = rpmaf__cfg_text_check(d, buf, len, -1)) ||
	    (ret = rpmaf__cfg_doc_parse(d, buf, len, -1, root)))
		return ret;
	/* a document that is not a mapping gets its own message from the mapper */
	for (unsigned i = 0; (*root)->kind == RPMAF__CFG_MAP && i < n_overrides; i++) {
		if ((ret = rpmaf__cfg_override_apply(d, *root, (int)i))) {
			rpmaf__cfg_node_delete(*root);
			*root = NULL;
			return ret;
		}
	}
	return 0;
}
