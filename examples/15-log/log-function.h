/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * log-function.h -- the log function both sides of this example give the
 * library (rpma_log_set_function()), and the names of the log levels.
 */

#ifndef EXAMPLES_LOG_FUNCTION_H
#define EXAMPLES_LOG_FUNCTION_H 1

#include <librpma.h>

const char *log_level_name(enum rpma_log_level level);
void log_function(enum rpma_log_level level, const char *file_name, const int line_no,
		  const char *function_name, const char *message_format, ...);
int log_function_count(void);

#endif /* EXAMPLES_LOG_FUNCTION_H */
