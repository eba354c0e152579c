/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_rpmem_target.c -- libFuzzer harness of librpmem's target parser
 * (librpmem/src/target.c): the "[user@]host[:port]" string an application
 * gives rpmem_create() and rpmem_open().
 *
 * An input is the target string (up to its first NUL byte). Properties:
 * - an accepted target gives a host of 1 to RPMEM__HOST_MAX bytes made only
 *   of the bytes a host name or an address may have (the host goes into
 *   the configuration librpmem writes: no quote, space or newline can), and
 *   a port of 1 to 65535;
 * - the host and port written back as "host:port" ("[host]:port" when the
 *   host has a ':') parse again to the same host and port;
 * - a refused target returns -1 with errno EINVAL and a non-empty message;
 * - nothing is read out of bounds, nothing leaks (AddressSanitizer).
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_assert.h"
#include "librpmem.h"
#include "target.h"

/* host_ok -- every byte of host is one a host name, an IPv4 or an IPv6 address may have */
static int
host_ok(const char *host)
{
	size_t len = strlen(host);

	if (len == 0 || len > RPMEM__HOST_MAX)
		return 0;
	return strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:") ==
	       len;
}

/* check_round_trip -- what was accepted, written back, parses to itself */
static void
check_round_trip(const struct rpmem__target *t)
{
	char text[RPMEM__HOST_MAX + 16];
	struct rpmem__target again;

	snprintf(text, sizeof(text), strchr(t->host, ':') ? "[%s]:%u" : "%s:%u", t->host, t->port);
	fuzz_assert(rpmem__target_parse(text, &again) == 0);
	fuzz_assert(strcmp(again.host, t->host) == 0 && again.port == t->port);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct rpmem__target t;

	fuzz_assert(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	errno = 0;
	if (rpmem__target_parse(text, &t) == 0) {
		fuzz_assert(host_ok(t.host));
		fuzz_assert(t.port >= 1 && t.port <= 65535);
		check_round_trip(&t);
	} else {
		fuzz_assert(errno == EINVAL);
		fuzz_assert(rpmem_errormsg()[0] != '\0');
	}
	free(text);
	return 0;
}
