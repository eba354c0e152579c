/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * flush.h -- making remote writes visible or persistent.
 *
 * Threads: new and delete belong to the connection's set-up and tear-down
 * (the connection frees its flush); rpma__flush_execute is the data path:
 * any thread posting on the connection, no lock, no allocation.
 */

#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "librpma.h"

#include "mr.h"

/* how many bytes a flushing read fetches */
#define RPMA_FLUSH_READ_SIZE 8

/* the flushing state of one connection; shared with the inline data path */
struct rpma_flush {
	struct rpma_mr_local *raw_mr;
	uint64_t raw; /* where the flushing reads land; its value is never used */
};

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
 * without a native flush in the device it is a small RDMA READ at offset,
 * which RC ordering completes only after every write posted before it.
 * Like librpma 1.3 it reads at offset whatever len is, and an offset
 * outside the region is the device's to refuse (a completion with an
 * error); an offset near the region's end reads the region's last bytes
 * instead of reading past it (where 1.3 would fail).
 *
 * ASSUMPTIONS: the flush type was checked; send_flags are verbs flags.
 * ERRORS: RPMA_E_PROVIDER. Data path: no allocation, no lock.
 */
static inline int
rpma__flush_execute(struct ibv_qp *qp, struct rpma_flush *flush, const struct rpma_mr_remote *dst,
		    size_t offset, size_t len, unsigned send_flags, const void *op_context)
{
	uint64_t size = dst->size;
	size_t read_len = size < RPMA_FLUSH_READ_SIZE ? (size_t)size : RPMA_FLUSH_READ_SIZE;
	size_t read_offset = offset;

	(void)len;
	if (read_offset <= size && read_offset > size - read_len)
		read_offset = (size_t)(size - read_len);

	return rpma__mr_post_rdma(qp, IBV_WR_RDMA_READ, flush->raw_mr, 0, dst, read_offset,
				  read_len, send_flags, 0, op_context);
}

#endif /* RPMA_FLUSH_H */
