/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_rdmacm.c -- librdmacm mocks: address info, CM ids, event channels
 * with a queue of CM events, QPs on ids and connection management
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "mocks_internal.h"

#define CM_EVENT_QUEUE_MAX 256

/* captured arguments (see mocks.h) */
struct rdma_conn_param mock_last_conn_param;
unsigned char mock_last_pdata[256];
uint8_t mock_last_pdata_len;
struct ibv_qp_init_attr_ex mock_last_qp_init_attr;

/* a fake CM event with room for its private data */
struct mock_cm_event {
	struct rdma_cm_event ev;
	unsigned char pdata[256];
};

/* a fake address info with room for its address */
struct mock_addrinfo {
	struct rdma_addrinfo rai;
	struct sockaddr_in sin;
};

static struct mock_cm_event *Cm_queue[CM_EVENT_QUEUE_MAX];
static int Cm_head;
static int Cm_num;
static struct rdma_cm_id *Last_req_id;
static struct rdma_cm_event *Last_event;

/* sockaddr_len -- size of a socket address of the family of addr */
static size_t
sockaddr_len(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					   : sizeof(struct sockaddr_in);
}

/* id_new -- a fake CM id */
static struct rdma_cm_id *
id_new(struct rdma_event_channel *channel, void *context, enum rdma_port_space ps)
{
	struct rdma_cm_id *id = mock_obj_new(sizeof(*id), "cm_id");

	id->verbs = mock_ibv_context();
	id->channel = channel;
	id->context = context;
	id->ps = ps;
	id->port_num = 1;
	id->qp_type = (ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB) ? IBV_QPT_UD : IBV_QPT_RC;

	return id;
}

/* mock_cm_push_event -- queue a CM event for rdma_get_cm_event */
void
mock_cm_push_event(enum rdma_cm_event_type type, struct rdma_cm_id *id, const void *pdata,
		   uint8_t len)
{
	if (Cm_num == CM_EVENT_QUEUE_MAX)
		mock_die("too many CM events queued");

	struct mock_cm_event *e = mock_obj_new(sizeof(*e), "cm_event");

	e->ev.event = type;
	e->ev.status = 0;
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		e->ev.listen_id = id;
		e->ev.id = id_new(id != NULL ? id->channel : NULL, id != NULL ? id->context : NULL,
				  id != NULL ? id->ps : RDMA_PS_TCP);
		Last_req_id = e->ev.id;
	} else {
		e->ev.id = id;
	}
	if (pdata != NULL && len > 0) {
		memcpy(e->pdata, pdata, len);
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = len;
	}

	Cm_queue[(Cm_head + Cm_num) % CM_EVENT_QUEUE_MAX] = e;
	Cm_num++;
}

/* mock_cm_last_req_id -- id made by the last pushed CONNECT_REQUEST */
struct rdma_cm_id *
mock_cm_last_req_id(void)
{
	return Last_req_id;
}

/* mock_cm_last_event -- the event rdma_get_cm_event returned last */
struct rdma_cm_event *
mock_cm_last_event(void)
{
	return Last_event;
}

static bool Bind_no_device;

/* mock_rdmacm_reset -- drop the queued events and the captures */
void
mock_rdmacm_reset(void)
{
	Bind_no_device = false;
	while (Cm_num > 0) {
		mock_obj_destroy(Cm_queue[Cm_head], "cm_event", "mock_reset");
		Cm_head = (Cm_head + 1) % CM_EVENT_QUEUE_MAX;
		Cm_num--;
	}
	Cm_head = 0;
	Last_req_id = NULL;
	Last_event = NULL;

	memset(&mock_last_conn_param, 0, sizeof(mock_last_conn_param));
	memset(mock_last_pdata, 0, sizeof(mock_last_pdata));
	mock_last_pdata_len = 0;
	memset(&mock_last_qp_init_attr, 0, sizeof(mock_last_qp_init_attr));
}

/* capture_pdata -- copy private data to mock_last_pdata */
static const void *
capture_pdata(const void *pdata, uint8_t len)
{
	memset(mock_last_pdata, 0, sizeof(mock_last_pdata));
	mock_last_pdata_len = pdata != NULL ? len : 0;
	if (mock_last_pdata_len == 0)
		return NULL;
	memcpy(mock_last_pdata, pdata, len);

	return mock_last_pdata;
}

/* capture_conn_param -- copy conn_param and its private data */
static void
capture_conn_param(const struct rdma_conn_param *param)
{
	memset(&mock_last_conn_param, 0, sizeof(mock_last_conn_param));
	if (param == NULL) {
		(void)capture_pdata(NULL, 0);
		return;
	}
	mock_last_conn_param = *param;
	mock_last_conn_param.private_data =
	    capture_pdata(param->private_data, param->private_data_len);
}

/*
 * rdma_getaddrinfo -- one AF_INET address (node if it is a numeric IPv4
 * address, else 127.0.0.1; 0.0.0.0 for a passive NULL node), port service;
 * ai_src_addr for RAI_PASSIVE hints, ai_dst_addr otherwise
 */
int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	int err;

	if (mock_enter("rdma_getaddrinfo", &err)) {
		errno = err;
		return -1;
	}

	struct mock_addrinfo *ai = mock_obj_new(sizeof(*ai), "addrinfo");
	bool passive = hints != NULL && (hints->ai_flags & RAI_PASSIVE);

	ai->sin.sin_family = AF_INET;
	ai->sin.sin_port = htons(service != NULL ? (uint16_t)strtoul(service, NULL, 10) : 0);
	if (node == NULL)
		ai->sin.sin_addr.s_addr = htonl(passive ? INADDR_ANY : INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, node, &ai->sin.sin_addr) != 1)
		ai->sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	ai->rai.ai_flags = hints != NULL ? hints->ai_flags : 0;
	ai->rai.ai_family = AF_INET;
	ai->rai.ai_qp_type = hints != NULL && hints->ai_qp_type ? hints->ai_qp_type : IBV_QPT_RC;
	ai->rai.ai_port_space =
	    hints != NULL && hints->ai_port_space ? hints->ai_port_space : RDMA_PS_TCP;
	if (passive) {
		ai->rai.ai_src_addr = (struct sockaddr *)&ai->sin;
		ai->rai.ai_src_len = sizeof(ai->sin);
	} else {
		ai->rai.ai_dst_addr = (struct sockaddr *)&ai->sin;
		ai->rai.ai_dst_len = sizeof(ai->sin);
	}
	*res = &ai->rai;

	return 0;
}

/* rdma_freeaddrinfo -- free a result of rdma_getaddrinfo (NULL is ok) */
void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	int err;

	(void)mock_enter("rdma_freeaddrinfo", &err);
	while (res != NULL) {
		struct rdma_addrinfo *next = res->ai_next;

		mock_obj_destroy(res, "addrinfo", "rdma_freeaddrinfo");
		res = next;
	}
}

/* rdma_create_event_channel -- a fake channel with a real (eventfd) fd */
struct rdma_event_channel *
rdma_create_event_channel(void)
{
	int err;

	if (mock_enter("rdma_create_event_channel", &err)) {
		errno = err;
		return NULL;
	}

	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return NULL;

	struct rdma_event_channel *ch = mock_obj_new(sizeof(*ch), "event_channel");

	ch->fd = fd;

	return ch;
}

/* rdma_destroy_event_channel -- close the fd and free the channel */
void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	int err;

	(void)mock_enter_obj("rdma_destroy_event_channel", channel, "event_channel", &err);
	close(channel->fd);
	mock_obj_destroy(channel, "event_channel", "rdma_destroy_event_channel");
}

/* rdma_create_id -- a fake CM id on channel */
int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
	       enum rdma_port_space ps)
{
	int err;

	if (mock_enter("rdma_create_id", &err)) {
		errno = err;
		return -1;
	}
	*id = id_new(channel, context, ps);

	return 0;
}

/* rdma_destroy_id -- free a fake CM id (not its QP, as the real one) */
int
rdma_destroy_id(struct rdma_cm_id *id)
{
	int err;

	if (mock_enter_obj("rdma_destroy_id", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	if (Last_req_id == id)
		Last_req_id = NULL;
	mock_obj_destroy(id, "cm_id", "rdma_destroy_id");

	return 0;
}

/* mock_cm_bind_no_device -- see mocks.h */
void
mock_cm_bind_no_device(bool on)
{
	Bind_no_device = on;
}

/* rdma_bind_addr -- record addr as the source address of id */
int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int err;

	if (mock_enter_obj("rdma_bind_addr", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	if (addr != NULL)
		memcpy(&id->route.addr.src_addr, addr, sockaddr_len(addr));
	if (Bind_no_device)
		id->verbs = NULL;

	return 0;
}

/* rdma_resolve_addr -- record the addresses of id */
int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		  int timeout_ms)
{
	int err;

	(void)timeout_ms;
	if (mock_enter_obj("rdma_resolve_addr", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	if (src_addr != NULL)
		memcpy(&id->route.addr.src_addr, src_addr, sockaddr_len(src_addr));
	if (dst_addr != NULL)
		memcpy(&id->route.addr.dst_addr, dst_addr, sockaddr_len(dst_addr));
	if (Bind_no_device)
		id->verbs = NULL;

	return 0;
}

/* rdma_resolve_route -- succeeds unless armed */
int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	int err;

	(void)timeout_ms;
	if (mock_enter_obj("rdma_resolve_route", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_listen -- succeeds unless armed */
int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	int err;

	(void)backlog;
	if (mock_enter_obj("rdma_listen", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_get_cm_event -- the next queued CM event (any channel) */
int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	int err;

	if (mock_enter_obj("rdma_get_cm_event", channel, "event_channel", &err)) {
		errno = err;
		return -1;
	}
	if (Cm_num == 0) {
		errno = EAGAIN;
		return -1;
	}

	struct mock_cm_event *e = Cm_queue[Cm_head];

	Cm_head = (Cm_head + 1) % CM_EVENT_QUEUE_MAX;
	Cm_num--;
	*event = &e->ev;
	Last_event = &e->ev;

	return 0;
}

/* rdma_ack_cm_event -- free an event got from rdma_get_cm_event */
int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	int err;

	if (mock_enter_obj("rdma_ack_cm_event", event, "cm_event", &err)) {
		errno = err;
		return -1;
	}
	mock_obj_destroy(event, "cm_event", "rdma_ack_cm_event");

	return 0;
}

/* rdma_migrate_id -- move id to channel */
int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	int err;

	if (mock_enter_obj("rdma_migrate_id", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	id->channel = channel;

	return 0;
}

/* rdma_create_qp_ex -- capture attr and give id a fake QP */
int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_attr)
{
	int err;

	if (qp_attr != NULL)
		mock_last_qp_init_attr = *qp_attr;
	if (mock_enter_obj("rdma_create_qp_ex", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	if (qp_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	id->qp = mock_qp_new(qp_attr);

	return 0;
}

/* rdma_create_qp -- rdma_create_qp_ex with converted attributes */
int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	if (qp_init_attr != NULL) {
		attr.qp_context = qp_init_attr->qp_context;
		attr.send_cq = qp_init_attr->send_cq;
		attr.recv_cq = qp_init_attr->recv_cq;
		attr.srq = qp_init_attr->srq;
		attr.cap = qp_init_attr->cap;
		attr.qp_type = qp_init_attr->qp_type;
		attr.sq_sig_all = qp_init_attr->sq_sig_all;
	}
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = pd;
	mock_last_qp_init_attr = attr;

	if (mock_enter_obj("rdma_create_qp", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}
	if (qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	id->qp = mock_qp_new(&attr);

	return 0;
}

/* rdma_destroy_qp -- free the fake QP of id */
void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	int err;

	(void)mock_enter_obj("rdma_destroy_qp", id, "cm_id", &err);
	if (id->qp == NULL)
		return;
	mock_obj_destroy(id->qp, "qp", "rdma_destroy_qp");
	id->qp = NULL;
}

/* rdma_connect -- capture conn_param */
int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int err;

	capture_conn_param(conn_param);
	if (mock_enter_obj("rdma_connect", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_accept -- capture conn_param */
int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int err;

	capture_conn_param(conn_param);
	if (mock_enter_obj("rdma_accept", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_reject -- capture the private data */
int
rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	int err;

	(void)capture_pdata(private_data, private_data_len);
	if (mock_enter_obj("rdma_reject", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_disconnect -- succeeds unless armed */
int
rdma_disconnect(struct rdma_cm_id *id)
{
	int err;

	if (mock_enter_obj("rdma_disconnect", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_establish -- succeeds unless armed */
int
rdma_establish(struct rdma_cm_id *id)
{
	int err;

	if (mock_enter_obj("rdma_establish", id, "cm_id", &err)) {
		errno = err;
		return -1;
	}

	return 0;
}

/* rdma_event_str -- the librdmacm name of a CM event */
const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const str[] = {
	    [RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	    [RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	    [RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	    [RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	    [RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	    [RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	    [RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	    [RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	    [RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	    [RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	    [RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	    [RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	    [RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	    [RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	    [RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	    [RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	int err;

	(void)mock_enter("rdma_event_str", &err);
	if ((unsigned)event >= sizeof(str) / sizeof(str[0]))
		return "UNKNOWN EVENT";

	return str[event];
}
