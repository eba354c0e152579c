/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * peer.h -- the peer: a protection domain and what the device can do.
 *
 * Threads: any thread (a peer is read-only after rpma_peer_new()), no lock;
 * its user frees it (rpma_peer_delete()) after everything made on it.
 */

#ifndef RPMA_PEER_H
#define RPMA_PEER_H

#include <rdma/rdma_cma.h>

#include "conn_cfg.h"
#include "librpma.h"

struct rpma_cq;

/*
 * rpma__peer_create_qp -- create the RC queue pair of id on the peer's
 * protection domain, sending to cq and receiving to rcq (NULL: cq) or to the
 * shared receive queue named in cfg.
 *
 * ASSUMPTIONS: all arguments are valid.
 * ERRORS: RPMA_E_PROVIDER (rdma_create_qp_ex() failed).
 */
int rpma__peer_create_qp(struct rpma_peer *peer, struct rdma_cm_id *id, struct rpma_cq *cq,
			 struct rpma_cq *rcq, const struct rpma_conn_cfg_snapshot *cfg);

/*
 * rpma__peer_mr_reg -- register addr/length with the given verbs access
 * flags, falling back to On-Demand Paging when the device needs it.
 *
 * ASSUMPTIONS: peer and ibv_mr_ptr are not NULL.
 * ERRORS: RPMA_E_PROVIDER (registration refused; errno kept).
 */
int rpma__peer_mr_reg(struct rpma_peer *peer, struct ibv_mr **ibv_mr_ptr, void *addr, size_t length,
		      int access);

/*
 * rpma__peer_create_srq -- create a shared receive queue of rq_size entries.
 * ERRORS: RPMA_E_PROVIDER.
 */
int rpma__peer_create_srq(struct rpma_peer *peer, uint32_t rq_size, struct ibv_srq **srq_ptr);

/* rpma__peer_pd -- the protection domain of the peer */
struct ibv_pd *rpma__peer_pd(const struct rpma_peer *peer);

/* rpma__peer_ibv_context -- the device context of the peer */
struct ibv_context *rpma__peer_ibv_context(const struct rpma_peer *peer);

/* rpma__peer_native_atomic_write -- whether the device executes atomic writes itself */
bool rpma__peer_native_atomic_write(const struct rpma_peer *peer);

#endif /* RPMA_PEER_H */
