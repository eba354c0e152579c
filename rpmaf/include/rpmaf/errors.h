/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf/errors.h -- librpmaf's public API: the error codes. One part of
 * rpmaf.h, which includes every part: an application includes <rpmaf.h>.
 */

#ifndef RPMAF_PUBLIC_ERRORS_H
#define RPMAF_PUBLIC_ERRORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Errors
 * ====================================================================== */

#define RPMAF_E_INVAL	 (-1)  /* an argument is invalid (NULL where an object is needed, ...) */
#define RPMAF_E_NOMEM	 (-2)  /* memory could not be allocated */
#define RPMAF_E_IO	 (-3)  /* a file could not be read or written */
#define RPMAF_E_PARSE	 (-4)  /* the text is not an acceptable YAML document */
#define RPMAF_E_CONFIG	 (-5)  /* the document is YAML but not a valid configuration */
#define RPMAF_E_AGAIN	 (-6)  /* no room now (a queue, pool or credit limit): retry later */
#define RPMAF_E_RDMA	 (-7)  /* a librpma call failed; the log names it */
#define RPMAF_E_SYS	 (-8)  /* a system call failed; the log names it and errno */
#define RPMAF_E_TIMEOUT	 (-9)  /* an operation's time (timeouts.operation_ms) ran out */
#define RPMAF_E_CONNLOST (-10) /* the connection carrying an operation was lost or closed */
#define RPMAF_E_NOENT	 (-11) /* no such region, target or handler (or it was removed) */
#define RPMAF_E_REMOTE	 (-12) /* the peer answered with a failure status; the log has it */
#define RPMAF_E_AUTH	 (-13) /* authentication failed (no key, a wrong key) */
#define RPMAF_E_PROTO	 (-14) /* the peer broke the control protocol; the log says how */
#define RPMAF_E_SHUTDOWN (-15) /* the pool or server is shutting down */
#define RPMAF_E_BUSY	 (-16) /* a file is in use: locked by another server or process */

/*
 * rpmaf_err_str -- a short English description of an RPMAF_E_* code.
 *
 * RETURN VALUE
 * A static string; "unknown error" for a code this library does not define.
 *
 * THREAD SAFETY
 * Thread-safe.
 */
const char *rpmaf_err_str(int code);

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_PUBLIC_ERRORS_H */
