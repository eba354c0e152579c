/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC queue pairs: creation, the state machine (modify, query, the error
 * state) and destruction. A QP owns two connections (net.c): on @out it
 * sends requests (req.c) and receives their answers (comp.c), on @in it
 * receives the peer's requests and answers them (resp.c). Its receive
 * queue is in srq.c, the wr_* calls of the extended QP in wr.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comp.h"
#include "cq.h"
#include "device.h"
#include "mr.h"
#include "net.h"
#include "progress.h"
#include "qp.h"
#include "secret.h"
#include "shm.h"
#include "srq.h"
#include "wr.h"

#define SOFTRDMA_SEND_OPS                                                                          \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |    \
	 IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |                                 \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* The softrdma QP behind @qp. */
static struct softrdma_qp *
softrdma_qp(struct ibv_qp *qp)
{
	return (struct softrdma_qp *)qp;
}

/*
 * Move @qp to the error state: the oldest outstanding send WR completes
 * with @head when @flush_head, everything else with IBV_WC_WR_FLUSH_ERR,
 * and the connections close so the peer notices. Called with qp->lock.
 */
void
softrdma__qp_set_error(struct softrdma_qp *qp, int flush_head, enum ibv_wc_status head)
{
	struct ibv_qp *q = &qp->qpx.qp_base;

	q->state = IBV_QPS_ERR;
	softrdma__shm_publish_qp(qp);
	while (qp->sq_count && qp->sq[qp->sq_head].done)
		softrdma__sq_complete_head(qp, IBV_WC_SUCCESS);
	if (flush_head && qp->sq_count)
		softrdma__sq_complete_head(qp, head);
	while (qp->sq_count)
		softrdma__sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
	softrdma__rq_flush(qp);
	softrdma__qp_close_conns(qp);
}

/* Check the creation attributes of an RC QP; 0 or the errno to fail with. */
static int
softrdma_qp_check_init(struct ibv_pd *pd, const struct ibv_qp_init_attr_ex *a)
{
	if (a->qp_type != IBV_QPT_RC)
		return EOPNOTSUPP;
	if (!a->send_cq || !a->recv_cq || !pd || a->cap.max_send_wr > SOFTRDMA_MAX_WR ||
	    a->cap.max_send_sge > SOFTRDMA_MAX_SGE || a->cap.max_inline_data > SOFTRDMA_MAX_INLINE)
		return EINVAL;
	if (!a->srq &&
	    (a->cap.max_recv_wr > SOFTRDMA_MAX_WR || a->cap.max_recv_sge > SOFTRDMA_MAX_SGE))
		return EINVAL;
	return 0;
}

/* Allocate the send queue and, without an SRQ, the receive queue; 0 or ENOMEM. */
static int
softrdma_qp_alloc_queues(struct softrdma_qp *qp, const struct ibv_qp_init_attr_ex *a)
{
	int err;

	qp->sq_size = a->cap.max_send_wr ? a->cap.max_send_wr : 1;
	qp->sq = calloc(qp->sq_size, sizeof(*qp->sq));
	if (!qp->sq)
		return ENOMEM;
	if (!a->srq) {
		err = softrdma__rq_alloc(&qp->rq, a->cap.max_recv_wr, a->cap.max_recv_sge);
		if (err) {
			free(qp->sq);
			return err;
		}
	}
	return 0;
}

/* Set the capabilities @qp grants, which are reported back in @a->cap. */
static void
softrdma_qp_init_cap(struct softrdma_qp *qp, struct ibv_qp_init_attr_ex *a)
{
	qp->cap = a->cap;
	if (a->srq) {
		qp->cap.max_recv_wr = 0;
		qp->cap.max_recv_sge = 0;
	}
	if (qp->cap.max_inline_data < 64)
		qp->cap.max_inline_data = 64;
	a->cap = qp->cap;
	qp->sq_sig_all = a->sq_sig_all;
}

/* see qp.h */
void
softrdma__qp_init_locks(struct softrdma_qp *qp)
{
	pthread_condattr_t cattr;

	pthread_mutex_init(&qp->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&qp->drain_cond, &cattr);
	pthread_condattr_destroy(&cattr);
}

/* Initialise the locks of @qp and the ibv_qp it is handed out as, in RESET. */
static void
softrdma_qp_init_base(struct softrdma_qp *qp, struct ibv_context *ctx, struct ibv_pd *pd,
		      const struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp *q = &qp->qpx.qp_base;

	softrdma__qp_init_locks(qp);
	softrdma__list_init(&qp->pending_tx);
	q->context = ctx;
	q->qp_context = a->qp_context;
	q->pd = pd;
	q->send_cq = a->send_cq;
	q->recv_cq = a->recv_cq;
	q->srq = a->srq;
	q->qp_type = IBV_QPT_RC;
	q->state = IBV_QPS_RESET;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
}

/*
 * Attach @qp to its CQs and to the progress thread, which numbers it after
 * a listener at local address @bind.
 */
static int
softrdma_qp_register(struct softrdma_qp *qp, struct in_addr bind)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	int err;

	err = softrdma__cq_attach(q->send_cq, qp);
	if (err)
		return err;
	if (q->recv_cq != q->send_cq) {
		err = softrdma__cq_attach(q->recv_cq, qp);
		if (err)
			goto detach_send;
	}
	err = softrdma__progress_add_qp(qp, bind);
	if (err)
		goto detach_recv;
	return 0;

detach_recv:
	softrdma__cq_detach(q->recv_cq, qp);
detach_send:
	softrdma__cq_detach(q->send_cq, qp);
	return err;
}

/*
 * Create an RC QP (shared by ibv_create_qp, ibv_create_qp_ex and the CM)
 * whose connections arrive at local address @bind.
 */
static struct ibv_qp *
softrdma_qp_create(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_qp_init_attr_ex *a,
		   struct in_addr bind)
{
	struct softrdma_qp *qp;
	int err;

	err = softrdma_qp_check_init(pd, a);
	if (err)
		goto fail;
	err = ENOMEM;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		goto fail;
	err = softrdma_qp_alloc_queues(qp, a);
	if (err)
		goto free_qp;
	softrdma_qp_init_cap(qp, a);
	softrdma_qp_init_base(qp, ctx, pd, a);
	err = softrdma_qp_register(qp, bind);
	if (err)
		goto free_queues;
	qp->qpx.qp_base.handle = qp->qpx.qp_base.qp_num;
	softrdma__qpx_init(qp);
	softrdma__pd_get(pd);
	return &qp->qpx.qp_base;

free_queues:
	free(qp->rq.slots);
	free(qp->sq);
free_qp:
	free(qp);
fail:
	errno = err;
	return NULL;
}

/* ibv_create_qp: classic creation. */
struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = softrdma_qp_create(pd->context, pd, &ex, (struct in_addr){htonl(INADDR_ANY)});
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/* verbs_context.create_qp_ex: extended creation. */
struct ibv_qp *
softrdma__create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	return softrdma__create_qp_bound(ctx, attr, (struct in_addr){htonl(INADDR_ANY)});
}

/* The CM's ibv_create_qp_ex: a QP reached at local address @bind only. */
struct ibv_qp *
softrdma__create_qp_bound(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr,
			  struct in_addr bind)
{
	uint64_t known =
	    IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_CREATE_FLAGS;

	/* a creation flag asks for a feature this device does not have */
	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(uint64_t)SOFTRDMA_SEND_OPS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return softrdma_qp_create(ctx, attr->pd, attr, bind);
}

/* Free what is left of a destroyed QP: its lock and itself. */
static void
softrdma_qp_free(struct softrdma_qp *qp)
{
	pthread_cond_destroy(&qp->drain_cond);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
}

/*
 * Destroy a QP: it stops, leaves its CQs, the progress thread and its PD,
 * and frees its queues. A QP the CM still holds is kept, inert, until the
 * CM releases it (SOFTRDMA_QP_CM_RELEASE); a second destroy of such a QP
 * (the CM's, in rdma_destroy_qp) does nothing.
 */
int
ibv_destroy_qp(struct ibv_qp *q)
{
	struct softrdma_qp *qp = softrdma_qp(q);
	int keep;

	pthread_mutex_lock(&qp->lock);
	if (qp->destroyed) {
		pthread_mutex_unlock(&qp->lock);
		return 0;
	}
	qp->destroyed = 1;
	softrdma__qp_close_conns(qp);
	/* a CM disconnect may be waiting on this QP: let it finish first */
	pthread_cond_broadcast(&qp->drain_cond);
	while (qp->draining)
		pthread_cond_wait(&qp->drain_cond, &qp->lock);
	pthread_mutex_unlock(&qp->lock);
	softrdma__cq_detach(q->send_cq, qp);
	softrdma__cq_detach(q->recv_cq, qp);
	softrdma__progress_del_qp(qp);
	softrdma__secret_forget_local(q->qp_num);
	softrdma__pd_put(q->pd);
	free(qp->xwr);
	free(qp->xsge);
	free(qp->rq.slots);
	free(qp->sq);
	pthread_mutex_lock(&qp->lock);
	keep = qp->cm_held;
	qp->zombie = keep;
	pthread_mutex_unlock(&qp->lock);
	if (!keep)
		softrdma_qp_free(qp);
	return 0;
}

/*
 * The CM's hold on @qp (SOFTRDMA_QP_CM_HOLD) or its release
 * (SOFTRDMA_QP_CM_RELEASE), which frees a QP destroyed meanwhile.
 */
static int
softrdma_qp_cm_hold(struct softrdma_qp *qp, int mask)
{
	int free_it;

	pthread_mutex_lock(&qp->lock);
	qp->cm_held = !!(mask & SOFTRDMA_QP_CM_HOLD);
	free_it = !qp->cm_held && qp->zombie;
	pthread_mutex_unlock(&qp->lock);
	if (free_it)
		softrdma_qp_free(qp);
	return 0;
}

/* Check the attribute mask against the transition @cur -> @next. */
static int
softrdma_mask_ok(enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	int req = 0, opt = 0;

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return 0;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT) {
		req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_INIT) {
		opt = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS) {
		req = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC;
	} else if ((cur == IBV_QPS_RTS || cur == IBV_QPS_SQD) &&
		   (next == IBV_QPS_RTS || next == IBV_QPS_SQD)) {
		opt = IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_CUR_STATE;
	} else if (cur == IBV_QPS_SQE && next == IBV_QPS_RTS) {
		opt = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER;
	} else {
		return 0 == 1 ? 0 : -1;
	}
	(void)opt;
	return (mask & req) == req ? 0 : -1;
}

/* Resolve the peer address from the address vector (GID ::ffff:a.b.c.d). */
static void
softrdma_peer_from_ah(struct softrdma_qp *qp, const struct ibv_ah_attr *ah)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&qp->peer;

	memset(&qp->peer, 0, sizeof(qp->peer));
	sin->sin_family = AF_INET;
	if (ah->is_global)
		memcpy(&sin->sin_addr, &ah->grh.dgid.raw[12], 4);
	else
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/*
 * Check a modify request against the current state of @qp; @next gets the
 * state asked for. Returns 0 or EINVAL.
 */
static int
softrdma_modify_check(struct softrdma_qp *qp, const struct ibv_qp_attr *attr, int mask,
		      enum ibv_qp_state *next)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	enum ibv_qp_state cur;

	cur = (mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : q->state;
	if (cur != q->state && !(cur == IBV_QPS_RTS && q->state == IBV_QPS_SQD))
		return EINVAL;
	cur = q->state;
	*next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	if (*next > IBV_QPS_ERR || softrdma_mask_ok(cur, *next, mask))
		return EINVAL;
	if ((mask & IBV_QP_PORT) && attr->port_num != 1)
		return EINVAL;
	if ((mask & IBV_QP_AV) && attr->ah_attr.is_global &&
	    attr->ah_attr.grh.sgid_index >= softrdma__device()->ngids)
		return EINVAL;
	return 0;
}

/* Store the attributes @mask selects. */
static void
softrdma_modify_attrs(struct softrdma_qp *qp, const struct ibv_qp_attr *attr, int mask)
{
	if ((mask & IBV_QP_ACCESS_FLAGS))
		qp->access = attr->qp_access_flags;
	if (mask & IBV_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IBV_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IBV_QP_AV) {
		qp->ah = attr->ah_attr;
		softrdma_peer_from_ah(qp, &attr->ah_attr);
	}
}

/*
 * Enter RESET: the connections close, the queues empty and the sequence
 * starts again, so that RTR connects anew and the peer's next hello is
 * taken, as a reset RNIC QP can be connected again.
 */
static void
softrdma_qp_to_reset(struct softrdma_qp *qp)
{
	qp->qpx.qp_base.state = IBV_QPS_RESET;
	softrdma__qp_close_conns(qp);
	/* a new connection of this QP gets a new secret from the CM, or none */
	softrdma__secret_forget_local(qp->qpx.qp_base.qp_num);
	qp->peer_eos = 0;
	__atomic_store_n(&qp->eos_deadline, 0, __ATOMIC_RELAXED);
	qp->sq_head = qp->sq_count = qp->sq_ndone = 0;
	qp->next_seq = 0;
	qp->rq.head = qp->rq.count = 0;
	qp->rwqe_held = 0;
	__atomic_store_n(&qp->rnr_waiting, 0, __ATOMIC_RELAXED);
	qp->xcount = 0;
	qp->xerr = 0;
}

/* Enter ERR from @cur; on a CM disconnect, after draining the peer's streams. */
static void
softrdma_qp_to_err(struct softrdma_qp *qp, enum ibv_qp_state cur, int mask)
{
	/* from the CM: first consume what the peer sent before it left */
	if ((mask & SOFTRDMA_QP_DISCONNECT) &&
	    (cur == IBV_QPS_RTR || cur == IBV_QPS_RTS || cur == IBV_QPS_SQD))
		softrdma__qp_drain(qp);
	if (!qp->destroyed)
		softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
}

/* Enter RTR from @cur: connect to the peer QP and serve its requests. */
static int
softrdma_qp_to_rtr(struct softrdma_qp *qp, enum ibv_qp_state cur)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	int err;

	if (qp->dest_qpn > 0xffffff)
		return EINVAL;
	q->state = IBV_QPS_RTR;
	if (!qp->out) {
		err = softrdma__qp_connect(qp);
		if (err) {
			q->state = cur;
			return err;
		}
	}
	if (qp->in)
		softrdma__progress_watch(qp->in, softrdma__conn_want(qp->in));
	softrdma__progress_kick();
	return 0;
}

/* Move @qp from state @cur to another state @next; 0 or an errno. */
static int
softrdma_modify_state(struct softrdma_qp *qp, enum ibv_qp_state cur, enum ibv_qp_state next,
		      int mask)
{
	switch (next) {
	case IBV_QPS_RESET:
		softrdma_qp_to_reset(qp);
		return 0;
	case IBV_QPS_ERR:
		softrdma_qp_to_err(qp, cur, mask);
		return 0;
	case IBV_QPS_RTR:
		return softrdma_qp_to_rtr(qp, cur);
	default:
		qp->qpx.qp_base.state = next;
		return 0;
	}
}

/* Modify QP attributes and state. */
int
ibv_modify_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask)
{
	struct softrdma_qp *qp = softrdma_qp(q);
	enum ibv_qp_state cur, next;
	int err;

	if (mask & (SOFTRDMA_QP_CM_HOLD | SOFTRDMA_QP_CM_RELEASE))
		return softrdma_qp_cm_hold(qp, mask);
	pthread_mutex_lock(&qp->lock);
	if (qp->destroyed) {
		/* held by the CM after ibv_destroy_qp: inert */
		pthread_mutex_unlock(&qp->lock);
		return EINVAL;
	}
	cur = q->state;
	err = softrdma_modify_check(qp, attr, mask, &next);
	if (!err) {
		softrdma_modify_attrs(qp, attr, mask);
		if (next != cur)
			err = softrdma_modify_state(qp, cur, next, mask);
	}
	softrdma__shm_publish_qp(qp);
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* Report QP attributes. */
int
ibv_query_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
	struct softrdma_qp *qp = softrdma_qp(q);

	(void)mask;
	pthread_mutex_lock(&qp->lock);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = q->state;
	attr->cur_qp_state = q->state;
	attr->path_mtu = qp->path_mtu;
	attr->qp_access_flags = qp->access;
	attr->cap = qp->cap;
	attr->ah_attr = qp->ah;
	attr->port_num = qp->port;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->rnr_retry = qp->rnr_retry;
	attr->retry_cnt = qp->retry_cnt;
	attr->timeout = qp->timeout;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->sq_draining = 0;
	memset(init, 0, sizeof(*init));
	init->qp_context = q->qp_context;
	init->send_cq = q->send_cq;
	init->recv_cq = q->recv_cq;
	init->srq = q->srq;
	init->cap = qp->cap;
	init->qp_type = q->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

/* RC data arrives in order: report in-order delivery support. */
int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}
