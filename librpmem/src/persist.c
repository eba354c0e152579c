// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * persist.c -- the data path of a remote pool: rpmem_persist(),
 * rpmem_deep_persist(), rpmem_flush(), rpmem_drain() and rpmem_read(), on
 * the caller's lane (see rpmem.h, LANES and FAILURES).
 */

#include <errno.h>
#include <time.h>

#include <librpma.h>

#include "errmsg.h"
#include "librpmem.h"
#include "rpmem.h"

/*
 * sticky -- a status after which the pool is unusable: its connection or
 * region is gone, or the daemon could not persist
 */
static bool
sticky(int status)
{
	return status == RPMAF_E_CONNLOST || status == RPMAF_E_TIMEOUT || status == RPMAF_E_NOENT ||
	       status == RPMAF_E_SHUTDOWN || status == RPMAF_E_REMOTE;
}

/* see rpmem.h */
int
rpmem__pool_break(struct rpmem_pool *rpp, int err)
{
	int none = 0;

	(void)atomic_compare_exchange_strong(&rpp->dead, &none, err);
	return atomic_load(&rpp->dead);
}

/* failed -- an operation failed with status: the pool breaks if it must; the errno */
static int
failed(struct rpmem_pool *rpp, int status)
{
	int err = rpmem__errno_of(status);

	return sticky(status) ? rpmem__pool_break(rpp, err) : err;
}

/* range_check -- lane, range and flags of a call; the pool's earlier failure; 0 or -1 */
static int
range_check(struct rpmem_pool *rpp, size_t offset, size_t length, unsigned lane, bool meta_ok)
{
	int dead;

	if (!rpp)
		return rpmem__fail(EINVAL, "no pool");
	/* a broken pool says so first, whatever the arguments */
	if ((dead = atomic_load(&rpp->dead)))
		return rpmem__fail(dead, "the pool's connection failed before");
	if (lane >= rpp->nlanes)
		return rpmem__fail(EINVAL, "lane %u: the pool has %u", lane, rpp->nlanes);
	if (offset > rpp->size || length > rpp->size - offset)
		return rpmem__fail(EINVAL, "offset %zu + length %zu: beyond the pool's %zu bytes",
				   offset, length, rpp->size);
	if (!meta_ok && offset < RPMEM__HDR_SIZE)
		return rpmem__fail(EINVAL, "offset %zu: the first %d bytes are the pool's metadata",
				   offset, RPMEM__HDR_SIZE);
	return 0;
}

/* wait_op -- the status of a submitted operation, as an errno (0: done) */
static int
wait_op(struct rpmem_pool *rpp, struct rpmaf_op *op)
{
	int status = rpmaf_op_wait(op);

	return status ? failed(rpp, status) : 0;
}

/*
 * submit_write -- start the write + persist of [offset, offset + length)
 * in op; a connection missing now is waited for up to the operation's
 * time (the pool reconnects). Returns an errno (0: submitted).
 */
static int
submit_write(struct rpmem_pool *rpp, struct rpmaf_op *op, size_t offset, size_t length)
{
	struct timespec ms = {0, 1000000};
	int ret;

	for (unsigned waited = 0;; waited++) {
		ret = rpmaf_pool_write(rpp->s.pool, op, rpp->region, offset, rpp->mr, offset,
				       length, RPMAF_OP_PERSIST, NULL, NULL);
		if (ret != RPMAF_E_AGAIN || waited >= rpp->s.cfg->timeouts.operation_ms)
			break;
		nanosleep(&ms, NULL);
	}
	if (ret == RPMAF_E_AGAIN)
		ret = RPMAF_E_CONNLOST;
	return ret ? failed(rpp, ret) : 0;
}

/* slot_wait -- wait for slot i of lane l if it is in use; a failure is kept for the drain */
static void
slot_wait(struct rpmem_pool *rpp, struct rpmem__lane *l, unsigned i)
{
	int err;

	if (!l->busy[i])
		return;
	l->busy[i] = false;
	if ((err = wait_op(rpp, &l->ops[i])) && !l->err)
		l->err = err;
}

/* lane_drain -- wait for every flush of the lane; the first errno since the last drain */
static int
lane_drain(struct rpmem_pool *rpp, struct rpmem__lane *l)
{
	int err;

	for (unsigned k = 0; k < RPMEM__LANE_OPS; k++)
		slot_wait(rpp, l, (l->next + k) % RPMEM__LANE_OPS);
	err = l->err;
	l->err = 0;
	return err;
}

/*
 * persist -- the lane's flushes drained (a persist completes what they
 * started), then one range written, persisted and waited for; 0 or -1
 */
static int
persist(struct rpmem_pool *rpp, unsigned lane, size_t offset, size_t length)
{
	struct rpmaf_op op;
	int err;

	if ((err = lane_drain(rpp, &rpp->lanes[lane])))
		return rpmem__fail(err, "an earlier flush of lane %u failed", lane);
	if (!length)
		return 0;
	if ((err = submit_write(rpp, &op, offset, length)) || (err = wait_op(rpp, &op)))
		return rpmem__fail(err, "persist of %zu bytes at %zu failed", length, offset);
	return 0;
}

/* see librpmem.h */
int
rpmem_persist(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane, unsigned flags)
{
	if (flags & ~RPMEM_PERSIST_RELAXED)
		return rpmem__fail(EINVAL, "unknown persist flags %#x", flags);
	if (range_check(rpp, offset, length, lane, !rpp || !rpp->hdrs))
		return -1;
	return persist(rpp, lane, offset, length);
}

/* see librpmem.h */
int
rpmem_deep_persist(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane)
{
	/* the target persists every range it is asked to: deep is what persist does */
	if (range_check(rpp, offset, length, lane, false))
		return -1;
	return persist(rpp, lane, offset, length);
}

/* see librpmem.h */
int
rpmem_flush(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane, unsigned flags)
{
	struct rpmem__lane *l;
	int err;

	if (flags & ~RPMEM_FLUSH_RELAXED)
		return rpmem__fail(EINVAL, "unknown flush flags %#x", flags);
	if (range_check(rpp, offset, length, lane, !rpp || !rpp->hdrs))
		return -1;
	if (!length)
		return 0;
	l = &rpp->lanes[lane];
	slot_wait(rpp, l, l->next);
	if ((err = submit_write(rpp, &l->ops[l->next], offset, length)))
		return rpmem__fail(err, "flush of %zu bytes at %zu failed", length, offset);
	l->busy[l->next] = true;
	l->next = (l->next + 1) % RPMEM__LANE_OPS;
	return 0;
}

/* see librpmem.h */
int
rpmem_drain(RPMEMpool *rpp, unsigned lane, unsigned flags)
{
	int err;

	if (!rpp || flags)
		return rpmem__fail(EINVAL, flags ? "drain takes no flags" : "no pool");
	if (lane >= rpp->nlanes)
		return rpmem__fail(EINVAL, "lane %u: the pool has %u", lane, rpp->nlanes);
	if ((err = lane_drain(rpp, &rpp->lanes[lane])))
		return rpmem__fail(err, "a flush of lane %u failed", lane);
	/* nothing was in flight on the lane: a broken pool still says so */
	if ((err = atomic_load(&rpp->dead)))
		return rpmem__fail(err, "the pool's connection failed before");
	return 0;
}

/* read_into -- read [offset, offset + length) into mr at dst_off and wait; an errno */
static int
read_into(struct rpmem_pool *rpp, struct rpma_mr_local *mr, size_t dst_off, size_t offset,
	  size_t length)
{
	struct rpmaf_op op;
	int ret =
	    rpmaf_pool_read(rpp->s.pool, &op, rpp->region, offset, mr, dst_off, length, NULL, NULL);

	if (ret)
		return failed(rpp, ret == RPMAF_E_AGAIN ? RPMAF_E_CONNLOST : ret);
	return wait_op(rpp, &op);
}

/* see librpmem.h */
int
rpmem_read(RPMEMpool *rpp, void *buff, size_t offset, size_t length, unsigned lane)
{
	struct rpma_mr_local *mr = NULL;
	char *b = buff;
	int ret, err;

	if (range_check(rpp, offset, length, lane, true))
		return -1;
	if (!buff)
		return rpmem__fail(EINVAL, "no buffer");
	if (!length)
		return 0;
	/* into the pool's own memory as it is; elsewhere through a registration of its own */
	if (b >= rpp->addr && b - rpp->addr <= (ptrdiff_t)(rpp->size - length))
		err = read_into(rpp, rpp->mr, (size_t)(b - rpp->addr), offset, length);
	else if ((ret = rpma_mr_reg(rpp->s.peer, buff, length, RPMA_MR_USAGE_READ_DST, &mr)))
		return rpmem__fail(ret == RPMA_E_NOMEM ? ENOMEM : EINVAL,
				   "registering the buffer: %s", rpma_err_2str(ret));
	else {
		err = read_into(rpp, mr, 0, offset, length);
		(void)rpma_mr_dereg(&mr);
	}
	return err ? rpmem__fail(err, "read of %zu bytes at %zu failed", length, offset) : 0;
}
