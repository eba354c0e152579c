/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fscheck.h -- the rules that look at the file system: region files that
 * exist and are large enough (or may be created), a key file that is private
 * and of a sensible size, directories that exist. Only stat(2) and
 * access(2): nothing is opened, created or changed.
 */

#ifndef RPMAF_CFG_FSCHECK_H
#define RPMAF_CFG_FSCHECK_H

#include "diag.h"
#include "doc.h"

/*
 * rpmaf__cfg_fscheck -- check the files cfg names; root locates keys for
 * messages
 *
 * RETURN VALUE
 * 0; RPMAF_E_CONFIG with the message in d.
 */
int rpmaf__cfg_fscheck(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
		       const struct rpmaf_cfg *cfg);

#endif /* RPMAF_CFG_FSCHECK_H */
