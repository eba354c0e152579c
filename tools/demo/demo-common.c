/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * demo-common.c -- the helpers the demonstration's server, client and
 * verifier share: parsing a numeric option and checking the librpma version.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <librpma.h>

#include "demo.h"

/*
 * demo_parse_ulong -- parse option opt's value s into *val, within
 * [min, max]; on an error say so, prefixed with prog, and return -1.
 */
int
demo_parse_ulong(const char *prog, int opt, const char *s, unsigned long min, unsigned long max,
		 unsigned long *val)
{
	char *end;

	errno = 0;
	*val = strtoul(s, &end, 0);
	if (errno || end == s || *end || *val < min || *val > max) {
		fprintf(stderr, "%s: -%c wants a number from %lu to %lu, not '%s'\n", prog, opt,
			min, max, s);
		return -1;
	}
	return 0;
}

/*
 * demo_check_librpma -- check that the librpma this was built against is
 * available; if not, say why, prefixed with prog, and return -1.
 */
int
demo_check_librpma(const char *prog)
{
	const char *why = rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);

	if (why) {
		fprintf(stderr, "%s: librpma %d.%d is not available: %s\n", prog,
			RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION, why);
		return -1;
	}
	return 0;
}
