/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * map.h -- the document tree mapped onto struct rpmaf_cfg through the key
 * table of schema.h: every key known, every value of its type and within
 * its fixed range, every required key present.
 *
 * ASSUMPTIONS
 * cfg holds the defaults (rpmaf__cfg_defaults()) before the call.
 */

#ifndef RPMAF_CFG_MAP_H
#define RPMAF_CFG_MAP_H

#include "diag.h"
#include "doc.h"

/*
 * rpmaf__cfg_map -- map the tree at root onto cfg
 *
 * RETURN VALUE
 * 0; or RPMAF_E_PARSE (an empty document), RPMAF_E_CONFIG or RPMAF_E_NOMEM
 * with the message in d. On failure cfg may hold part of the document:
 * free it with rpmaf__cfg_free().
 */
int rpmaf__cfg_map(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
		   struct rpmaf_cfg *cfg);

#endif /* RPMAF_CFG_MAP_H */
