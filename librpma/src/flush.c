/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * flush.c -- the flush of remote writes, carried out as a read after them
 * (the appliance persistency method): RC ordering delivers the read only
 * once the earlier writes have been placed in the target's memory, which is
 * the persistent domain when the target declared direct write to PMem.
 */

#include <errno.h>
#include <stdlib.h>

#include "flush.h"
#include "log.h"
#include "mr.h"

/* how many bytes a flushing read fetches */
#define RPMA_FLUSH_READ_SIZE 8

struct rpma_flush {
	struct rpma_mr_local *raw_mr;
	uint64_t raw; /* where the flushing reads land; its value is never used */
};

/* see flush.h */
int
rpma__flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = malloc(sizeof(*flush));
	int ret;

	if (flush == NULL) {
		RPMA_LOG_ERROR("cannot allocate the flush object");
		return RPMA_E_NOMEM;
	}

	ret = rpma_mr_reg(peer, &flush->raw, sizeof(flush->raw), RPMA_MR_USAGE_READ_DST,
			  &flush->raw_mr);
	if (ret)
		goto err_free;

	*flush_ptr = flush;
	return 0;

err_free:
	free(flush);
	return ret;
}

/* see flush.h */
int
rpma__flush_delete(struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = *flush_ptr;

	if (flush == NULL)
		return 0;

	int ret = rpma_mr_dereg(&flush->raw_mr);

	free(flush);
	*flush_ptr = NULL;
	return ret;
}

/* see flush.h */
int
rpma__flush_execute(struct ibv_qp *qp, struct rpma_flush *flush, const struct rpma_mr_remote *dst,
		    size_t offset, size_t len, unsigned send_flags, const void *op_context)
{
	uint64_t size = rpma__mr_remote_size(dst);
	size_t read_len = size < RPMA_FLUSH_READ_SIZE ? (size_t)size : RPMA_FLUSH_READ_SIZE;
	size_t read_offset = offset;

	(void)len;
	/* read inside the flushed range when it is long enough, else at the region's end */
	if (read_offset > size - read_len)
		read_offset = (size_t)(size - read_len);

	return rpma__mr_post_rdma(qp, IBV_WR_RDMA_READ, flush->raw_mr, 0, dst, read_offset,
				  read_len, send_flags, 0, op_context);
}
