/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf.h -- librpmaf, the rpma framework: the services built on librpma
 * (worker threads, connection pools, a region table, a server and a load
 * generator) and the configuration they all read.
 *
 * This header is the manual. Every function says what it does, what it
 * returns, which errors it reports and whether it is thread-safe. Functions
 * return 0 (or a documented non-negative value) on success and a negative
 * RPMAF_E_* code on failure; the library never prints anything of its own
 * accord: what it has to say (the log, up to log.level) goes to the
 * function the application gives rpmaf_log_set_callback(), and only while
 * it gives none to log.file or standard error.
 *
 * Link with: cc app.c $(pkg-config --cflags --libs rpmaf)
 */

#ifndef RPMAF_H
#define RPMAF_H

/* the parts, one a section of the manual (rpmaf/include/rpmaf/) */
#include "rpmaf/config.h"
#include "rpmaf/errors.h"
#include "rpmaf/pool.h"
#include "rpmaf/server.h"
#include "rpmaf/workers.h"

#endif /* RPMAF_H */
