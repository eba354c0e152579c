// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * target.c -- parsing "[user@]host[:port]" (see target.h).
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "errmsg.h"
#include "target.h"

/* host_char -- a byte a host name or an IPv4 address may have */
static bool
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_';
}

/* port_parse -- the decimal port of s (to its end), 1 to 65535; -1 when it is not one */
static int
port_parse(const char *s)
{
	long v = 0;

	if (!*s || strlen(s) > 5)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

/* host_end -- where the host of s ends (a bracketed IPv6 address, or host bytes); NULL if bad */
static const char *
host_end(const char *s)
{
	const char *e = s;

	if (*s == '[') {
		for (e = s + 1; *e && *e != ']'; e++) {
			if (!(*e == ':' || *e == '.' || (*e >= '0' && *e <= '9') ||
			      (*e >= 'a' && *e <= 'f') || (*e >= 'A' && *e <= 'F')))
				return NULL;
		}
		return *e == ']' && e > s + 1 ? e + 1 : NULL;
	}
	while (host_char(*e))
		e++;
	return e > s ? e : NULL;
}

/* see target.h */
int
rpmem__target_parse(const char *text, struct rpmem__target *t)
{
	const char *at, *host, *end;
	size_t len;
	int port = RPMEM__PORT_DEFAULT;

	if (!text)
		return rpmem__fail(EINVAL, "no target");
	at = strchr(text, '@');
	if (at == text)
		return rpmem__fail(EINVAL, "target %s: an empty user before \"@\"", text);
	host = at ? at + 1 : text;
	if (!(end = host_end(host)))
		return rpmem__fail(EINVAL, "target %s: no valid host ([user@]host[:port])", text);
	if (*end && (*end != ':' || (port = port_parse(end + 1)) < 0))
		return rpmem__fail(EINVAL, "target %s: not [user@]host[:port] (port 1 to 65535)",
				   text);
	if (*host == '[')
		host++, end--;
	if ((len = (size_t)(end - host)) > RPMEM__HOST_MAX)
		return rpmem__fail(EINVAL, "target %s: the host is longer than %d bytes", text,
				   RPMEM__HOST_MAX);
	memcpy(t->host, host, len);
	t->host[len] = '\0';
	t->port = (unsigned)port;
	return 0;
}
