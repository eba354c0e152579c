/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_ibverbs.c -- libibverbs mocks: the fake device context with its
 * ops, the fake verbs objects and the struct ibv_qp_ex callbacks
 */

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../../../softrdma/src/wc_status.h"
#include "mocks_internal.h"

/* these are macros wrapping inline functions in <infiniband/verbs.h> */
#undef ibv_reg_mr
#undef ibv_query_port
#undef ibv_get_device_list

#define WC_QUEUE_MAX	     1024
#define COMP_EVENT_QUEUE_MAX 256

/* captured arguments (see mocks.h) */
struct ibv_send_wr mock_last_send_wr;
struct ibv_sge mock_last_send_sge;
struct ibv_recv_wr mock_last_recv_wr;
struct ibv_sge mock_last_recv_sge;
int mock_posted_send_wrs;
int mock_posted_recv_wrs;
int mock_last_reg_mr_access;
struct ibv_mr *mock_last_reg_mr;
int mock_last_cq_cqe;
struct ibv_srq_init_attr mock_last_srq_init_attr;
unsigned int mock_cq_events_acked;
struct ibv_cq *mock_last_acked_cq;
struct ibv_cq *mock_last_notified_cq;
enum ibv_advise_mr_advice mock_last_advise;
uint32_t mock_last_advise_flags;
struct ibv_sge mock_last_advise_sge;
struct mock_atomic_write mock_last_atomic_write;
struct mock_qpx_wr mock_last_qpx_wr;
struct ibv_sge mock_last_qpx_sge;
void *mock_last_qpx_inline_addr;
size_t mock_last_qpx_inline_len;

static struct verbs_context Vctx;
static struct ibv_device Dev;
static bool Vctx_ready;

static struct ibv_device_attr_ex Dev_attr;
static struct ibv_port_attr Port_attr;

static struct ibv_wc Wc_queue[WC_QUEUE_MAX];
static int Wc_head;
static int Wc_num;
static bool Poll_ret_armed;
static int Poll_ret;

static struct ibv_cq *Comp_queue[COMP_EVENT_QUEUE_MAX];
static int Comp_head;
static int Comp_num;

static bool Reg_mr_eopnotsupp_without_odp;
static bool No_atomic_write;

/* ops_post_send -- the post_send op: capture the first WR or fail */
static int
ops_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	int err;

	(void)qp;
	if (mock_enter("ibv_post_send", &err)) {
		*bad_wr = wr;
		return err;
	}
	if (wr == NULL)
		return 0;

	mock_last_send_wr = *wr;
	mock_last_send_wr.next = NULL;
	memset(&mock_last_send_sge, 0, sizeof(mock_last_send_sge));
	if (wr->num_sge > 0 && wr->sg_list != NULL) {
		mock_last_send_sge = wr->sg_list[0];
		mock_last_send_wr.sg_list = &mock_last_send_sge;
	} else {
		mock_last_send_wr.sg_list = NULL;
	}
	for (; wr != NULL; wr = wr->next)
		mock_posted_send_wrs++;

	return 0;
}

/* capture_recv -- capture the first receive WR of a list */
static void
capture_recv(struct ibv_recv_wr *wr)
{
	if (wr == NULL)
		return;

	mock_last_recv_wr = *wr;
	mock_last_recv_wr.next = NULL;
	memset(&mock_last_recv_sge, 0, sizeof(mock_last_recv_sge));
	if (wr->num_sge > 0 && wr->sg_list != NULL) {
		mock_last_recv_sge = wr->sg_list[0];
		mock_last_recv_wr.sg_list = &mock_last_recv_sge;
	} else {
		mock_last_recv_wr.sg_list = NULL;
	}
	for (; wr != NULL; wr = wr->next)
		mock_posted_recv_wrs++;
}

/* ops_post_recv -- the post_recv op: capture the first WR or fail */
static int
ops_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int err;

	(void)qp;
	if (mock_enter("ibv_post_recv", &err)) {
		*bad_wr = wr;
		return err;
	}
	capture_recv(wr);

	return 0;
}

/* ops_post_srq_recv -- the post_srq_recv op: capture the first WR or fail */
static int
ops_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int err;

	(void)srq;
	if (mock_enter("ibv_post_srq_recv", &err)) {
		*bad_wr = wr;
		return err;
	}
	capture_recv(wr);

	return 0;
}

/* wc_dequeue -- move up to n queued completions into wc */
static int
wc_dequeue(struct ibv_wc *wc, int n)
{
	int got = 0;

	while (got < n && Wc_num > 0) {
		wc[got++] = Wc_queue[Wc_head];
		Wc_head = (Wc_head + 1) % WC_QUEUE_MAX;
		Wc_num--;
	}

	return got;
}

/* ops_poll_cq -- the poll_cq op: return queued completions */
static int
ops_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int err;

	(void)cq;
	if (mock_enter("ibv_poll_cq", &err))
		return err > 0 ? -err : (err < 0 ? err : -1);

	if (Poll_ret_armed) {
		Poll_ret_armed = false;
		if (Poll_ret > 0)
			(void)wc_dequeue(wc, Poll_ret < num_entries ? Poll_ret : num_entries);
		return Poll_ret;
	}

	return wc_dequeue(wc, num_entries);
}

/* ops_req_notify_cq -- the req_notify_cq op */
static int
ops_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int err;

	(void)solicited_only;
	if (mock_enter("ibv_req_notify_cq", &err))
		return err;
	mock_last_notified_cq = cq;

	return 0;
}

/* vops_query_device_ex -- the query_device_ex verbs op */
static int
vops_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
		     struct ibv_device_attr_ex *attr, size_t attr_size)
{
	int err;

	(void)context;
	(void)input;
	if (mock_enter("ibv_query_device_ex", &err))
		return err;

	memcpy(attr, &Dev_attr, attr_size < sizeof(Dev_attr) ? attr_size : sizeof(Dev_attr));

	return 0;
}

/* vops_advise_mr -- the advise_mr verbs op: capture the arguments */
static int
vops_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
	       struct ibv_sge *sg_list, uint32_t num_sges)
{
	int err;

	(void)pd;
	if (mock_enter("ibv_advise_mr", &err))
		return err;

	mock_last_advise = advice;
	mock_last_advise_flags = flags;
	memset(&mock_last_advise_sge, 0, sizeof(mock_last_advise_sge));
	if (num_sges > 0 && sg_list != NULL)
		mock_last_advise_sge = sg_list[0];

	return 0;
}

/* vops_query_port -- the query_port verbs op */
static int
vops_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr,
		size_t port_attr_len)
{
	int err;

	(void)context;
	(void)port_num;
	if (mock_enter("ibv_query_port", &err))
		return err;

	memcpy(port_attr, &Port_attr,
	       port_attr_len < sizeof(Port_attr) ? port_attr_len : sizeof(Port_attr));

	return 0;
}

/* vctx_init -- (re)build the fake device and its verbs context */
static void
vctx_init(void)
{
	memset(&Dev, 0, sizeof(Dev));
	Dev.node_type = IBV_NODE_CA;
	Dev.transport_type = IBV_TRANSPORT_IB;
	strcpy(Dev.name, "mock_0");
	strcpy(Dev.dev_name, "uverbs0");
	strcpy(Dev.dev_path, "/sys/class/infiniband_verbs/uverbs0");
	strcpy(Dev.ibdev_path, "/sys/class/infiniband/mock_0");

	memset(&Vctx, 0, sizeof(Vctx));
	Vctx.sz = sizeof(struct verbs_context);
	Vctx.query_port = vops_query_port;
	Vctx.advise_mr = vops_advise_mr;
	Vctx.query_device_ex = vops_query_device_ex;

	struct ibv_context *ctx = &Vctx.context;

	ctx->device = &Dev;
	ctx->ops.post_send = ops_post_send;
	ctx->ops.post_recv = ops_post_recv;
	ctx->ops.post_srq_recv = ops_post_srq_recv;
	ctx->ops.poll_cq = ops_poll_cq;
	ctx->ops.req_notify_cq = ops_req_notify_cq;
	ctx->cmd_fd = -1;
	ctx->async_fd = -1;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;

	Vctx_ready = true;
}

/* mock_ibv_context -- the one fake device context */
struct ibv_context *
mock_ibv_context(void)
{
	if (!Vctx_ready)
		vctx_init();

	return &Vctx.context;
}

/* default_device_attr -- attributes of a plain device without ODP */
static void
default_device_attr(struct ibv_device_attr_ex *attr)
{
	memset(attr, 0, sizeof(*attr));
	strcpy(attr->orig_attr.fw_ver, "1.0.0");
	attr->orig_attr.vendor_id = 0x02c9;
	attr->orig_attr.max_mr_size = UINT64_MAX;
	attr->orig_attr.max_qp = 1 << 17;
	attr->orig_attr.max_qp_wr = 1 << 15;
	attr->orig_attr.max_sge = 30;
	attr->orig_attr.max_cq = 1 << 16;
	attr->orig_attr.max_cqe = (1 << 22) - 1;
	attr->orig_attr.max_mr = 1 << 24;
	attr->orig_attr.max_pd = 1 << 24;
	attr->orig_attr.max_srq = 1 << 23;
	attr->orig_attr.max_srq_wr = (1 << 15) - 1;
	attr->orig_attr.max_srq_sge = 31;
	attr->orig_attr.phys_port_cnt = 1;
}

/* mock_set_device_attr_ex -- attributes reported by the device queries */
void
mock_set_device_attr_ex(const struct ibv_device_attr_ex *attr)
{
	if (attr == NULL)
		default_device_attr(&Dev_attr);
	else
		Dev_attr = *attr;
}

/* default_port_attr -- an active RoCE port */
static void
default_port_attr(struct ibv_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 256;
	attr->max_msg_sz = 1 << 30;
	attr->pkey_tbl_len = 1;
	attr->active_width = 2;
	attr->active_speed = 32;
	attr->phys_state = 5; /* LinkUp */
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
}

/* mock_set_port_attr -- attributes reported by ibv_query_port */
void
mock_set_port_attr(const struct ibv_port_attr *attr)
{
	if (attr == NULL)
		default_port_attr(&Port_attr);
	else
		Port_attr = *attr;
}

/* mock_cq_push_wc -- queue a completion for ibv_poll_cq */
void
mock_cq_push_wc(const struct ibv_wc *wc)
{
	if (Wc_num == WC_QUEUE_MAX)
		mock_die("too many completions queued");

	Wc_queue[(Wc_head + Wc_num) % WC_QUEUE_MAX] = *wc;
	Wc_num++;
}

/* mock_cq_poll_ret_once -- force the result of the next ibv_poll_cq */
void
mock_cq_poll_ret_once(int ret)
{
	Poll_ret_armed = true;
	Poll_ret = ret;
}

/* mock_comp_event_push -- queue a completion-channel event */
void
mock_comp_event_push(struct ibv_cq *cq)
{
	if (Comp_num == COMP_EVENT_QUEUE_MAX)
		mock_die("too many completion events queued");

	Comp_queue[(Comp_head + Comp_num) % COMP_EVENT_QUEUE_MAX] = cq;
	Comp_num++;
}

/* mock_reg_mr_eopnotsupp_without_odp -- require IBV_ACCESS_ON_DEMAND */
void
mock_reg_mr_eopnotsupp_without_odp(bool on)
{
	Reg_mr_eopnotsupp_without_odp = on;
}

/* mock_qpx_no_atomic_write -- hide wr_atomic_write of the qp_ex */
void
mock_qpx_no_atomic_write(bool on)
{
	No_atomic_write = on;
}

/* mock_ibverbs_reset -- reset the state of this file */
void
mock_ibverbs_reset(void)
{
	vctx_init();
	default_device_attr(&Dev_attr);
	default_port_attr(&Port_attr);

	Wc_head = Wc_num = 0;
	Poll_ret_armed = false;
	Poll_ret = 0;
	Comp_head = Comp_num = 0;
	Reg_mr_eopnotsupp_without_odp = false;
	No_atomic_write = false;

	memset(&mock_last_send_wr, 0, sizeof(mock_last_send_wr));
	memset(&mock_last_send_sge, 0, sizeof(mock_last_send_sge));
	memset(&mock_last_recv_wr, 0, sizeof(mock_last_recv_wr));
	memset(&mock_last_recv_sge, 0, sizeof(mock_last_recv_sge));
	mock_posted_send_wrs = 0;
	mock_posted_recv_wrs = 0;
	mock_last_reg_mr_access = 0;
	mock_last_reg_mr = NULL;
	mock_last_cq_cqe = 0;
	memset(&mock_last_srq_init_attr, 0, sizeof(mock_last_srq_init_attr));
	mock_cq_events_acked = 0;
	mock_last_acked_cq = NULL;
	mock_last_notified_cq = NULL;
	mock_last_advise = 0;
	mock_last_advise_flags = 0;
	memset(&mock_last_advise_sge, 0, sizeof(mock_last_advise_sge));
	memset(&mock_last_atomic_write, 0, sizeof(mock_last_atomic_write));
	memset(&mock_last_qpx_wr, 0, sizeof(mock_last_qpx_wr));
	memset(&mock_last_qpx_sge, 0, sizeof(mock_last_qpx_sge));
	mock_last_qpx_inline_addr = NULL;
	mock_last_qpx_inline_len = 0;
}

/* ibv_get_device_list -- a list holding the one fake device */
struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	int err;

	if (mock_enter("ibv_get_device_list", &err)) {
		errno = err;
		return NULL;
	}

	struct ibv_device **list = mock_obj_new(2 * sizeof(*list), "device_list");

	(void)mock_ibv_context();
	list[0] = &Dev;
	list[1] = NULL;
	if (num_devices != NULL)
		*num_devices = 1;

	return list;
}

/* ibv_free_device_list -- free a list from ibv_get_device_list */
void
ibv_free_device_list(struct ibv_device **list)
{
	int err;

	(void)mock_enter_obj("ibv_free_device_list", list, "device_list", &err);
	mock_obj_destroy(list, "device_list", "ibv_free_device_list");
}

/* ibv_open_device -- return the fake device context */
struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	int err;

	(void)device;
	if (mock_enter("ibv_open_device", &err)) {
		errno = err;
		return NULL;
	}

	return mock_ibv_context();
}

/* ibv_close_device -- nothing to release */
int
ibv_close_device(struct ibv_context *context)
{
	int err;

	(void)context;
	if (mock_enter("ibv_close_device", &err))
		return err;

	return 0;
}

/* ibv_fork_init -- succeeds unless armed */
int
ibv_fork_init(void)
{
	int err;

	if (mock_enter("ibv_fork_init", &err))
		return err;

	return 0;
}

/* ibv_query_device -- legacy device query (orig_attr) */
int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	int err;

	(void)context;
	if (mock_enter("ibv_query_device", &err))
		return err;

	*device_attr = Dev_attr.orig_attr;

	return 0;
}

/*
 * ibv_query_port -- legacy port query, reached by the ibv_query_port()
 * inline only when the context has no query_port op; the caller passes a
 * full struct ibv_port_attr
 */
int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	int err;

	(void)context;
	(void)port_num;
	if (mock_enter("ibv_query_port", &err))
		return err;

	memcpy(port_attr, &Port_attr, sizeof(Port_attr));

	return 0;
}

/* ibv_wc_status_str -- the rdma-core description of a completion status (softrdma's table) */
const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	int err;

	(void)mock_enter("ibv_wc_status_str", &err);
	return softrdma__wc_status_name(status);
}

/* ibv_alloc_pd -- a fake protection domain of context */
struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	int err;

	if (mock_enter("ibv_alloc_pd", &err)) {
		errno = err;
		return NULL;
	}

	struct ibv_pd *pd = mock_obj_new(sizeof(*pd), "pd");

	pd->context = context;
	pd->handle = 1;

	return pd;
}

/* ibv_dealloc_pd -- free a fake protection domain */
int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	int err;

	if (mock_enter_obj("ibv_dealloc_pd", pd, "pd", &err))
		return err;
	mock_obj_destroy(pd, "pd", "ibv_dealloc_pd");

	return 0;
}

/* reg_mr -- common part of ibv_reg_mr and ibv_reg_mr_iova2 */
static struct ibv_mr *
reg_mr(const char *func, struct ibv_pd *pd, void *addr, size_t length, unsigned int access)
{
	int err;

	mock_last_reg_mr_access = (int)access;
	if (mock_enter(func, &err)) {
		errno = err;
		return NULL;
	}
	if (Reg_mr_eopnotsupp_without_odp && !(access & IBV_ACCESS_ON_DEMAND)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	struct ibv_mr *mr = mock_obj_new(sizeof(*mr), "mr");

	mr->context = pd != NULL ? pd->context : mock_ibv_context();
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = 1;
	mr->lkey = MOCK_LKEY;
	mr->rkey = MOCK_RKEY;
	mock_last_reg_mr = mr;

	return mr;
}

/* ibv_reg_mr -- the ibv_reg_mr symbol (constant access flags only) */
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr("ibv_reg_mr", pd, addr, length, (unsigned int)access);
}

/* ibv_reg_mr_iova2 -- what the ibv_reg_mr() macro calls in most cases */
struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	(void)iova;
	return reg_mr("ibv_reg_mr_iova2", pd, addr, length, access);
}

/* ibv_dereg_mr -- free a fake memory region */
int
ibv_dereg_mr(struct ibv_mr *mr)
{
	int err;

	if (mock_enter_obj("ibv_dereg_mr", mr, "mr", &err))
		return err;
	mock_obj_destroy(mr, "mr", "ibv_dereg_mr");

	return 0;
}

/* qp_uses_cq -- whether the fake QP obj completes on the CQ arg */
static bool
qp_uses_cq(const void *obj, const void *arg)
{
	const struct ibv_qp *qp = obj;

	return qp->send_cq == arg || qp->recv_cq == arg;
}

/* ibv_create_comp_channel -- a fake channel with a real (eventfd) fd */
struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	int err;

	if (mock_enter("ibv_create_comp_channel", &err)) {
		errno = err;
		return NULL;
	}

	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		return NULL;

	struct ibv_comp_channel *ch = mock_obj_new(sizeof(*ch), "comp_channel");

	ch->context = context;
	ch->fd = fd;

	return ch;
}

/* ibv_destroy_comp_channel -- close the fd and free the channel */
int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int err;

	if (mock_enter_obj("ibv_destroy_comp_channel", channel, "comp_channel", &err))
		return err;

	close(channel->fd);
	mock_obj_destroy(channel, "comp_channel", "ibv_destroy_comp_channel");

	return 0;
}

/* ibv_create_cq -- a fake completion queue */
struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	int err;

	(void)comp_vector;
	mock_last_cq_cqe = cqe;
	if (mock_enter("ibv_create_cq", &err)) {
		errno = err;
		return NULL;
	}

	struct ibv_cq *cq = mock_obj_new(sizeof(*cq), "cq");

	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->handle = 1;
	cq->cqe = cqe;

	return cq;
}

/* ibv_destroy_cq -- free a fake completion queue */
int
ibv_destroy_cq(struct ibv_cq *cq)
{
	int err;

	if (mock_enter_obj("ibv_destroy_cq", cq, "cq", &err))
		return err;
	if (mock_obj_find("qp", qp_uses_cq, cq))
		mock_die("ibv_destroy_cq(%p): a QP still uses it", (void *)cq);
	mock_obj_destroy(cq, "cq", "ibv_destroy_cq");

	return 0;
}

/* ibv_get_cq_event -- the next queued completion-channel event */
int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	int err;

	(void)channel;
	if (mock_enter("ibv_get_cq_event", &err)) {
		errno = err;
		return -1;
	}
	if (Comp_num == 0) {
		errno = EAGAIN;
		return -1;
	}

	struct ibv_cq *ev_cq = Comp_queue[Comp_head];

	Comp_head = (Comp_head + 1) % COMP_EVENT_QUEUE_MAX;
	Comp_num--;
	*cq = ev_cq;
	*cq_context = ev_cq != NULL ? ev_cq->cq_context : NULL;

	return 0;
}

/* ibv_ack_cq_events -- count the acknowledged events */
void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	int err;

	(void)mock_enter("ibv_ack_cq_events", &err);
	mock_cq_events_acked += nevents;
	mock_last_acked_cq = cq;
}

/* ibv_create_srq -- a fake shared receive queue */
struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	int err;

	if (srq_init_attr != NULL)
		mock_last_srq_init_attr = *srq_init_attr;
	if (mock_enter("ibv_create_srq", &err)) {
		errno = err;
		return NULL;
	}

	struct ibv_srq *srq = mock_obj_new(sizeof(*srq), "srq");

	srq->context = pd != NULL ? pd->context : mock_ibv_context();
	srq->pd = pd;
	srq->srq_context = srq_init_attr != NULL ? srq_init_attr->srq_context : NULL;
	srq->handle = 1;

	return srq;
}

/* ibv_destroy_srq -- free a fake shared receive queue */
int
ibv_destroy_srq(struct ibv_srq *srq)
{
	int err;

	if (mock_enter_obj("ibv_destroy_srq", srq, "srq", &err))
		return err;
	mock_obj_destroy(srq, "srq", "ibv_destroy_srq");

	return 0;
}

/* qpx_record_op -- capture a qp_ex operation */
static void
qpx_record_op(struct ibv_qp_ex *qpx, const char *op, uint32_t rkey, uint64_t remote_addr)
{
	mock_last_qpx_wr.op = op;
	mock_last_qpx_wr.wr_id = qpx->wr_id;
	mock_last_qpx_wr.wr_flags = qpx->wr_flags;
	mock_last_qpx_wr.rkey = rkey;
	mock_last_qpx_wr.remote_addr = remote_addr;
}

/* qpx_wr_start -- ibv_wr_start callback */
static void
qpx_wr_start(struct ibv_qp_ex *qpx)
{
	int err;

	(void)qpx;
	(void)mock_enter("ibv_wr_start", &err);
}

/* qpx_wr_complete -- ibv_wr_complete callback (failable) */
static int
qpx_wr_complete(struct ibv_qp_ex *qpx)
{
	int err;

	(void)qpx;
	if (mock_enter("ibv_wr_complete", &err))
		return err;

	return 0;
}

/* qpx_wr_abort -- ibv_wr_abort callback */
static void
qpx_wr_abort(struct ibv_qp_ex *qpx)
{
	int err;

	(void)qpx;
	(void)mock_enter("ibv_wr_abort", &err);
}

/* qpx_wr_atomic_write -- ibv_wr_atomic_write callback: capture 8 bytes */
static void
qpx_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		    const void *atomic_wr)
{
	int err;

	(void)mock_enter("ibv_wr_atomic_write", &err);
	qpx_record_op(qpx, "ibv_wr_atomic_write", rkey, remote_addr);
	mock_last_atomic_write.rkey = rkey;
	mock_last_atomic_write.remote_addr = remote_addr;
	memcpy(mock_last_atomic_write.data, atomic_wr, sizeof(mock_last_atomic_write.data));
	mock_last_atomic_write.wr_id = qpx->wr_id;
	mock_last_atomic_write.wr_flags = qpx->wr_flags;
}

/* qpx_wr_rdma_write -- ibv_wr_rdma_write callback */
static void
qpx_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	int err;

	(void)mock_enter("ibv_wr_rdma_write", &err);
	qpx_record_op(qpx, "ibv_wr_rdma_write", rkey, remote_addr);
}

/* qpx_wr_rdma_read -- ibv_wr_rdma_read callback */
static void
qpx_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	int err;

	(void)mock_enter("ibv_wr_rdma_read", &err);
	qpx_record_op(qpx, "ibv_wr_rdma_read", rkey, remote_addr);
}

/* qpx_wr_send -- ibv_wr_send callback */
static void
qpx_wr_send(struct ibv_qp_ex *qpx)
{
	int err;

	(void)mock_enter("ibv_wr_send", &err);
	qpx_record_op(qpx, "ibv_wr_send", 0, 0);
}

/* qpx_wr_set_sge -- ibv_wr_set_sge callback */
static void
qpx_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	int err;

	(void)qpx;
	(void)mock_enter("ibv_wr_set_sge", &err);
	mock_last_qpx_sge.lkey = lkey;
	mock_last_qpx_sge.addr = addr;
	mock_last_qpx_sge.length = length;
}

/* qpx_wr_set_inline_data -- ibv_wr_set_inline_data callback */
static void
qpx_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	int err;

	(void)qpx;
	(void)mock_enter("ibv_wr_set_inline_data", &err);
	mock_last_qpx_inline_addr = addr;
	mock_last_qpx_inline_len = length;
}

/* qpx_fill -- set the callbacks of a fake qp_ex */
static void
qpx_fill(struct ibv_qp_ex *qpx)
{
	qpx->wr_start = qpx_wr_start;
	qpx->wr_complete = qpx_wr_complete;
	qpx->wr_abort = qpx_wr_abort;
	qpx->wr_atomic_write = No_atomic_write ? NULL : qpx_wr_atomic_write;
	qpx->wr_rdma_write = qpx_wr_rdma_write;
	qpx->wr_rdma_read = qpx_wr_rdma_read;
	qpx->wr_send = qpx_wr_send;
	qpx->wr_set_sge = qpx_wr_set_sge;
	qpx->wr_set_inline_data = qpx_wr_set_inline_data;
}

/* mock_qp_new -- a fake QP inside a struct ibv_qp_ex */
struct ibv_qp *
mock_qp_new(const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *qpx = mock_obj_new(sizeof(*qpx), "qp");
	struct ibv_qp *qp = &qpx->qp_base;

	qp->context = mock_ibv_context();
	qp->qp_context = attr->qp_context;
	qp->pd = attr->pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->handle = 1;
	qp->qp_num = MOCK_QP_NUM;
	qp->state = IBV_QPS_INIT;
	qp->qp_type = attr->qp_type;
	qpx_fill(qpx);

	return qp;
}

/* ibv_qp_to_qp_ex -- the qp_ex around a fake QP */
struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	int err;

	if (mock_enter_obj("ibv_qp_to_qp_ex", qp, "qp", &err)) {
		errno = err;
		return NULL;
	}

	struct ibv_qp_ex *qpx = (struct ibv_qp_ex *)qp;

	qpx->wr_atomic_write = No_atomic_write ? NULL : qpx_wr_atomic_write;

	return qpx;
}
