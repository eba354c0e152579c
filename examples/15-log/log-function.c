/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * log-function.c -- the log function both sides of this example give the
 * library: it prints each message on standard output, after the program's
 * role, and counts them.
 */

#include <stdarg.h>
#include <stdio.h>

#include "common.h"
#include "log-function.h"

/* how many messages reached log_function(); updated atomically */
static int Logged;

/*
 * log_level_name -- a short name of a log level, or of a threshold that
 * disables logging.
 */
const char *
log_level_name(enum rpma_log_level level)
{
	switch (level) {
	case RPMA_LOG_DISABLED:
		return "disabled";
	case RPMA_LOG_LEVEL_FATAL:
		return "fatal";
	case RPMA_LOG_LEVEL_ERROR:
		return "error";
	case RPMA_LOG_LEVEL_WARNING:
		return "warning";
	case RPMA_LOG_LEVEL_NOTICE:
		return "notice";
	case RPMA_LOG_LEVEL_INFO:
		return "info";
	case RPMA_LOG_LEVEL_DEBUG:
		return "debug";
	default:
		return "?";
	}
}

/*
 * log_function -- print a library message on standard output with its
 * level and origin, and count it. One printf() per message keeps it
 * thread-safe, as the library requires.
 */
void
log_function(enum rpma_log_level level, const char *file_name, const int line_no,
	     const char *function_name, const char *message_format, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, message_format);
	vsnprintf(msg, sizeof(msg), message_format, ap);
	va_end(ap);

	__atomic_add_fetch(&Logged, 1, __ATOMIC_RELAXED);
	printf("%s: log: [%s] %s() at %s:%d: %s\n", common_role(), log_level_name(level),
	       function_name, file_name, line_no, msg);
}

/*
 * log_function_count -- how many messages log_function() has printed.
 */
int
log_function_count(void)
{
	return __atomic_load_n(&Logged, __ATOMIC_RELAXED);
}
