/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * credit.h -- admission of work requests so that neither a connection's
 * send queue nor its worker's shared send CQ can overflow.
 *
 * Every work request admitted takes one slot of its connection's SQ
 * (queues.sq) and one of the worker's CQ (queues.cq), signaled or not: a
 * failed work request completes even when unsignaled, and once a QP fails
 * all its outstanding requests are flushed to the CQ, each with a
 * completion of its own. A batch is admitted whole or not at all; the
 * caller posts it with only its last request signaled. The device completes
 * the requests of one QP in order, so the signaled completion of a batch
 * retires the whole batch: the batches form a FIFO per connection.
 *
 * After a connection's first failed completion it is "broken": which of
 * its unsignaled requests succeeded silently before the failure is unknown,
 * so from then on each completion retires exactly one request, and what is
 * left when the connection is closed is returned once its QP is destroyed
 * and the CQ has been drained (rpmaf__acct_release_all()).
 *
 * ASSUMPTIONS: one thread (the worker's) uses the counters of a worker and
 * of its connections.
 */

#ifndef RPMAF_WORKERS_CREDIT_H
#define RPMAF_WORKERS_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

/* slots of one bounded queue */
struct rpmaf__credits {
	uint32_t cap;
	uint32_t used;
	uint32_t used_max; /* high-water mark */
};

/* the accounting of one connection */
struct rpmaf__acct {
	struct rpmaf__credits sq;
	uint32_t *ring; /* sizes of the batches in flight, oldest at head; sq.cap entries */
	uint32_t head;
	uint32_t nbatch;
	bool broken;
};

/* rpmaf__credits_init -- cap slots, none used */
void rpmaf__credits_init(struct rpmaf__credits *c, uint32_t cap);

/*
 * rpmaf__acct_init -- a connection with an SQ of sq slots; ring is the
 * caller's array of sq entries.
 */
void rpmaf__acct_init(struct rpmaf__acct *a, uint32_t sq, uint32_t *ring);

/*
 * rpmaf__acct_admit -- admit a batch of n work requests on the connection
 * against its SQ and the worker's CQ cq.
 * ERRORS: RPMAF_E_INVAL (n 0 or above the SQ, a broken connection),
 * RPMAF_E_AGAIN (the SQ or the CQ has less than n free slots; nothing taken).
 */
int rpmaf__acct_admit(struct rpmaf__acct *a, struct rpmaf__credits *cq, uint32_t n);

/*
 * rpmaf__acct_unadmit -- give back n requests of the newest batch that
 * were not posted (a post failed). The connection becomes broken when some
 * of the batch were posted (its signaled request was not).
 * ERRORS: RPMAF_E_INVAL (no batch, n 0 or larger than the newest batch).
 */
int rpmaf__acct_unadmit(struct rpmaf__acct *a, struct rpmaf__credits *cq, uint32_t n);

/*
 * rpmaf__acct_retire -- one completion of the connection's send queue:
 * success retires the oldest batch, failure breaks the connection and
 * retires one request. Returns the number of requests retired (0 for a
 * completion nothing was admitted for).
 */
uint32_t rpmaf__acct_retire(struct rpmaf__acct *a, struct rpmaf__credits *cq, bool success);

/*
 * rpmaf__acct_release_all -- return every slot the connection holds (its QP
 * is gone and the CQ drained); returns how many.
 */
uint32_t rpmaf__acct_release_all(struct rpmaf__acct *a, struct rpmaf__credits *cq);

#endif /* RPMAF_WORKERS_CREDIT_H */
