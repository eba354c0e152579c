/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errmsg.h -- the message buffer rpmemd's pool functions fill for their
 * caller beside the error code they return
 */
#ifndef RPMEMD_ERRMSG_H
#define RPMEMD_ERRMSG_H

#include <stddef.h>

/*
 * errmsg_fail -- format the message into @err (when the caller gave one,
 * @err_len bytes at most) and return @code, so a failure is one statement.
 * Thread-safe: touches the caller's buffer only.
 */
__attribute__((format(printf, 4, 5))) int errmsg_fail(char *err, size_t err_len, int code,
						      const char *fmt, ...);

#endif
