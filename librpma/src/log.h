/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * log.h -- the library's internal logging: leveled messages routed to the
 * user's (or the default) log function, and the thread-local text that
 * rpma_errormsg() returns.
 *
 * Threads: any thread, no lock: the text is thread-local, the thresholds
 * and the log function are read and written atomically; nothing to free.
 */

#ifndef RPMA_LOG_H
#define RPMA_LOG_H

#include "librpma.h"

/*
 * rpma__log -- record a message: every message at level ERROR or more severe
 * becomes this thread's rpma_errormsg(); messages within the threshold go to
 * the log function.
 *
 * ASSUMPTIONS: format is a printf format matching the arguments.
 * ERRORS: none (logging never fails the caller).
 */
void rpma__log(enum rpma_log_level level, const char *file, int line, const char *func,
	       const char *format, ...) __attribute__((format(printf, 5, 6)));

#define RPMA_LOG(level, ...)  rpma__log(level, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define RPMA_LOG_FATAL(...)   RPMA_LOG(RPMA_LOG_LEVEL_FATAL, __VA_ARGS__)
#define RPMA_LOG_ERROR(...)   RPMA_LOG(RPMA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define RPMA_LOG_WARNING(...) RPMA_LOG(RPMA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define RPMA_LOG_NOTICE(...)  RPMA_LOG(RPMA_LOG_LEVEL_NOTICE, __VA_ARGS__)
#define RPMA_LOG_INFO(...)    RPMA_LOG(RPMA_LOG_LEVEL_INFO, __VA_ARGS__)
#define RPMA_LOG_DEBUG(...)   RPMA_LOG(RPMA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/*
 * RPMA_LOG_ERROR_WITH_ERRNO -- log a failed provider call with its errno
 * (e.g. RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_connect()")).
 */
#define RPMA_LOG_ERROR_WITH_ERRNO(e, fmt, ...)                                                     \
	RPMA_LOG_ERROR(fmt " failed: %s (errno %d)", ##__VA_ARGS__, rpma__strerror(e), (e))

/*
 * RPMA_LOG_ERROR_IN, RPMA_LOG_ERROR_WITH_ERRNO_IN -- the same, logged in the
 * name of func: used by the cold halves of public functions, so that the
 * log names the function the user called.
 */
#define RPMA_LOG_ERROR_IN(func, ...)                                                               \
	rpma__log(RPMA_LOG_LEVEL_ERROR, __FILE__, __LINE__, func, __VA_ARGS__)
#define RPMA_LOG_ERROR_WITH_ERRNO_IN(func, e, fmt, ...)                                            \
	RPMA_LOG_ERROR_IN(func, fmt " failed: %s (errno %d)", ##__VA_ARGS__, rpma__strerror(e), (e))

/*
 * rpma__strerror -- a thread-safe strerror() for log messages.
 * ERRORS: none.
 */
const char *rpma__strerror(int errnum);

/*
 * rpma__log_init / rpma__log_fini -- read RPMA_LOG_LEVEL and RPMA_LOG_FILE when
 * the library is loaded, close the log file when it is unloaded.
 */
void rpma__log_init(void);
void rpma__log_fini(void);

#endif /* RPMA_LOG_H */
