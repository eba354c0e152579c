/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * log.c -- leveled logging with a replaceable function, thresholds, the
 * RPMA_LOG_LEVEL / RPMA_LOG_FILE environment and the thread-local text of the
 * last failure.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

#define RPMA_ERRORMSG_MAX 512
#define RPMA_LOG_LINE_MAX 1024

/* thresholds: read and written atomically, so any thread may change them */
static int Log_threshold[RPMA_LOG_THRESHOLD_MAX] = {
    [RPMA_LOG_THRESHOLD] = RPMA_LOG_DISABLED,
    [RPMA_LOG_THRESHOLD_AUX] = RPMA_LOG_DISABLED,
};

/* the user's log function, NULL for the default one */
static rpma_log_function *Log_function;

/* where the default function writes: RPMA_LOG_FILE, or stderr when NULL */
static FILE *Log_file;

static __thread char Errormsg[RPMA_ERRORMSG_MAX];

static const char *const Level_names[] = {
    [RPMA_LOG_LEVEL_FATAL] = "*FATAL*",	    [RPMA_LOG_LEVEL_ERROR] = "*ERROR*",
    [RPMA_LOG_LEVEL_WARNING] = "*WARNING*", [RPMA_LOG_LEVEL_NOTICE] = "*NOTE*",
    [RPMA_LOG_LEVEL_INFO] = "*INFO*",	    [RPMA_LOG_LEVEL_DEBUG] = "*DEBUG*",
};

static const int Syslog_priorities[] = {
    [RPMA_LOG_LEVEL_FATAL] = LOG_CRIT,	    [RPMA_LOG_LEVEL_ERROR] = LOG_ERR,
    [RPMA_LOG_LEVEL_WARNING] = LOG_WARNING, [RPMA_LOG_LEVEL_NOTICE] = LOG_NOTICE,
    [RPMA_LOG_LEVEL_INFO] = LOG_INFO,	    [RPMA_LOG_LEVEL_DEBUG] = LOG_DEBUG,
};

/*
 * rpma__strerror -- strerror_r() into a thread-local buffer, so that log
 * messages from many threads do not clobber each other.
 */
const char *
rpma__strerror(int errnum)
{
	static __thread char buf[128];

	return strerror_r(errnum, buf, sizeof(buf));
}

/*
 * log_default_function -- write a message within the main threshold to
 * RPMA_LOG_FILE or stderr, and one within the auxiliary threshold to syslog.
 */
static void
log_default_function(enum rpma_log_level level, const char *file_name, const int line_no,
		     const char *function_name, const char *message_format, ...)
{
	char message[RPMA_LOG_LINE_MAX];
	va_list ap;

	va_start(ap, message_format);
	vsnprintf(message, sizeof(message), message_format, ap);
	va_end(ap);

	if (level < RPMA_LOG_LEVEL_FATAL || level > RPMA_LOG_LEVEL_DEBUG)
		return;

	const char *name = Level_names[level];
	FILE *out = Log_file ? Log_file : stderr;

	if (level <= __atomic_load_n(&Log_threshold[RPMA_LOG_THRESHOLD], __ATOMIC_RELAXED)) {
		fprintf(out, "%s %s:%d %s: %s\n", name, file_name, line_no, function_name, message);
		fflush(out);
	}

	if (level <= __atomic_load_n(&Log_threshold[RPMA_LOG_THRESHOLD_AUX], __ATOMIC_RELAXED))
		syslog(Syslog_priorities[level], "%s %s:%d %s: %s", name, file_name, line_no,
		       function_name, message);
}

/* see log.h */
void
rpma__log(enum rpma_log_level level, const char *file, int line, const char *func,
	  const char *format, ...)
{
	int saved_errno = errno;
	va_list ap;

	if (level <= RPMA_LOG_LEVEL_ERROR) {
		va_start(ap, format);
		vsnprintf(Errormsg, sizeof(Errormsg), format, ap);
		va_end(ap);
	}

	if (level > __atomic_load_n(&Log_threshold[RPMA_LOG_THRESHOLD], __ATOMIC_RELAXED) &&
	    level > __atomic_load_n(&Log_threshold[RPMA_LOG_THRESHOLD_AUX], __ATOMIC_RELAXED))
		goto out;

	rpma_log_function *fn = __atomic_load_n(&Log_function, __ATOMIC_ACQUIRE);
	char message[RPMA_LOG_LINE_MAX];

	va_start(ap, format);
	vsnprintf(message, sizeof(message), format, ap);
	va_end(ap);

	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (fn)
		fn(level, base, line, func, "%s", message);
	else
		log_default_function(level, base, line, func, "%s", message);
out:
	errno = saved_errno;
}

/* see librpma.h */
const char *
rpma_errormsg(void)
{
	return Errormsg;
}

/* see librpma.h */
int
rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level)
{
	if ((int)threshold < RPMA_LOG_THRESHOLD || threshold >= RPMA_LOG_THRESHOLD_MAX) {
		RPMA_LOG_ERROR("invalid log threshold: %d", (int)threshold);
		return RPMA_E_INVAL;
	}
	if ((int)level < RPMA_LOG_DISABLED || level > RPMA_LOG_LEVEL_DEBUG) {
		RPMA_LOG_ERROR("invalid log level: %d", (int)level);
		return RPMA_E_INVAL;
	}

	__atomic_store_n(&Log_threshold[threshold], (int)level, __ATOMIC_RELAXED);
	return 0;
}

/* see librpma.h */
int
rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level)
{
	if ((int)threshold < RPMA_LOG_THRESHOLD || threshold >= RPMA_LOG_THRESHOLD_MAX) {
		RPMA_LOG_ERROR("invalid log threshold: %d", (int)threshold);
		return RPMA_E_INVAL;
	}
	if (level == NULL) {
		RPMA_LOG_ERROR("level is NULL");
		return RPMA_E_INVAL;
	}

	*level = (enum rpma_log_level)__atomic_load_n(&Log_threshold[threshold], __ATOMIC_RELAXED);
	return 0;
}

/* see librpma.h */
int
rpma_log_set_function(rpma_log_function *log_function)
{
	__atomic_store_n(&Log_function, log_function, __ATOMIC_RELEASE);
	return 0;
}

/*
 * log_level_from_env -- map RPMA_LOG_LEVEL (0-4) onto a log level: 0 logs
 * nothing, 1 errors, 2 warnings and notices, 3 information, 4 everything.
 * Returns -2 when the value is not one of those.
 */
static int
log_level_from_env(const char *value)
{
	static const int map[] = {RPMA_LOG_DISABLED, RPMA_LOG_LEVEL_ERROR, RPMA_LOG_LEVEL_NOTICE,
				  RPMA_LOG_LEVEL_INFO, RPMA_LOG_LEVEL_DEBUG};

	if (value[0] < '0' || value[0] > '4' || value[1] != '\0')
		return -2;
	return map[value[0] - '0'];
}

/*
 * log_open_file -- open RPMA_LOG_FILE for appending; a trailing '-' gets the
 * PID appended so that every process writes its own file.
 */
static FILE *
log_open_file(const char *name)
{
	char path[4096];
	size_t len = strlen(name);

	if (len == 0 || len >= sizeof(path) - 16) {
		errno = len == 0 ? ENOENT : ENAMETOOLONG;
		return NULL;
	}
	if (name[len - 1] == '-')
		snprintf(path, sizeof(path), "%s%d", name, (int)getpid());
	else
		snprintf(path, sizeof(path), "%s", name);

	return fopen(path, "ae");
}

/* see log.h; runs when the library is loaded */
__attribute__((constructor)) void
rpma__log_init(void)
{
	const char *level = secure_getenv("RPMA_LOG_LEVEL");
	const char *file = secure_getenv("RPMA_LOG_FILE");

	if (file && (Log_file = log_open_file(file)) == NULL)
		fprintf(stderr, "librpma: cannot open RPMA_LOG_FILE '%s': %s\n", file,
			rpma__strerror(errno));

	if (level) {
		int l = log_level_from_env(level);

		if (l == -2)
			RPMA_LOG_WARNING("RPMA_LOG_LEVEL='%s' is not 0-4, ignored", level);
		else
			__atomic_store_n(&Log_threshold[RPMA_LOG_THRESHOLD], l, __ATOMIC_RELAXED);
	}
}

/* see log.h; runs when the library is unloaded */
__attribute__((destructor)) void
rpma__log_fini(void)
{
	if (Log_file) {
		fclose(Log_file);
		Log_file = NULL;
	}
}
