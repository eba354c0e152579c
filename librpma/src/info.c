/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * info.c -- address lookup and binding for the connection manager.
 */

#include <errno.h>
#include <string.h>

#include "info.h"
#include "librpma.h"
#include "log.h"

/* see info.h */
int
rpma__info_new(const char *addr, const char *port, enum rpma_info_side side,
	       struct rdma_addrinfo **info_ptr)
{
	struct rdma_addrinfo hints;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = side == RPMA_INFO_PASSIVE ? RAI_PASSIVE : 0;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_port_space = RDMA_PS_TCP;

	if (rdma_getaddrinfo(addr, port, &hints, info_ptr)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_getaddrinfo(%s, %s)", addr,
					  port ? port : "(none)");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* see info.h */
void
rpma__info_delete(struct rdma_addrinfo **info_ptr)
{
	if (*info_ptr == NULL)
		return;
	rdma_freeaddrinfo(*info_ptr);
	*info_ptr = NULL;
}

/* see info.h */
int
rpma__info_new_id(const char *addr, const char *port, enum rpma_info_side side,
		  struct rdma_addrinfo **info_ptr, struct rdma_cm_id **id_ptr)
{
	int ret = rpma__info_new(addr, port, side, info_ptr);

	if (ret)
		return ret;
	if (rdma_create_id(NULL, id_ptr, NULL, RDMA_PS_TCP)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_id()");
		rpma__info_delete(info_ptr);
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* see info.h */
int
rpma__info_resolve_addr(const struct rdma_addrinfo *info, struct rdma_cm_id *id, int timeout_ms)
{
	if (rdma_resolve_addr(id, info->ai_src_addr, info->ai_dst_addr, timeout_ms)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_resolve_addr()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/* see info.h */
int
rpma__info_bind_addr(const struct rdma_addrinfo *info, struct rdma_cm_id *id)
{
	if (rdma_bind_addr(id, info->ai_src_addr)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_bind_addr()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}
