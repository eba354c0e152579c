// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * ctx.c -- what the objects of a context (CQs, QPs, SRQs, MRs) ask of it:
 * whether it is a forked child's inherited one, and the queue of its
 * asynchronous events. Kept apart from device.c so that those lower files
 * do not call up into the device.
 */
#define _GNU_SOURCE

#include <stdlib.h>

#include "ctx.h"

/* Queue an asynchronous event on @ctx's async fd. */
void
softrdma__async_event(struct ibv_context *ctx, enum ibv_event_type type, void *elem)
{
	struct softrdma_context *c =
	    SOFTRDMA_CONTAINER_OF(ctx, struct softrdma_context, vctx.context);
	struct softrdma_async_item *it = calloc(1, sizeof(*it));

	if (!it)
		return;
	it->ev.event_type = type;
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		it->ev.element.cq = elem;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		it->ev.element.srq = elem;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_DEVICE_FATAL:
		it->ev.element.port_num = 1;
		break;
	default:
		it->ev.element.qp = elem;
		break;
	}
	softrdma__evq_push(&c->async_q, &it->node);
}

/* Non-zero when @ctx belongs to the parent of this forked process. */
int
softrdma__ctx_inherited(struct ibv_context *ctx)
{
	return SOFTRDMA_CONTAINER_OF(ctx, struct softrdma_context, vctx.context)->inherited;
}
