/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * cm.c -- the CM itself: its state and start, event channels and events, the
 * life of an id (create, destroy, migrate, options) and the wait of a
 * synchronous id.
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "cm_int.h"

/* the CM of this process (cm_int.h) */
struct softrdma_cm softrdma__cm = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .epfd = -1,
    .wakefd = -1,
};

char softrdma__cm_wake_tag;

/* Set errno and return -1, the librdmacm error convention. */
int
softrdma__cm_err(int err)
{
	errno = err;
	return -1;
}

/* Take softrdma__cm.lock for a call on @id; refused (-1/EIO) on an id inherited through fork. */
int
softrdma__cm_id_lock(struct softrdma_cm_id *id)
{
	if (id->inherited)
		return softrdma__cm_err(EIO);
	pthread_mutex_lock(&softrdma__cm.lock);
	return 0;
}

/* Check a received CM message: magic, type and private data length. */
int
softrdma__cm_msg_check(struct softrdma_cm_msg *m)
{
	m->magic = le32toh(m->magic);
	m->qpn = le32toh(m->qpn);
	if (m->magic != SOFTRDMA_CM_MAGIC || m->qpn > 0xffffff)
		return EPROTO;
	switch (m->type) {
	case SOFTRDMA_CM_REQ:
		return m->pdata_len > SOFTRDMA_CM_REQ_PDATA ? EPROTO : 0;
	case SOFTRDMA_CM_REP:
		return m->pdata_len > SOFTRDMA_CM_REP_PDATA ? EPROTO : 0;
	case SOFTRDMA_CM_REJ:
		return m->pdata_len > SOFTRDMA_CM_REJ_PDATA ? EPROTO : 0;
	case SOFTRDMA_CM_RTU:
	case SOFTRDMA_CM_DREQ:
	case SOFTRDMA_CM_DREP:
	case SOFTRDMA_CM_MRA:
		return m->pdata_len ? EPROTO : 0;
	default:
		return EPROTO;
	}
}

/* Milliseconds from environment variable @name (@def when unset or bad), in nanoseconds. */
static uint64_t
softrdma_cm_env_ms(const char *name, long def)
{
	return (uint64_t)softrdma__env_long(name, def, 0) * 1000000ull;
}

/* Wake the CM thread so it recomputes its timers. */
void
softrdma__cm_kick(void)
{
	uint64_t one = 1;

	if (write(softrdma__cm.wakefd, &one, sizeof(one)) < 0) {
		/* a saturated counter still wakes the thread */
	}
}

/* Open the device and a PD for the CM's QPs; 0 or an errno. */
static int
softrdma_cm_open_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int err;

	if (!list)
		return errno ? errno : ENODEV;
	softrdma__cm.verbs = list[0] ? ibv_open_device(list[0]) : NULL;
	err = softrdma__cm.verbs ? 0 : (errno ? errno : ENODEV);
	ibv_free_device_list(list);
	if (err)
		return err;
	softrdma__cm.pd = ibv_alloc_pd(softrdma__cm.verbs);
	if (softrdma__cm.pd)
		return 0;
	err = errno ? errno : ENOMEM;
	ibv_close_device(softrdma__cm.verbs);
	softrdma__cm.verbs = NULL;
	return err;
}

/*
 * Open the device, create the epoll set and the CM thread (softrdma__cm.lock held);
 * 0 or an errno, with nothing left behind on failure.
 */
static int
softrdma_cm_init(void)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &softrdma__cm_wake_tag};
	const char *off = getenv("SOFTRDMA_CM_PORT_OFFSET");
	sigset_t all, old;
	pthread_t thr;
	int err;

	softrdma__list_init(&softrdma__cm.ids);
	softrdma__list_init(&softrdma__cm.pending);
	softrdma__cm.npending = 0;
	softrdma__pending_limits(&softrdma__cm.pending_max, &softrdma__cm.pending_ns);
	softrdma__cm.port_offset = off ? atoi(off) : 0;
	softrdma__cm.timeout_ns =
	    softrdma_cm_env_ms("SOFTRDMA_CM_TIMEOUT_MS", SOFTRDMA_CM_TIMEOUT_MS);
	softrdma__cm.grace_ns =
	    softrdma_cm_env_ms("SOFTRDMA_CM_REJECT_GRACE_MS", SOFTRDMA_CM_REJECT_GRACE_MS);
	err = softrdma_cm_open_device();
	if (err)
		return err;
	softrdma__cm.epfd = epoll_create1(EPOLL_CLOEXEC);
	softrdma__cm.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (softrdma__cm.epfd < 0 || softrdma__cm.wakefd < 0 ||
	    epoll_ctl(softrdma__cm.epfd, EPOLL_CTL_ADD, softrdma__cm.wakefd, &ev) < 0) {
		err = errno;
		goto err_close;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&thr, NULL, softrdma__cm_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto err_close;
	pthread_detach(thr);
	__atomic_store_n(&softrdma__cm.started, 1, __ATOMIC_RELEASE);
	return 0;

err_close:
	if (softrdma__cm.wakefd >= 0)
		close(softrdma__cm.wakefd);
	if (softrdma__cm.epfd >= 0)
		close(softrdma__cm.epfd);
	softrdma__cm.wakefd = softrdma__cm.epfd = -1;
	ibv_dealloc_pd(softrdma__cm.pd);
	ibv_close_device(softrdma__cm.verbs);
	softrdma__cm.pd = NULL;
	softrdma__cm.verbs = NULL;
	return err;
}

/*
 * Start the CM on first use (again in a forked child); 0 or the error of
 * starting it, which a later call retries.
 */
int
softrdma__cm_start(void)
{
	int err = 0;

	if (__atomic_load_n(&softrdma__cm.started, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&softrdma__cm.lock);
	if (!softrdma__cm.started)
		err = softrdma_cm_init();
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err;
}

/* Create an event channel. */
struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct softrdma_cm_chan *c;
	int err = softrdma__cm_start();

	if (err) {
		errno = err;
		return NULL;
	}
	c = softrdma__evq_obj_new(sizeof(*c), offsetof(struct softrdma_cm_chan, q));
	if (!c)
		return NULL;
	c->ch.fd = c->q.fd;
	return &c->ch;
}

/* Destroy an event channel. */
void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct softrdma_cm_chan *c = (struct softrdma_cm_chan *)channel;

	softrdma__evq_fini(&c->q);
	free(c);
}

/* Queue an event for @owner on its current channel (softrdma__cm.lock held). */
void
softrdma__cm_event(struct softrdma_cm_id *owner, struct softrdma_cm_id *listen,
		   enum rdma_cm_event_type type, int status, const struct softrdma_cm_msg *m,
		   int field)
{
	struct softrdma_cm_event *e = calloc(1, sizeof(*e));
	struct softrdma_cm_chan *ch;

	if (!e)
		return;
	e->owner = owner;
	e->ev.id = &owner->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (m) {
		memcpy(e->pdata, m->pdata, m->pdata_len);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = field;
		e->ev.param.conn.responder_resources = m->responder_resources;
		e->ev.param.conn.initiator_depth = m->initiator_depth;
		e->ev.param.conn.flow_control = m->flow_control;
		e->ev.param.conn.retry_count = m->retry;
		e->ev.param.conn.rnr_retry_count = m->rnr_retry;
		e->ev.param.conn.srq = m->srq;
		e->ev.param.conn.qp_num = m->qpn;
	}
	ch = (struct softrdma_cm_chan *)(listen ? listen->id.channel : owner->id.channel);
	softrdma__evq_push(&ch->q, &e->node);
}

/*
 * Count an event handed out while it is taken off its channel's queue, so
 * that rdma_destroy_id, which withdraws the id's queued events under that
 * queue's lock, either withdraws an event or waits for its acknowledgement
 * and never frees an id between the two.
 */
static void
softrdma_cm_event_taken(struct softrdma_list *node)
{
	struct softrdma_cm_event *e = SOFTRDMA_CONTAINER_OF(node, struct softrdma_cm_event, node);

	__atomic_fetch_add(&e->owner->reported, 1, __ATOMIC_RELAXED);
}

/* Wait for the next event on @channel. */
int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct softrdma_cm_chan *c = (struct softrdma_cm_chan *)channel;
	struct softrdma_list *node;
	struct softrdma_cm_event *e;
	int err;

	if (!event)
		return softrdma__cm_err(EINVAL);
	err = softrdma__evq_pop(&c->q, &node, softrdma_cm_event_taken);
	if (err)
		return softrdma__cm_err(err);
	e = SOFTRDMA_CONTAINER_OF(node, struct softrdma_cm_event, node);
	*event = &e->ev;
	return 0;
}

/* Release an event; rdma_destroy_id waits for this. */
int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct softrdma_cm_event *e = (struct softrdma_cm_event *)event;

	if (!event)
		return softrdma__cm_err(EINVAL);
	pthread_mutex_lock(&softrdma__cm.lock);
	e->owner->acked++;
	pthread_cond_broadcast(&softrdma__cm.cond);
	pthread_mutex_unlock(&softrdma__cm.lock);
	free(e);
	return 0;
}

/* Name of a CM event type. */
const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
	    "RDMA_CM_EVENT_ADDR_RESOLVED",   "RDMA_CM_EVENT_ADDR_ERROR",
	    "RDMA_CM_EVENT_ROUTE_RESOLVED",  "RDMA_CM_EVENT_ROUTE_ERROR",
	    "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
	    "RDMA_CM_EVENT_CONNECT_ERROR",   "RDMA_CM_EVENT_UNREACHABLE",
	    "RDMA_CM_EVENT_REJECTED",	     "RDMA_CM_EVENT_ESTABLISHED",
	    "RDMA_CM_EVENT_DISCONNECTED",    "RDMA_CM_EVENT_DEVICE_REMOVAL",
	    "RDMA_CM_EVENT_MULTICAST_JOIN",  "RDMA_CM_EVENT_MULTICAST_ERROR",
	    "RDMA_CM_EVENT_ADDR_CHANGE",     "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN EVENT";
	return names[event];
}

/* Allocate an id on @channel, or a synchronous one with a private channel. */
struct softrdma_cm_id *
softrdma__cm_id_new(struct rdma_event_channel *channel, void *context, enum rdma_port_space ps)
{
	struct softrdma_cm_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	id->fd = -1;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = IBV_QPT_RC;
	id->rnr_retry = 7;
	id->ack_timeout = SOFTRDMA_CM_ACK_TIMEOUT;
	softrdma__list_init(&id->node);
	softrdma__list_init(&id->pend);
	if (!channel) {
		channel = rdma_create_event_channel();
		if (!channel) {
			free(id);
			return NULL;
		}
		id->sync = 1;
	}
	id->id.channel = channel;
	return id;
}

/* Create a communication identifier. */
int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
	       enum rdma_port_space ps)
{
	struct softrdma_cm_id *i;
	int err = softrdma__cm_start();

	if (err)
		return softrdma__cm_err(err);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB)
		return softrdma__cm_err(EOPNOTSUPP);
	i = softrdma__cm_id_new(channel, context, ps);
	if (!i)
		return softrdma__cm_err(ENOMEM);
	pthread_mutex_lock(&softrdma__cm.lock);
	softrdma__list_add_tail(&softrdma__cm.ids, &i->node);
	pthread_mutex_unlock(&softrdma__cm.lock);
	*id = &i->id;
	return 0;
}

/* Stop watching and close the TCP socket of @id (softrdma__cm.lock held). */
void
softrdma__cm_close_fd(struct softrdma_cm_id *id)
{
	if (id->fd < 0)
		return;
	epoll_ctl(softrdma__cm.epfd, EPOLL_CTL_DEL, id->fd, NULL);
	close(id->fd);
	id->fd = -1;
}

/* Take @id off the pending connections, if it is there (softrdma__cm.lock held). */
void
softrdma__cm_pend_del(struct softrdma_cm_id *id)
{
	if (softrdma__list_empty(&id->pend))
		return;
	softrdma__list_del(&id->pend);
	softrdma__cm.npending--;
	id->deadline = 0;
}

/*
 * The passive side is done with the request of @id: the secret it recorded
 * for the peer QP goes (softrdma__cm.lock held).
 */
void
softrdma__cm_forget_request(struct softrdma_cm_id *id)
{
	if (!id->remote_entry)
		return;
	softrdma__cm_ops(softrdma__cm.verbs)
	    ->secret_forget_remote(id->peer.sin_addr, id->remote_qpn);
	id->remote_entry = 0;
}

/*
 * Close and free @id, a passive connection never announced to the
 * application (CM thread, softrdma__cm.lock held).
 */
void
softrdma__cm_pend_drop(struct softrdma_cm_id *id)
{
	softrdma__cm_close_fd(id);
	softrdma__cm_forget_request(id);
	softrdma__cm_pend_del(id);
	softrdma__list_del(&id->node);
	if (id->sync)
		rdma_destroy_event_channel(id->id.channel);
	free(id);
}

/* Withdraw events of @id still queued on channel @c; returns how many (softrdma__cm.lock held). */
static int
softrdma_cm_withdraw(struct softrdma_cm_chan *c, struct softrdma_cm_id *id,
		     struct softrdma_cm_chan *move_to)
{
	struct softrdma_list *n, *next, moved;
	int count = 0;

	softrdma__list_init(&moved);
	pthread_mutex_lock(&c->q.lock);
	for (n = c->q.items.next; n != &c->q.items; n = next) {
		struct softrdma_cm_event *e =
		    SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_event, node);

		next = n->next;
		if (e->owner != id)
			continue;
		softrdma__list_del(n);
		count++;
		/* the channel's fd no longer counts it: no readable fd without an event */
		softrdma__evq_forget(&c->q);
		if (move_to)
			softrdma__list_add_tail(&moved, n);
		else
			free(e);
	}
	pthread_mutex_unlock(&c->q.lock);
	while (move_to && !softrdma__list_empty(&moved)) {
		n = moved.next;
		softrdma__list_del(n);
		softrdma__evq_push(&move_to->q, n);
	}
	return count;
}

/*
 * Destroy an id once all its retrieved events were acknowledged; an id
 * inherited through fork does not wait (the parent's threads that may hold
 * its events are not in this process) and goes without a word to its peer.
 */
int
rdma_destroy_id(struct rdma_cm_id *cid)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_list *n, *next;

	if (id->sync_event) {
		rdma_ack_cm_event(id->sync_event);
		id->sync_event = NULL;
	}
	pthread_mutex_lock(&softrdma__cm.lock);
	softrdma_cm_withdraw((struct softrdma_cm_chan *)cid->channel, id, NULL);
	while (!id->inherited && id->acked < __atomic_load_n(&id->reported, __ATOMIC_RELAXED))
		pthread_cond_wait(&softrdma__cm.cond, &softrdma__cm.lock);
	softrdma__cm_close_fd(id);
	softrdma__cm_forget_request(id);
	softrdma__list_del(&id->node);
	/* a QP left on the id stays the application's; the CM lets go of it */
	if (cid->qp)
		ibv_modify_qp(cid->qp, NULL, SOFTRDMA_QP_CM_RELEASE);
	/*
	 * unannounced connections of a listener go with it: those whose request
	 * has not come yet, and those whose CONNECT_REQUEST is still queued
	 * (not taken by rdma_get_cm_event(): withdrawn, it would name a freed
	 * listener and leak with the channel)
	 */
	for (n = softrdma__cm.ids.next; n != &softrdma__cm.ids; n = next) {
		struct softrdma_cm_id *c = SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node);

		next = n->next;
		if (c->listen == id) {
			c->listen = NULL;
			if (c->state == CM_REQ_WAIT ||
			    (c->state == CM_REQ_RCVD &&
			     softrdma_cm_withdraw((struct softrdma_cm_chan *)c->id.channel, c,
						  NULL))) {
				softrdma__cm_close_fd(c);
				softrdma__cm_forget_request(c);
				softrdma__cm_pend_del(c);
				softrdma__list_del(&c->node);
				if (c->sync)
					rdma_destroy_event_channel(c->id.channel);
				free(c);
			}
		}
	}
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (id->sync)
		rdma_destroy_event_channel(cid->channel);
	free(id);
	return 0;
}
/* Wait on a synchronous id for its next event; returns 0 or -1/errno. */
int
softrdma__cm_sync_wait(struct softrdma_cm_id *id, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int err;

	if (rdma_get_cm_event(id->id.channel, &ev))
		return -1;
	if (id->sync_event)
		rdma_ack_cm_event(id->sync_event);
	id->sync_event = ev;
	id->id.event = ev;
	if (ev->event == want && !ev->status)
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		err = ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		err = ETIMEDOUT;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		err = ev->status < 0 ? -ev->status : EHOSTUNREACH;
		break;
	default:
		err = ECONNRESET;
		break;
	}
	return softrdma__cm_err(err);
}
/* Move an id (and its queued events) to another channel. */
int
rdma_migrate_id(struct rdma_cm_id *cid, struct rdma_event_channel *channel)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct rdma_event_channel *old = cid->channel, *sync_ch = NULL;
	int was_sync = id->sync;

	if (!channel) {
		sync_ch = rdma_create_event_channel();
		if (!sync_ch)
			return -1;
		channel = sync_ch;
	}
	pthread_mutex_lock(&softrdma__cm.lock);
	softrdma_cm_withdraw((struct softrdma_cm_chan *)old, id,
			     (struct softrdma_cm_chan *)channel);
	cid->channel = channel;
	id->sync = sync_ch != NULL;
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (was_sync) {
		if (id->sync_event) {
			rdma_ack_cm_event(id->sync_event);
			id->sync_event = NULL;
			cid->event = NULL;
		}
		rdma_destroy_event_channel(old);
	}
	return 0;
}

/*
 * Options: the id-level ones are accepted with the length the kernel's CM
 * wants; the ACK timeout is the QP's at RTS. Path records are not supported.
 */
int
rdma_set_option(struct rdma_cm_id *cid, int level, int optname, void *optval, size_t optlen)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	size_t want;

	if (level != RDMA_OPTION_ID)
		return softrdma__cm_err(ENOSYS);
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		want = sizeof(uint8_t);
		break;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		want = sizeof(int);
		break;
	default:
		return softrdma__cm_err(ENOSYS);
	}
	if (!optval || optlen != want)
		return softrdma__cm_err(EINVAL);
	if (optname == RDMA_OPTION_ID_ACK_TIMEOUT) {
		pthread_mutex_lock(&softrdma__cm.lock);
		id->ack_timeout = *(uint8_t *)optval;
		pthread_mutex_unlock(&softrdma__cm.lock);
	}
	return 0;
}

/* Communication-established notification needs no action here. */
int
rdma_notify(struct rdma_cm_id *cid, enum ibv_event_type event)
{
	(void)cid;
	(void)event;
	return 0;
}
