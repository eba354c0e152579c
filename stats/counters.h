/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * counters.h -- a block of event counters owned by one worker or one
 * connection: operations and bytes by kind, errors, reconnects, polls,
 * completions, credit stalls, waits for a connection, retries, losses.
 *
 * CONCURRENCY
 * One writer per block (the thread that owns the worker or the
 * connection), with relaxed atomic loads and stores and no read-modify-
 * write; readers on any thread take snapshots. Each counter a reader sees
 * is whole and never goes backwards, but two counters of one snapshot need
 * not be of the same instant (ops of a kind and its bytes, say).
 */

#ifndef RPMAF_STATS_COUNTERS_H
#define RPMAF_STATS_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* the kinds of counters; the JSON name of each is rpmaf__ctr_name() */
enum rpmaf__ctr {
	RPMAF__CTR_WRITE_OPS,
	RPMAF__CTR_WRITE_BYTES,
	RPMAF__CTR_READ_OPS,
	RPMAF__CTR_READ_BYTES,
	RPMAF__CTR_FLUSH_OPS,
	RPMAF__CTR_WRITE_FLUSH_OPS, /* write+flush as one operation */
	RPMAF__CTR_WRITE_FLUSH_BYTES,
	RPMAF__CTR_ATOMIC_WRITE_OPS,
	RPMAF__CTR_MSG_OPS, /* message calls (request/response) */
	RPMAF__CTR_MSG_BYTES_OUT,
	RPMAF__CTR_MSG_BYTES_IN,
	RPMAF__CTR_ERRORS,   /* operations completed with an error status */
	RPMAF__CTR_TIMEOUTS, /* operations completed because their time ran out */
	RPMAF__CTR_RECONNECTS,
	RPMAF__CTR_POLLS, /* calls polling a completion queue */
	RPMAF__CTR_EMPTY_POLLS,
	RPMAF__CTR_COMPLETIONS,	  /* completions polled: completions per poll = this / polls */
	RPMAF__CTR_CREDIT_STALLS, /* operations that waited for, or were refused, credits */
	RPMAF__CTR_WAITED,	  /* operations that waited for a connection of their target */
	RPMAF__CTR_RETRIED,	  /* operations posted again after their connection was lost */
	RPMAF__CTR_WAIT_TIMEOUTS, /* operations timed out waiting for a connection */
	RPMAF__CTR_CONN_LOST,	  /* ready connections lost */
	RPMAF__CTR_PEER_SILENT,	  /* of which to the peer's silence (heartbeats): frozen, cut off */
	RPMAF__CTR_MAX
};

/* a live block: written by its owner only */
struct rpmaf__ctrs {
	_Atomic uint64_t v[RPMAF__CTR_MAX];
};

/* a snapshot: plain memory, owned by the reader */
struct rpmaf__ctrs_snap {
	uint64_t v[RPMAF__CTR_MAX];
};

/*
 * rpmaf__ctrs_init -- set every counter of c to 0.
 * CONCURRENCY: not thread-safe against any use of c.
 */
void rpmaf__ctrs_init(struct rpmaf__ctrs *c);

/*
 * rpmaf__ctrs_add -- add n to counter k (< RPMAF__CTR_MAX) of c. No lock,
 * no allocation, no atomic read-modify-write.
 * CONCURRENCY: only c's single writer may call it.
 */
static inline void
rpmaf__ctrs_add(struct rpmaf__ctrs *c, enum rpmaf__ctr k, uint64_t n)
{
	atomic_store_explicit(&c->v[k], atomic_load_explicit(&c->v[k], memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/*
 * rpmaf__ctrs_snap_clear -- make s all zeros (to merge into).
 * CONCURRENCY: s belongs to the caller.
 */
void rpmaf__ctrs_snap_clear(struct rpmaf__ctrs_snap *s);

/*
 * rpmaf__ctrs_snap_add -- add the current values of live block c to s.
 * CONCURRENCY: thread-safe against c's writer; s belongs to the caller.
 */
void rpmaf__ctrs_snap_add(struct rpmaf__ctrs_snap *s, const struct rpmaf__ctrs *c);

/*
 * rpmaf__ctrs_snap_merge -- add snapshot src to dst.
 * CONCURRENCY: both belong to the caller.
 */
void rpmaf__ctrs_snap_merge(struct rpmaf__ctrs_snap *dst, const struct rpmaf__ctrs_snap *src);

/*
 * rpmaf__ctr_name -- the name of counter k in the JSON dump ("write_ops"),
 * NULL when k is out of range.
 * CONCURRENCY: thread-safe.
 */
const char *rpmaf__ctr_name(enum rpmaf__ctr k);

#endif /* RPMAF_STATS_COUNTERS_H */
