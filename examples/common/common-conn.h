/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common-conn.h -- the steps of a connection's life shared by the librpma
 * examples: the peer, listening, connecting and accepting with private
 * data, and closing from either side. Each step ends the program when it
 * fails (common.h).
 */

#ifndef EXAMPLES_COMMON_CONN_H
#define EXAMPLES_COMMON_CONN_H 1

#include <stddef.h>

#include <librpma.h>

#include "common.h"

struct rpma_peer *common_peer_new(const char *addr, enum rpma_util_ibv_context_type type);

struct rpma_ep *common_listen(struct rpma_peer *peer, const char *addr, const char *port);
struct rpma_conn_req *common_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg);
struct rpma_conn *common_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
				const void *pdata, size_t len);
struct rpma_conn *common_accept_client(struct rpma_ep *ep, unsigned long idx, const void *pdata,
				       size_t len);
void common_server_end(struct rpma_ep **ep, struct rpma_peer **peer);

struct rpma_conn *common_client_connect(struct rpma_peer *peer, const struct common_args *args,
					const struct rpma_conn_cfg *cfg, const void *pdata,
					size_t len);
struct rpma_conn *common_connect(struct rpma_conn_req **req, const void *pdata, size_t len);
void common_wait_established(struct rpma_conn *conn);

void common_disconnect(struct rpma_conn **conn);
void common_wait_closed(struct rpma_conn **conn);
void common_client_gone(struct rpma_conn **conn, unsigned long idx);

#endif /* EXAMPLES_COMMON_CONN_H */
