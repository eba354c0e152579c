/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * srq.c -- shared receive queues: one pool of receive buffers for many
 * connections, optionally with a receive CQ of its own.
 */

#include <errno.h>
#include <stdlib.h>

#include "cq.h"
#include "log.h"
#include "mr.h"
#include "peer.h"
#include "srq.h"
#include "srq_cfg.h"

struct rpma_srq {
	struct ibv_srq *ibv_srq;
	struct rpma_cq *rcq;
};

/* see librpma.h */
int
rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr)
{
	struct rpma_cq *rcq = NULL;
	struct ibv_srq *ibv_srq;
	struct rpma_srq *srq;
	uint32_t rq_size, rcq_size;
	int ret;

	if (peer == NULL || srq_ptr == NULL) {
		RPMA_LOG_ERROR("peer or srq_ptr is NULL");
		return RPMA_E_INVAL;
	}

	/* the device judges the sizes (0 included), as with librpma 1.3 */
	rpma__srq_cfg_get_sizes(cfg, &rq_size, &rcq_size);
	ret = rpma__peer_create_srq(peer, rq_size, &ibv_srq);
	if (ret)
		return ret;

	if (rcq_size) {
		ret = rpma__cq_new(rpma__peer_ibv_context(peer), rcq_size, NULL, &rcq);
		if (ret)
			goto err_destroy_srq;
	}

	srq = malloc(sizeof(*srq));
	if (srq == NULL) {
		RPMA_LOG_ERROR("cannot allocate a shared receive queue");
		ret = RPMA_E_NOMEM;
		goto err_delete_rcq;
	}
	srq->ibv_srq = ibv_srq;
	srq->rcq = rcq;
	*srq_ptr = srq;
	return 0;

err_delete_rcq:
	(void)rpma__cq_delete(&rcq);
err_destroy_srq:
	(void)ibv_destroy_srq(ibv_srq);
	return ret;
}

/* see librpma.h */
int
rpma_srq_delete(struct rpma_srq **srq_ptr)
{
	int ret = 0;

	if (srq_ptr == NULL) {
		RPMA_LOG_ERROR("srq_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_srq *srq = *srq_ptr;

	if (srq == NULL)
		return 0;

	int err = ibv_destroy_srq(srq->ibv_srq);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_srq()");
		errno = err;
		ret = RPMA_E_PROVIDER;
	}

	int ret2 = rpma__cq_delete(&srq->rcq);

	if (ret == 0)
		ret = ret2;
	free(srq);
	*srq_ptr = NULL;
	return ret;
}

/* see librpma.h */
int
rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
	      const void *op_context)
{
	if (srq == NULL) {
		RPMA_LOG_ERROR("srq is NULL");
		return RPMA_E_INVAL;
	}

	int ret = rpma__mr_check_buf(dst, offset, len);

	if (ret)
		return ret;
	return rpma__mr_post_recv(NULL, srq->ibv_srq, dst, offset, len, op_context);
}

/* see librpma.h */
int
rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr)
{
	if (srq == NULL || rcq_ptr == NULL) {
		RPMA_LOG_ERROR("srq or rcq_ptr is NULL");
		return RPMA_E_INVAL;
	}
	*rcq_ptr = srq->rcq;
	return 0;
}

/* see srq.h */
struct ibv_srq *
rpma__srq_get_ibv_srq(const struct rpma_srq *srq)
{
	return srq->ibv_srq;
}

/* see srq.h */
struct rpma_cq *
rpma__srq_get_rcq(const struct rpma_srq *srq)
{
	return srq->rcq;
}
