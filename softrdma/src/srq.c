/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive queues: the ring of receive WQEs a QP (without an SRQ) or a shared
 * receive queue holds, posting to it, flushing it, and taking a WQE for an
 * incoming SEND or WRITE with immediate (resp.c). A QP's own ring is guarded
 * by qp->lock, an SRQ's by srq->lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "comp.h"
#include "ctx.h"
#include "mr.h"
#include "progress.h"
#include "qp.h"
#include "srq.h"

/* Allocate the slots of a receive queue. */
int
softrdma__rq_alloc(struct softrdma_rq *rq, uint32_t size, uint32_t max_sge)
{
	rq->max_sge = max_sge ? max_sge : 1;
	rq->slot_size = sizeof(struct softrdma_rwqe) + rq->max_sge * sizeof(struct ibv_sge);
	rq->size = size ? size : 1;
	rq->head = 0;
	rq->count = 0;
	rq->slots = calloc(rq->size, rq->slot_size);
	return rq->slots ? 0 : ENOMEM;
}

/* Slot @i (0 = oldest) of a receive queue. */
static struct softrdma_rwqe *
softrdma_rq_at(struct softrdma_rq *rq, uint32_t i)
{
	return (struct softrdma_rwqe *)(rq->slots + ((rq->head + i) % rq->size) * rq->slot_size);
}

/* Append receive requests to @rq; returns 0 or the post error. */
static int
softrdma_rq_post(struct softrdma_rq *rq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		struct softrdma_rwqe *e;

		if ((uint32_t)wr->num_sge > rq->max_sge || wr->num_sge < 0) {
			*bad = wr;
			return EINVAL;
		}
		if (rq->count == rq->size) {
			*bad = wr;
			return ENOMEM;
		}
		e = softrdma_rq_at(rq, rq->count);
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		/* a receive with no SGE may come with sg_list NULL */
		if (wr->num_sge)
			memcpy(e->sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
		rq->count++;
	}
	return 0;
}

/*
 * Complete as flushed the receive WQE the responder of @qp held, then those
 * of @qp's own queue (qp->lock held).
 */
void
softrdma__rq_flush(struct softrdma_qp *qp)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	struct ibv_wc wc;

	if (qp->rwqe_held) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = qp->rwqe_held_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.opcode = IBV_WC_RECV;
		wc.vendor_err = 0x1;
		qp->rwqe_held = 0;
		softrdma__complete(qp, q->recv_cq, &wc);
	}
	while (!q->srq && qp->rq.count) {
		struct softrdma_rwqe *e = softrdma_rq_at(&qp->rq, 0);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = e->wr_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.opcode = IBV_WC_RECV;
		wc.vendor_err = 0x1;
		softrdma__complete(qp, q->recv_cq, &wc);
		qp->rq.head = (qp->rq.head + 1) % qp->rq.size;
		qp->rq.count--;
	}
}

/* Pop a receive WQE from the SRQ or the QP's own receive queue. */
int
softrdma__take_rwqe(struct softrdma_qp *qp, struct softrdma_rwqe *out)
{
	struct ibv_srq *srq = qp->qpx.qp_base.srq;
	struct softrdma_rq *rq = &qp->rq;
	struct softrdma_srq *s = NULL;
	int fire = 0;

	if (srq) {
		s = (struct softrdma_srq *)srq;
		pthread_mutex_lock(&s->lock);
		rq = &s->rq;
	}
	if (!rq->count) {
		if (s) {
			/* the next post must wake the progress thread to retry */
			s->starved = 1;
			pthread_mutex_unlock(&s->lock);
		}
		return ENOENT;
	}
	memcpy(out, softrdma_rq_at(rq, 0), rq->slot_size);
	rq->head = (rq->head + 1) % rq->size;
	rq->count--;
	if (s) {
		if (s->limit && rq->count < s->limit) {
			s->limit = 0;
			fire = 1;
		}
		pthread_mutex_unlock(&s->lock);
		if (fire)
			softrdma__async_event(srq->context, IBV_EVENT_SRQ_LIMIT_REACHED, srq);
	}
	return 0;
}

/* ops.post_recv */
int
softrdma__post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct softrdma_qp *qp = (struct softrdma_qp *)q;
	int err, wake;

	if (q->srq) {
		*bad = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&qp->lock);
	if (q->state == IBV_QPS_RESET) {
		*bad = wr;
		pthread_mutex_unlock(&qp->lock);
		return EINVAL;
	}
	err = softrdma_rq_post(&qp->rq, wr, bad);
	if (q->state == IBV_QPS_ERR)
		softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
	wake = qp->in && qp->in->rx == SOFTRDMA_RX_WAIT_RWQE;
	pthread_mutex_unlock(&qp->lock);
	if (wake)
		softrdma__progress_kick();
	return err;
}

/* ops.post_srq_recv */
int
softrdma__post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;
	int err, wake;

	pthread_mutex_lock(&s->lock);
	err = softrdma_rq_post(&s->rq, wr, bad);
	/* a post that stalls no one wakes no one: a system call and a thread per receive */
	wake = s->starved && s->rq.count;
	if (wake)
		s->starved = 0;
	pthread_mutex_unlock(&s->lock);
	if (wake)
		softrdma__progress_kick();
	return err;
}

/* Create a shared receive queue. */
struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct softrdma_srq *s;
	int err = EINVAL;

	if (!attr->attr.max_wr || attr->attr.max_wr > SOFTRDMA_MAX_WR ||
	    attr->attr.max_sge > SOFTRDMA_MAX_SGE)
		goto fail;
	err = ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto fail;
	err = softrdma__rq_alloc(&s->rq, attr->attr.max_wr, attr->attr.max_sge);
	if (err)
		goto free_s;
	pthread_mutex_init(&s->lock, NULL);
	s->limit = attr->attr.srq_limit;
	s->srq.context = pd->context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = pd;
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	softrdma__pd_get(pd);
	return &s->srq;

free_s:
	free(s);
fail:
	errno = err;
	return NULL;
}

/* Change the limit (arming the limit event) of an SRQ. */
int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	if (mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	if (mask & IBV_SRQ_LIMIT) {
		pthread_mutex_lock(&s->lock);
		if (attr->srq_limit > s->rq.size) {
			pthread_mutex_unlock(&s->lock);
			return EINVAL;
		}
		s->limit = attr->srq_limit;
		pthread_mutex_unlock(&s->lock);
	}
	return 0;
}

/* Report SRQ attributes. */
int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	attr->max_wr = s->rq.size;
	attr->max_sge = s->rq.max_sge;
	attr->srq_limit = s->limit;
	return 0;
}

/* Destroy an SRQ. */
int
ibv_destroy_srq(struct ibv_srq *srq)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	softrdma__pd_put(srq->pd);
	free(s->rq.slots);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return 0;
}
