/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softrdma connection manager: rdma_cm ids map onto TCP connections. An
 * rdma_cm port P listens on TCP port P + SOFTRDMA_CM_PORT_OFFSET. The CM
 * exchanges REQ/REP/REJ/RTU/DREQ/DREP messages carrying QP numbers and
 * InfiniBand-sized private data, and drives the QPs through the public verbs.
 * A CM thread (all signals blocked) serves listeners and connections.
 *
 * Timing: a refused TCP connect is retried for SOFTRDMA_CM_REJECT_GRACE_MS
 * (default 2000) before REJECTED (status 8) is reported, so a client that
 * races its server's rdma_listen still connects. A connect whose REQ is not
 * acknowledged (MRA, REP or REJ) within SOFTRDMA_CM_TIMEOUT_MS (default
 * 10000) reports UNREACHABLE with status -ETIMEDOUT. An accepted connection
 * whose REQ has not come is pending: capped and timed out (util.h,
 * SOFTRDMA_PENDING_MAX and SOFTRDMA_PENDING_TIMEOUT_MS).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cm.h"
#include "softrdma.h"

#define SOFTRDMA_CM_TIMEOUT_MS	    10000
#define SOFTRDMA_CM_REJECT_GRACE_MS 2000
#define SOFTRDMA_CM_RETRY_NS	    20000000ull
/* QP ACK timeout (4.096 us * 2^14, about 67 ms) unless RDMA_OPTION_ID_ACK_TIMEOUT says */
#define SOFTRDMA_CM_ACK_TIMEOUT 14

enum softrdma_cm_state {
	CM_IDLE,
	CM_BOUND,
	CM_ADDR,
	CM_ROUTE,
	CM_LISTEN,
	CM_CONNECTING,
	CM_REQ_WAIT,
	CM_REQ_RCVD,
	CM_ACCEPTING,
	CM_RESPONSE,
	CM_ESTABLISHED,
	CM_DISCONNECTING,
	CM_DISCONNECTED,
	CM_ERROR,
};

struct softrdma_cm_chan {
	struct rdma_event_channel ch;
	struct softrdma_evq q;
};

struct softrdma_cm_id {
	struct rdma_cm_id id;
	struct softrdma_list node;
	enum softrdma_cm_state state;
	int fd;
	int tcp_connecting;
	int sync;
	int reported; /* events handed out: atomic, raised under the channel queue's lock */
	int acked;    /* events acknowledged: cm.lock */
	int disc_reported;
	struct rdma_cm_event *sync_event;
	unsigned char rbuf[sizeof(struct softrdma_cm_msg)];
	size_t rhave;
	struct softrdma_cm_id *listen;
	uint32_t remote_qpn;
	/*
	 * The connection's secret (secret.h): drawn by the active side with its
	 * QP, received in the REQ by the passive side, which also records it for
	 * the peer QP (@remote_entry) until it accepts or rejects.
	 */
	uint8_t secret[SOFTRDMA_SECRET_LEN];
	int has_secret;
	int remote_entry;
	uint8_t rnr_retry;
	uint8_t remote_rnr_retry;
	/* RDMA_OPTION_ID_ACK_TIMEOUT: the QP's timeout at RTS (cm.lock) */
	uint8_t ack_timeout;
	struct sockaddr_in peer;
	struct softrdma_cm_msg out_req;
	struct ibv_qp_init_attr ep_attr;
	struct ibv_pd *ep_pd;
	int has_ep_attr;
	int own_cqs;
	/*
	 * timers (CLOCK_MONOTONIC ns, 0 = off) of the active side; @deadline
	 * also ends a passive connection's wait for its request, and
	 * @retry_at the pause of a listener short of descriptors
	 */
	uint64_t deadline;
	uint64_t refuse_until;
	uint64_t retry_at;
	/* accepted, its request not read yet: on cm.pending, oldest first */
	struct softrdma_list pend;
	/* a listener whose last accept4() ran out of descriptors (logged once) */
	int starved;
	/*
	 * Set in a forked child on every id of the parent: the id speaks for
	 * the parent, so every call on it but rdma_destroy_id fails with EIO.
	 */
	int inherited;
};

struct softrdma_cm_event {
	struct rdma_cm_event ev;
	struct softrdma_list node;
	struct softrdma_cm_id *owner;
	uint8_t pdata[SOFTRDMA_CM_REP_PDATA];
};

/*
 * The CM of this process. @lock guards everything here and in the ids;
 * @started is set with a release store once the CM thread runs (under
 * @lock), and cleared in a forked child, which starts its own CM on first
 * use.
 */
static struct {
	int started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int epfd;
	int wakefd;
	struct softrdma_list ids;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	int port_offset;
	uint64_t timeout_ns;
	uint64_t grace_ns;
	/* pending connections (see util.h): list, count and limits */
	struct softrdma_list pending;
	long npending;
	long pending_max;
	uint64_t pending_ns;
} cm = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .epfd = -1,
    .wakefd = -1,
};

static char softrdma_cm_wake_tag;

/* Set errno and return -1, the librdmacm error convention. */
static int
softrdma_cm_err(int err)
{
	errno = err;
	return -1;
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

static void *softrdma_cm_thread(void *arg);

/* Monotonic time in nanoseconds. */
static uint64_t
softrdma_cm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Milliseconds from environment variable @name, or @def when unset or bad. */
static uint64_t
softrdma_cm_env_ms(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long ms;

	if (!v || !*v)
		return (uint64_t)def * 1000000ull;
	ms = strtol(v, &end, 10);
	if (*end || ms < 0)
		ms = def;
	return (uint64_t)ms * 1000000ull;
}

/* Wake the CM thread so it recomputes its timers. */
static void
softrdma_cm_kick(void)
{
	uint64_t one = 1;

	if (write(cm.wakefd, &one, sizeof(one)) < 0) {
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
	cm.verbs = list[0] ? ibv_open_device(list[0]) : NULL;
	err = cm.verbs ? 0 : (errno ? errno : ENODEV);
	ibv_free_device_list(list);
	if (err)
		return err;
	cm.pd = ibv_alloc_pd(cm.verbs);
	if (cm.pd)
		return 0;
	err = errno ? errno : ENOMEM;
	ibv_close_device(cm.verbs);
	cm.verbs = NULL;
	return err;
}

/*
 * Open the device, create the epoll set and the CM thread (cm.lock held);
 * 0 or an errno, with nothing left behind on failure.
 */
static int
softrdma_cm_init(void)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &softrdma_cm_wake_tag};
	const char *off = getenv("SOFTRDMA_CM_PORT_OFFSET");
	sigset_t all, old;
	pthread_t thr;
	int err;

	softrdma__list_init(&cm.ids);
	softrdma__list_init(&cm.pending);
	cm.npending = 0;
	softrdma__pending_limits(&cm.pending_max, &cm.pending_ns);
	cm.port_offset = off ? atoi(off) : 0;
	cm.timeout_ns = softrdma_cm_env_ms("SOFTRDMA_CM_TIMEOUT_MS", SOFTRDMA_CM_TIMEOUT_MS);
	cm.grace_ns =
	    softrdma_cm_env_ms("SOFTRDMA_CM_REJECT_GRACE_MS", SOFTRDMA_CM_REJECT_GRACE_MS);
	err = softrdma_cm_open_device();
	if (err)
		return err;
	cm.epfd = epoll_create1(EPOLL_CLOEXEC);
	cm.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (cm.epfd < 0 || cm.wakefd < 0 || epoll_ctl(cm.epfd, EPOLL_CTL_ADD, cm.wakefd, &ev) < 0) {
		err = errno;
		goto err_close;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&thr, NULL, softrdma_cm_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto err_close;
	pthread_detach(thr);
	__atomic_store_n(&cm.started, 1, __ATOMIC_RELEASE);
	return 0;

err_close:
	if (cm.wakefd >= 0)
		close(cm.wakefd);
	if (cm.epfd >= 0)
		close(cm.epfd);
	cm.wakefd = cm.epfd = -1;
	ibv_dealloc_pd(cm.pd);
	ibv_close_device(cm.verbs);
	cm.pd = NULL;
	cm.verbs = NULL;
	return err;
}

/*
 * Start the CM on first use (again in a forked child); 0 or the error of
 * starting it, which a later call retries.
 */
static int
softrdma_cm_start(void)
{
	int err = 0;

	if (__atomic_load_n(&cm.started, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&cm.lock);
	if (!cm.started)
		err = softrdma_cm_init();
	pthread_mutex_unlock(&cm.lock);
	return err;
}

/* Create an event channel. */
struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct softrdma_cm_chan *c;
	int err = softrdma_cm_start();

	if (err) {
		errno = err;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	err = softrdma__evq_init(&c->q);
	if (err) {
		free(c);
		errno = err;
		return NULL;
	}
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

/* Queue an event for @owner on its current channel (cm.lock held). */
static void
softrdma_cm_event(struct softrdma_cm_id *owner, struct softrdma_cm_id *listen,
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
		return softrdma_cm_err(EINVAL);
	err = softrdma__evq_pop(&c->q, &node, softrdma_cm_event_taken);
	if (err)
		return softrdma_cm_err(err);
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
		return softrdma_cm_err(EINVAL);
	pthread_mutex_lock(&cm.lock);
	e->owner->acked++;
	pthread_cond_broadcast(&cm.cond);
	pthread_mutex_unlock(&cm.lock);
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
static struct softrdma_cm_id *
softrdma_cm_id_new(struct rdma_event_channel *channel, void *context, enum rdma_port_space ps)
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
	int err = softrdma_cm_start();

	if (err)
		return softrdma_cm_err(err);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB)
		return softrdma_cm_err(EOPNOTSUPP);
	i = softrdma_cm_id_new(channel, context, ps);
	if (!i)
		return softrdma_cm_err(ENOMEM);
	pthread_mutex_lock(&cm.lock);
	softrdma__list_add_tail(&cm.ids, &i->node);
	pthread_mutex_unlock(&cm.lock);
	*id = &i->id;
	return 0;
}

/* Stop watching and close the TCP socket of @id (cm.lock held). */
static void
softrdma_cm_close_fd(struct softrdma_cm_id *id)
{
	if (id->fd < 0)
		return;
	epoll_ctl(cm.epfd, EPOLL_CTL_DEL, id->fd, NULL);
	close(id->fd);
	id->fd = -1;
}

/* Take @id off the pending connections, if it is there (cm.lock held). */
static void
softrdma_cm_pend_del(struct softrdma_cm_id *id)
{
	if (softrdma__list_empty(&id->pend))
		return;
	softrdma__list_del(&id->pend);
	cm.npending--;
	id->deadline = 0;
}

/*
 * The passive side is done with the request of @id: the secret it recorded
 * for the peer QP goes (cm.lock held).
 */
static void
softrdma_cm_forget_request(struct softrdma_cm_id *id)
{
	if (!id->remote_entry)
		return;
	softrdma__cm_ops(cm.verbs)->secret_forget_remote(id->peer.sin_addr, id->remote_qpn);
	id->remote_entry = 0;
}

/*
 * Close and free @id, a passive connection never announced to the
 * application (CM thread, cm.lock held).
 */
static void
softrdma_cm_pend_drop(struct softrdma_cm_id *id)
{
	softrdma_cm_close_fd(id);
	softrdma_cm_forget_request(id);
	softrdma_cm_pend_del(id);
	softrdma__list_del(&id->node);
	if (id->sync)
		rdma_destroy_event_channel(id->id.channel);
	free(id);
}

/* Withdraw events of @id still queued on channel @c; returns how many (cm.lock held). */
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
	pthread_mutex_lock(&cm.lock);
	softrdma_cm_withdraw((struct softrdma_cm_chan *)cid->channel, id, NULL);
	while (!id->inherited && id->acked < __atomic_load_n(&id->reported, __ATOMIC_RELAXED))
		pthread_cond_wait(&cm.cond, &cm.lock);
	softrdma_cm_close_fd(id);
	softrdma_cm_forget_request(id);
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
	for (n = cm.ids.next; n != &cm.ids; n = next) {
		struct softrdma_cm_id *c = SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node);

		next = n->next;
		if (c->listen == id) {
			c->listen = NULL;
			if (c->state == CM_REQ_WAIT ||
			    (c->state == CM_REQ_RCVD &&
			     softrdma_cm_withdraw((struct softrdma_cm_chan *)c->id.channel, c,
						  NULL))) {
				softrdma_cm_close_fd(c);
				softrdma_cm_forget_request(c);
				softrdma_cm_pend_del(c);
				softrdma__list_del(&c->node);
				if (c->sync)
					rdma_destroy_event_channel(c->id.channel);
				free(c);
			}
		}
	}
	pthread_mutex_unlock(&cm.lock);
	if (id->sync)
		rdma_destroy_event_channel(cid->channel);
	free(id);
	return 0;
}

/* TCP port for rdma_cm port @port (network order in and out). */
static uint16_t
softrdma_cm_tcp_port(uint16_t port)
{
	if (!port)
		return 0;
	return htons((uint16_t)(ntohs(port) + cm.port_offset));
}

/* rdma_cm port for TCP port @port (network order in and out). */
static uint16_t
softrdma_cm_rdma_port(uint16_t port)
{
	return htons((uint16_t)(ntohs(port) - cm.port_offset));
}

/* Convert a sockaddr (IPv4 or v4-mapped IPv6) to IPv4. */
static int
softrdma_cm_to_sin(const struct sockaddr *sa, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (sa->sa_family == AF_INET) {
		*sin = *(const struct sockaddr_in *)sa;
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			memcpy(&sin->sin_addr, &s6->sin6_addr.s6_addr[12], 4);
			sin->sin_port = s6->sin6_port;
			return 0;
		}
		if (IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr)) {
			sin->sin_port = s6->sin6_port;
			return 0;
		}
	}
	return EAFNOSUPPORT;
}

/* Is @a one of the device's GIDs (a local IPv4 address)? */
static int
softrdma_cm_local_ip(struct in_addr a)
{
	union ibv_gid gid;
	int i;

	for (i = 0; ibv_query_gid(cm.verbs, 1, i, &gid) == 0; i++)
		if (!memcmp(&gid.raw[12], &a, 4))
			return 1;
	return 0;
}

/* Index of the GID for local address @a, 0 if not found. */
static int
softrdma_cm_gid_index(struct in_addr a)
{
	union ibv_gid gid;
	int i;

	for (i = 0; ibv_query_gid(cm.verbs, 1, i, &gid) == 0; i++)
		if (!memcmp(&gid.raw[12], &a, 4))
			return i;
	return 0;
}

/* Fill a v4-mapped GID from an IPv4 address. */
static void
softrdma_cm_gid(union ibv_gid *g, struct in_addr a)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], &a, 4);
}

/* Record addresses on the id and its route (cm.lock held). */
static void
softrdma_cm_set_addrs(struct softrdma_cm_id *id, const struct sockaddr_in *src,
		      const struct sockaddr_in *dst)
{
	struct rdma_addr *ra = &id->id.route.addr;

	if (src) {
		memset(&ra->src_storage, 0, sizeof(ra->src_storage));
		memcpy(&ra->src_sin, src, sizeof(*src));
		softrdma_cm_gid(&ra->addr.ibaddr.sgid, src->sin_addr);
	}
	if (dst) {
		memset(&ra->dst_storage, 0, sizeof(ra->dst_storage));
		memcpy(&ra->dst_sin, dst, sizeof(*dst));
		softrdma_cm_gid(&ra->addr.ibaddr.dgid, dst->sin_addr);
	}
	ra->addr.ibaddr.pkey = htobe16(0xffff);
}

/*
 * The id now has its device, softrdma0: like librdmacm, it also gets the
 * device's default PD, which QPs, SRQs and MRs of the id may use (cm.lock).
 */
static void
softrdma_cm_set_device(struct rdma_cm_id *cid)
{
	cid->verbs = cm.verbs;
	cid->pd = cm.pd;
	cid->port_num = 1;
}

/* Bind an id to a local address and rdma_cm port. */
int
rdma_bind_addr(struct rdma_cm_id *cid, struct sockaddr *addr)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int one = 1, err;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	if (!addr)
		return softrdma_cm_err(EINVAL);
	err = softrdma_cm_to_sin(addr, &sin);
	if (err)
		return softrdma_cm_err(err);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_IDLE || id->fd >= 0) {
		err = EINVAL;
		goto out;
	}
	if (sin.sin_addr.s_addr != htonl(INADDR_ANY) && !softrdma_cm_local_ip(sin.sin_addr)) {
		err = EADDRNOTAVAIL;
		goto out;
	}
	id->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (id->fd < 0) {
		err = errno;
		goto out;
	}
	setsockopt(id->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_port = softrdma_cm_tcp_port(sin.sin_port);
	if (bind(id->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    getsockname(id->fd, (struct sockaddr *)&sin, &len) < 0) {
		err = errno;
		close(id->fd);
		id->fd = -1;
		goto out;
	}
	sin.sin_port = softrdma_cm_rdma_port(sin.sin_port);
	softrdma_cm_set_addrs(id, &sin, NULL);
	if (sin.sin_addr.s_addr != htonl(INADDR_ANY))
		softrdma_cm_set_device(cid);
	id->state = CM_BOUND;
out:
	pthread_mutex_unlock(&cm.lock);
	return err ? softrdma_cm_err(err) : 0;
}

/* Wait on a synchronous id for its next event; returns 0 or -1/errno. */
static int
softrdma_cm_sync_wait(struct softrdma_cm_id *id, enum rdma_cm_event_type want)
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
	return softrdma_cm_err(err);
}

/* Resolve the destination to softrdma0 and pick the source address. */
int
rdma_resolve_addr(struct rdma_cm_id *cid, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		  int timeout_ms)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct sockaddr_in dst, src;
	socklen_t len = sizeof(src);
	int err, fd, status = 0;

	(void)timeout_ms;
	if (id->inherited)
		return softrdma_cm_err(EIO);
	if (!dst_addr)
		return softrdma_cm_err(EINVAL);
	err = softrdma_cm_to_sin(dst_addr, &dst);
	if (err)
		return softrdma_cm_err(err);
	if (src_addr && id->state == CM_IDLE && rdma_bind_addr(cid, src_addr))
		return -1;
	/* ask the routing table which local address reaches the destination */
	memset(&src, 0, sizeof(src));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&src, &len) < 0)
		status = -errno;
	close(fd);
	if (!status && !softrdma_cm_local_ip(src.sin_addr))
		status = -EHOSTUNREACH;
	pthread_mutex_lock(&cm.lock);
	if (id->state == CM_BOUND && id->id.route.addr.src_sin.sin_addr.s_addr)
		src.sin_addr = id->id.route.addr.src_sin.sin_addr;
	src.sin_port = id->state == CM_BOUND ? id->id.route.addr.src_sin.sin_port : 0;
	if (!status) {
		softrdma_cm_set_addrs(id, &src, &dst);
		softrdma_cm_set_device(cid);
		id->state = CM_ADDR;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0);
	} else {
		softrdma_cm_set_addrs(id, NULL, &dst);
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_ADDR_ERROR, status, NULL, 0);
	}
	pthread_mutex_unlock(&cm.lock);
	if (id->sync)
		return softrdma_cm_sync_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED);
	return 0;
}

/* Routes are trivial: the IP route found during address resolution. */
int
rdma_resolve_route(struct rdma_cm_id *cid, int timeout_ms)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;

	(void)timeout_ms;
	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_ADDR) {
		pthread_mutex_unlock(&cm.lock);
		return softrdma_cm_err(EINVAL);
	}
	id->state = CM_ROUTE;
	cid->route.num_paths = 1;
	softrdma_cm_event(id, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	pthread_mutex_unlock(&cm.lock);
	if (id->sync)
		return softrdma_cm_sync_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	return 0;
}

/* Watch the id's socket in the CM thread. */
static int
softrdma_cm_watch(struct softrdma_cm_id *id, uint32_t events, int add)
{
	struct epoll_event ev = {.events = events, .data.ptr = id};

	return epoll_ctl(cm.epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, id->fd, &ev) < 0 ? errno : 0;
}

/* Start listening for connection requests. */
int
rdma_listen(struct rdma_cm_id *cid, int backlog)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	int err = 0;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_BOUND || id->fd < 0) {
		err = EINVAL;
		goto out;
	}
	if (listen(id->fd, backlog > 0 ? backlog : 128) < 0) {
		err = errno;
		goto out;
	}
	err = softrdma_cm_watch(id, EPOLLIN, 1);
	if (!err)
		id->state = CM_LISTEN;
out:
	pthread_mutex_unlock(&cm.lock);
	return err ? softrdma_cm_err(err) : 0;
}

/* Send one CM message on the id's connection. */
static int
softrdma_cm_send(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg w = *m;
	ssize_t n;

	w.magic = htole32(SOFTRDMA_CM_MAGIC);
	w.qpn = htole32(m->qpn);
	if (id->fd < 0)
		return ENOTCONN;
	n = send(id->fd, &w, sizeof(w), MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != sizeof(w))
		return n < 0 ? errno : EIO;
	return 0;
}

/* Move the id's QP to INIT if it is still in RESET. */
static int
softrdma_cm_qp_init(struct softrdma_cm_id *id)
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
	a->ah_attr.grh.sgid_index = softrdma_cm_gid_index(id->id.route.addr.src_sin.sin_addr);
	softrdma_cm_gid(&a->ah_attr.grh.dgid, id->peer.sin_addr);
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
static int
softrdma_cm_qp_connect(struct softrdma_cm_id *id)
{
	struct ibv_qp_attr a;
	int mask, err;

	if (!id->id.qp)
		return 0;
	err = softrdma_cm_qp_init(id);
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
 * id has none yet (the active side); 0 or an errno (cm.lock held).
 */
static int
softrdma_cm_secure_qp(struct softrdma_cm_id *id, uint32_t qpn)
{
	const struct softrdma_cm_ops *ops = softrdma__cm_ops(cm.verbs);
	int err;

	if (!id->has_secret) {
		err = ops->secret_new(id->secret);
		if (err)
			return err;
		id->has_secret = 1;
	}
	return qpn ? ops->secret_set_local(qpn, id->secret) : 0;
}

/* Fill the common part of a REQ or REP from @param. */
static int
softrdma_cm_fill(struct softrdma_cm_id *id, struct softrdma_cm_msg *m, uint8_t type,
		 struct rdma_conn_param *param, int max)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->rnr_retry = 7;
	m->retry = 7;
	if (param) {
		if (param->private_data_len > max ||
		    (param->private_data_len && !param->private_data))
			return EINVAL;
		m->pdata_len = param->private_data_len;
		if (m->pdata_len)
			memcpy(m->pdata, param->private_data, m->pdata_len);
		m->responder_resources = param->responder_resources;
		m->initiator_depth = param->initiator_depth;
		m->flow_control = param->flow_control;
		m->retry = param->retry_count;
		m->rnr_retry = param->rnr_retry_count;
		m->srq = param->srq;
		m->qpn = param->qp_num & 0xffffff;
	}
	if (id->id.qp) {
		m->qpn = id->id.qp->qp_num;
		m->srq = !!id->id.qp->srq;
	}
	softrdma_cm_gid((union ibv_gid *)m->gid, id->id.route.addr.src_sin.sin_addr);
	return 0;
}

/*
 * Open (when needed) the id's TCP socket and start a non-blocking connect to
 * the destination's CM port (cm.lock held). Returns 0 or an errno; on error
 * the socket is closed.
 */
static int
softrdma_cm_tcp_connect(struct softrdma_cm_id *id)
{
	struct sockaddr_in dst, src;
	int one = 1, err;

	if (id->fd < 0) {
		id->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (id->fd < 0) {
			err = errno;
			goto out;
		}
		src = id->id.route.addr.src_sin;
		src.sin_port = 0;
		if (bind(id->fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
			err = errno;
			goto close;
		}
	}
	setsockopt(id->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	dst = id->id.route.addr.dst_sin;
	dst.sin_port = softrdma_cm_tcp_port(dst.sin_port);
	if (connect(id->fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 && errno != EINPROGRESS) {
		err = errno;
		goto close;
	}
	id->tcp_connecting = 1;
	id->rhave = 0;
	err = softrdma_cm_watch(id, EPOLLOUT | EPOLLIN, 1);
	if (err)
		goto close;
	return 0;
close:
	close(id->fd);
	id->fd = -1;
out:
	return err;
}

/* Connect to the resolved destination. */
int
rdma_connect(struct rdma_cm_id *cid, struct rdma_conn_param *param)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	int saved = errno, err;
	uint64_t now;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_ROUTE) {
		err = EINVAL;
		goto out;
	}
	err = softrdma_cm_fill(id, &id->out_req, SOFTRDMA_CM_REQ, param, SOFTRDMA_CM_REQ_PDATA);
	if (!err)
		err = softrdma_cm_secure_qp(id, id->out_req.qpn);
	if (err)
		goto out;
	memcpy(id->out_req.secret, id->secret, sizeof(id->secret));
	id->rnr_retry = param ? param->rnr_retry_count : 7;
	if (id->rnr_retry > 7)
		id->rnr_retry = 7;
	err = softrdma_cm_qp_init(id);
	if (err)
		goto out;
	id->peer = id->id.route.addr.dst_sin;
	now = softrdma_cm_now();
	id->deadline = now + cm.timeout_ns;
	id->refuse_until = now + cm.grace_ns;
	id->retry_at = 0;
	err = softrdma_cm_tcp_connect(id);
	if (err == ECONNREFUSED) {
		/* refused at once: the CM thread retries, then reports it */
		id->retry_at = now + SOFTRDMA_CM_RETRY_NS;
		err = 0;
	}
	if (err)
		goto out;
	id->state = CM_CONNECTING;
	pthread_mutex_unlock(&cm.lock);
	softrdma_cm_kick();
	errno = saved;
	if (id->sync)
		return softrdma_cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return 0;
out:
	pthread_mutex_unlock(&cm.lock);
	return softrdma_cm_err(err);
}

/* Complete a connection after CONNECT_RESPONSE (id without QP at connect). */
int
rdma_establish(struct rdma_cm_id *cid)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_RESPONSE) {
		pthread_mutex_unlock(&cm.lock);
		return softrdma_cm_err(EINVAL);
	}
	err = softrdma_cm_qp_connect(id);
	if (!err) {
		memset(&m, 0, sizeof(m));
		m.type = SOFTRDMA_CM_RTU;
		err = softrdma_cm_send(id, &m);
	}
	if (!err)
		id->state = CM_ESTABLISHED;
	pthread_mutex_unlock(&cm.lock);
	return err ? softrdma_cm_err(err) : 0;
}

/* Accept a connection request; the QP reaches RTS before the reply. */
int
rdma_accept(struct rdma_cm_id *cid, struct rdma_conn_param *param)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_REQ_RCVD) {
		err = EINVAL;
		goto out;
	}
	err = softrdma_cm_fill(id, &m, SOFTRDMA_CM_REP, param, SOFTRDMA_CM_REP_PDATA);
	if (!err)
		err = softrdma_cm_secure_qp(id, m.qpn);
	if (err)
		goto out;
	if (param)
		id->rnr_retry = param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count;
	err = softrdma_cm_qp_connect(id);
	if (err)
		goto out;
	err = softrdma_cm_send(id, &m);
	if (err)
		goto out;
	/* the QP has its own entry now, and any hello it sends went out at RTR */
	softrdma_cm_forget_request(id);
	id->state = CM_ACCEPTING;
	pthread_mutex_unlock(&cm.lock);
	if (id->sync)
		return softrdma_cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return 0;
out:
	pthread_mutex_unlock(&cm.lock);
	return softrdma_cm_err(err);
}

/* Reject a connection request with up to 148 bytes of private data. */
int
rdma_reject(struct rdma_cm_id *cid, const void *private_data, uint8_t private_data_len)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err = 0;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	if (private_data_len > SOFTRDMA_CM_REJ_PDATA || (private_data_len && !private_data))
		return softrdma_cm_err(EINVAL);
	pthread_mutex_lock(&cm.lock);
	if (id->state != CM_REQ_RCVD) {
		err = EINVAL;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = SOFTRDMA_CM_REJ;
	m.pdata_len = private_data_len;
	if (private_data_len)
		memcpy(m.pdata, private_data, private_data_len);
	err = softrdma_cm_send(id, &m);
	softrdma_cm_close_fd(id);
	softrdma_cm_forget_request(id);
	id->state = CM_ERROR;
out:
	pthread_mutex_unlock(&cm.lock);
	return err ? softrdma_cm_err(err) : 0;
}

/* Reject with ECE: same as a plain reject here. */
int
rdma_reject_ece(struct rdma_cm_id *cid, const void *private_data, uint8_t private_data_len)
{
	return rdma_reject(cid, private_data, private_data_len);
}

/* Report DISCONNECTED once and close the connection (cm.lock held). */
static void
softrdma_cm_disconnected(struct softrdma_cm_id *id)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	/*
	 * The connection is gone: outstanding work requests are flushed. The
	 * peer ended its data streams before its DREQ or DREP, but on other
	 * connections: the QP consumes them first (bounded), so answers the
	 * peer sent before disconnecting still complete the requests.
	 */
	if (id->id.qp)
		ibv_modify_qp(id->id.qp, &a, IBV_QP_STATE | SOFTRDMA_QP_DISCONNECT);
	softrdma_cm_close_fd(id);
	id->state = CM_DISCONNECTED;
	if (!id->disc_reported) {
		id->disc_reported = 1;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
	}
}

/* Disconnect: the QP enters error (flushing its WRs) and the peer is told. */
int
rdma_disconnect(struct rdma_cm_id *cid)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	struct softrdma_cm_msg m;
	int err = 0;

	if (id->inherited)
		return softrdma_cm_err(EIO);
	pthread_mutex_lock(&cm.lock);
	if (cid->qp)
		ibv_modify_qp(cid->qp, &a, IBV_QP_STATE);
	switch (id->state) {
	case CM_ESTABLISHED:
	case CM_ACCEPTING:
	case CM_RESPONSE:
		memset(&m, 0, sizeof(m));
		m.type = SOFTRDMA_CM_DREQ;
		if (softrdma_cm_send(id, &m))
			softrdma_cm_disconnected(id);
		else
			id->state = CM_DISCONNECTING;
		break;
	case CM_DISCONNECTING:
	case CM_DISCONNECTED:
		break;
	default:
		err = EINVAL;
		break;
	}
	pthread_mutex_unlock(&cm.lock);
	return err ? softrdma_cm_err(err) : 0;
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
		return softrdma_cm_err(EIO);
	if (!cid->verbs || cid->qp)
		return softrdma_cm_err(EINVAL);
	/* like librdmacm, the id's port space decides the QP type */
	attr->qp_type = cid->qp_type;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = cid->pd ? cid->pd : cm.pd;
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
		return softrdma_cm_err(err);
	}
	cid->pd = attr->pd;
	/* the CM thread may move the QP even after the application freed it */
	ibv_modify_qp(qp, NULL, SOFTRDMA_QP_CM_HOLD);
	/* under cm.lock: the CM thread reads @qp of ids it handles */
	pthread_mutex_lock(&cm.lock);
	/* no hello attaches to the QP without the connection's secret, from now on */
	err = softrdma_cm_secure_qp(id, qp->qp_num);
	if (err) {
		pthread_mutex_unlock(&cm.lock);
		ibv_modify_qp(qp, NULL, SOFTRDMA_QP_CM_RELEASE);
		ibv_destroy_qp(qp);
		softrdma_cm_destroy_cqs(id);
		return softrdma_cm_err(err);
	}
	cid->qp = qp;
	softrdma_cm_qp_init(id);
	pthread_mutex_unlock(&cm.lock);
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
 * under cm.lock first: the CM thread, which moves the QP of an id it handles
 * (a disconnect, a lost connection) under that lock, never sees it freed.
 */
void
rdma_destroy_qp(struct rdma_cm_id *cid)
{
	struct ibv_qp *qp;

	pthread_mutex_lock(&cm.lock);
	qp = cid->qp;
	cid->qp = NULL;
	pthread_mutex_unlock(&cm.lock);
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
		return softrdma_cm_err(EIO);
	if (!cid->verbs)
		return softrdma_cm_err(EINVAL);
	if (!pd)
		pd = cid->pd ? cid->pd : cm.pd;
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
		return softrdma_cm_err(EOPNOTSUPP);
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)
		return softrdma_cm_err(EOPNOTSUPP);
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
			return softrdma_cm_err(EINVAL);
		softrdma_cm_rtr_attr(id, attr, mask);
		return 0;
	case IBV_QPS_RTS:
		softrdma_cm_rts_attr(id, attr, mask);
		return 0;
	default:
		return softrdma_cm_err(EINVAL);
	}
}

/* Wait for a connection request on a synchronous listener. */
int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **cid)
{
	struct softrdma_cm_id *l = (struct softrdma_cm_id *)listen;
	struct softrdma_cm_id *id;
	struct rdma_cm_event *ev;

	if (!l->sync)
		return softrdma_cm_err(EINVAL);
	for (;;) {
		if (rdma_get_cm_event(listen->channel, &ev))
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		rdma_ack_cm_event(ev);
	}
	id = (struct softrdma_cm_id *)ev->id;
	if (id->sync_event)
		rdma_ack_cm_event(id->sync_event);
	id->sync_event = ev;
	id->id.event = ev;
	if (l->has_ep_attr) {
		struct ibv_qp_init_attr a = l->ep_attr;

		if (rdma_create_qp(&id->id, l->ep_pd, &a)) {
			int err = errno;

			rdma_reject(&id->id, NULL, 0);
			rdma_destroy_id(&id->id);
			return softrdma_cm_err(err);
		}
	}
	*cid = &id->id;
	return 0;
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
	pthread_mutex_lock(&cm.lock);
	softrdma_cm_withdraw((struct softrdma_cm_chan *)old, id,
			     (struct softrdma_cm_chan *)channel);
	cid->channel = channel;
	id->sync = sync_ch != NULL;
	pthread_mutex_unlock(&cm.lock);
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
		return softrdma_cm_err(ENOSYS);
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
		return softrdma_cm_err(ENOSYS);
	}
	if (!optval || optlen != want)
		return softrdma_cm_err(EINVAL);
	if (optname == RDMA_OPTION_ID_ACK_TIMEOUT) {
		pthread_mutex_lock(&cm.lock);
		id->ack_timeout = *(uint8_t *)optval;
		pthread_mutex_unlock(&cm.lock);
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

/* Local rdma_cm port of the id (network order). */
__be16
rdma_get_src_port(struct rdma_cm_id *cid)
{
	return cid->route.addr.src_sin.sin_port;
}

/* Remote rdma_cm port of the id (network order). */
__be16
rdma_get_dst_port(struct rdma_cm_id *cid)
{
	return cid->route.addr.dst_sin.sin_port;
}

/* Contexts of the RDMA devices (softrdma0), kept open for the process. */
struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	int err = softrdma_cm_start();

	if (err) {
		errno = err;
		return NULL;
	}
	list = calloc(2, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = cm.verbs;
	if (num_devices)
		*num_devices = 1;
	return list;
}

/* Free the array from rdma_get_devices (contexts stay open). */
void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* Multicast is not offered (UD only). */
int
rdma_join_multicast(struct rdma_cm_id *cid, struct sockaddr *addr, void *context)
{
	(void)cid;
	(void)addr;
	(void)context;
	return softrdma_cm_err(ENOSYS);
}

/* Multicast is not offered (UD only). */
int
rdma_join_multicast_ex(struct rdma_cm_id *cid, struct rdma_cm_join_mc_attr_ex *attr, void *context)
{
	(void)cid;
	(void)attr;
	(void)context;
	return softrdma_cm_err(ENOSYS);
}

/* Multicast is not offered (UD only). */
int
rdma_leave_multicast(struct rdma_cm_id *cid, struct sockaddr *addr)
{
	(void)cid;
	(void)addr;
	return softrdma_cm_err(ENOSYS);
}

/* ECE is not offered. */
int
rdma_set_local_ece(struct rdma_cm_id *cid, struct ibv_ece *ece)
{
	(void)cid;
	(void)ece;
	return softrdma_cm_err(EOPNOTSUPP);
}

/* ECE is not offered. */
int
rdma_get_remote_ece(struct rdma_cm_id *cid, struct ibv_ece *ece)
{
	(void)cid;
	(void)ece;
	return softrdma_cm_err(EOPNOTSUPP);
}

/* Resolve @node/@service to RDMA (RC, TCP port space) addresses. */
int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	struct addrinfo h, *ai = NULL;
	struct rdma_addrinfo *r;
	struct sockaddr_in *sin;
	int passive = hints && (hints->ai_flags & RAI_PASSIVE);
	int err;

	if (!res)
		return softrdma_cm_err(EINVAL);
	memset(&h, 0, sizeof(h));
	h.ai_family = AF_INET;
	h.ai_socktype = SOCK_STREAM;
	if (passive)
		h.ai_flags |= AI_PASSIVE;
	if (hints && (hints->ai_flags & RAI_NUMERICHOST))
		h.ai_flags |= AI_NUMERICHOST;
	err = getaddrinfo(node, service, &h, &ai);
	if (err)
		return err == EAI_SYSTEM ? -1
					 : softrdma_cm_err(err == EAI_NONAME ? ENOENT : EINVAL);
	r = calloc(1, sizeof(*r));
	sin = calloc(1, sizeof(*sin));
	if (!r || !sin) {
		free(r);
		free(sin);
		freeaddrinfo(ai);
		return softrdma_cm_err(ENOMEM);
	}
	memcpy(sin, ai->ai_addr, sizeof(*sin));
	freeaddrinfo(ai);
	r->ai_flags = hints ? hints->ai_flags : 0;
	r->ai_family = AF_INET;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
	r->ai_port_space = hints && hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
	if (passive) {
		r->ai_src_addr = (struct sockaddr *)sin;
		r->ai_src_len = sizeof(*sin);
	} else {
		r->ai_dst_addr = (struct sockaddr *)sin;
		r->ai_dst_len = sizeof(*sin);
		if (hints && hints->ai_src_addr && hints->ai_src_len) {
			r->ai_src_addr = malloc(hints->ai_src_len);
			if (r->ai_src_addr) {
				memcpy(r->ai_src_addr, hints->ai_src_addr, hints->ai_src_len);
				r->ai_src_len = hints->ai_src_len;
			}
		}
	}
	*res = r;
	return 0;
}

/* Free a list from rdma_getaddrinfo. */
void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
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
		return softrdma_cm_err(EINVAL);
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
	return softrdma_cm_err(err);
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

static void softrdma_cm_on_io(struct softrdma_cm_id *id, uint32_t ev);

/*
 * Make room among the pending connections: the oldest goes, unless its
 * whole request already waits in its socket, which is then served, so a
 * client that spoke at once is not lost to a flood (CM thread, cm.lock
 * held). Either way the oldest leaves cm.pending or its socket is drained,
 * so a caller's loop ends.
 */
static void
softrdma_cm_pend_evict(void)
{
	struct softrdma_cm_id *id =
	    SOFTRDMA_CONTAINER_OF(cm.pending.next, struct softrdma_cm_id, pend);
	int avail = 0;

	if (!ioctl(id->fd, FIONREAD, &avail) && avail > 0 &&
	    id->rhave + (size_t)avail >= sizeof(struct softrdma_cm_msg)) {
		softrdma_cm_on_io(id, EPOLLIN);
		return;
	}
	softrdma_cm_pend_drop(id);
}

/*
 * Close the pending connections whose request did not come in time; the
 * deadline of the oldest that stays, 0 when none (CM thread, cm.lock held).
 */
static uint64_t
softrdma_cm_pend_timers(uint64_t now)
{
	while (!softrdma__list_empty(&cm.pending)) {
		struct softrdma_cm_id *id =
		    SOFTRDMA_CONTAINER_OF(cm.pending.next, struct softrdma_cm_id, pend);

		if (id->deadline > now)
			return id->deadline;
		softrdma_cm_pend_evict();
	}
	return 0;
}

/*
 * accept4() on listener @l failed with @err (CM thread, cm.lock held).
 * Returns non-zero when the next connection may be tried at once. Out of
 * descriptors or memory, the listener is unwatched for a while instead of
 * being reported ready again and again, and the burst is logged once.
 */
static int
softrdma_cm_accept_failed(struct softrdma_cm_id *l, int err)
{
	if (err == EINTR || err == ECONNABORTED || err == EPROTO)
		return 1;
	if (!softrdma__accept_starved(err)) {
		l->starved = 0;
		return 0;
	}
	epoll_ctl(cm.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	l->retry_at = softrdma_cm_now() + SOFTRDMA_ACCEPT_PAUSE_NS;
	if (!l->starved) {
		struct sockaddr_in sin = {.sin_family = AF_INET};
		socklen_t len = sizeof(sin);

		getsockname(l->fd, (struct sockaddr *)&sin, &len);
		softrdma__log("CM listener on TCP port %u: accept: %s; new connections wait, "
			      "tried again every %llu ms",
			      ntohs(sin.sin_port), strerror(err),
			      SOFTRDMA_ACCEPT_PAUSE_NS / 1000000);
	}
	l->starved = 1;
	return 0;
}

/*
 * Accept new TCP connections on a listener, a batch at a time so that a
 * flood does not starve the connections already accepted; each waits for
 * its request as a pending connection (CM thread, cm.lock held).
 */
static void
softrdma_cm_accept(struct softrdma_cm_id *l)
{
	long cap = softrdma__pending_cap(cm.pending_max);
	int i;

	for (i = 0; i < SOFTRDMA_ACCEPT_BATCH; i++) {
		struct softrdma_cm_id *id;
		int one = 1;
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (softrdma_cm_accept_failed(l, errno))
				continue;
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		id = softrdma_cm_id_new(l->sync ? NULL : l->id.channel, l->id.context, l->id.ps);
		if (!id) {
			close(fd);
			continue;
		}
		id->fd = fd;
		id->listen = l;
		id->state = CM_REQ_WAIT;
		id->deadline = softrdma_cm_now() + cm.pending_ns;
		softrdma__list_add_tail(&cm.ids, &id->node);
		softrdma__list_add_tail(&cm.pending, &id->pend);
		cm.npending++;
		if (softrdma_cm_watch(id, EPOLLIN, 1)) {
			softrdma_cm_pend_drop(id);
			continue;
		}
		while (cm.npending > cap)
			softrdma_cm_pend_evict();
	}
}

/* A REQ arrived on a new passive connection: announce it to the listener. */
static int
softrdma_cm_on_req(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg mra;
	struct sockaddr_in local, peer;
	socklen_t len = sizeof(local);

	if (!id->listen)
		return EPROTO;
	if (getsockname(id->fd, (struct sockaddr *)&local, &len) < 0)
		return errno;
	len = sizeof(peer);
	if (getpeername(id->fd, (struct sockaddr *)&peer, &len) < 0)
		return errno;
	id->peer = peer;
	local.sin_port = softrdma_cm_rdma_port(local.sin_port);
	peer.sin_port = softrdma_cm_rdma_port(peer.sin_port);
	softrdma_cm_set_addrs(id, &local, &peer);
	softrdma_cm_set_device(&id->id);
	id->remote_qpn = m->qpn;
	id->remote_rnr_retry = m->rnr_retry;
	memcpy(id->secret, m->secret, sizeof(id->secret));
	id->has_secret = 1;
	/* for a QP the application moves to RTR before it accepts */
	if (!softrdma__cm_ops(cm.verbs)->secret_set_remote(peer.sin_addr, m->qpn, id->secret))
		id->remote_entry = 1;
	id->state = CM_REQ_RCVD;
	softrdma_cm_event(id, id->listen, RDMA_CM_EVENT_CONNECT_REQUEST, 0, m,
			  SOFTRDMA_CM_REQ_PDATA);
	/* tell the active side the request arrived: it stops its timer */
	memset(&mra, 0, sizeof(mra));
	mra.type = SOFTRDMA_CM_MRA;
	softrdma_cm_send(id, &mra);
	return 0;
}

/* Handle one validated CM message (CM thread, cm.lock held). */
static int
softrdma_cm_on_msg(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg r;

	switch (m->type) {
	case SOFTRDMA_CM_REQ:
		return id->state == CM_REQ_WAIT ? softrdma_cm_on_req(id, m) : EPROTO;
	case SOFTRDMA_CM_MRA:
		if (id->state != CM_CONNECTING)
			return EPROTO;
		id->deadline = 0;
		return 0;
	case SOFTRDMA_CM_REP:
		if (id->state != CM_CONNECTING)
			return EPROTO;
		id->deadline = 0;
		id->remote_qpn = m->qpn;
		if (!id->id.qp) {
			id->state = CM_RESPONSE;
			softrdma_cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m,
					  SOFTRDMA_CM_REP_PDATA);
			return 0;
		}
		if (softrdma_cm_qp_connect(id)) {
			memset(&r, 0, sizeof(r));
			r.type = SOFTRDMA_CM_REJ;
			softrdma_cm_send(id, &r);
			softrdma_cm_close_fd(id);
			id->state = CM_ERROR;
			softrdma_cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL, 0);
			return 0;
		}
		memset(&r, 0, sizeof(r));
		r.type = SOFTRDMA_CM_RTU;
		softrdma_cm_send(id, &r);
		id->state = CM_ESTABLISHED;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, m, SOFTRDMA_CM_REP_PDATA);
		return 0;
	case SOFTRDMA_CM_REJ:
		if (id->state != CM_CONNECTING && id->state != CM_ACCEPTING)
			return EPROTO;
		id->deadline = 0;
		softrdma_cm_close_fd(id);
		id->state = CM_ERROR;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_REJECTED, 28, m, SOFTRDMA_CM_REJ_PDATA);
		return 0;
	case SOFTRDMA_CM_RTU:
		if (id->state != CM_ACCEPTING)
			return EPROTO;
		id->state = CM_ESTABLISHED;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
		return 0;
	case SOFTRDMA_CM_DREQ:
		if (id->state != CM_ESTABLISHED && id->state != CM_DISCONNECTING &&
		    id->state != CM_RESPONSE && id->state != CM_ACCEPTING)
			return EPROTO;
		memset(&r, 0, sizeof(r));
		r.type = SOFTRDMA_CM_DREP;
		softrdma_cm_send(id, &r);
		softrdma_cm_disconnected(id);
		return 0;
	case SOFTRDMA_CM_DREP:
		if (id->state != CM_DISCONNECTING)
			return EPROTO;
		softrdma_cm_disconnected(id);
		return 0;
	}
	return EPROTO;
}

/*
 * Whether @fd connected to itself. TCP's simultaneous open lets a connect to
 * a free local port reach its own socket when the kernel picks that same
 * port as the source, where an RNIC's request would find no listener and be
 * refused; the request would come back to its sender as a stray REQ.
 */
static int
softrdma_cm_self_connected(int fd)
{
	struct sockaddr_in local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);

	return !getsockname(fd, (struct sockaddr *)&local, &llen) &&
	       !getpeername(fd, (struct sockaddr *)&peer, &plen) &&
	       local.sin_addr.s_addr == peer.sin_addr.s_addr && local.sin_port == peer.sin_port;
}

/* The id's connection failed or closed (CM thread, cm.lock held). */
static void
softrdma_cm_conn_lost(struct softrdma_cm_id *id, int err)
{
	switch (id->state) {
	case CM_CONNECTING:
		softrdma_cm_close_fd(id);
		if (err == ECONNREFUSED && id->tcp_connecting &&
		    softrdma_cm_now() < id->refuse_until) {
			/* the listener may not be up yet: try again shortly */
			id->retry_at = softrdma_cm_now() + SOFTRDMA_CM_RETRY_NS;
			return;
		}
		id->state = CM_ERROR;
		id->deadline = 0;
		id->retry_at = 0;
		if (err == ECONNREFUSED)
			softrdma_cm_event(id, NULL, RDMA_CM_EVENT_REJECTED, 8, NULL, 0);
		else if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH)
			softrdma_cm_event(id, NULL, RDMA_CM_EVENT_UNREACHABLE, -err, NULL, 0);
		else
			softrdma_cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0);
		break;
	case CM_ACCEPTING:
		softrdma_cm_close_fd(id);
		id->state = CM_ERROR;
		softrdma_cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0);
		break;
	case CM_ESTABLISHED:
	case CM_DISCONNECTING:
	case CM_RESPONSE:
		softrdma_cm_disconnected(id);
		break;
	default:
		softrdma_cm_close_fd(id);
		if (id->state == CM_REQ_WAIT && id->listen) {
			/* never announced: forget it */
			softrdma_cm_pend_drop(id);
			return;
		}
		id->state = CM_ERROR;
		break;
	}
}

/* Socket events of one id (CM thread, cm.lock held). */
static void
softrdma_cm_on_io(struct softrdma_cm_id *id, uint32_t ev)
{
	if (id->state == CM_LISTEN) {
		softrdma_cm_accept(id);
		return;
	}
	if (id->fd < 0)
		return;
	if (id->tcp_connecting && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		int err = 0;
		socklen_t len = sizeof(err);
		struct sockaddr_in local;

		getsockopt(id->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (!err && softrdma_cm_self_connected(id->fd))
			err = ECONNREFUSED; /* nobody listens there */
		if (err) {
			softrdma_cm_conn_lost(id, err);
			return;
		}
		id->tcp_connecting = 0;
		len = sizeof(local);
		if (!getsockname(id->fd, (struct sockaddr *)&local, &len)) {
			local.sin_port = softrdma_cm_rdma_port(local.sin_port);
			softrdma_cm_set_addrs(id, &local, NULL);
		}
		softrdma_cm_watch(id, EPOLLIN, 0);
		err = softrdma_cm_send(id, &id->out_req);
		if (err) {
			softrdma_cm_conn_lost(id, err);
			return;
		}
	}
	while (id->fd >= 0 && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		ssize_t n =
		    recv(id->fd, id->rbuf + id->rhave, sizeof(id->rbuf) - id->rhave, MSG_DONTWAIT);
		struct softrdma_cm_msg m;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			softrdma_cm_conn_lost(id, n < 0 ? errno : ECONNRESET);
			return;
		}
		id->rhave += n;
		if (id->rhave < sizeof(m))
			continue;
		memcpy(&m, id->rbuf, sizeof(m));
		id->rhave = 0;
		if (softrdma__cm_msg_check(&m) || softrdma_cm_on_msg(id, &m)) {
			/* malformed or out-of-order message: drop the connection */
			softrdma_cm_conn_lost(id, EPROTO);
			return;
		}
		if (id->state != CM_REQ_WAIT)
			softrdma_cm_pend_del(id); /* its request came */
	}
}

/*
 * A listener paused for want of descriptors: watch it again once its pause
 * is over, or add the pause's end to *@next (CM thread, cm.lock held).
 */
static void
softrdma_cm_listen_timer(struct softrdma_cm_id *l, uint64_t now, uint64_t *next)
{
	if (!l->retry_at)
		return;
	if (now >= l->retry_at) {
		l->retry_at = 0;
		if (!softrdma_cm_watch(l, EPOLLIN, 1))
			return;
		l->retry_at = now + SOFTRDMA_ACCEPT_PAUSE_NS;
	}
	if (!*next || l->retry_at < *next)
		*next = l->retry_at;
}

/*
 * Run the timers (CM thread, cm.lock held): retry refused connects, report
 * UNREACHABLE when the REQ was never acknowledged, close pending passive
 * connections whose request is late, resume paused listeners. Returns the
 * epoll timeout in milliseconds until the next timer, -1 when none.
 */
static int
softrdma_cm_timers(void)
{
	uint64_t now = softrdma_cm_now(), next = softrdma_cm_pend_timers(now);
	struct softrdma_list *n, *nx;
	int err;

	for (n = cm.ids.next; n != &cm.ids; n = nx) {
		struct softrdma_cm_id *id = SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node);

		nx = n->next;
		if (id->state == CM_LISTEN)
			softrdma_cm_listen_timer(id, now, &next);
		if (id->state != CM_CONNECTING)
			continue;
		if (id->deadline && now >= id->deadline) {
			id->tcp_connecting = 0;
			softrdma_cm_conn_lost(id, ETIMEDOUT);
			continue;
		}
		if (id->retry_at && now >= id->retry_at) {
			id->retry_at = 0;
			err = softrdma_cm_tcp_connect(id);
			if (err) {
				id->tcp_connecting = 1;
				softrdma_cm_conn_lost(id, err);
			}
		}
		if (id->state != CM_CONNECTING)
			continue;
		if (id->deadline && (!next || id->deadline < next))
			next = id->deadline;
		if (id->retry_at && (!next || id->retry_at < next))
			next = id->retry_at;
	}
	if (!next)
		return -1;
	now = softrdma_cm_now();
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}

/* Body of the CM thread. */
static void *
softrdma_cm_thread(void *arg)
{
	struct epoll_event evs[32];
	int n, i, timeout = -1;

	(void)arg;
	softrdma__block_signals();
	for (;;) {
		n = epoll_wait(cm.epfd, evs, 32, timeout);
		if (n < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&cm.lock);
		for (i = 0; i < n; i++) {
			struct softrdma_list *it;
			void *p = evs[i].data.ptr;
			int alive = 0;

			if (p == &softrdma_cm_wake_tag) {
				uint64_t v;

				if (read(cm.wakefd, &v, sizeof(v)) < 0) {
					/* already drained */
				}
				continue;
			}
			/* the id may have been destroyed since epoll_wait returned */
			for (it = cm.ids.next; it != &cm.ids; it = it->next)
				if (SOFTRDMA_CONTAINER_OF(it, struct softrdma_cm_id, node) == p)
					alive = 1;
			if (alive)
				softrdma_cm_on_io(p, evs[i].events);
		}
		timeout = softrdma_cm_timers();
		pthread_mutex_unlock(&cm.lock);
	}
	return NULL;
}

/* fork(), before: the CM's state is whole in the copy (cm.lock comes first). */
static void
softrdma_cm_fork_prepare(void)
{
	pthread_mutex_lock(&cm.lock);
	softrdma__evq_fork_prepare();
}

/* fork(), in the parent. */
static void
softrdma_cm_fork_parent(void)
{
	softrdma__evq_fork_parent();
	pthread_mutex_unlock(&cm.lock);
}

/*
 * Forked child: @id is the parent's. Close the child's reference to its
 * socket (no shutdown, no message: the parent's connection and its peer see
 * nothing), stop its timers and take it off the list of ids.
 */
static void
softrdma_cm_id_disown(struct softrdma_cm_id *id)
{
	if (id->fd >= 0)
		close(id->fd);
	id->fd = -1;
	id->state = CM_ERROR;
	id->deadline = 0;
	id->retry_at = 0;
	id->inherited = 1;
	softrdma__list_init(&id->node);
}

/*
 * fork(), in the child: a CM of its own on first use (thread, epoll set,
 * device context); the parent's channels and ids are disowned, and the
 * context and PD the parent's CM opened are left to the parent's objects
 * that point to them.
 */
static void
softrdma_cm_fork_child(void)
{
	struct softrdma_list *n, *next;
	int dead = softrdma__fd_dead_open();

	softrdma__evq_fork_child(dead);
	if (dead >= 0)
		close(dead);
	pthread_cond_init(&cm.cond, NULL);
	/* held since prepare, by this very thread: released, not made anew */
	pthread_mutex_unlock(&cm.lock);
	if (!cm.started)
		return;
	for (n = cm.ids.next; n != &cm.ids; n = next) {
		next = n->next;
		softrdma_cm_id_disown(SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node));
	}
	softrdma__list_init(&cm.ids);
	softrdma__list_init(&cm.pending);
	cm.npending = 0;
	close(cm.wakefd);
	close(cm.epfd);
	cm.wakefd = -1;
	cm.epfd = -1;
	cm.verbs = NULL;
	cm.pd = NULL;
	cm.started = 0;
}

/*
 * Register the fork handlers when the library is loaded. libibverbs, which
 * this library depends on, registered its own first, so this prepare
 * handler runs before its: cm.lock is taken before the verbs' locks, as
 * the CM does everywhere.
 */
__attribute__((constructor)) static void
softrdma_cm_fork_register(void)
{
	if (pthread_atfork(softrdma_cm_fork_prepare, softrdma_cm_fork_parent,
			   softrdma_cm_fork_child)) {
		/* out of memory at load time: fork() then leaves a child unusable */
	}
}
