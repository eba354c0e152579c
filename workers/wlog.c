// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wlog.c -- the library's log (wlog.h) and the application's function that
 * takes it (rpmaf.h, rpmaf_log_set_callback()).
 */

#include <pthread.h>
#include <stdarg.h>

#include "wlog.h"

/* the application's function and its argument; Log_lock guards both and every line's output */
static pthread_mutex_t Log_lock = PTHREAD_MUTEX_INITIALIZER;
static rpmaf_log_fn Log_fn;
static void *Log_arg;

/* see rpmaf.h */
int
rpmaf_log_set_callback(rpmaf_log_fn fn, void *arg)
{
	pthread_mutex_lock(&Log_lock);
	Log_fn = fn;
	Log_arg = arg;
	pthread_mutex_unlock(&Log_lock);
	return 0;
}

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
	char msg[1024], when[40];
	va_list ap;

	if (level > l->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&Log_lock);
	if (Log_fn) {
		Log_fn(level, msg, Log_arg);
	} else {
		rpmaf__wlog_time(when, sizeof(when));
		fprintf(l->out, "%s rpmaf: %s: %s\n", when, names[level], msg);
		fflush(l->out);
	}
	pthread_mutex_unlock(&Log_lock);
}
