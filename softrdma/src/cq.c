/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels (pollable eventfds) and completion queues (rings of
 * struct ibv_wc). Completions are produced by application threads and by the
 * progress thread; an armed CQ signals its channel on the next completion.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cq.h"
#include "ctx.h"
#include "net.h"
#include "progress.h"
#include "shm.h"

static pthread_mutex_t softrdma_cq_ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t softrdma_cq_ev_cond = PTHREAD_COND_INITIALIZER;

/* Create a completion channel backed by an eventfd (not on an inherited context). */
struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct softrdma_channel *c;

	if (softrdma__ctx_inherited(context)) {
		errno = EIO;
		return NULL;
	}
	c = softrdma__evq_obj_new(sizeof(*c), offsetof(struct softrdma_channel, q));
	if (!c)
		return NULL;
	c->ch.context = context;
	c->ch.fd = c->q.fd;
	c->ch.refcnt = 0;
	return &c->ch;
}

/* Destroy a channel no CQ uses any more. */
int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct softrdma_channel *c = (struct softrdma_channel *)channel;

	if (__atomic_load_n(&channel->refcnt, __ATOMIC_RELAXED))
		return EBUSY;
	softrdma__evq_fini(&c->q);
	free(c);
	return 0;
}

/* Create a CQ with room for at least @cqe completions (not on an inherited context). */
struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct softrdma_cq *cq;
	int err = EIO;

	if (softrdma__ctx_inherited(context))
		goto fail;
	err = EINVAL;
	if (cqe < 1 || cqe > SOFTRDMA_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= context->num_comp_vectors)
		goto fail;
	err = ENOMEM;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		goto fail;
	cq->size = cqe;
	cq->ring = calloc(cq->size, sizeof(*cq->ring));
	if (!cq->ring)
		goto free_cq;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&cq->qps_lock, NULL);
	cq->cq.context = context;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.cqe = cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	cq->item.cq = &cq->cq;
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	return &cq->cq;

free_cq:
	free(cq);
fail:
	errno = err;
	return NULL;
}

/*
 * Destroy @cq after every event it produced was acknowledged. Like the
 * kernel, refuse (EBUSY) while a QP still completes on it. A CQ inherited
 * through fork does not wait: the parent's threads that may hold its
 * events are not in this process.
 */
int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	struct softrdma_channel *ch = (struct softrdma_channel *)cq->channel;
	int inherited = softrdma__ctx_inherited(cq->context);
	uint32_t users;

	if (inherited) {
		users = __atomic_load_n(&c->nqps, __ATOMIC_RELAXED);
	} else {
		pthread_mutex_lock(&c->qps_lock);
		users = c->nqps;
		pthread_mutex_unlock(&c->qps_lock);
	}
	if (users)
		return EBUSY;
	if (ch) {
		/*
		 * Drop a signal still queued for this CQ first: after this no
		 * ibv_get_cq_event can take one, and every one taken before is
		 * counted in events_delivered (softrdma_cq_event_taken).
		 */
		pthread_mutex_lock(&ch->q.lock);
		if (c->item_queued) {
			softrdma__list_del(&c->item.node);
			/* the channel's fd no longer counts it */
			softrdma__evq_forget(&ch->q);
			c->item_queued = 0;
		}
		pthread_mutex_unlock(&ch->q.lock);
	}
	pthread_mutex_lock(&softrdma_cq_ev_lock);
	while (!inherited &&
	       cq->comp_events_completed != __atomic_load_n(&c->events_delivered, __ATOMIC_RELAXED))
		pthread_cond_wait(&softrdma_cq_ev_cond, &softrdma_cq_ev_lock);
	pthread_mutex_unlock(&softrdma_cq_ev_lock);
	if (ch)
		__atomic_sub_fetch(&cq->channel->refcnt, 1, __ATOMIC_RELAXED);
	pthread_spin_destroy(&c->lock);
	pthread_mutex_destroy(&c->qps_lock);
	free(c->qps);
	free(c->ring);
	free(c);
	return 0;
}

/* Resize @cq keeping its queued completions. */
int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	struct ibv_wc *ring;
	uint32_t i;

	if (softrdma__ctx_inherited(cq->context))
		return EIO;
	if (cqe < 1 || cqe > SOFTRDMA_MAX_CQE)
		return EINVAL;
	ring = calloc(cqe, sizeof(*ring));
	if (!ring)
		return ENOMEM;
	pthread_spin_lock(&c->lock);
	if ((uint32_t)cqe < c->count) {
		pthread_spin_unlock(&c->lock);
		free(ring);
		return EINVAL;
	}
	for (i = 0; i < c->count; i++)
		ring[i] = c->ring[(c->head + i) % c->size];
	free(c->ring);
	c->ring = ring;
	c->head = 0;
	c->size = cqe;
	cq->cqe = cqe;
	pthread_spin_unlock(&c->lock);
	return 0;
}

/*
 * The CQ overran: raise IBV_EVENT_CQ_ERR and have the progress thread move
 * every QP completing here to the error state (their locks cannot be taken
 * here: the caller may hold one QP's lock already).
 */
static void
softrdma_cq_overrun(struct softrdma_cq *c)
{
	uint32_t i;

	softrdma__async_event(c->cq.context, IBV_EVENT_CQ_ERR, &c->cq);
	pthread_mutex_lock(&c->qps_lock);
	for (i = 0; i < c->nqps; i++)
		__atomic_store_n(&c->qps[i]->cq_overrun, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->qps_lock);
	softrdma__progress_kick();
}

/*
 * Append a completion. Returns EOVERFLOW when the CQ is (or was) full; the
 * caller's QP stops at once, the CQ raises IBV_EVENT_CQ_ERR once and every
 * QP completing on it enters the error state.
 */
int
softrdma__cq_push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	uint64_t pos;

	return softrdma__cq_push_pos(cq, wc, &pos);
}

/* Completions polled from @cq so far. */
uint64_t
softrdma__cq_consumed(struct ibv_cq *cq)
{
	return __atomic_load_n(&((struct softrdma_cq *)cq)->consumed, __ATOMIC_ACQUIRE);
}

/* Push a completion and report its position: it is polled once consumed >= @pos. */
int
softrdma__cq_push_pos(struct ibv_cq *cq, const struct ibv_wc *wc, uint64_t *pos)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	struct softrdma_channel *ch = (struct softrdma_channel *)cq->channel;
	int signal = 0, first_overflow = 0;

	pthread_spin_lock(&c->lock);
	if (c->overflow || c->count == c->size) {
		first_overflow = !c->overflow;
		c->overflow = 1;
		pthread_spin_unlock(&c->lock);
		if (first_overflow)
			softrdma_cq_overrun(c);
		return EOVERFLOW;
	}
	c->ring[(c->head + c->count) % c->size] = *wc;
	/* atomic: an empty poll peeks at @count without the lock */
	__atomic_store_n(&c->count, c->count + 1, __ATOMIC_RELAXED);
	*pos = ++c->produced;
	if (c->armed && ch) {
		/* atomic: an empty poll peeks at it without the lock */
		__atomic_store_n(&c->armed, 0, __ATOMIC_RELAXED);
		signal = 1;
	}
	pthread_spin_unlock(&c->lock);
	if (signal) {
		pthread_mutex_lock(&ch->q.lock);
		if (c->item_queued) {
			pthread_mutex_unlock(&ch->q.lock);
			return 0;
		}
		c->item_queued = 1;
		pthread_mutex_unlock(&ch->q.lock);
		softrdma__evq_push(&ch->q, &c->item.node);
	}
	return 0;
}

/*
 * Record that @qp completes on @cq (QP creation; not the data path). A CQ
 * inherited through fork takes no new QP (EIO).
 */
int
softrdma__cq_attach(struct ibv_cq *cq, struct softrdma_qp *qp)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	int err = 0;

	if (softrdma__ctx_inherited(cq->context))
		return EIO;
	pthread_mutex_lock(&c->qps_lock);
	if (c->nqps == c->qps_cap) {
		uint32_t cap = c->qps_cap ? 2 * c->qps_cap : 4;
		struct softrdma_qp **q = realloc(c->qps, cap * sizeof(*q));

		if (!q) {
			err = ENOMEM;
			goto out;
		}
		c->qps = q;
		c->qps_cap = cap;
	}
	c->qps[c->nqps] = qp;
	/* atomic: an empty poll peeks at @nqps without qps_lock */
	__atomic_store_n(&c->nqps, c->nqps + 1, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&c->qps_lock);
	return err;
}

/* Forget @qp; once this returns no poll of @cq touches it. */
void
softrdma__cq_detach(struct ibv_cq *cq, struct softrdma_qp *qp)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	uint32_t i;

	pthread_mutex_lock(&c->qps_lock);
	for (i = 0; i < c->nqps; i++) {
		if (c->qps[i] == qp) {
			c->qps[i] = c->qps[c->nqps - 1];
			__atomic_store_n(&c->nqps, c->nqps - 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&c->qps_lock);
}

/* QPs an empty poll moves the rings of, at most: a poll costs the same with 10 or 1000 QPs */
#define SOFTRDMA_CQ_PROGRESS_QPS 16

/*
 * An empty poll: move the same-host rings of the QPs completing here, so a
 * busy-polling application needs no help from the progress thread. A CQ
 * shared by many QPs is swept a few QPs per poll, round robin (an RNIC's
 * poll does not grow with the QPs behind the CQ, and the progress thread
 * moves every ring anyway).
 */
static void
softrdma_cq_progress(struct softrdma_cq *c)
{
	uint32_t i, n;

	if (pthread_mutex_trylock(&c->qps_lock))
		return;
	n = c->nqps < SOFTRDMA_CQ_PROGRESS_QPS ? c->nqps : SOFTRDMA_CQ_PROGRESS_QPS;
	for (i = 0; i < n; i++) {
		if (c->progress_next >= c->nqps)
			c->progress_next = 0;
		softrdma__qp_app_progress(c->qps[c->progress_next++]);
	}
	pthread_mutex_unlock(&c->qps_lock);
	/*
	 * the poll of an armed CQ is the last look before sleeping on its
	 * channel (arm, poll once more, sleep): it must not tell the peers
	 * that this process polls, or they stop ringing the doorbell and
	 * what they send waits for the progress thread's doze to end
	 */
	if (!__atomic_load_n(&c->armed, __ATOMIC_RELAXED))
		softrdma__shm_app_polled();
}

/* ops.poll_cq: dequeue up to @num_entries completions. */
int
softrdma__poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;
	int n = 0;

	if (!__atomic_load_n(&c->count, __ATOMIC_RELAXED)) {
		if (!__atomic_load_n(&c->nqps, __ATOMIC_RELAXED) || !softrdma__shm_active())
			return 0;
		softrdma_cq_progress(c);
		if (!__atomic_load_n(&c->count, __ATOMIC_RELAXED))
			return 0;
	}
	pthread_spin_lock(&c->lock);
	while (n < num_entries && c->count) {
		wc[n++] = c->ring[c->head];
		c->head = (c->head + 1) % c->size;
		__atomic_store_n(&c->count, c->count - 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->consumed, c->consumed + n, __ATOMIC_RELEASE);
	pthread_spin_unlock(&c->lock);
	return n;
}

/* ops.req_notify_cq: arm one event for the next new completion. */
int
softrdma__req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;

	(void)solicited_only;
	if (!cq->channel)
		return EINVAL;
	pthread_spin_lock(&c->lock);
	__atomic_store_n(&c->armed, 1, __ATOMIC_RELAXED);
	pthread_spin_unlock(&c->lock);
	/* arming means the application is going to sleep rather than poll */
	softrdma__shm_app_waits();
	return 0;
}

/*
 * A CQ's signal taken off its channel (the queue's lock held): it may be
 * queued again, and the event counts as delivered before ibv_destroy_cq,
 * which withdraws signals under the same lock, can look.
 */
static void
softrdma_cq_event_taken(struct softrdma_list *node)
{
	struct softrdma_cq_item *it = SOFTRDMA_CONTAINER_OF(node, struct softrdma_cq_item, node);
	struct softrdma_cq *c = (struct softrdma_cq *)it->cq;

	c->item_queued = 0;
	__atomic_fetch_add(&c->events_delivered, 1, __ATOMIC_RELAXED);
}

/* Wait for the next CQ event on @channel. */
int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct softrdma_channel *ch = (struct softrdma_channel *)channel;
	struct softrdma_list *node;
	struct softrdma_cq_item *it;
	int err;

	/* the application sleeps here instead of polling: peers must ring again */
	softrdma__shm_app_waits();
	err = softrdma__evq_pop(&ch->q, &node, softrdma_cq_event_taken);
	if (err) {
		errno = err;
		return -1;
	}
	it = SOFTRDMA_CONTAINER_OF(node, struct softrdma_cq_item, node);
	*cq = it->cq;
	*cq_context = it->cq->cq_context;
	return 0;
}

/* Acknowledge @nevents events of @cq; ibv_destroy_cq waits for them. */
void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&softrdma_cq_ev_lock);
	cq->comp_events_completed += nevents;
	pthread_cond_broadcast(&softrdma_cq_ev_cond);
	pthread_mutex_unlock(&softrdma_cq_ev_lock);
}

/* fork(), before: no event count is half updated when the process is copied. */
void
softrdma__cq_fork_prepare(void)
{
	pthread_mutex_lock(&softrdma_cq_ev_lock);
}

/* fork(), in the parent. */
void
softrdma__cq_fork_parent(void)
{
	pthread_mutex_unlock(&softrdma_cq_ev_lock);
}

/*
 * fork(), in the child: the lock and its condition anew (the condition may
 * count waiters that are threads of the parent).
 */
void
softrdma__cq_fork_child(void)
{
	pthread_cond_init(&softrdma_cq_ev_cond, NULL);
	/* held since prepare, by this very thread */
	pthread_mutex_unlock(&softrdma_cq_ev_lock);
}

/* Forked child: the locks of the parent's CQ @cq anew, so destroying it cannot hang. */
void
softrdma__cq_fork_disown(struct ibv_cq *cq)
{
	struct softrdma_cq *c = (struct softrdma_cq *)cq;

	pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&c->qps_lock, NULL);
}
