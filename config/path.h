/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * path.h -- key paths ("queues.srq.rq", "regions[0].backing.file"): their
 * syntax, and finding the node a path names in a document tree.
 */

#ifndef RPMAF_CFG_PATH_H
#define RPMAF_CFG_PATH_H

#include <stddef.h>

#include "doc.h"

#define RPMAF__CFG_PATH_SEGS RPMAF_CFG_MAX_DEPTH

/* one step of a path: a key of a mapping, or an index of a list */
struct rpmaf__cfg_seg {
	const char *key; /* NULL for an index */
	size_t len;
	size_t index;
	size_t end; /* offset in the path text just past this step */
};

/*
 * rpmaf__cfg_path_parse -- split the len bytes at s into at most
 * RPMAF__CFG_PATH_SEGS steps: keys of letters, digits, '_' and '-' joined
 * by '.', each optionally followed by indexes "[N]".
 *
 * RETURN VALUE
 * The number of steps; -1 when s is not such a path.
 */
int rpmaf__cfg_path_parse(const char *s, size_t len, struct rpmaf__cfg_seg *segs);

/*
 * rpmaf__cfg_path_find -- the node that path names in the tree at root, or
 * NULL when there is none; *nearest (when not NULL) gets the node to point a
 * message at: the key of the deepest mapping entry on the way that exists
 * (the key of the value found, when it is found), or root.
 */
const struct rpmaf__cfg_node *rpmaf__cfg_path_find(const struct rpmaf__cfg_node *root,
						   const char *path,
						   const struct rpmaf__cfg_node **nearest);

#endif /* RPMAF_CFG_PATH_H */
