/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cq.h -- completion queues and their completion channels.
 *
 * Threads: new and delete are set-up and tear-down (one thread per CQ, no
 * lock; the CQ's owner, a connection, an SRQ or rpma_cq_delete()'s caller,
 * frees it); the others are the completion path: any thread, no lock, no
 * allocation.
 */

#ifndef RPMA_CQ_H
#define RPMA_CQ_H

#include "librpma.h"

/*
 * rpma__cq_new -- create a connection's or a shared receive queue's CQ of
 * cqe entries (cut to INT_MAX), armed for the next completion. It gets a
 * completion channel of its own when shared_channel is NULL, otherwise it
 * uses (and does not own) shared_channel. (A CQ of its own, shared by
 * connections, is made by rpma_cq_new().)
 *
 * ASSUMPTIONS: ibv_ctx and cq_ptr are not NULL.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER (also for a size the device
 * refuses, 0 included).
 */
int rpma__cq_new(struct ibv_context *ibv_ctx, uint32_t cqe, struct ibv_comp_channel *shared_channel,
		 struct rpma_cq **cq_ptr);

/*
 * rpma__cq_delete -- destroy a CQ made by rpma__cq_new() and its own
 * channel; *cq_ptr becomes NULL (NULL is fine).
 * ERRORS: RPMA_E_PROVIDER (everything is released anyway).
 */
int rpma__cq_delete(struct rpma_cq **cq_ptr);

/*
 * rpma__cq_is_own -- whether the CQ was made by rpma_cq_new() (a CQ of its
 * own, which connections share) rather than for a connection or an SRQ.
 * ASSUMPTIONS: cq is not NULL.
 */
bool rpma__cq_is_own(const struct rpma_cq *cq);

/*
 * rpma__cq_on_context -- whether the CQ was made on the device ibv_ctx.
 * ASSUMPTIONS: cq is not NULL.
 */
bool rpma__cq_on_context(const struct rpma_cq *cq, const struct ibv_context *ibv_ctx);

/*
 * rpma__cq_hold -- count one more user (a connection request, then its
 * connection) of a CQ of its own; rpma_cq_delete() refuses it until every
 * user has dropped it. Thread-safe (atomic).
 * ASSUMPTIONS: rpma__cq_is_own(cq).
 */
void rpma__cq_hold(struct rpma_cq *cq);

/*
 * rpma__cq_drop -- what a connection does with a CQ it no longer uses: one
 * user less for a CQ of its own (after the QP using it is destroyed), the
 * CQ deleted (rpma__cq_delete()) otherwise; *cq_ptr becomes NULL (NULL is
 * fine). Thread-safe for a CQ of its own.
 * ERRORS: RPMA_E_PROVIDER (from rpma__cq_delete()).
 */
int rpma__cq_drop(struct rpma_cq **cq_ptr);

/* rpma__cq_get_ibv_cq -- the verbs CQ inside */
struct ibv_cq *rpma__cq_get_ibv_cq(const struct rpma_cq *cq);

/*
 * rpma__cq_rearm -- acknowledge one completion event of cq and arm it for
 * the next completion. ERRORS: RPMA_E_PROVIDER.
 */
int rpma__cq_rearm(struct rpma_cq *cq);

/*
 * rpma__comp_channel_get_event -- take one event from a completion channel.
 * ERRORS: RPMA_E_NO_COMPLETION (nothing on a non-blocking channel, or
 * ibv_get_cq_event() failed; logged unless it was EAGAIN).
 */
int rpma__comp_channel_get_event(struct ibv_comp_channel *channel, struct ibv_cq **ev_cq);

#endif /* RPMA_CQ_H */
