/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * override.h -- "--set key.path=value": the value parsed as YAML and put
 * into the document tree at key.path before the tree is mapped, so that an
 * override is validated exactly as the same value in the file would be.
 */

#ifndef RPMAF_CFG_OVERRIDE_H
#define RPMAF_CFG_OVERRIDE_H

#include "diag.h"
#include "doc.h"

/*
 * rpmaf__cfg_override_apply -- apply override number idx (the string
 * d->overrides[idx]) to the mapping at root: missing mappings on the path
 * are created, an existing value is replaced, a list entry must exist.
 *
 * RETURN VALUE
 * 0; RPMAF_E_PARSE (not key.path=value, a value that is not YAML, a path
 * that does not fit the document) or RPMAF_E_NOMEM, with the message in d.
 */
int rpmaf__cfg_override_apply(struct rpmaf__cfg_diag *d, struct rpmaf__cfg_node *root, int idx);

/*
 * rpmaf__cfg_tree -- the document tree of the len bytes at buf (a UTF-8
 * byte order mark skipped, the text checked) with the first n_overrides of
 * d->overrides applied, into *root; the loader of the configuration and
 * rpma-load's workload file share it. Any thread, on its own d and buffer;
 * the caller frees *root with rpmaf__cfg_node_delete().
 *
 * RETURN VALUE
 * 0, or the error of the text check, the parser or an override (with the
 * message in d; *root is then NULL or untouched).
 */
int rpmaf__cfg_tree(struct rpmaf__cfg_diag *d, const char *buf, size_t len, unsigned n_overrides,
		    struct rpmaf__cfg_node **root);

#endif /* RPMAF_CFG_OVERRIDE_H */
