/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_softrdma_cm.c -- the messages of softrdma's connection manager (REQ
 * with private data, MRA, REP, REJ, RTU, DREQ, DREP), read from its TCP
 * connections by softrdma's own CM thread.
 *
 * The CM's sources (cm*.c) are linked into this harness, which sees the
 * CM's state (cm_int.h) under softrdma__cm.lock (which connection is whose,
 * and whether the CM read all that was written); the CM runs as it does in
 * librdmacm.so.1.
 *
 * An input is a stream of CM messages (fixed size), written one message at
 * a time on one CM connection, each after the CM read the previous one and
 * the harness reacted to its events as an application does: it accepts a
 * connection request (with a QP), creates a QP and establishes after a
 * connect response, and disconnects first when the next message is a DREP.
 * An input whose first message is a REQ goes to the CM's listener (the
 * passive side); any other is the answer to a connect of the CM to the
 * harness (the active side), with a QP when the input's length is even,
 * without one (connect response, rdma_establish) when it is odd. The QP
 * number of a REQ or REP in range becomes the sink's, so that the data
 * connection of a QP never goes to a port the input names.
 *
 * Properties:
 * - no sanitizer report, no hang (every message is read within 10 s);
 * - softrdma__cm_msg_check() accepts a message exactly when it follows the
 *   rules of cm.h, and a message it rejects ends that CM connection;
 * - events come in an order an application can rely on: the connection
 *   request first, at most one ESTABLISHED, nothing after REJECTED,
 *   CONNECT_ERROR, UNREACHABLE or DISCONNECTED, DISCONNECTED only when
 *   connected; the request names the listener;
 * - an event's private data is the whole field of its message type (56,
 *   196 or 148 bytes), the message's data then zeros, with the message's
 *   parameters; events without a message carry none;
 * - every message the CM sends passes softrdma__cm_msg_check();
 * - the healthy pair still moves data after every input, and the listener
 *   still connects a real pair of ids (request, accept, established,
 *   disconnect, disconnected on both sides) after every 64th input, or
 *   after every one with SOFTRDMA_FUZZ_DEEP=1 in the environment.
 */

#define _GNU_SOURCE
#include "cm_int.h"

#include <poll.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rc_qp.h"
#include "softrdma_fuzz.h"

#define MSG_LEN	 sizeof(struct softrdma_cm_msg)
#define MAX_MSGS 16

/* the state of one input: its connection, the id the CM gives it, what happened */
struct cm_run {
	int fd;
	int active;
	uint16_t port;	       /* local port of @fd */
	struct rdma_cm_id *id; /* the CM's id of this connection, once known */
	const uint8_t *last;   /* the last complete message written */
	int seen;	       /* events seen, by type bit */
	int done;	       /* a final event was seen */
	uint8_t rx[MSG_LEN];   /* a message the CM is sending */
	size_t rxhave;
};

static int Deep;
static unsigned long Runs;
static struct rdma_event_channel *Chl, *Cha;
static struct rdma_cm_id *L;
static uint16_t Lport;
static int Sfd = -1;
static uint16_t Sport;
static const uint8_t Pdata[SOFTRDMA_CM_REP_PDATA] = "softrdma cm fuzz: private data of the harness";

/* cm_ref_valid -- the rules of cm.h for a received message */
static int
cm_ref_valid(const uint8_t *m)
{
	uint32_t magic, qpn;
	uint8_t type = m[offsetof(struct softrdma_cm_msg, type)];
	uint8_t len = m[offsetof(struct softrdma_cm_msg, pdata_len)];

	memcpy(&magic, m + offsetof(struct softrdma_cm_msg, magic), 4);
	memcpy(&qpn, m + offsetof(struct softrdma_cm_msg, qpn), 4);
	if (le32toh(magic) != SOFTRDMA_CM_MAGIC || le32toh(qpn) > 0xffffff)
		return 0;
	switch (type) {
	case SOFTRDMA_CM_REQ:
		return len <= SOFTRDMA_CM_REQ_PDATA;
	case SOFTRDMA_CM_REP:
		return len <= SOFTRDMA_CM_REP_PDATA;
	case SOFTRDMA_CM_REJ:
		return len <= SOFTRDMA_CM_REJ_PDATA;
	case SOFTRDMA_CM_RTU:
	case SOFTRDMA_CM_DREQ:
	case SOFTRDMA_CM_DREP:
	case SOFTRDMA_CM_MRA:
		return len == 0;
	default:
		return 0;
	}
}

/* cm_check -- softrdma__cm_msg_check on a copy of @m, compared with the rules */
static int
cm_check(const uint8_t *m)
{
	struct softrdma_cm_msg copy;
	int r;

	memcpy(&copy, m, sizeof(copy));
	r = softrdma__cm_msg_check(&copy);
	fuzz_assert(r == 0 || r == EPROTO);
	fuzz_assert((r == 0) == cm_ref_valid(m));
	return r;
}

/* cm_fixup -- a REQ or REP naming a QP in range names the sink instead */
static void
cm_fixup(uint8_t *m)
{
	uint8_t type = m[offsetof(struct softrdma_cm_msg, type)];
	uint32_t qpn;

	memcpy(&qpn, m + offsetof(struct softrdma_cm_msg, qpn), 4);
	if ((type == SOFTRDMA_CM_REQ || type == SOFTRDMA_CM_REP) && le32toh(qpn) <= 0xffffff) {
		qpn = htole32(sfz_sink_qpn());
		memcpy(m + offsetof(struct softrdma_cm_msg, qpn), &qpn, 4);
	}
}

/* cm_drain -- read what the CM sent on the connection, each message valid; 1 on EOF */
static int
cm_drain(struct cm_run *x)
{
	for (;;) {
		ssize_t n = recv(x->fd, x->rx + x->rxhave, MSG_LEN - x->rxhave, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return 1;
		x->rxhave += n;
		if (x->rxhave < MSG_LEN)
			continue;
		x->rxhave = 0;
		fuzz_assert(cm_check(x->rx) == 0);
	}
}

/* cm_check_pdata -- an event's private data and parameters against the message behind it */
static void
cm_check_pdata(const struct cm_run *x, const struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *p = &ev->param.conn;
	const uint8_t *m = x->last;
	uint8_t type, len;
	unsigned field;
	uint32_t qpn;

	if (!p->private_data_len) {
		fuzz_assert(ev->event != RDMA_CM_EVENT_CONNECT_REQUEST &&
			    ev->event != RDMA_CM_EVENT_CONNECT_RESPONSE);
		return;
	}
	fuzz_assert(m != NULL);
	type = m[offsetof(struct softrdma_cm_msg, type)];
	len = m[offsetof(struct softrdma_cm_msg, pdata_len)];
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		fuzz_assert(type == SOFTRDMA_CM_REQ);
		field = SOFTRDMA_CM_REQ_PDATA;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_ESTABLISHED:
		fuzz_assert(type == SOFTRDMA_CM_REP);
		field = SOFTRDMA_CM_REP_PDATA;
		break;
	case RDMA_CM_EVENT_REJECTED:
		fuzz_assert(type == SOFTRDMA_CM_REJ);
		field = SOFTRDMA_CM_REJ_PDATA;
		break;
	default:
		sfz_fail("event %d with private data", ev->event);
	}
	fuzz_assert(p->private_data_len == field && len <= field);
	fuzz_assert(!memcmp(p->private_data, m + offsetof(struct softrdma_cm_msg, pdata), len));
	for (unsigned i = len; i < field; i++)
		fuzz_assert(((const uint8_t *)p->private_data)[i] == 0);
	memcpy(&qpn, m + offsetof(struct softrdma_cm_msg, qpn), 4);
	fuzz_assert(p->qp_num == le32toh(qpn));
	fuzz_assert(p->responder_resources ==
		    m[offsetof(struct softrdma_cm_msg, responder_resources)]);
	fuzz_assert(p->rnr_retry_count == m[offsetof(struct softrdma_cm_msg, rnr_retry)]);
}

/*
 * cm_conn_param -- connection parameters with @len bytes of the harness's
 * private data, and transport retries without limit
 */
static struct rdma_conn_param
cm_conn_param(uint8_t len)
{
	struct rdma_conn_param p = rc_conn_param(Pdata, len);

	p.retry_count = 7;
	return p;
}

/* cm_track -- one event of this input's id: the order an application relies on */
static void
cm_track(struct cm_run *x, const struct rdma_cm_event *ev)
{
	int bit = 1 << ev->event;

	fuzz_assert(!x->done);
	if (!x->active)
		fuzz_assert((ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) == !x->seen);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		fuzz_assert(!(x->seen & bit));
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		fuzz_assert(!x->active || (x->seen & (1 << RDMA_CM_EVENT_ESTABLISHED |
						      1 << RDMA_CM_EVENT_CONNECT_RESPONSE)));
		x->done = 1;
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		x->done = 1;
		break;
	default:
		sfz_fail("unexpected event %d", ev->event);
	}
	x->seen |= bit;
}

/* cm_react -- what an application does on an event of this input's id */
static void
cm_react(struct cm_run *x, struct rdma_cm_event *ev)
{
	struct ibv_qp_init_attr a = sfz_qp_attr(4, 4, 1, 0);
	struct rdma_conn_param p = cm_conn_param(SOFTRDMA_CM_REP_PDATA);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		x->id = ev->id;
		if (!rdma_create_qp(ev->id, NULL, &a))
			rdma_accept(ev->id, &p);
	} else if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE && !ev->id->qp) {
		if (!rdma_create_qp(ev->id, NULL, &a))
			rdma_establish(ev->id);
	}
}

/* cm_events -- take, check, answer and acknowledge every queued event; how many */
static int
cm_events(struct cm_run *x)
{
	struct rdma_event_channel *chs[2] = {Chl, Cha};
	int n = 0;

	for (int i = 0; i < 2; i++) {
		struct pollfd p = {.fd = chs[i]->fd, .events = POLLIN};
		struct rdma_cm_event *ev;

		while (poll(&p, 1, 0) == 1) {
			if (rdma_get_cm_event(chs[i], &ev))
				sfz_fail("rdma_get_cm_event: %s", strerror(errno));
			n++;
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				fuzz_assert(ev->listen_id == L && ev->id != L);
			if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
				fuzz_assert(ev->id == x->id);
			cm_check_pdata(x, ev);
			cm_track(x, ev);
			cm_react(x, ev);
			rdma_ack_cm_event(ev);
		}
	}
	return n;
}

/* cm_find_passive -- the CM's id of the connection from local port @port (softrdma__cm.lock held)
 */
static struct softrdma_cm_id *
cm_find_passive(uint16_t port)
{
	struct softrdma_list *n;

	for (n = softrdma__cm.ids.next; n != &softrdma__cm.ids; n = n->next) {
		struct softrdma_cm_id *id = SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node);
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);

		if (id->listen == (struct softrdma_cm_id *)L && id->fd >= 0 &&
		    !getpeername(id->fd, (struct sockaddr *)&peer, &len) &&
		    ntohs(peer.sin_port) == port)
			return id;
	}
	return NULL;
}

/* cm_consumed -- the CM read everything written on this input's connection */
static int
cm_consumed(const struct cm_run *x)
{
	struct softrdma_cm_id *id;
	int pending = 1;

	pthread_mutex_lock(&softrdma__cm.lock);
	id = x->active ? (struct softrdma_cm_id *)x->id : cm_find_passive(x->port);
	if (id && id->fd >= 0 && !id->tcp_connecting && ioctl(id->fd, FIONREAD, &pending))
		pending = 1;
	pthread_mutex_unlock(&softrdma__cm.lock);
	return id && !pending;
}

/* cm_settle -- wait until the CM read the last message and its events were handled; 1: closed */
static int
cm_settle(struct cm_run *x)
{
	uint64_t end = sfz_now_ms() + 10000;

	for (;;) {
		struct pollfd p[3] = {{.fd = x->fd, .events = POLLIN},
				      {.fd = Chl->fd, .events = POLLIN},
				      {.fd = Cha->fd, .events = POLLIN}};
		int consumed;

		if (cm_drain(x)) {
			/* the CM thread queues its events before it lets softrdma__cm.lock go */
			pthread_mutex_lock(&softrdma__cm.lock);
			pthread_mutex_unlock(&softrdma__cm.lock);
			cm_events(x);
			return 1;
		}
		consumed = cm_consumed(x);
		if (!cm_events(x) && consumed)
			return 0;
		if (sfz_now_ms() > end)
			sfz_fail("cm: message not read in 10 s");
		poll(p, 3, 1);
	}
}

/* cm_write -- write @len bytes on the input's connection; 1 when it is closed */
static int
cm_write(struct cm_run *x, const uint8_t *m, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(x->fd, m + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			usleep(100);
			continue;
		}
		if (n <= 0)
			return 1;
		off += n;
	}
	return 0;
}

/* cm_stream -- write the input message by message, reacting as an application */
static void
cm_stream(struct cm_run *x, uint8_t *buf, size_t size)
{
	for (size_t off = 0; off < size; off += MSG_LEN) {
		size_t len = size - off < MSG_LEN ? size - off : MSG_LEN;
		uint8_t *m = buf + off;
		int valid = 1;

		if (len == MSG_LEN) {
			cm_fixup(m);
			valid = cm_check(m) == 0;
			if (m[offsetof(struct softrdma_cm_msg, type)] == SOFTRDMA_CM_DREP &&
			    x->id && (x->seen & (1 << RDMA_CM_EVENT_ESTABLISHED)) && !x->done)
				rdma_disconnect(x->id); /* the peer answers our DREQ */
		}
		if (cm_write(x, m, len))
			return;
		if (len == MSG_LEN)
			x->last = m;
		if (cm_settle(x))
			return;
		/* a message the check rejects ends the connection */
		fuzz_assert(valid);
	}
}

/* cm_sockport -- the local port of socket @fd */
static uint16_t
cm_sockport(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len))
		sfz_fail("getsockname: %s", strerror(errno));
	return ntohs(sin.sin_port);
}

/* cm_wait -- the next event on @ch within 10 s, which must be of @type */
static struct rdma_cm_event *
cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct pollfd p = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;

	if (poll(&p, 1, 10000) != 1 || rdma_get_cm_event(ch, &ev))
		sfz_fail("cm: no %s in 10 s", rdma_event_str(type));
	if (ev->event != type)
		sfz_fail("cm: %s instead of %s", rdma_event_str(ev->event), rdma_event_str(type));
	return ev;
}

/* cm_active_id -- an id on Cha resolved towards 127.0.0.1:@port (QP on it if @qp) */
static struct rdma_cm_id *
cm_active_id(uint16_t port, int qp)
{
	struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct ibv_qp_init_attr a = sfz_qp_attr(4, 4, 1, 0);
	struct rdma_cm_id *id;

	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (rdma_create_id(Cha, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000))
		sfz_fail("cm: cannot resolve: %s", strerror(errno));
	rdma_ack_cm_event(cm_wait(Cha, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 1000))
		sfz_fail("cm: cannot resolve the route: %s", strerror(errno));
	rdma_ack_cm_event(cm_wait(Cha, RDMA_CM_EVENT_ROUTE_RESOLVED));
	if (qp && rdma_create_qp(id, NULL, &a))
		sfz_fail("cm: rdma_create_qp: %s", strerror(errno));
	return id;
}

/*
 * cm_destroy -- destroy an id the harness owns, then its QP: the CM may act
 * on an id's QP (a disconnect moves it to error) until the id is gone. Its
 * events still queued go with it: no channel may stay readable for them.
 */
static void
cm_destroy(struct rdma_cm_id *id)
{
	struct pollfd p[2] = {{.fd = Chl->fd, .events = POLLIN}, {.fd = Cha->fd, .events = POLLIN}};
	struct ibv_qp *qp = id->qp;

	rdma_destroy_id(id);
	if (qp)
		sfz_qp_destroy(qp);
	fuzz_assert(poll(p, 2, 0) == 0);
}

/*
 * cm_hang_up -- close the input's connection and wait until the CM noticed,
 * leaving the events that follow (DISCONNECTED...) queued for the destroy
 */
static void
cm_hang_up(struct cm_run *x)
{
	uint64_t end = sfz_now_ms() + 10000;
	int open = 1;

	close(x->fd);
	while (x->id && open) {
		pthread_mutex_lock(&softrdma__cm.lock);
		open = ((struct softrdma_cm_id *)x->id)->fd >= 0;
		pthread_mutex_unlock(&softrdma__cm.lock);
		if (sfz_now_ms() > end)
			sfz_fail("cm: a closed connection not noticed in 10 s");
		usleep(100);
	}
}

/* cm_passive -- the input goes to the CM's listener */
static void
cm_passive(uint8_t *buf, size_t size)
{
	struct cm_run x = {0};

	x.fd = sfz_tcp_connect(Lport);
	x.port = cm_sockport(x.fd);
	cm_stream(&x, buf, size);
	cm_hang_up(&x);
	if (x.id)
		cm_destroy(x.id);
}

/* cm_active -- the input answers a connect of the CM to the harness */
static void
cm_active(uint8_t *buf, size_t size, int with_qp)
{
	struct rdma_conn_param p = cm_conn_param(SOFTRDMA_CM_REQ_PDATA);
	struct cm_run x = {0};
	uint8_t req[MSG_LEN];
	struct softrdma_cm_msg m;

	x.active = 1;
	x.id = cm_active_id(Sport, with_qp);
	if (rdma_connect(x.id, &p))
		sfz_fail("cm: rdma_connect: %s", strerror(errno));
	x.fd = sfz_accept(Sfd, 5000);
	if (x.fd < 0 || sfz_read_full(x.fd, req, sizeof(req), 5000))
		sfz_fail("cm: no connect request in 5 s");
	fuzz_assert(cm_check(req) == 0);
	memcpy(&m, req, sizeof(m));
	softrdma__cm_msg_check(&m);
	fuzz_assert(m.type == SOFTRDMA_CM_REQ && m.pdata_len == SOFTRDMA_CM_REQ_PDATA);
	fuzz_assert(!memcmp(m.pdata, Pdata, SOFTRDMA_CM_REQ_PDATA));
	fuzz_assert(m.qpn == (with_qp ? x.id->qp->qp_num : 0));
	x.port = cm_sockport(x.fd);
	cm_stream(&x, buf, size);
	cm_hang_up(&x);
	cm_destroy(x.id);
}

/*
 * cm_healthy -- the listener still connects a real pair: request, accept,
 * established on both sides, disconnect, disconnected on both sides
 */
static void
cm_healthy(void)
{
	struct rdma_conn_param p = cm_conn_param(8);
	struct ibv_qp_init_attr a = sfz_qp_attr(4, 4, 1, 0);
	struct rdma_cm_id *act = cm_active_id(Lport, 1), *pas;
	struct rdma_cm_event *ev;

	if (rdma_connect(act, &p))
		sfz_fail("cm healthy: rdma_connect: %s", strerror(errno));
	ev = cm_wait(Chl, RDMA_CM_EVENT_CONNECT_REQUEST);
	pas = ev->id;
	rdma_ack_cm_event(ev);
	if (rdma_create_qp(pas, NULL, &a) || rdma_accept(pas, &p))
		sfz_fail("cm healthy: accept: %s", strerror(errno));
	rdma_ack_cm_event(cm_wait(Cha, RDMA_CM_EVENT_ESTABLISHED));
	rdma_ack_cm_event(cm_wait(Chl, RDMA_CM_EVENT_ESTABLISHED));
	if (rdma_disconnect(act))
		sfz_fail("cm healthy: rdma_disconnect: %s", strerror(errno));
	rdma_ack_cm_event(cm_wait(Cha, RDMA_CM_EVENT_DISCONNECTED));
	rdma_ack_cm_event(cm_wait(Chl, RDMA_CM_EVENT_DISCONNECTED));
	cm_destroy(act);
	cm_destroy(pas);
}

/* cm_drain_cqs -- forget the completions (flushes) of the QPs of one input */
static void
cm_drain_cqs(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(sfz.scq, 16, wc) > 0)
		;
	while (ibv_poll_cq(sfz.rcq, 16, wc) > 0)
		;
}

/* LLVMFuzzerInitialize -- the environment, the CM's listener, the harness's CM port */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};

	(void)argc;
	(void)argv;
	Deep = getenv("SOFTRDMA_FUZZ_DEEP") != NULL;
	setenv("SOFTRDMA_CM_PORT_OFFSET", "0", 1);
	sfz_env_init("tcp", 1);
	Chl = rdma_create_event_channel();
	Cha = rdma_create_event_channel();
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!Chl || !Cha || rdma_create_id(Chl, &L, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(L, (struct sockaddr *)&sin) || rdma_listen(L, 128))
		sfz_fail("cm: cannot listen: %s", strerror(errno));
	Lport = ntohs(rdma_get_src_port(L));
	Sfd = sfz_tcp_listen(&Sport);
	cm_healthy();
	sfz_healthy_check();
	return 0;
}

/* LLVMFuzzerTestOneInput -- one stream of CM messages, to the listener or to a connect */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < MAX_MSGS * MSG_LEN ? size : MAX_MSGS * MSG_LEN;
	uint8_t *buf = malloc(n + 1);

	fuzz_assert(buf != NULL);
	memcpy(buf, data, n);
	if (n <= offsetof(struct softrdma_cm_msg, type) ||
	    buf[offsetof(struct softrdma_cm_msg, type)] == SOFTRDMA_CM_REQ)
		cm_passive(buf, n);
	else
		cm_active(buf, n, size % 2 == 0);
	cm_drain_cqs();
	if (Deep || ++Runs % 64 == 0)
		cm_healthy();
	sfz_healthy_check();
	free(buf);
	return 0;
}
