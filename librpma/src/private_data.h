/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * private_data.h -- the private data that travels with connection set-up.
 *
 * Threads: any thread on private data of its own (part of one request or
 * connection), no lock; its owner frees it with rpma__private_data_delete().
 */

#ifndef RPMA_PRIVATE_DATA_H
#define RPMA_PRIVATE_DATA_H

#include <rdma/rdma_cma.h>

#include "librpma.h"

/* the transport's limits on private data (InfiniBand/RoCE connection manager) */
#define RPMA_PRIVATE_DATA_CONNECT_MAX 56
#define RPMA_PRIVATE_DATA_ACCEPT_MAX  196

/*
 * rpma__private_data_store -- keep a copy of the private data a peer sent
 * with a CM event (ptr NULL and len 0 when there was none).
 *
 * ASSUMPTIONS: pdata is not NULL and holds no data yet.
 * ERRORS: RPMA_E_INVAL (event NULL, or data NULL with a non-zero length),
 * RPMA_E_NOMEM. On failure nothing is allocated and *pdata is untouched.
 */
int rpma__private_data_store(const struct rdma_cm_event *event,
			     struct rpma_conn_private_data *pdata);

/*
 * rpma__private_data_validate -- check private data the user wants to send:
 * NULL is fine (none); otherwise, as in librpma 1.3, its data must not be
 * NULL nor its length 0.
 * ERRORS: RPMA_E_INVAL.
 */
int rpma__private_data_validate(const struct rpma_conn_private_data *pdata);

/*
 * rpma__private_data_fits -- whether private data (NULL: none) fits in
 * max_len bytes, the transport's limit (librpma 1.3 leaves it to the
 * connection manager, which fails the connect or accept).
 * ERRORS: RPMA_E_INVAL.
 */
int rpma__private_data_fits(const struct rpma_conn_private_data *pdata, uint8_t max_len);

/* rpma__private_data_delete -- free the stored copy; the object becomes empty */
void rpma__private_data_delete(struct rpma_conn_private_data *pdata);

/* rpma__private_data_move -- hand the stored data from src over to dst, leaving src empty */
void rpma__private_data_move(struct rpma_conn_private_data *dst,
			     struct rpma_conn_private_data *src);

#endif /* RPMA_PRIVATE_DATA_H */
