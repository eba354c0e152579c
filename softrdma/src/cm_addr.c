// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * cm_addr.c -- addressing and name resolution: rdma_cm ports and TCP ports, local
 * addresses and GIDs, bind, resolve_addr/route, getaddrinfo, devices.
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include <netdb.h>
#include <stdlib.h>
#include <unistd.h>

#include "cm_int.h"

/* TCP port for rdma_cm port @port (network order in and out). */
uint16_t
softrdma__cm_tcp_port(uint16_t port)
{
	if (!port)
		return 0;
	return htons((uint16_t)(ntohs(port) + softrdma__cm.port_offset));
}

/* rdma_cm port for TCP port @port (network order in and out). */
uint16_t
softrdma__cm_rdma_port(uint16_t port)
{
	return htons((uint16_t)(ntohs(port) - softrdma__cm.port_offset));
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

	for (i = 0; ibv_query_gid(softrdma__cm.verbs, 1, i, &gid) == 0; i++)
		if (!memcmp(&gid.raw[12], &a, 4))
			return 1;
	return 0;
}

/* Index of the GID for local address @a, 0 if not found. */
int
softrdma__cm_gid_index(struct in_addr a)
{
	union ibv_gid gid;
	int i;

	for (i = 0; ibv_query_gid(softrdma__cm.verbs, 1, i, &gid) == 0; i++)
		if (!memcmp(&gid.raw[12], &a, 4))
			return i;
	return 0;
}

/* Fill a v4-mapped GID from an IPv4 address. */
void
softrdma__cm_gid(union ibv_gid *g, struct in_addr a)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], &a, 4);
}

/* Record addresses on the id and its route (softrdma__cm.lock held). */
void
softrdma__cm_set_addrs(struct softrdma_cm_id *id, const struct sockaddr_in *src,
		       const struct sockaddr_in *dst)
{
	struct rdma_addr *ra = &id->id.route.addr;

	if (src) {
		memset(&ra->src_storage, 0, sizeof(ra->src_storage));
		memcpy(&ra->src_sin, src, sizeof(*src));
		softrdma__cm_gid(&ra->addr.ibaddr.sgid, src->sin_addr);
	}
	if (dst) {
		memset(&ra->dst_storage, 0, sizeof(ra->dst_storage));
		memcpy(&ra->dst_sin, dst, sizeof(*dst));
		softrdma__cm_gid(&ra->addr.ibaddr.dgid, dst->sin_addr);
	}
	ra->addr.ibaddr.pkey = htobe16(0xffff);
}

/*
 * The id now has its device, softrdma0: like librdmacm, it also gets the
 * device's default PD, which QPs, SRQs and MRs of the id may use (softrdma__cm.lock).
 */
void
softrdma__cm_set_device(struct rdma_cm_id *cid)
{
	cid->verbs = softrdma__cm.verbs;
	cid->pd = softrdma__cm.pd;
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
		return softrdma__cm_err(EIO);
	if (!addr)
		return softrdma__cm_err(EINVAL);
	err = softrdma_cm_to_sin(addr, &sin);
	if (err)
		return softrdma__cm_err(err);
	pthread_mutex_lock(&softrdma__cm.lock);
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
	sin.sin_port = softrdma__cm_tcp_port(sin.sin_port);
	if (bind(id->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    getsockname(id->fd, (struct sockaddr *)&sin, &len) < 0) {
		err = errno;
		close(id->fd);
		id->fd = -1;
		goto out;
	}
	sin.sin_port = softrdma__cm_rdma_port(sin.sin_port);
	softrdma__cm_set_addrs(id, &sin, NULL);
	if (sin.sin_addr.s_addr != htonl(INADDR_ANY))
		softrdma__cm_set_device(cid);
	id->state = CM_BOUND;
out:
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err ? softrdma__cm_err(err) : 0;
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
		return softrdma__cm_err(EIO);
	if (!dst_addr)
		return softrdma__cm_err(EINVAL);
	err = softrdma_cm_to_sin(dst_addr, &dst);
	if (err)
		return softrdma__cm_err(err);
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
	pthread_mutex_lock(&softrdma__cm.lock);
	if (id->state == CM_BOUND && id->id.route.addr.src_sin.sin_addr.s_addr)
		src.sin_addr = id->id.route.addr.src_sin.sin_addr;
	src.sin_port = id->state == CM_BOUND ? id->id.route.addr.src_sin.sin_port : 0;
	if (!status) {
		softrdma__cm_set_addrs(id, &src, &dst);
		softrdma__cm_set_device(cid);
		id->state = CM_ADDR;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0);
	} else {
		softrdma__cm_set_addrs(id, NULL, &dst);
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_ADDR_ERROR, status, NULL, 0);
	}
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (id->sync)
		return softrdma__cm_sync_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED);
	return 0;
}

/* Routes are trivial: the IP route found during address resolution. */
int
rdma_resolve_route(struct rdma_cm_id *cid, int timeout_ms)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;

	(void)timeout_ms;
	if (softrdma__cm_id_lock(id))
		return -1;
	if (id->state != CM_ADDR) {
		pthread_mutex_unlock(&softrdma__cm.lock);
		return softrdma__cm_err(EINVAL);
	}
	id->state = CM_ROUTE;
	cid->route.num_paths = 1;
	softrdma__cm_event(id, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (id->sync)
		return softrdma__cm_sync_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
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
	int err = softrdma__cm_start();

	if (err) {
		errno = err;
		return NULL;
	}
	list = calloc(2, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = softrdma__cm.verbs;
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
		return softrdma__cm_err(EINVAL);
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
					 : softrdma__cm_err(err == EAI_NONAME ? ENOENT : EINVAL);
	r = calloc(1, sizeof(*r));
	sin = calloc(1, sizeof(*sin));
	if (!r || !sin) {
		free(r);
		free(sin);
		freeaddrinfo(ai);
		return softrdma__cm_err(ENOMEM);
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
