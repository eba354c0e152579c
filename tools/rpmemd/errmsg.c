/* SPDX-License-Identifier: BSD-3-Clause */
/* errmsg.c -- the caller's message buffer (errmsg.h) */
#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"

/* errmsg_fail -- the message in the caller's buffer, if any; return code */
int
errmsg_fail(char *err, size_t err_len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err_len == 0)
		return code;
	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return code;
}
