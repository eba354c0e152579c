/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * doc.h -- a YAML document as a tree of nodes, built from libyaml's events
 * within the RPMAF_CFG_MAX_* bounds: one document, scalar keys that appear
 * once per mapping, aliases expanded into copies of what their anchor names.
 *
 * ASSUMPTIONS
 * A tree belongs to one load; nothing here is shared between threads.
 */

#ifndef RPMAF_CFG_DOC_H
#define RPMAF_CFG_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

enum rpmaf__cfg_kind {
	RPMAF__CFG_SCALAR,
	RPMAF__CFG_SEQ,
	RPMAF__CFG_MAP,
};

struct rpmaf__cfg_node {
	enum rpmaf__cfg_kind kind;
	struct rpmaf__cfg_pos pos; /* where the node starts, or the alias that copied it */
	bool plain;		   /* a scalar written without quotes (not a block scalar) */
	char *value;		   /* a scalar's len bytes, NUL-terminated (may hold NULs) */
	size_t len;
	struct rpmaf__cfg_node **items; /* SEQ: items; MAP: key, value, key, value, ... */
	size_t n;			/* items used (twice the pairs of a MAP) */
	size_t cap;
	uint32_t size;	 /* nodes in the subtree, this one included */
	uint32_t height; /* collections on the longest path down, this one included */
};

/*
 * rpmaf__cfg_doc_parse -- parse len bytes at buf (already checked by
 * rpmaf__cfg_text_check()) into a tree. For the file (ovr -1) the text must
 * hold exactly one document; for the value of override ovr it may hold none,
 * which gives an empty plain scalar.
 *
 * RETURN VALUE
 * 0 and *root set; RPMAF_E_PARSE or RPMAF_E_NOMEM with the message in d.
 */
int rpmaf__cfg_doc_parse(struct rpmaf__cfg_diag *d, const char *buf, size_t len, int ovr,
			 struct rpmaf__cfg_node **root);

/* rpmaf__cfg_node_delete -- free a tree (NULL is fine) */
void rpmaf__cfg_node_delete(struct rpmaf__cfg_node *node);

/*
 * rpmaf__cfg_node_new -- a new empty node of kind at pos with len bytes at
 * value for a scalar; NULL when out of memory
 */
struct rpmaf__cfg_node *rpmaf__cfg_node_new(enum rpmaf__cfg_kind kind, struct rpmaf__cfg_pos pos,
					    const char *value, size_t len);

/*
 * rpmaf__cfg_node_append -- add item at the end of a SEQ or MAP and update
 * sizes; on failure (RPMAF_E_NOMEM) item is not owned by node
 */
int rpmaf__cfg_node_append(struct rpmaf__cfg_node *node, struct rpmaf__cfg_node *item);

/* rpmaf__cfg_node_is_null -- a plain scalar "", "~", "null", "Null" or "NULL" */
bool rpmaf__cfg_node_is_null(const struct rpmaf__cfg_node *node);

/*
 * rpmaf__cfg_map_find -- the index in map->items of the value of the key of
 * len bytes at key; 0 when there is none (a value is never at index 0)
 */
size_t rpmaf__cfg_map_find(const struct rpmaf__cfg_node *map, const char *key, size_t len);

#endif /* RPMAF_CFG_DOC_H */
