/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The softrdma0 device: discovery, contexts, device/port/GID queries,
 * asynchronous events and the string helpers of libibverbs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cq.h"
#include "device.h"
#include "mr.h"
#include "progress.h"
#include "qp.h"
#include "req.h"
#include "secret.h"
#include "shm.h"
#include "softrdma.h"
#include "srq.h"
#include "wc_status.h"

#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

static struct softrdma_device softrdma_dev;
static pthread_once_t softrdma_dev_once = PTHREAD_ONCE_INIT;

/* Open contexts: a forked child finds the parent's here to disown them. */
static struct {
	pthread_mutex_t lock;
	struct softrdma_list head;
} softrdma_ctxs = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .head = {&softrdma_ctxs.head, &softrdma_ctxs.head},
};

/* FNV-1a, 64 bits, of @len bytes at @p, continuing from @h. */
static uint64_t
softrdma_fnv1a(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* Hash the first line of the file @path into @h; 0 when it is missing or empty. */
static int
softrdma_hash_file(const char *path, uint64_t *h)
{
	char line[128];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	n = fgets(line, sizeof(line), f) ? strcspn(line, "\n") : 0;
	fclose(f);
	if (!n)
		return 0;
	*h = softrdma_fnv1a(*h, line, n);
	return 1;
}

/* Hash the MAC address of the first non-loopback interface into @h; 0 if none. */
static int
softrdma_hash_mac(uint64_t *h)
{
	struct ifaddrs *ifa, *i;
	int found = 0;

	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i && !found; i = i->ifa_next) {
		struct sockaddr_ll *ll = (struct sockaddr_ll *)i->ifa_addr;

		if (!ll || ll->sll_family != AF_PACKET || (i->ifa_flags & IFF_LOOPBACK) ||
		    !ll->sll_halen)
			continue;
		*h = softrdma_fnv1a(*h, ll->sll_addr, ll->sll_halen);
		found = 1;
	}
	freeifaddrs(ifa);
	return found;
}

/*
 * The node GUID (host order): the same for every process of the host and
 * across reboots, as an RNIC's. It is a hash of the machine id
 * (/etc/machine-id, else /var/lib/dbus/machine-id), else of the first
 * non-loopback interface's MAC address, else of the host name; the top
 * byte says a locally administered address.
 */
static uint64_t
softrdma_host_guid(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char host[256] = "";

	if (!softrdma_hash_file("/etc/machine-id", &h) &&
	    !softrdma_hash_file("/var/lib/dbus/machine-id", &h) && !softrdma_hash_mac(&h)) {
		gethostname(host, sizeof(host) - 1);
		h = softrdma_fnv1a(h, host, strlen(host));
	}
	return 0x0200000000000000ull | (h & 0x00ffffffffffffffull);
}

/* Build the GID table (::ffff:a.b.c.d) from the host's IPv4 addresses. */
static void
softrdma_scan_gids(struct softrdma_device *d)
{
	struct ifaddrs *ifa, *i;

	d->ngids = 0;
	if (getifaddrs(&ifa) == 0) {
		for (i = ifa; i && d->ngids < SOFTRDMA_MAX_GIDS; i = i->ifa_next) {
			struct sockaddr_in *sin = (struct sockaddr_in *)i->ifa_addr;
			union ibv_gid *g;

			if (!sin || sin->sin_family != AF_INET || !(i->ifa_flags & IFF_UP))
				continue;
			g = &d->gids[d->ngids];
			memset(g, 0, sizeof(*g));
			g->raw[10] = 0xff;
			g->raw[11] = 0xff;
			memcpy(&g->raw[12], &sin->sin_addr, 4);
			d->ifindex[d->ngids] = if_nametoindex(i->ifa_name);
			d->ngids++;
		}
		freeifaddrs(ifa);
	}
	if (!d->ngids) {
		/* no interface visible: still offer loopback */
		memset(&d->gids[0], 0, sizeof(d->gids[0]));
		d->gids[0].raw[10] = 0xff;
		d->gids[0].raw[11] = 0xff;
		d->gids[0].raw[12] = 127;
		d->gids[0].raw[15] = 1;
		d->ngids = 1;
	}
	d->guid_base = softrdma_host_guid();
}

/* Node GUID in network order: the host's (softrdma_host_guid). */
static __be64
softrdma_device_guid(const struct softrdma_device *d)
{
	return htobe64(d->guid_base);
}

/* One-time initialisation of the single device. */
static void
softrdma_dev_init(void)
{
	struct ibv_device *dev = &softrdma_dev.dev;

	dev->node_type = IBV_NODE_CA;
	dev->transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->name, sizeof(dev->name), "%s", SOFTRDMA_DEV_NAME);
	snprintf(dev->dev_name, sizeof(dev->dev_name), "uverbs0");
	snprintf(dev->dev_path, sizeof(dev->dev_path), "/sys/class/infiniband_verbs/uverbs0");
	snprintf(dev->ibdev_path, sizeof(dev->ibdev_path), "/sys/class/infiniband/%s",
		 SOFTRDMA_DEV_NAME);
	softrdma_scan_gids(&softrdma_dev);
}

/* Return the process-wide device, initialising it on first use. */
struct softrdma_device *
softrdma__device(void)
{
	pthread_once(&softrdma_dev_once, softrdma_dev_init);
	return &softrdma_dev;
}

/* Return a NULL-terminated array holding softrdma0. */
struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &softrdma__device()->dev;
	if (num_devices)
		*num_devices = 1;
	return list;
}

/* Release the array returned by ibv_get_device_list. */
void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

/* Kernel device name of @device. */
const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

/* Node GUID of @device in network order. */
__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return softrdma_device_guid(SOFTRDMA_CONTAINER_OF(device, struct softrdma_device, dev));
}

/* Index of @device; there is only one. */
int
ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return 0;
}

/* What the CM of this build asks of every context (cmops.h). */
static const struct softrdma_cm_ops softrdma_cm_ops = {
    .create_qp = softrdma__create_qp_bound,
    .secret_new = softrdma__secret_new,
    .secret_set_local = softrdma__secret_set_local,
    .secret_set_remote = softrdma__secret_set_remote,
    .secret_forget_remote = softrdma__secret_forget_remote,
};

/* Open a context on softrdma0 and start the progress machinery. */
struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct softrdma_context *c;
	struct ibv_context *ctx;
	int err;

	if (device != &softrdma__device()->dev) {
		errno = ENODEV;
		return NULL;
	}
	err = softrdma__progress_start();
	if (err)
		goto fail;
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = ENOMEM;
		goto fail;
	}
	err = softrdma__evq_init(&c->async_q);
	if (err)
		goto free_c;
	c->cm_ops = &softrdma_cm_ops;
	c->vctx.sz = sizeof(c->vctx);
	c->vctx.query_port = softrdma__query_port_op;
	c->vctx.query_device_ex = softrdma__query_device_ex;
	c->vctx.create_qp_ex = softrdma__create_qp_ex;
	ctx = &c->vctx.context;
	ctx->device = device;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->cmd_fd = -1;
	ctx->async_fd = c->async_q.fd;
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->ops.poll_cq = softrdma__poll_cq;
	ctx->ops.req_notify_cq = softrdma__req_notify_cq;
	ctx->ops.post_send = softrdma__post_send;
	ctx->ops.post_recv = softrdma__post_recv;
	ctx->ops.post_srq_recv = softrdma__post_srq_recv;
	pthread_mutex_lock(&softrdma_ctxs.lock);
	softrdma__list_add_tail(&softrdma_ctxs.head, &c->node);
	pthread_mutex_unlock(&softrdma_ctxs.lock);
	return ctx;

free_c:
	free(c);
fail:
	errno = err;
	return NULL;
}

/* Close a context opened by ibv_open_device. */
int
ibv_close_device(struct ibv_context *context)
{
	struct softrdma_context *c =
	    SOFTRDMA_CONTAINER_OF(context, struct softrdma_context, vctx.context);
	struct softrdma_list *it;

	pthread_mutex_lock(&softrdma_ctxs.lock);
	softrdma__list_del(&c->node);
	pthread_mutex_unlock(&softrdma_ctxs.lock);
	while (!softrdma__list_empty(&c->async_q.items)) {
		it = c->async_q.items.next;
		softrdma__list_del(it);
		free(SOFTRDMA_CONTAINER_OF(it, struct softrdma_async_item, node));
	}
	softrdma__evq_fini(&c->async_q);
	pthread_mutex_destroy(&context->mutex);
	free(c);
	return 0;
}

/* Fill the classic device attributes of softrdma0. */
static void
softrdma_fill_attr(struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "1.0.0");
	a->node_guid = softrdma_device_guid(softrdma__device());
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = 1ull << 40;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = 0xffffff;
	a->vendor_part_id = 1;
	a->hw_ver = 1;
	a->max_qp = SOFTRDMA_MAX_QP;
	a->max_qp_wr = SOFTRDMA_MAX_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SRQ_RESIZE |
			      IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = SOFTRDMA_MAX_SGE;
	a->max_sge_rd = SOFTRDMA_MAX_SGE;
	a->max_cq = 65536;
	a->max_cqe = SOFTRDMA_MAX_CQE;
	a->max_mr = SOFTRDMA_MAX_MR;
	a->max_pd = 65536;
	a->max_qp_rd_atom = SOFTRDMA_MAX_RD_ATOM;
	a->max_res_rd_atom = SOFTRDMA_MAX_RD_ATOM * SOFTRDMA_MAX_QP;
	a->max_qp_init_rd_atom = SOFTRDMA_MAX_RD_ATOM;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_srq = 1024;
	a->max_srq_wr = SOFTRDMA_MAX_WR;
	a->max_srq_sge = SOFTRDMA_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

/* ibv_query_device: classic device attributes. */
int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	(void)context;
	softrdma_fill_attr(device_attr);
	return 0;
}

/* verbs_context.query_device_ex: extended attributes, no ODP or extras. */
int
softrdma__query_device_ex(struct ibv_context *context,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex full;

	(void)context;
	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(struct ibv_device_attr))
		return EINVAL;
	memset(&full, 0, sizeof(full));
	softrdma_fill_attr(&full.orig_attr);
	full.phys_port_cnt_ex = 1;
	memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
	return 0;
}

/* Fill the attributes of port 1, RoCE-like. */
static int
softrdma_fill_port(uint8_t port_num, struct ibv_port_attr *p)
{
	if (port_num != 1)
		return EINVAL;
	memset(p, 0, sizeof(*p));
	p->state = IBV_PORT_ACTIVE;
	p->max_mtu = IBV_MTU_4096;
	p->active_mtu = IBV_MTU_4096;
	p->gid_tbl_len = softrdma__device()->ngids;
	p->port_cap_flags = IBV_PORT_CM_SUP;
	p->max_msg_sz = SOFTRDMA_MAX_MSG;
	p->pkey_tbl_len = 1;
	p->max_vl_num = 1;
	p->active_width = 2;  /* 4X */
	p->active_speed = 32; /* 25 Gb/s lane */
	p->phys_state = 5;    /* LinkUp */
	p->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

/* verbs_context.query_port: full port attributes up to @len bytes. */
int
softrdma__query_port_op(struct ibv_context *context, uint8_t port_num,
			struct ibv_port_attr *port_attr, size_t len)
{
	struct ibv_port_attr p;
	int err;

	(void)context;
	err = softrdma_fill_port(port_num, &p);
	if (err)
		return err;
	memcpy(port_attr, &p, len < sizeof(p) ? len : sizeof(p));
	return 0;
}

/* Exported ibv_query_port for callers without the extended context. */
int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return softrdma__query_port_op(context, port_num, (struct ibv_port_attr *)port_attr,
				       offsetof(struct ibv_port_attr, flags));
}

/* Return GID @index of port 1. */
int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	struct softrdma_device *d = softrdma__device();

	(void)context;
	if (port_num != 1 || index < 0 || index >= d->ngids) {
		errno = EINVAL;
		return -1;
	}
	*gid = d->gids[index];
	return 0;
}

/* Return one GID table entry (RoCE v2). */
int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		  struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct softrdma_device *d = softrdma__device();
	struct ibv_gid_entry e;

	(void)context;
	if (flags || port_num != 1 || entry_size < sizeof(e))
		return EINVAL;
	if (gid_index >= (uint32_t)d->ngids)
		return ENODATA;
	memset(&e, 0, sizeof(e));
	e.gid = d->gids[gid_index];
	e.gid_index = gid_index;
	e.port_num = port_num;
	e.gid_type = IBV_GID_TYPE_ROCE_V2;
	e.ndev_ifindex = d->ifindex[gid_index];
	memcpy(entry, &e, sizeof(e));
	return 0;
}

/* Return the whole GID table. */
ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
		     uint32_t flags, size_t entry_size)
{
	struct softrdma_device *d = softrdma__device();
	size_t i;
	int err;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	if (max_entries < (size_t)d->ngids)
		return -EINVAL;
	for (i = 0; i < (size_t)d->ngids; i++) {
		err = _ibv_query_gid_ex(context, 1, i,
					(struct ibv_gid_entry *)((char *)entries + i * entry_size),
					0, entry_size);
		if (err)
			return -err;
	}
	return d->ngids;
}

/* Private helper used by ibv_devinfo: every GID is RoCE v2 (sysfs value 1). */
int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type)
{
	(void)context;
	if (port_num != 1 || index >= (unsigned int)softrdma__device()->ngids)
		return EINVAL;
	*type = 1;
	return 0;
}

/* The only P_Key is the default full-member key. */
int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	(void)context;
	if (port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(0xffff);
	return 0;
}

/* Index of @pkey in the P_Key table. */
int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	(void)context;
	if (port_num == 1 && (be16toh(pkey) & 0x7fff) == 0x7fff)
		return 0;
	errno = ENOENT;
	return -1;
}

/* Wait for (or with O_NONBLOCK, poll for) the next asynchronous event. */
int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct softrdma_context *c =
	    SOFTRDMA_CONTAINER_OF(context, struct softrdma_context, vctx.context);
	struct softrdma_list *node;
	struct softrdma_async_item *it;
	int err;

	err = softrdma__evq_pop(&c->async_q, &node, NULL);
	if (err) {
		errno = err;
		return -1;
	}
	it = SOFTRDMA_CONTAINER_OF(node, struct softrdma_async_item, node);
	*event = it->ev;
	free(it);
	return 0;
}

/* Acknowledge an asynchronous event; nothing waits on it here. */
void
ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

/* Human-readable node type. */
const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
	    [IBV_NODE_CA] = "InfiniBand channel adapter",
	    [IBV_NODE_SWITCH] = "InfiniBand switch",
	    [IBV_NODE_ROUTER] = "InfiniBand router",
	    [IBV_NODE_RNIC] = "iWARP NIC",
	    [IBV_NODE_USNIC] = "usNIC",
	    [IBV_NODE_USNIC_UDP] = "usNIC UDP",
	    [IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < IBV_NODE_CA || node_type > IBV_NODE_UNSPECIFIED)
		return "unknown";
	return names[node_type];
}

/* Human-readable port state. */
const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
	    [IBV_PORT_NOP] = "PORT_NOP",       [IBV_PORT_DOWN] = "PORT_DOWN",
	    [IBV_PORT_INIT] = "PORT_INIT",     [IBV_PORT_ARMED] = "PORT_ARMED",
	    [IBV_PORT_ACTIVE] = "PORT_ACTIVE", [IBV_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	if (port_state < IBV_PORT_NOP || port_state > IBV_PORT_ACTIVE_DEFER)
		return "unknown";
	return names[port_state];
}

/* Human-readable asynchronous event type. */
const char *
ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
	    [IBV_EVENT_CQ_ERR] = "CQ error",
	    [IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
	    [IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
	    [IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
	    [IBV_EVENT_COMM_EST] = "communication established",
	    [IBV_EVENT_SQ_DRAINED] = "send queue drained",
	    [IBV_EVENT_PATH_MIG] = "path migrated",
	    [IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
	    [IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
	    [IBV_EVENT_PORT_ACTIVE] = "port active",
	    [IBV_EVENT_PORT_ERR] = "port error",
	    [IBV_EVENT_LID_CHANGE] = "LID change",
	    [IBV_EVENT_PKEY_CHANGE] = "P_Key change",
	    [IBV_EVENT_SM_CHANGE] = "SM change",
	    [IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
	    [IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
	    [IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	    [IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
	    [IBV_EVENT_GID_CHANGE] = "GID table change",
	    [IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if (event < IBV_EVENT_CQ_ERR || event > IBV_EVENT_WQ_FATAL)
		return "unknown";
	return names[event];
}

/* Human-readable work completion status: the one table in wc_status.h. */
const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	return softrdma__wc_status_name(status);
}

/* Static rate to multiple of 2.5 Gb/s. */
int
ibv_rate_to_mult(enum ibv_rate rate)
{
	switch (rate) {
	case IBV_RATE_2_5_GBPS:
		return 1;
	case IBV_RATE_5_GBPS:
		return 2;
	case IBV_RATE_10_GBPS:
		return 4;
	case IBV_RATE_20_GBPS:
		return 8;
	case IBV_RATE_30_GBPS:
		return 12;
	case IBV_RATE_40_GBPS:
		return 16;
	case IBV_RATE_60_GBPS:
		return 24;
	case IBV_RATE_80_GBPS:
		return 32;
	case IBV_RATE_120_GBPS:
		return 48;
	default:
		return -1;
	}
}

/* Multiple of 2.5 Gb/s to static rate. */
enum ibv_rate
mult_to_ibv_rate(int mult)
{
	switch (mult) {
	case 1:
		return IBV_RATE_2_5_GBPS;
	case 2:
		return IBV_RATE_5_GBPS;
	case 4:
		return IBV_RATE_10_GBPS;
	case 8:
		return IBV_RATE_20_GBPS;
	case 12:
		return IBV_RATE_30_GBPS;
	case 16:
		return IBV_RATE_40_GBPS;
	case 24:
		return IBV_RATE_60_GBPS;
	case 32:
		return IBV_RATE_80_GBPS;
	case 48:
		return IBV_RATE_120_GBPS;
	default:
		return IBV_RATE_MAX;
	}
}

/* Static rate to Mb/s. */
int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	switch (rate) {
	case IBV_RATE_2_5_GBPS:
		return 2500;
	case IBV_RATE_5_GBPS:
		return 5000;
	case IBV_RATE_10_GBPS:
		return 10000;
	case IBV_RATE_20_GBPS:
		return 20000;
	case IBV_RATE_25_GBPS:
		return 25000;
	case IBV_RATE_40_GBPS:
		return 40000;
	case IBV_RATE_50_GBPS:
		return 50000;
	case IBV_RATE_100_GBPS:
		return 100000;
	default:
		return -1;
	}
}

/* Mb/s to static rate. */
enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	switch (mbps) {
	case 2500:
		return IBV_RATE_2_5_GBPS;
	case 5000:
		return IBV_RATE_5_GBPS;
	case 10000:
		return IBV_RATE_10_GBPS;
	case 20000:
		return IBV_RATE_20_GBPS;
	case 25000:
		return IBV_RATE_25_GBPS;
	case 40000:
		return IBV_RATE_40_GBPS;
	case 50000:
		return IBV_RATE_50_GBPS;
	case 100000:
		return IBV_RATE_100_GBPS;
	default:
		return IBV_RATE_MAX;
	}
}

/*
 * Fork support is never needed, as with rdma-core on a kernel that copies
 * DMA pages on fork: memory is not pinned, and a forked child gets a device
 * of its own (softrdma.h). Succeeds at any time, even after registrations;
 * RDMAV_FORK_SAFE, IBV_FORK_SAFE and RDMAV_USE_MADVISE change nothing.
 */
int
ibv_fork_init(void)
{
	return 0;
}

/* Fork safety: always there, so ibv_fork_init() is unneeded. */
enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

/* No madvise needed for unpinned memory. */
int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* No madvise needed for unpinned memory. */
int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* ops.post_send of an inherited context: the QP is the parent's. */
static int
softrdma_dead_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	*bad = wr;
	return EIO;
}

/* ops.post_recv of an inherited context. */
static int
softrdma_dead_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	*bad = wr;
	return EIO;
}

/* ops.post_srq_recv of an inherited context. */
static int
softrdma_dead_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	*bad = wr;
	return EIO;
}

/* ops.poll_cq of an inherited context: a poll error, not an empty CQ. */
static int
softrdma_dead_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	(void)cq;
	(void)num_entries;
	(void)wc;
	errno = EIO;
	return -1;
}

/* ops.req_notify_cq of an inherited context. */
static int
softrdma_dead_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return EIO;
}

/* verbs_context.create_qp_ex of an inherited context. */
static struct ibv_qp *
softrdma_dead_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	(void)ctx;
	(void)attr;
	errno = EIO;
	return NULL;
}

/*
 * Forked child: every context of the parent becomes inert (its data path
 * fails with EIO without touching the parent's objects, nothing new can be
 * made on it) and leaves the list; ibv_close_device() still frees it.
 */
static void
softrdma_ctx_fork_child(void)
{
	struct softrdma_list *n, *next;

	for (n = softrdma_ctxs.head.next; n != &softrdma_ctxs.head; n = next) {
		struct softrdma_context *c =
		    SOFTRDMA_CONTAINER_OF(n, struct softrdma_context, node);
		struct ibv_context *ctx = &c->vctx.context;

		next = n->next;
		c->inherited = 1;
		c->vctx.create_qp_ex = softrdma_dead_create_qp_ex;
		ctx->ops.poll_cq = softrdma_dead_poll_cq;
		ctx->ops.req_notify_cq = softrdma_dead_req_notify_cq;
		ctx->ops.post_send = softrdma_dead_post_send;
		ctx->ops.post_recv = softrdma_dead_post_recv;
		ctx->ops.post_srq_recv = softrdma_dead_post_srq_recv;
		pthread_mutex_init(&ctx->mutex, NULL);
		softrdma__list_init(n);
	}
	softrdma__list_init(&softrdma_ctxs.head);
	/* held since prepare, by this very thread */
	pthread_mutex_unlock(&softrdma_ctxs.lock);
}

/* fork(), before: take the global locks in their documented order. */
static void
softrdma_fork_prepare(void)
{
	softrdma__progress_fork_prepare();
	softrdma__shm_fork_prepare();
	softrdma__cq_fork_prepare();
	pthread_mutex_lock(&softrdma_ctxs.lock);
	softrdma__evq_fork_prepare();
	softrdma__secret_fork_prepare();
}

/* fork(), in the parent: release them, last taken first. */
static void
softrdma_fork_parent(void)
{
	softrdma__secret_fork_parent();
	softrdma__evq_fork_parent();
	pthread_mutex_unlock(&softrdma_ctxs.lock);
	softrdma__cq_fork_parent();
	softrdma__shm_fork_parent();
	softrdma__progress_fork_parent();
}

/*
 * fork(), in the child: a device of its own. The parent's contexts go
 * inert, their event queues, QPs and connections are disowned, then the
 * same-host state and the MR table start empty.
 */
static void
softrdma_fork_child(void)
{
	int dead = softrdma__fd_dead_open();

	softrdma_ctx_fork_child();
	softrdma__evq_fork_child(dead);
	softrdma__cq_fork_child();
	softrdma__progress_fork_child(dead);
	softrdma__shm_fork_child();
	softrdma__mr_fork_child();
	softrdma__secret_fork_child();
	if (dead >= 0)
		close(dead);
}

/*
 * Register the fork handlers when the library is loaded: before librdmacm
 * registers its own (it depends on this library), so its prepare handler,
 * which takes the CM's lock, runs before this one.
 */
__attribute__((constructor)) static void
softrdma_fork_register(void)
{
	if (pthread_atfork(softrdma_fork_prepare, softrdma_fork_parent, softrdma_fork_child)) {
		/* out of memory at load time: fork() then leaves a child unusable */
	}
}
