// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wlog.c -- the workers' log.
 */

#include <stdarg.h>

#include "wlog.h"

/* see wlog.h */
void
rpmaf__wlog_open(struct rpmaf__wlog *l, const struct rpmaf_cfg *cfg)
{
	l->out = stderr;
	l->own = 0;
	l->level = cfg->log.level;
	if (cfg->log.file) {
		FILE *f = fopen(cfg->log.file, "ae");

		if (f) {
			l->out = f;
			l->own = 1;
		}
	}
}

/* see wlog.h */
void
rpmaf__wlog_close(struct rpmaf__wlog *l)
{
	if (l->own)
		fclose(l->out);
	l->out = stderr;
	l->own = 0;
}

/* see wlog.h */
void
rpmaf__wlog(const struct rpmaf__wlog *l, enum rpmaf_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "notice", "info", "debug"};
	va_list ap;

	if (level > l->level)
		return;
	flockfile(l->out);
	fprintf(l->out, "rpmaf workers %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(l->out, fmt, ap);
	va_end(ap);
	fputc('\n', l->out);
	funlockfile(l->out);
	fflush(l->out);
}
