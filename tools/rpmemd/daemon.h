/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * daemon.h -- what rpmemd serves: librpmem's five pool requests
 * (doc/RPMEM-PROTOCOL.md) taken as framework calls answered later, run
 * one after another on the daemon's control thread (they create, map,
 * lock and sync files: they may block), and the pools they opened, each
 * exported as one framework region until its client closes it or its
 * connection goes.
 *
 * CONCURRENCY
 * rpmemd_new() and rpmemd_delete() run on the main thread. The call
 * handler and the connection hook run on the framework's worker threads:
 * they only decode and queue (a mutex held for a pointer swap, never
 * across anything that blocks). Everything else — the pools, their table,
 * the regions — belongs to the control thread.
 */

#ifndef RPMEMD_DAEMON_H
#define RPMEMD_DAEMON_H

#include "rpmaf.h"

struct rpmemd;

/* a line of the daemon's log: level, then printf() */
typedef void (*rpmemd_log_fn)(enum rpmaf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * rpmemd_new -- the daemon of cfg (its rpmem section) on server srv, which
 * has not started: the handlers and the connection hook registered, the
 * control thread running. RETURN VALUE: 0; a negative RPMAF_E_* code.
 */
int rpmemd_new(const struct rpmaf_cfg *cfg, struct rpmaf_server *srv, rpmemd_log_fn log,
	       struct rpmemd **d_ptr);

/*
 * rpmemd_delete -- after rpmaf_server_stop() (every call answered, every
 * connection closed): stop the control thread once its queue is empty,
 * close the pools still open (their regions withdrawn), free everything.
 * Before rpmaf_server_delete().
 */
void rpmemd_delete(struct rpmemd **d_ptr);

/* rpmemd_pools_open -- how many pools are open now (any thread; a relaxed read) */
unsigned rpmemd_pools_open(const struct rpmemd *d);

#endif /* RPMEMD_DAEMON_H */
