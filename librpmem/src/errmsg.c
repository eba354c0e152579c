// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * errmsg.c -- librpmem's per-thread errors (see errmsg.h).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"
#include "librpmem.h"
#include "rpmaf.h"

static __thread char Msg[RPMEM__ERRMSG_MAX];

/* see errmsg.h */
int
rpmem__fail(int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(Msg, sizeof(Msg), fmt, ap);
	va_end(ap);
	errno = errnum;
	return -1;
}

/* see errmsg.h */
int
rpmem__errno_of(int code)
{
	switch (code) {
	case RPMAF_E_INVAL:
		return EINVAL;
	case RPMAF_E_NOMEM:
		return ENOMEM;
	case RPMAF_E_TIMEOUT:
		return ETIMEDOUT;
	case RPMAF_E_CONNLOST:
	case RPMAF_E_NOENT:
		return ECONNRESET;
	case RPMAF_E_SHUTDOWN:
		return ECONNABORTED;
	case RPMAF_E_AUTH:
		return EACCES;
	case RPMAF_E_PROTO:
		return EPROTO;
	case RPMAF_E_REMOTE:
		return EREMOTEIO;
	default:
		return EIO;
	}
}

/* see librpmem.h */
const char *
rpmem_errormsg(void)
{
	return Msg;
}

/* see librpmem.h */
const char *
rpmem_check_version(unsigned major_required, unsigned minor_required)
{
	if (major_required != RPMEM_MAJOR_VERSION) {
		rpmem__fail(EINVAL, "librpmem major version mismatch (need %u, found %u)",
			    major_required, RPMEM_MAJOR_VERSION);
		return rpmem_errormsg();
	}
	if (minor_required > RPMEM_MINOR_VERSION) {
		rpmem__fail(EINVAL, "librpmem minor version mismatch (need %u, found %u)",
			    minor_required, RPMEM_MINOR_VERSION);
		return rpmem_errormsg();
	}
	return NULL;
}
