// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * session.c -- librpmem's link to one rpmemd (see session.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "errmsg.h"
#include "session.h"
#include "target.h"

/* the configuration without LIBRPMEM_CONFIG: the framework's defaults, a quieter log */
static const char Defaults[] = "log:\n  level: warning\n";

/* load -- a configuration from the file, or the defaults when file is NULL */
static int
load(const char *file, const char *const *sets, unsigned nsets, struct rpmaf_cfg **cfg,
     struct rpmaf_cfg_err *err)
{
	struct rpmaf_cfg_opts opts = {.overrides = sets, .n_overrides = nsets};

	if (file)
		return rpmaf_cfg_load_file(file, &opts, cfg, err);
	return rpmaf_cfg_load_buffer("librpmem defaults", Defaults, sizeof(Defaults) - 1, &opts,
				     cfg, err);
}

/*
 * cfg_load -- the configuration with t as its one target: the file's own
 * target (its connections kept) with t's address and port, or one made
 */
static int
cfg_load(const struct rpmem__target *t, struct rpmaf_cfg **cfg)
{
	const char *file = getenv(RPMEM__CONFIG_ENV);
	char addr[RPMEM__HOST_MAX + 32], port[32], list[RPMEM__HOST_MAX + 96];
	const char *own[] = {addr, port}, *made[] = {list};
	struct rpmaf_cfg_err err;

	snprintf(addr, sizeof(addr), "targets[0].address=%s", t->host);
	snprintf(port, sizeof(port), "targets[0].port=%u", t->port);
	snprintf(list, sizeof(list),
		 "targets=[{name: rpmemd, address: \"%s\", port: %u, connections: %u}]", t->host,
		 t->port, RPMEM__CONNECTIONS_DEFAULT);
	if (file && !load(file, own, 2, cfg, &err)) {
		if ((*cfg)->ntargets == 1)
			return 0;
		rpmaf_cfg_delete(cfg);
		return rpmem__fail(EINVAL, "%s: more than one target (librpmem uses one)", file);
	}
	if (load(file, made, 1, cfg, &err))
		return rpmem__fail(EINVAL, "%s", err.msg);
	return 0;
}

/* connect_all -- the peer, the workers and the pool, ready */
static int
connect_all(const struct rpmem__target *t, struct rpmem__session *s)
{
	struct ibv_context *dev = NULL;
	int ret = rpma_utils_get_ibv_context(t->host, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev);

	if (ret || (ret = rpma_peer_new(dev, &s->peer)))
		return rpmem__fail(ret == RPMA_E_NOMEM ? ENOMEM : EHOSTUNREACH,
				   "%s: no RDMA device reaches it: %s", t->host,
				   rpma_err_2str(ret));
	if ((ret = rpmaf_workers_new(s->cfg, s->peer, &s->ws)) ||
	    (ret = rpmaf_pool_new(s->cfg, s->peer, s->ws, &s->pool)))
		return rpmem__fail(rpmem__errno_of(ret), "cannot start the connections: %s",
				   rpmaf_err_str(ret));
	if ((ret = rpmaf_pool_wait_ready(s->pool, s->cfg->timeouts.connect_ms)))
		return rpmem__fail(rpmem__errno_of(ret), "%s:%u: %s", t->host, t->port,
				   ret == RPMAF_E_AUTH ? "the daemon refused the key"
						       : "no connection to the daemon");
	return 0;
}

/* see session.h */
int
rpmem__session_open(const char *target, struct rpmem__session *s)
{
	struct rpmem__target t;

	memset(s, 0, sizeof(*s));
	if (rpmem__target_parse(target, &t) || cfg_load(&t, &s->cfg))
		return -1;
	if (connect_all(&t, s)) {
		int err = errno;

		rpmem__session_close(s);
		errno = err;
		return -1;
	}
	return 0;
}

/* see session.h */
int
rpmem__session_call(struct rpmem__session *s, const struct rpmem_proto_req *req,
		    struct rpmem_proto_ans *ans)
{
	uint8_t q[RPMEM_PROTO_REQ_MAX], a[RPMEM_PROTO_ANS_MAX];
	char err[RPMEM_PROTO_ERR_MAX];
	struct rpmaf_op op;
	size_t len;
	int ret;

	if (rpmem_proto_req_encode(req, q, sizeof(q), &len))
		return rpmem__fail(EINVAL, "the request does not encode");
	ret = rpmaf_pool_call(s->pool, &op, s->cfg->targets[0].name, RPMEM_PROTO_HANDLER(req->kind),
			      q, len, a, sizeof(a), NULL, NULL);
	if (ret == RPMAF_E_AGAIN)
		ret = RPMAF_E_CONNLOST;
	if (!ret)
		ret = rpmaf_op_wait(&op);
	if (ret)
		return rpmem__fail(rpmem__errno_of(ret), "%s request: %s",
				   rpmem_proto_kind_name(req->kind), rpmaf_err_str(ret));
	if (rpmem_proto_ans_decode(a, rpmaf_op_reply_len(&op), ans, err, sizeof(err)))
		return rpmem__fail(EPROTO, "a malformed answer: %s", err);
	if (ans->kind != req->kind)
		return rpmem__fail(EPROTO, "an answer of kind %u to a request of kind %u",
				   ans->kind, req->kind);
	return 0;
}

/* see session.h */
void
rpmem__session_close(struct rpmem__session *s)
{
	(void)rpmaf_pool_delete(&s->pool);
	(void)rpmaf_workers_delete(&s->ws);
	if (s->peer)
		(void)rpma_peer_delete(&s->peer);
	(void)rpmaf_cfg_delete(&s->cfg);
}
