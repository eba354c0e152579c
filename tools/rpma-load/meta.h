/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * meta.h -- what a run was, for the JSON object: the tool's version, the
 * start time, the host and a digest of what was run.
 *
 * The digest is the SHA-256 of the resolved configuration as
 * rpmaf_cfg_dump() writes it, followed by the resolved workload, one
 * "key: value" line each (meta.c's wl_text): two runs with equal digests
 * ran the same thing, whatever the files and the --set overrides looked
 * like.
 *
 * ASSUMPTIONS
 * Called by the main thread.
 */

#ifndef RPMA_LOAD_META_H
#define RPMA_LOAD_META_H

#include "report.h"
#include "workload.h"

/*
 * the tool's version, RPMAF_TOOLS_VERSION: the Makefile's VERSION and the
 * tree's git describe, as every tool of the framework prints it
 */
#include "rpmaf_version.h"

/* meta_start -- version, start time (now) and host into m */
void meta_start(struct report_meta *m);

/*
 * meta_digest -- the digest of cfg and wl into m->digest
 * RETURN VALUE: 0; -1 with a message on stderr (out of memory, libsodium).
 */
int meta_digest(struct report_meta *m, const struct rpmaf_cfg *cfg, const struct workload *wl);

#endif /* RPMA_LOAD_META_H */
