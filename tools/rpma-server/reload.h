/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * reload.h -- what rpma-server does with a configuration loaded again on
 * SIGHUP: the regions added, removed or changed are applied to the running
 * server (and so announced to its clients); every other difference needs a
 * restart and is reported, not applied.
 *
 * CONCURRENCY
 * The server's control thread only (the main thread of rpma-server).
 */

#ifndef RPMA_SERVER_RELOAD_H
#define RPMA_SERVER_RELOAD_H

#include "rpmaf.h"

/* one line of what a reload did or refused, for the log */
typedef void (*reload_log_fn)(enum rpmaf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * reload_apply -- make srv export the regions of next instead of those of
 * cur: add the new ones first (a failure removes the ones added so far, so
 * that a reload applies wholly or not at all), then remove the ones that
 * are gone. A region whose size, usage or create changed is changed in
 * place (rpmaf_server_region_change(): announced as changed, nothing in
 * flight fails; a failure keeps the old one, logged); one whose backing,
 * file or persistence changed is removed and added again. Differences
 * outside regions are logged as needing a restart.
 *
 * RETURN VALUE
 * 0 (next is now the configuration in force); a negative RPMAF_E_* code of
 * the region that could not be added (nothing changed; the log says which).
 */
int reload_apply(struct rpmaf_server *srv, const struct rpmaf_cfg *cur,
		 const struct rpmaf_cfg *next, reload_log_fn log);

#endif /* RPMA_SERVER_RELOAD_H */
