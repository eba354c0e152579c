/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn.h -- creating a connection from a connection request.
 *
 * Threads: called by rpma_conn_req_connect() on the thread that owns the
 * request (set-up is not thread-safe per object), no lock; the connection
 * frees what it took over in rpma_conn_delete().
 */

#ifndef RPMA_CONN_H
#define RPMA_CONN_H

#include <rdma/rdma_cma.h>

#include "librpma.h"

/* the resources a connection request hands over to its connection */
struct rpma_conn_resources {
	struct rdma_cm_id *id;		     /* with its QP created */
	struct rpma_cq *cq;		     /* owned, or held if a CQ of its own (rpma_cq_new()) */
	struct rpma_cq *rcq;		     /* as cq when drop_rcq, NULL when none */
	bool drop_rcq;			     /* false when rcq belongs to a shared receive queue */
	struct ibv_comp_channel *channel;    /* the shared completion channel (owned), or NULL */
	struct rpma_conn_private_data pdata; /* private data received so far (owned) */
};

/*
 * rpma__conn_new -- turn the resources of a request into a connection: give
 * the id an event channel of its own and prepare flushing. On success the
 * connection owns every resource and *res is emptied; on failure the caller
 * still owns them.
 *
 * ASSUMPTIONS: peer, res and conn_ptr are not NULL.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER.
 */
int rpma__conn_new(struct rpma_peer *peer, struct rpma_conn_resources *res,
		   struct rpma_conn **conn_ptr);

/* rpma__conn_get_id -- the CM id of the connection */
struct rdma_cm_id *rpma__conn_get_id(const struct rpma_conn *conn);

/*
 * rpma__conn_resources_release -- destroy the QP, drop the CQs (a CQ of its
 * own loses a user, the others are destroyed), destroy the id and the shared
 * channel and free the private data, in that order; used by a request that
 * never became a connection and by rpma_conn_delete(). Any of the resources
 * may be missing (NULL).
 * ERRORS: RPMA_E_PROVIDER (the first failure; everything is released anyway).
 */
int rpma__conn_resources_release(struct rpma_conn_resources *res);

#endif /* RPMA_CONN_H */
