/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wtime.h -- the time every log line of the framework starts with: the
 * library's log (wlog.c) and the daemons' (tools/common/service.c, which
 * links it from librpmaf.a, RPMAF_INTERNAL_LIBS) write the one form.
 *
 * CONTRACTS: rpmaf__wlog_time() from any thread; it keeps no state.
 */

#ifndef RPMAF_WORKERS_WTIME_H
#define RPMAF_WORKERS_WTIME_H

#include <stddef.h>

/*
 * rpmaf__wlog_time -- the current local time as ISO 8601 with milliseconds
 * and the offset from UTC ("2026-11-27T10:59:42.123+00:00") into buf
 * (size >= 32), the form every log line of the framework starts with.
 */
void rpmaf__wlog_time(char *buf, size_t size);

#endif /* RPMAF_WORKERS_WTIME_H */
