// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * pool.c -- remote pools made, opened, changed, closed and removed:
 * rpmem_create(), rpmem_open(), rpmem_set_attr(), rpmem_close(),
 * rpmem_remove() (see rpmem.h).
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "errmsg.h"
#include "librpmem.h"
#include "rpmem.h"

_Static_assert(sizeof(struct rpmem_pool_attr) == RPMEM_PROTO_ATTR_SIZE,
	       "struct rpmem_pool_attr is 104 bytes");
_Static_assert(sizeof(struct rpmem_proto_attr) == sizeof(struct rpmem_pool_attr),
	       "the codec's attributes are laid out as struct rpmem_pool_attr");

/* attr_given -- attributes that are neither NULL nor all zero: the pool has headers */
static bool
attr_given(const struct rpmem_pool_attr *attr)
{
	static const struct rpmem_pool_attr zero;

	return attr && memcmp(attr, &zero, sizeof(zero)) != 0;
}

/* attr_pack -- attr (NULL: all zero) into the request's wire bytes */
static void
attr_pack(const struct rpmem_pool_attr *attr, struct rpmem_proto_req *req)
{
	struct rpmem_proto_attr pa;

	req->attr_present = attr != NULL;
	if (!attr)
		return;
	memcpy(&pa, attr, sizeof(pa));
	rpmem_proto_attr_pack(&pa, req->attr);
}

/* answer_fail -- the daemon's failure as errno and message; -1 */
static int
answer_fail(const struct rpmem_proto_ans *ans, const char *what)
{
	return rpmem__fail((int)ans->status, "%s: %s", what,
			   ans->msg_len ? ans->msg : strerror((int)ans->status));
}

/* args_check -- what create and open take: the name, the memory and the lanes */
static int
args_check(const char *name, void *addr, size_t size, const unsigned *nlanes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!name || rpmem_proto_name_check(name, strlen(name)))
		return rpmem__fail(EINVAL, "pool set name %s: not a relative path without \"..\"",
				   name ? name : "(null)");
	if (!addr || (uintptr_t)addr % page || size % page)
		return rpmem__fail(EINVAL, "pool_addr and pool_size must be page-aligned");
	if (size < RPMEM_MIN_POOL)
		return rpmem__fail(EINVAL, "pool_size %zu is below RPMEM_MIN_POOL", size);
	if (!nlanes || !*nlanes)
		return rpmem__fail(EINVAL, "no lanes asked for");
	return 0;
}

/* region_wait -- until the session's table has the pool's region (its announcement came) */
static int
region_wait(struct rpmem_pool *rpp)
{
	struct rpmaf_pool_region info;
	struct timespec ms = {0, 1000000};

	for (unsigned waited = 0; rpmaf_pool_region(rpp->s.pool, rpp->region, &info); waited++) {
		if (waited >= rpp->s.cfg->timeouts.operation_ms)
			return rpmem__fail(ETIMEDOUT, "the daemon did not announce region %s",
					   rpp->region);
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* call_failed -- a request failed on its way (errno set): a lost connection breaks the pool */
static int
call_failed(struct rpmem_pool *rpp)
{
	int err = errno;

	if (err == ECONNRESET || err == ECONNABORTED || err == ETIMEDOUT)
		errno = rpmem__pool_break(rpp, err);
	return -1;
}

/* daemon_close -- CLOSE the daemon's pool; -1 with errno when it failed */
static int
daemon_close(struct rpmem_pool *rpp)
{
	struct rpmem_proto_req req = {.kind = RPMEM_PROTO_CLOSE, .pool_id = rpp->id};
	struct rpmem_proto_ans ans;

	if (rpmem__session_call(&rpp->s, &req, &ans))
		return call_failed(rpp);
	return ans.status ? answer_fail(&ans, "close") : 0;
}

/* teardown -- free what pool_open() made, in reverse */
static void
teardown(struct rpmem_pool *rpp)
{
	free(rpp->lanes);
	rpmem__session_close(&rpp->s);
	/* after the pool's connections: no operation uses the memory any more */
	if (rpp->mr)
		(void)rpma_mr_dereg(&rpp->mr);
	free(rpp);
}

/*
 * lanes_env_max -- the caller's own limit on lanes, RPMEM_MAX_NLANES; as in
 * PMDK's librpmem, a value that is not a positive integer limits nothing
 */
static unsigned
lanes_env_max(void)
{
	const char *v = getenv(RPMEM__MAX_NLANES_ENV);
	char *end;
	long n;

	if (!v || !*v)
		return UINT_MAX;
	errno = 0;
	n = strtol(v, &end, 10);
	if (*end || n <= 0 || errno == ERANGE)
		return UINT_MAX;
	return n < (long)UINT_MAX ? (unsigned)n : UINT_MAX;
}

/* granted -- what the daemon's answer gives: id, region, lanes; the attributes of an open */
static int
granted(struct rpmem_pool *rpp, const struct rpmem_proto_ans *ans, unsigned *nlanes,
	struct rpmem_pool_attr *open_attr)
{
	struct rpmem_proto_attr pa;
	unsigned env_max = lanes_env_max();

	rpp->id = ans->pool_id;
	memcpy(rpp->region, ans->region, sizeof(rpp->region));
	rpp->nlanes = ans->nlanes < *nlanes ? ans->nlanes : *nlanes;
	if (rpp->nlanes > RPMEM__LANES_MAX)
		rpp->nlanes = RPMEM__LANES_MAX;
	if (rpp->nlanes > env_max)
		rpp->nlanes = env_max;
	if (ans->kind == RPMEM_PROTO_OPEN) {
		rpmem_proto_attr_unpack(ans->attr, &pa);
		rpp->hdrs = attr_given((const struct rpmem_pool_attr *)(const void *)&pa);
		if (open_attr)
			memcpy(open_attr, &pa, sizeof(*open_attr));
	}
	if (!(rpp->lanes = calloc(rpp->nlanes, sizeof(*rpp->lanes))))
		return rpmem__fail(ENOMEM, "no memory for %u lanes", rpp->nlanes);
	return region_wait(rpp);
}

/* pool_open -- CREATE or OPEN (req made by the caller), the pool's memory registered */
static RPMEMpool *
pool_open(const char *target, struct rpmem_proto_req *req, void *addr, size_t size,
	  unsigned *nlanes, struct rpmem_pool_attr *open_attr)
{
	struct rpmem_pool *rpp = calloc(1, sizeof(*rpp));
	struct rpmem_proto_ans ans;
	int ret, err;

	if (!rpp)
		return rpmem__fail(ENOMEM, "out of memory"), NULL;
	rpp->addr = addr;
	rpp->size = size;
	if (rpmem__session_open(target, &rpp->s)) {
		free(rpp);
		return NULL;
	}
	if ((ret = rpma_mr_reg(rpp->s.peer, addr, size,
			       RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &rpp->mr))) {
		rpmem__fail(ret == RPMA_E_NOMEM ? ENOMEM : EINVAL, "registering the pool: %s",
			    rpma_err_2str(ret));
		goto err;
	}
	req->pool_size = size;
	req->nlanes = *nlanes;
	if (rpmem__session_call(&rpp->s, req, &ans))
		goto err;
	if (ans.status) {
		answer_fail(&ans, req->kind == RPMEM_PROTO_CREATE ? "create" : "open");
		goto err;
	}
	if (granted(rpp, &ans, nlanes, open_attr)) {
		err = errno;
		(void)daemon_close(rpp);
		errno = err;
		goto err;
	}
	*nlanes = rpp->nlanes;
	return rpp;

err:
	err = errno;
	teardown(rpp);
	errno = err;
	return NULL;
}

/* see librpmem.h */
RPMEMpool *
rpmem_create(const char *target, const char *pool_set_name, void *pool_addr, size_t pool_size,
	     unsigned *nlanes, const struct rpmem_pool_attr *create_attr)
{
	struct rpmem_proto_req req = {.kind = RPMEM_PROTO_CREATE};
	RPMEMpool *rpp;

	if (args_check(pool_set_name, pool_addr, pool_size, nlanes) ||
	    rpmem_proto_req_set_name(&req, pool_set_name))
		return NULL;
	attr_pack(attr_given(create_attr) ? create_attr : NULL, &req);
	rpp = pool_open(target, &req, pool_addr, pool_size, nlanes, NULL);
	if (rpp)
		rpp->hdrs = attr_given(create_attr);
	return rpp;
}

/* see librpmem.h */
RPMEMpool *
rpmem_open(const char *target, const char *pool_set_name, void *pool_addr, size_t pool_size,
	   unsigned *nlanes, struct rpmem_pool_attr *open_attr)
{
	struct rpmem_proto_req req = {.kind = RPMEM_PROTO_OPEN};

	if (args_check(pool_set_name, pool_addr, pool_size, nlanes) ||
	    rpmem_proto_req_set_name(&req, pool_set_name))
		return NULL;
	return pool_open(target, &req, pool_addr, pool_size, nlanes, open_attr);
}

/* see librpmem.h */
int
rpmem_set_attr(RPMEMpool *rpp, const struct rpmem_pool_attr *attr)
{
	struct rpmem_proto_req req = {.kind = RPMEM_PROTO_SET_ATTR};
	struct rpmem_proto_ans ans;
	int dead;

	if (!rpp)
		return rpmem__fail(EINVAL, "no pool");
	if ((dead = atomic_load(&rpp->dead)))
		return rpmem__fail(dead, "the pool's connection failed before");
	req.pool_id = rpp->id;
	attr_pack(attr, &req);
	if (rpmem__session_call(&rpp->s, &req, &ans))
		return call_failed(rpp);
	/* the daemon refuses all-zero attributes for a pool with headers: hdrs stays */
	return ans.status ? answer_fail(&ans, "set_attr") : 0;
}

/* see librpmem.h */
int
rpmem_close(RPMEMpool *rpp)
{
	int ret = 0, err = 0, dead;

	if (!rpp)
		return rpmem__fail(EINVAL, "no pool");
	/* flushes still in flight use the lanes' memory: wait for them */
	for (unsigned i = 0; i < rpp->nlanes; i++)
		(void)rpmem_drain(rpp, i, 0);
	if ((dead = atomic_load(&rpp->dead)))
		ret = rpmem__fail(dead, "the pool's connection failed before");
	else
		ret = daemon_close(rpp);
	err = errno;
	teardown(rpp);
	errno = err;
	return ret;
}

/* see librpmem.h */
int
rpmem_remove(const char *target, const char *pool_set_name, int flags)
{
	struct rpmem_proto_req req = {.kind = RPMEM_PROTO_REMOVE};
	struct rpmem__session s;
	struct rpmem_proto_ans ans;
	int ret, err;

	if (flags & ~(RPMEM_REMOVE_FORCE | RPMEM_REMOVE_POOL_SET))
		return rpmem__fail(EINVAL, "unknown flags %#x", (unsigned)flags);
	if (!pool_set_name || rpmem_proto_name_check(pool_set_name, strlen(pool_set_name)) ||
	    rpmem_proto_req_set_name(&req, pool_set_name))
		return rpmem__fail(EINVAL, "pool set name %s: not a relative path without \"..\"",
				   pool_set_name ? pool_set_name : "(null)");
	req.flags = (uint32_t)flags;
	if (rpmem__session_open(target, &s))
		return -1;
	ret = rpmem__session_call(&s, &req, &ans);
	if (!ret && ans.status)
		ret = answer_fail(&ans, "remove");
	err = errno;
	rpmem__session_close(&s);
	errno = err;
	return ret;
}
