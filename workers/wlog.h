/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wlog.h -- the workers' log: one line per message, to the configuration's
 * log.file (appended) or standard error, up to log.level.
 *
 * CONTRACTS: rpmaf__wlog() from any thread (stdio locks the stream; only
 * errors and the control path log, never the data path's success).
 */

#ifndef RPMAF_WORKERS_WLOG_H
#define RPMAF_WORKERS_WLOG_H

#include <stdio.h>

#include "rpmaf.h"

struct rpmaf__wlog {
	FILE *out;
	int own; /* out was opened here */
	enum rpmaf_log_level level;
};

/* rpmaf__wlog_open -- log as cfg->log says; standard error when the file cannot be opened */
void rpmaf__wlog_open(struct rpmaf__wlog *l, const struct rpmaf_cfg *cfg);

/* rpmaf__wlog_close -- close the file opened by rpmaf__wlog_open() */
void rpmaf__wlog_close(struct rpmaf__wlog *l);

/* rpmaf__wlog -- log one message at level */
void rpmaf__wlog(const struct rpmaf__wlog *l, enum rpmaf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* RPMAF_WORKERS_WLOG_H */
