/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * utils.c -- finding the device for an address, querying ODP support and
 * naming connection events.
 */

#include <errno.h>
#include <string.h>

#include "info.h"
#include "librpma.h"
#include "log.h"

/* see librpma.h */
int
rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
			   struct ibv_context **ibv_ctx_ptr)
{
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id = NULL;
	enum rpma_info_side side;
	int ret;

	if (addr == NULL || ibv_ctx_ptr == NULL) {
		RPMA_LOG_ERROR("addr or ibv_ctx_ptr is NULL");
		return RPMA_E_INVAL;
	}
	switch (type) {
	case RPMA_UTIL_IBV_CONTEXT_LOCAL:
		side = RPMA_INFO_PASSIVE;
		break;
	case RPMA_UTIL_IBV_CONTEXT_REMOTE:
		side = RPMA_INFO_ACTIVE;
		break;
	default:
		RPMA_LOG_ERROR("invalid context type: %d", (int)type);
		return RPMA_E_INVAL;
	}

	ret = rpma__info_new_id(addr, NULL, side, &info, &id);
	if (ret)
		return ret;

	if (side == RPMA_INFO_PASSIVE)
		ret = rpma__info_bind_addr(info, id);
	else
		ret = rpma__info_resolve_addr(info, id, RPMA_DEFAULT_TIMEOUT_MS);
	if (ret)
		goto err_destroy_id;

	if (id->verbs == NULL) {
		RPMA_LOG_ERROR("no RDMA device serves the address %s", addr);
		ret = RPMA_E_PROVIDER;
		errno = ENODEV;
		goto err_destroy_id;
	}

	*ibv_ctx_ptr = id->verbs;
	ret = 0;

err_destroy_id:
	(void)rdma_destroy_id(id);
	rpma__info_delete(&info);
	return ret;
}

/* see librpma.h */
int
rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable)
{
	struct ibv_device_attr_ex attr;
	int err;

	if (ibv_ctx == NULL || is_odp_capable == NULL) {
		RPMA_LOG_ERROR("ibv_ctx or is_odp_capable is NULL");
		return RPMA_E_INVAL;
	}

	memset(&attr, 0, sizeof(attr));
	err = ibv_query_device_ex(ibv_ctx, NULL, &attr);
	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_query_device_ex()");
		errno = err;
		return RPMA_E_PROVIDER;
	}

	/* what librpma 1.3 asks of the device: RC write and read */
	const uint32_t rc_needed = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;

	*is_odp_capable = (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
			  (attr.odp_caps.per_transport_caps.rc_odp_caps & rc_needed) == rc_needed;
	return 0;
}

/* see librpma.h */
const char *
rpma_utils_conn_event_2str(enum rpma_conn_event conn_event)
{
	switch (conn_event) {
	case RPMA_CONN_UNDEFINED:
		return "Undefined connection event";
	case RPMA_CONN_ESTABLISHED:
		return "Connection established";
	case RPMA_CONN_CLOSED:
		return "Connection closed";
	case RPMA_CONN_LOST:
		return "Connection lost";
	case RPMA_CONN_REJECTED:
		return "Connection rejected";
	case RPMA_CONN_UNREACHABLE:
		return "Connection unreachable";
	default:
		return "Unsupported connection event";
	}
}
