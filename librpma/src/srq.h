/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * srq.h -- internal access to a shared receive queue.
 *
 * Threads: any thread (both fields are set once by rpma_srq_new()), no lock;
 * the SRQ's user frees it (rpma_srq_delete()) after its connections.
 */

#ifndef RPMA_SRQ_H
#define RPMA_SRQ_H

#include "librpma.h"

/* rpma__srq_get_ibv_srq -- the verbs SRQ inside. ASSUMPTIONS: srq is not NULL. */
struct ibv_srq *rpma__srq_get_ibv_srq(const struct rpma_srq *srq);

/* rpma__srq_get_rcq -- the SRQ's receive CQ, or NULL. ASSUMPTIONS: srq is not NULL. */
struct rpma_cq *rpma__srq_get_rcq(const struct rpma_srq *srq);

#endif /* RPMA_SRQ_H */
