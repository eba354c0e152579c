/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * target.h -- a librpmem target, "[user@]host[:port]": where rpmemd listens.
 */

#ifndef LIBRPMEM_TARGET_H
#define LIBRPMEM_TARGET_H

/* the port rpmemd listens on when the target names none */
#define RPMEM__PORT_DEFAULT 7636

/* the longest host name accepted */
#define RPMEM__HOST_MAX 255

struct rpmem__target {
	char host[RPMEM__HOST_MAX + 1]; /* an address or a host name, brackets removed */
	unsigned port;
};

/*
 * rpmem__target_parse -- text into *t: an optional user ending with "@"
 * (accepted and ignored: there is no login), a host (letters, digits,
 * ".", "-" and "_", or an IPv6 address in brackets), an optional ":port"
 * (1 to 65535). RETURN VALUE: 0; -1 with errno EINVAL and a message.
 * Thread-safe.
 */
int rpmem__target_parse(const char *text, struct rpmem__target *t);

#endif /* LIBRPMEM_TARGET_H */
