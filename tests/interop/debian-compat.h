/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * debian-compat.h -- what the examples' common helpers need from librpma.h that
 * Debian's librpma 1.2.0 does not declare. Force-included (gcc -include) only
 * when the examples are built against the unpacked Debian package for the
 * interoperability tests, so that the examples' sources stay unchanged.
 *
 * The example programs themselves use nothing that 1.2.0 lacks; only the
 * shared helpers call rpma_check_version() and rpma_errormsg(), which came
 * later. Neither touches the wire, so stand-ins are enough here.
 */

#ifndef INTEROP_DEBIAN_COMPAT_H
#define INTEROP_DEBIAN_COMPAT_H 1

#include <stddef.h>

#ifndef RPMA_MAJOR_VERSION
#define RPMA_MAJOR_VERSION 1
#endif
#ifndef RPMA_MINOR_VERSION
#define RPMA_MINOR_VERSION 2
#endif

/*
 * rpma_check_version -- 1.2.0 has no version check; the library was picked
 * by the build (its own header and its own run path), so accept it.
 */
static inline const char *
rpma_check_version(int major, int minor)
{
	(void)major;
	(void)minor;
	return NULL;
}

/*
 * rpma_errormsg -- 1.2.0 keeps no per-thread error text; report none, and
 * common_check() then prints only the error code's own text.
 */
static inline const char *
rpma_errormsg(void)
{
	return "";
}

#endif /* INTEROP_DEBIAN_COMPAT_H */
