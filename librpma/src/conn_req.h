/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn_req.h -- internal creation of connection requests.
 *
 * Threads: called by rpma_conn_req_new() and rpma_ep_next_conn_req() on
 * the caller's thread, no lock; the request is freed by its user
 * (rpma_conn_req_delete()) or by the connection it becomes.
 */

#ifndef RPMA_CONN_REQ_H
#define RPMA_CONN_REQ_H

#include <rdma/rdma_cma.h>

#include "librpma.h"

/*
 * rpma__conn_req_from_id -- build a connection request around a CM id whose
 * address (and, for a client, route) is resolved: create the completion
 * channel, CQs and QP that cfg (NULL: defaults) asks for. The request owns
 * the id on success; on failure the caller still owns it.
 *
 * ASSUMPTIONS: peer, id and req_ptr are not NULL.
 * ERRORS: RPMA_E_INVAL (bad queue size), RPMA_E_NOMEM, RPMA_E_PROVIDER.
 */
int rpma__conn_req_from_id(struct rpma_peer *peer, struct rdma_cm_id *id,
			   const struct rpma_conn_cfg *cfg, bool is_passive,
			   struct rpma_conn_req **req_ptr);

/* rpma__conn_req_pdata -- where an incoming request keeps the peer's private data */
struct rpma_conn_private_data *rpma__conn_req_pdata(struct rpma_conn_req *req);

#endif /* RPMA_CONN_REQ_H */
