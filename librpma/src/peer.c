/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * peer.c -- the peer: a protection domain on one device, with what the
 * device supports (On-Demand Paging, native atomic write). Everything else
 * (regions, queue pairs, shared receive queues) is created through it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cq.h"
#include "log.h"
#include "peer.h"
#include "srq.h"

/* the device capability bit of a native atomic write (kernel uverbs ABI) */
#define RPMA_DEVICE_CAP_ATOMIC_WRITE (1ULL << 40)

/* the largest inline payload librpma posts: an emulated atomic write */
#define RPMA_MAX_INLINE_DATA 8

struct rpma_peer {
	struct ibv_context *ibv_ctx;
	struct ibv_pd *pd;
	bool is_odp_supported;
	bool native_atomic_write;
};

/*
 * alloc_pd_failed -- the error of a failed ibv_alloc_pd(), as librpma 1.3
 * reports it: ENOMEM is RPMA_E_NOMEM, another errno RPMA_E_PROVIDER, and
 * no errno at all RPMA_E_UNKNOWN.
 */
static int
alloc_pd_failed(int err)
{
	if (err == 0) {
		RPMA_LOG_ERROR("ibv_alloc_pd() failed without an error code");
		return RPMA_E_UNKNOWN;
	}
	RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_alloc_pd()");
	errno = err;
	return err == ENOMEM ? RPMA_E_NOMEM : RPMA_E_PROVIDER;
}

/* see librpma.h */
int
rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr)
{
	struct ibv_device_attr_ex attr;
	struct rpma_peer *peer;
	struct ibv_pd *pd;
	int is_odp;
	int ret;

	if (ibv_ctx == NULL || peer_ptr == NULL) {
		RPMA_LOG_ERROR("ibv_ctx or peer_ptr is NULL");
		return RPMA_E_INVAL;
	}

	ret = rpma_utils_ibv_context_is_odp_capable(ibv_ctx, &is_odp);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_device_ex(ibv_ctx, NULL, &attr);
	if (ret) {
		RPMA_LOG_ERROR_WITH_ERRNO(ret, "ibv_query_device_ex()");
		errno = ret;
		return RPMA_E_PROVIDER;
	}

	/* ibv_alloc_pd() may fail without setting errno: tell that case apart */
	errno = 0;
	pd = ibv_alloc_pd(ibv_ctx);
	if (pd == NULL)
		return alloc_pd_failed(errno);

	peer = malloc(sizeof(*peer));
	if (peer == NULL) {
		RPMA_LOG_ERROR("cannot allocate a peer");
		ret = RPMA_E_NOMEM;
		goto err_dealloc_pd;
	}
	peer->ibv_ctx = ibv_ctx;
	peer->pd = pd;
	peer->is_odp_supported = is_odp != 0;
	peer->native_atomic_write = (attr.device_cap_flags_ex & RPMA_DEVICE_CAP_ATOMIC_WRITE) != 0;
	*peer_ptr = peer;
	return 0;

err_dealloc_pd:
	(void)ibv_dealloc_pd(pd);
	return ret;
}

/* see librpma.h */
int
rpma_peer_delete(struct rpma_peer **peer_ptr)
{
	int ret = 0;

	if (peer_ptr == NULL) {
		RPMA_LOG_ERROR("peer_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_peer *peer = *peer_ptr;

	if (peer == NULL)
		return 0;

	int err = ibv_dealloc_pd(peer->pd);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_dealloc_pd()");
		errno = err;
		ret = RPMA_E_PROVIDER;
	}
	free(peer);
	*peer_ptr = NULL;
	return ret;
}

/* see peer.h */
int
rpma__peer_create_qp(struct rpma_peer *peer, struct rdma_cm_id *id, struct rpma_cq *cq,
		     struct rpma_cq *rcq, const struct rpma_conn_cfg_snapshot *cfg)
{
	struct ibv_qp_init_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_context = NULL;
	attr.send_cq = rpma__cq_get_ibv_cq(cq);
	attr.recv_cq = rcq ? rpma__cq_get_ibv_cq(rcq) : attr.send_cq;
	attr.srq = cfg->srq ? rpma__srq_get_ibv_srq(cfg->srq) : NULL;
	attr.cap.max_send_wr = cfg->sq_size;
	attr.cap.max_recv_wr = cfg->srq ? 0 : cfg->rq_size;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = cfg->srq ? 0 : 1;
	attr.cap.max_inline_data = RPMA_MAX_INLINE_DATA;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = peer->pd;
	if (peer->native_atomic_write) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
				      IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
				      IBV_QP_EX_WITH_ATOMIC_WRITE;
	}

	if (rdma_create_qp_ex(id, &attr)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_qp_ex(sq %u, rq %u)", cfg->sq_size,
					  cfg->rq_size);
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* see peer.h */
int
rpma__peer_mr_reg(struct rpma_peer *peer, struct ibv_mr **ibv_mr_ptr, void *addr, size_t length,
		  int access)
{
	*ibv_mr_ptr = ibv_reg_mr(peer->pd, addr, length, access);
	if (*ibv_mr_ptr)
		return 0;

	int err = errno;

	if (err == EOPNOTSUPP && peer->is_odp_supported) {
		*ibv_mr_ptr = ibv_reg_mr(peer->pd, addr, length, access | IBV_ACCESS_ON_DEMAND);
		if (*ibv_mr_ptr)
			return 0;
		err = errno;
	}

	RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_reg_mr(%p, %zu, 0x%x)", addr, length, access);
	errno = err;
	return RPMA_E_PROVIDER;
}

/* see peer.h */
int
rpma__peer_create_srq(struct rpma_peer *peer, uint32_t rq_size, struct ibv_srq **srq_ptr)
{
	struct ibv_srq_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.attr.max_wr = rq_size;
	attr.attr.max_sge = 1;

	*srq_ptr = ibv_create_srq(peer->pd, &attr);
	if (*srq_ptr == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_srq(%u)", rq_size);
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* see peer.h */
struct ibv_pd *
rpma__peer_pd(const struct rpma_peer *peer)
{
	return peer->pd;
}

/* see peer.h */
struct ibv_context *
rpma__peer_ibv_context(const struct rpma_peer *peer)
{
	return peer->ibv_ctx;
}

/* see peer.h */
bool
rpma__peer_native_atomic_write(const struct rpma_peer *peer)
{
	return peer->native_atomic_write;
}
