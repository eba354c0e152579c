/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * ctx.h -- what a context's objects ask of it (ctx.c).
 *
 * Threads: any thread may call both; the event queue has its own lock
 * (softrdma_evq), the inherited flag needs none. An event queued here is
 * freed by ibv_get_async_event, which hands it out, or with its context
 * (ibv_close_device, device.c).
 */
#ifndef SOFTRDMA_CTX_H
#define SOFTRDMA_CTX_H

#include "softrdma.h"

/*
 * Queue an asynchronous event of @type about @elem (a CQ, SRQ or QP, by
 * type) on @ctx's async fd. Allocates: an event that cannot be allocated is
 * dropped.
 */
void softrdma__async_event(struct ibv_context *ctx, enum ibv_event_type type, void *elem);

/*
 * Non-zero when @ctx was inherited from the parent of this (forked)
 * process; objects on it are inert. Lock-free: the flag is set once, in
 * the child's fork handler, before any other thread exists.
 */
int softrdma__ctx_inherited(struct ibv_context *ctx);

#endif
