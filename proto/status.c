/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * status.c -- error messages of the protocol layer and the names of the
 * wire status codes.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "status.h"

/* see status.h */
int
rpmaf__proto_fail(struct rpmaf__proto_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

/* the descriptions of the local codes, from RPMAF__PROTO_E_INVAL downwards */
static const char *const Err_str[] = {
    "invalid argument",
    "message does not fit the buffer",
    "message truncated",
    "trailing bytes after the last field",
    "bad magic",
    "unsupported protocol version",
    "unknown message type",
    "message or field too long",
    "value out of range",
    "invalid name or text",
    "message out of order",
    "authentication failed",
    "authentication required by one side only",
    "refused by the peer",
    "cannot read the key file",
    "key file open to other users",
    "key file is not hexadecimal",
    "key of a wrong length",
    "crypto library failure",
    "no credit",
};

_Static_assert(sizeof(Err_str) / sizeof(Err_str[0]) ==
		   RPMAF__PROTO_E_INVAL - RPMAF__PROTO_E_CREDITS + 1,
	       "one description per local error code");

/* see status.h */
const char *
rpmaf__proto_err_str(int code)
{
	int i = RPMAF__PROTO_E_INVAL - code;

	if (i < 0 || (size_t)i >= sizeof(Err_str) / sizeof(Err_str[0]))
		return "unknown error";
	return Err_str[i];
}

/* the names of the wire status codes, indexed by value */
static const char *const Status_str[] = {
    "OK",	   "BAD_MESSAGE", "VERSION",	  "UNEXPECTED", "AUTH_REQUIRED",
    "AUTH_FAILED", "NOT_FOUND",	  "OUT_OF_RANGE", "STALE",	"DENIED",
    "NO_HANDLER",  "IO",	  "BUSY",	  "INTERNAL",	"APP_FAILED",
};

_Static_assert(sizeof(Status_str) / sizeof(Status_str[0]) == RPMAF__PROTO_S_MAX + 1,
	       "one name per wire status");

/* see status.h */
const char *
rpmaf__proto_status_str(uint32_t status)
{
	if (status > RPMAF__PROTO_S_MAX)
		return "?";
	return Status_str[status];
}
