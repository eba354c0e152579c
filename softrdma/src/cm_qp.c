// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * cm_qp.c -- the QP and SRQ helpers of an id: its CQs, rdma_create_qp(_ex),
 * rdma_create_srq(_ex), the QP states the handshake drives, and the
 * endpoint calls (rdma_create_ep, rdma_destroy_ep).
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include "cm_int.h"

/* Move the id's QP to INIT if it is still in RESET. */
int
softrdma__cm_qp_init(struct softrdma_cm_id *id)
{
	struct ibv_qp_attr a;

	if (!id->id.qp || id->id.qp->state != IBV_QPS_RESET)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	return ibv_modify_qp(id->id.qp, &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* Attributes for the RTR transition towards the connected peer. */
static void
softrdma_cm_rtr_attr(struct softrdma_cm_id *id, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_4096;
	a->dest_qp_num = id->remote_qpn;
	a->max_dest_rd_atomic = 16;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.grh.sgid_index = softrdma__cm_gid_index(id->id.route.addr.src_sin.sin_addr);
	softrdma__cm_gid(&a->ah_attr.grh.dgid, id->peer.sin_addr);
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

/* Attributes for the RTS transition. */
static void
softrdma_cm_rts_attr(struct softrdma_cm_id *id, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = id->ack_timeout;
	a->retry_cnt = 7;
	a->rnr_retry = id->rnr_retry;
	a->max_rd_atomic = 16;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

/* Bring the id's QP to RTS towards the peer. */
int
softrdma__cm_qp_connect(struct softrdma_cm_id *id)
{
	struct ibv_qp_attr a;
	int mask, err;

	if (!id->id.qp)
		return 0;
	err = softrdma__cm_qp_init(id);
	if (err)
		return err;
	softrdma_cm_rtr_attr(id, &a, &mask);
	err = ibv_modify_qp(id->id.qp, &a, mask);
	if (err)
		return err;
	softrdma_cm_rts_attr(id, &a, &mask);
	return ibv_modify_qp(id->id.qp, &a, mask);
}

/*
 * Give local QP @qpn the id's connection secret, drawing one first when the
 * id has none yet (the active side); 0 or an errno (softrdma__cm.lock held).
 */
int
softrdma__cm_secure_qp(struct softrdma_cm_id *id, uint32_t qpn)
{
	const struct softrdma_cm_ops *ops = softrdma__cm_ops(softrdma__cm.verbs);
	int err;

	if (!id->has_secret) {
		err = ops->secret_new(id->secret);
		if (err)
			return err;
		id->has_secret = 1;
	}
	return qpn ? ops->secret_set_local(qpn, id->secret) : 0;
}
/* Create the CQs (with channels) the caller did not supply. */
static int
softrdma_cm_create_cqs(struct softrdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	struct rdma_cm_id *c = &id->id;

	c->recv_cq_channel = ibv_create_comp_channel(c->verbs);
	if (!c->recv_cq_channel)
		goto fail;
	c->recv_cq = ibv_create_cq(c->verbs, recv_size ? recv_size : 1, c, c->recv_cq_channel, 0);
	if (!c->recv_cq)
		goto fail;
	c->send_cq_channel = ibv_create_comp_channel(c->verbs);
	if (!c->send_cq_channel)
		goto fail;
	c->send_cq = ibv_create_cq(c->verbs, send_size ? send_size : 1, c, c->send_cq_channel, 0);
	if (!c->send_cq)
		goto fail;
	id->own_cqs = 1;
	return 0;
fail:
	if (c->send_cq_channel)
		ibv_destroy_comp_channel(c->send_cq_channel);
	if (c->recv_cq)
		ibv_destroy_cq(c->recv_cq);
	if (c->recv_cq_channel)
		ibv_destroy_comp_channel(c->recv_cq_channel);
	c->send_cq_channel = c->recv_cq_channel = NULL;
	c->recv_cq = c->send_cq = NULL;
	return -1;
}

/* Release CQs created by softrdma_cm_create_cqs. */
static void
softrdma_cm_destroy_cqs(struct softrdma_cm_id *id)
{
	struct rdma_cm_id *c = &id->id;

	if (!id->own_cqs)
		return;
	ibv_destroy_cq(c->send_cq);
	ibv_destroy_comp_channel(c->send_cq_channel);
	ibv_destroy_cq(c->recv_cq);
	ibv_destroy_comp_channel(c->recv_cq_channel);
	c->send_cq = c->recv_cq = NULL;
	c->send_cq_channel = c->recv_cq_channel = NULL;
	id->own_cqs = 0;
}

/* Create a QP on the id (extended form), moved to INIT. */
int
rdma_create_qp_ex(struct rdma_cm_id *cid, struct ibv_qp_init_attr_ex *attr)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct ibv_qp *qp;
	int err;

	if (id->inherited)
		return softrdma__cm_err(EIO);
	if (!cid->verbs || cid->qp)
		return softrdma__cm_err(EINVAL);
	/* like librdmacm, the id's port space decides the QP type */
	attr->qp_type = cid->qp_type;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = cid->pd ? cid->pd : softrdma__cm.pd;
	}
	if (!attr->send_cq && !attr->recv_cq) {
		if (softrdma_cm_create_cqs(id, attr->cap.max_send_wr, attr->cap.max_recv_wr))
			return -1;
		attr->send_cq = cid->send_cq;
		attr->recv_cq = cid->recv_cq;
	}
	if (!attr->srq && cid->srq)
		attr->srq = cid->srq;
	qp = softrdma__cm_ops(cid->verbs)
		 ->create_qp(cid->verbs, attr, id->id.route.addr.src_sin.sin_addr);
	if (!qp) {
		int err = errno;

		softrdma_cm_destroy_cqs(id);
		return softrdma__cm_err(err);
	}
	cid->pd = attr->pd;
	/* the CM thread may move the QP even after the application freed it */
	ibv_modify_qp(qp, NULL, SOFTRDMA_QP_CM_HOLD);
	/* under softrdma__cm.lock: the CM thread reads @qp of ids it handles */
	pthread_mutex_lock(&softrdma__cm.lock);
	/* no hello attaches to the QP without the connection's secret, from now on */
	err = softrdma__cm_secure_qp(id, qp->qp_num);
	if (err) {
		pthread_mutex_unlock(&softrdma__cm.lock);
		ibv_modify_qp(qp, NULL, SOFTRDMA_QP_CM_RELEASE);
		ibv_destroy_qp(qp);
		softrdma_cm_destroy_cqs(id);
		return softrdma__cm_err(err);
	}
	cid->qp = qp;
	softrdma__cm_qp_init(id);
	pthread_mutex_unlock(&softrdma__cm.lock);
	return 0;
}

/* Create a QP on the id. */
int
rdma_create_qp(struct rdma_cm_id *cid, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	ret = rdma_create_qp_ex(cid, &ex);
	if (!ret) {
		attr->cap = ex.cap;
		attr->send_cq = ex.send_cq;
		attr->recv_cq = ex.recv_cq;
	}
	return ret;
}

/*
 * Destroy the id's QP (and CQs the CM created for it). The QP leaves the id
 * under softrdma__cm.lock first: the CM thread, which moves the QP of an id it handles
 * (a disconnect, a lost connection) under that lock, never sees it freed.
 */
void
rdma_destroy_qp(struct rdma_cm_id *cid)
{
	struct ibv_qp *qp;

	pthread_mutex_lock(&softrdma__cm.lock);
	qp = cid->qp;
	cid->qp = NULL;
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (qp) {
		/* a no-op when the application destroyed it already */
		ibv_destroy_qp(qp);
		ibv_modify_qp(qp, NULL, SOFTRDMA_QP_CM_RELEASE);
	}
	softrdma_cm_destroy_cqs((struct softrdma_cm_id *)cid);
}

/* Create an SRQ on the id. */
int
rdma_create_srq(struct rdma_cm_id *cid, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq;

	if (((struct softrdma_cm_id *)cid)->inherited)
		return softrdma__cm_err(EIO);
	if (!cid->verbs)
		return softrdma__cm_err(EINVAL);
	if (!pd)
		pd = cid->pd ? cid->pd : softrdma__cm.pd;
	srq = ibv_create_srq(pd, attr);
	if (!srq)
		return -1;
	cid->srq = srq;
	cid->pd = pd;
	return 0;
}

/* Extended SRQ creation: only basic SRQs are offered. */
int
rdma_create_srq_ex(struct rdma_cm_id *cid, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr a;

	if (attr->comp_mask & ~(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD))
		return softrdma__cm_err(EOPNOTSUPP);
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)
		return softrdma__cm_err(EOPNOTSUPP);
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	return rdma_create_srq(cid, (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL, &a);
}

/* Destroy the id's SRQ. */
void
rdma_destroy_srq(struct rdma_cm_id *cid)
{
	if (cid->srq)
		ibv_destroy_srq(cid->srq);
	cid->srq = NULL;
}

/* Fill QP attributes for the transition the caller asks for. */
int
rdma_init_qp_attr(struct rdma_cm_id *cid, struct ibv_qp_attr *attr, int *mask)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;

	switch (attr->qp_state) {
	case IBV_QPS_INIT:
		memset(attr, 0, sizeof(*attr));
		attr->qp_state = IBV_QPS_INIT;
		attr->port_num = 1;
		attr->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_RTR:
		if (id->state < CM_CONNECTING)
			return softrdma__cm_err(EINVAL);
		softrdma_cm_rtr_attr(id, attr, mask);
		return 0;
	case IBV_QPS_RTS:
		softrdma_cm_rts_attr(id, attr, mask);
		return 0;
	default:
		return softrdma__cm_err(EINVAL);
	}
}
/* Create an endpoint: a synchronous id, resolved, optionally with a QP. */
int
rdma_create_ep(struct rdma_cm_id **cid, struct rdma_addrinfo *res, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *c;
	struct softrdma_cm_id *id;

	if (!res || !cid)
		return softrdma__cm_err(EINVAL);
	if (rdma_create_id(NULL, &c, NULL, res->ai_port_space ? res->ai_port_space : RDMA_PS_TCP))
		return -1;
	id = (struct softrdma_cm_id *)c;
	if (res->ai_flags & RAI_PASSIVE) {
		if (rdma_bind_addr(c, res->ai_src_addr))
			goto fail;
		if (qp_init_attr) {
			id->ep_attr = *qp_init_attr;
			id->ep_pd = pd;
			id->has_ep_attr = 1;
		}
	} else {
		if (rdma_resolve_addr(c, res->ai_src_addr, res->ai_dst_addr, 2000))
			goto fail;
		if (rdma_resolve_route(c, 2000))
			goto fail;
		if (qp_init_attr && rdma_create_qp(c, pd, qp_init_attr))
			goto fail;
	}
	*cid = c;
	return 0;
fail : {
	int err = errno;

	rdma_destroy_id(c);
	return softrdma__cm_err(err);
}
}

/* Destroy an endpoint with its QP and SRQ. */
void
rdma_destroy_ep(struct rdma_cm_id *cid)
{
	rdma_destroy_qp(cid);
	rdma_destroy_srq(cid);
	rdma_destroy_id(cid);
}
