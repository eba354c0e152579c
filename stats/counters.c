/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * counters.c -- per-owner counter blocks: names, snapshots, merges
 * (counting is inline in counters.h).
 */

#include <string.h>

#include "counters.h"

static const char *const ctr_names[RPMAF__CTR_MAX] = {
    [RPMAF__CTR_WRITE_OPS] = "write_ops",
    [RPMAF__CTR_WRITE_BYTES] = "write_bytes",
    [RPMAF__CTR_READ_OPS] = "read_ops",
    [RPMAF__CTR_READ_BYTES] = "read_bytes",
    [RPMAF__CTR_FLUSH_OPS] = "flush_ops",
    [RPMAF__CTR_WRITE_FLUSH_OPS] = "write_flush_ops",
    [RPMAF__CTR_WRITE_FLUSH_BYTES] = "write_flush_bytes",
    [RPMAF__CTR_ATOMIC_WRITE_OPS] = "atomic_write_ops",
    [RPMAF__CTR_MSG_OPS] = "msg_ops",
    [RPMAF__CTR_MSG_BYTES_OUT] = "msg_bytes_out",
    [RPMAF__CTR_MSG_BYTES_IN] = "msg_bytes_in",
    [RPMAF__CTR_ERRORS] = "errors",
    [RPMAF__CTR_TIMEOUTS] = "timeouts",
    [RPMAF__CTR_RECONNECTS] = "reconnects",
    [RPMAF__CTR_POLLS] = "polls",
    [RPMAF__CTR_EMPTY_POLLS] = "empty_polls",
    [RPMAF__CTR_COMPLETIONS] = "completions",
    [RPMAF__CTR_CREDIT_STALLS] = "credit_stalls",
    [RPMAF__CTR_WAITED] = "waited",
    [RPMAF__CTR_RETRIED] = "retried",
    [RPMAF__CTR_WAIT_TIMEOUTS] = "wait_timeouts",
    [RPMAF__CTR_CONN_LOST] = "conn_lost",
    [RPMAF__CTR_PEER_SILENT] = "peer_silent",
};

/* see counters.h */
void
rpmaf__ctrs_init(struct rpmaf__ctrs *c)
{
	for (int k = 0; k < RPMAF__CTR_MAX; k++)
		atomic_init(&c->v[k], 0);
}

/* see counters.h */
void
rpmaf__ctrs_snap_clear(struct rpmaf__ctrs_snap *s)
{
	memset(s, 0, sizeof(*s));
}

/* see counters.h */
void
rpmaf__ctrs_snap_add(struct rpmaf__ctrs_snap *s, const struct rpmaf__ctrs *c)
{
	for (int k = 0; k < RPMAF__CTR_MAX; k++)
		s->v[k] += atomic_load_explicit(&c->v[k], memory_order_relaxed);
}

/* see counters.h */
void
rpmaf__ctrs_snap_merge(struct rpmaf__ctrs_snap *dst, const struct rpmaf__ctrs_snap *src)
{
	for (int k = 0; k < RPMAF__CTR_MAX; k++)
		dst->v[k] += src->v[k];
}

/* see counters.h */
const char *
rpmaf__ctr_name(enum rpmaf__ctr k)
{
	return (unsigned)k < RPMAF__CTR_MAX ? ctr_names[k] : NULL;
}
