/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The librdmacm calls softrdma does not implement. rsockets: each call
 * fails like a socket call (-1 with errno ENOSYS); multicast (UD only) and
 * ECE: -1 with errno ENOSYS or EOPNOTSUPP, as librdmacm without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/types.h>

#include "cm_int.h"

/* Define a socket-style stub returning -1 with errno ENOSYS. */
#define SOFTRDMA_RSTUB(name)                                                                       \
	long name(void);                                                                           \
	long name(void)                                                                            \
	{                                                                                          \
		errno = ENOSYS;                                                                    \
		return -1;                                                                         \
	}

SOFTRDMA_RSTUB(raccept)
SOFTRDMA_RSTUB(rbind)
SOFTRDMA_RSTUB(rclose)
SOFTRDMA_RSTUB(rconnect)
SOFTRDMA_RSTUB(rfcntl)
SOFTRDMA_RSTUB(rgetpeername)
SOFTRDMA_RSTUB(rgetsockname)
SOFTRDMA_RSTUB(rgetsockopt)
SOFTRDMA_RSTUB(riomap)
SOFTRDMA_RSTUB(riounmap)
SOFTRDMA_RSTUB(riowrite)
SOFTRDMA_RSTUB(rlisten)
SOFTRDMA_RSTUB(rpoll)
SOFTRDMA_RSTUB(rread)
SOFTRDMA_RSTUB(rreadv)
SOFTRDMA_RSTUB(rrecv)
SOFTRDMA_RSTUB(rrecvfrom)
SOFTRDMA_RSTUB(rrecvmsg)
SOFTRDMA_RSTUB(rselect)
SOFTRDMA_RSTUB(rsend)
SOFTRDMA_RSTUB(rsendmsg)
SOFTRDMA_RSTUB(rsendto)
SOFTRDMA_RSTUB(rsetsockopt)
SOFTRDMA_RSTUB(rshutdown)
SOFTRDMA_RSTUB(rsocket)
SOFTRDMA_RSTUB(rwrite)
SOFTRDMA_RSTUB(rwritev)

/* Multicast is not offered (UD only). */
int
rdma_join_multicast(struct rdma_cm_id *cid, struct sockaddr *addr, void *context)
{
	(void)cid;
	(void)addr;
	(void)context;
	return softrdma__cm_err(ENOSYS);
}

/* Multicast is not offered (UD only). */
int
rdma_join_multicast_ex(struct rdma_cm_id *cid, struct rdma_cm_join_mc_attr_ex *attr, void *context)
{
	(void)cid;
	(void)attr;
	(void)context;
	return softrdma__cm_err(ENOSYS);
}

/* Multicast is not offered (UD only). */
int
rdma_leave_multicast(struct rdma_cm_id *cid, struct sockaddr *addr)
{
	(void)cid;
	(void)addr;
	return softrdma__cm_err(ENOSYS);
}

/* ECE is not offered. */
int
rdma_set_local_ece(struct rdma_cm_id *cid, struct ibv_ece *ece)
{
	(void)cid;
	(void)ece;
	return softrdma__cm_err(EOPNOTSUPP);
}

/* ECE is not offered. */
int
rdma_get_remote_ece(struct rdma_cm_id *cid, struct ibv_ece *ece)
{
	(void)cid;
	(void)ece;
	return softrdma__cm_err(EOPNOTSUPP);
}

/* Compat aliases of librdmacm would be generated here; it has none today. */
#define SOFTRDMA_COMPAT(name, ver)                                                                 \
	long softrdma__compat_##name(void);                                                        \
	long softrdma__compat_##name(void)                                                         \
	{                                                                                          \
		errno = ENOSYS;                                                                    \
		return -1;                                                                         \
	}                                                                                          \
	__asm__(".symver softrdma__compat_" #name ", " #name "@" ver);
#include "compat_symver.h"
