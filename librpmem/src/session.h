/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * session.h -- librpmem's link to one rpmemd: the framework's configuration
 * (LIBRPMEM_CONFIG, with the target in it), an RDMA peer, worker threads
 * and a pool of connections to the daemon; its requests
 * (doc/RPMEM-PROTOCOL.md) are the pool's message calls.
 *
 * CONCURRENCY
 * A session is made and closed by one thread; rpmem__session_call() and
 * the framework's operations on s->pool may run on any threads between.
 */

#ifndef LIBRPMEM_SESSION_H
#define LIBRPMEM_SESSION_H

#include "rpmaf.h"
#include "rpmem_proto.h"

/* the environment variable naming the configuration file */
#define RPMEM__CONFIG_ENV "LIBRPMEM_CONFIG"

/* connections to the daemon when the configuration names no target of its own */
#define RPMEM__CONNECTIONS_DEFAULT 2

struct rpma_peer;

struct rpmem__session {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
};

/*
 * rpmem__session_open -- connect to the daemon at target and wait until a
 * connection is ready (timeouts.connect_ms at most).
 * RETURN VALUE: 0; -1 with errno and the thread's message set (EINVAL: the
 * target or the configuration; EACCES: the key was refused; ETIMEDOUT: no
 * connection came up; ENOMEM; EIO).
 */
int rpmem__session_open(const char *target, struct rpmem__session *s);

/*
 * rpmem__session_call -- send req and wait for the daemon's answer into ans
 * (its status may be a failure: the caller reports it).
 * RETURN VALUE: 0; -1 with errno and the message set (EINVAL: req does not
 * encode; ECONNRESET, ETIMEDOUT, ...: the call failed; EPROTO: the answer
 * is malformed or of another kind).
 */
int rpmem__session_call(struct rpmem__session *s, const struct rpmem_proto_req *req,
			struct rpmem_proto_ans *ans);

/* rpmem__session_close -- everything rpmem__session_open() made, in reverse */
void rpmem__session_close(struct rpmem__session *s);

#endif /* LIBRPMEM_SESSION_H */
