/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rules.h -- the rules between keys, checked once every key is mapped:
 * "auto" sizes resolved, queue sizes that can hold what may be outstanding,
 * the device's limits, unique names, persistence that can work.
 */

#ifndef RPMAF_CFG_RULES_H
#define RPMAF_CFG_RULES_H

#include "diag.h"
#include "doc.h"

/*
 * rpmaf__cfg_rules_check -- resolve and check cfg, mapped from the tree at
 * root (which only locates keys for messages), against limits (NULL: the
 * fixed bounds only)
 *
 * RETURN VALUE
 * 0; RPMAF_E_CONFIG with the message in d.
 */
int rpmaf__cfg_rules_check(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
			   struct rpmaf_cfg *cfg, const struct rpmaf_cfg_limits *limits);

/*
 * rpmaf__cfg_rules_fail -- an RPMAF_E_CONFIG error about the key at path
 * (printf-style, after the path), placed in the tree at root at the value
 * of a scalar key, the key of a mapping or list, or, when the file does not
 * have the key, at the key of its nearest ancestor that it has
 */
int rpmaf__cfg_rules_fail(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
			  const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* RPMAF_CFG_RULES_H */
