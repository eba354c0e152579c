/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * flush.h -- making remote writes visible or persistent.
 */

#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "librpma.h"

struct rpma_flush;

/*
 * rpma__flush_new -- prepare the flushing of one connection: a small local
 * buffer, registered on peer, that the flushing reads land in.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER.
 */
int rpma__flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr);

/*
 * rpma__flush_delete -- release it; *flush_ptr becomes NULL (NULL is fine).
 * ERRORS: RPMA_E_PROVIDER (released anyway).
 */
int rpma__flush_delete(struct rpma_flush **flush_ptr);

/*
 * rpma__flush_execute -- post the flush of [offset, offset + len) of dst:
 * without a native flush in the device it is a small RDMA READ of the range,
 * which RC ordering completes only after every write posted before it.
 *
 * ASSUMPTIONS: the range and the flush type were checked; send_flags are verbs flags.
 * ERRORS: RPMA_E_PROVIDER. Data path: no allocation, no lock.
 */
int rpma__flush_execute(struct ibv_qp *qp, struct rpma_flush *flush,
			const struct rpma_mr_remote *dst, size_t offset, size_t len,
			unsigned send_flags, const void *op_context);

#endif /* RPMA_FLUSH_H */
