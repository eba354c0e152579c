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
