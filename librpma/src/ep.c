/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * ep.c -- the listening endpoint of a server and the incoming connection
 * requests taken from it.
 */

#include <errno.h>
#include <stdlib.h>

#include "conn_req.h"
#include "info.h"
#include "log.h"
#include "private_data.h"

struct rpma_ep {
	struct rpma_peer *peer;
	struct rdma_event_channel *evch;
	struct rdma_cm_id *id;
};

/* see librpma.h */
int
rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port, struct rpma_ep **ep_ptr)
{
	struct rdma_event_channel *evch;
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id;
	struct rpma_ep *ep;
	int ret;

	if (peer == NULL || addr == NULL || port == NULL || ep_ptr == NULL) {
		RPMA_LOG_ERROR("peer, addr, port or ep_ptr is NULL");
		return RPMA_E_INVAL;
	}

	evch = rdma_create_event_channel();
	if (evch == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_event_channel()");
		return RPMA_E_PROVIDER;
	}

	if (rdma_create_id(evch, &id, NULL, RDMA_PS_TCP)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_id()");
		ret = RPMA_E_PROVIDER;
		goto err_destroy_evch;
	}

	ret = rpma__info_new(addr, port, RPMA_INFO_PASSIVE, &info);
	if (ret)
		goto err_destroy_id;

	ret = rpma__info_bind_addr(info, id);
	if (ret)
		goto err_info_delete;

	if (rdma_listen(id, 0)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_listen(%s:%s)", addr, port);
		ret = RPMA_E_PROVIDER;
		goto err_info_delete;
	}

	ep = malloc(sizeof(*ep));
	if (ep == NULL) {
		RPMA_LOG_ERROR("cannot allocate an endpoint");
		ret = RPMA_E_NOMEM;
		goto err_info_delete;
	}
	ep->peer = peer;
	ep->evch = evch;
	ep->id = id;
	rpma__info_delete(&info);
	*ep_ptr = ep;
	return 0;

err_info_delete:
	rpma__info_delete(&info);
err_destroy_id:
	(void)rdma_destroy_id(id);
err_destroy_evch:
	rdma_destroy_event_channel(evch);
	return ret;
}

/* see librpma.h */
int
rpma_ep_shutdown(struct rpma_ep **ep_ptr)
{
	int ret = 0;

	if (ep_ptr == NULL) {
		RPMA_LOG_ERROR("ep_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_ep *ep = *ep_ptr;

	if (ep == NULL)
		return 0;

	if (rdma_destroy_id(ep->id)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_destroy_id()");
		ret = RPMA_E_PROVIDER;
	}
	rdma_destroy_event_channel(ep->evch);
	free(ep);
	*ep_ptr = NULL;
	return ret;
}

/* see librpma.h */
int
rpma_ep_get_fd(const struct rpma_ep *ep, int *fd)
{
	if (ep == NULL || fd == NULL) {
		RPMA_LOG_ERROR("ep or fd is NULL");
		return RPMA_E_INVAL;
	}
	*fd = ep->evch->fd;
	return 0;
}

/* see librpma.h */
int
rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		      struct rpma_conn_req **req_ptr)
{
	struct rdma_cm_event *event;
	struct rpma_conn_req *req;
	int ret;

	if (ep == NULL || req_ptr == NULL) {
		RPMA_LOG_ERROR("ep or req_ptr is NULL");
		return RPMA_E_INVAL;
	}

	if (rdma_get_cm_event(ep->evch, &event)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENODATA)
			return RPMA_E_NO_EVENT;
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_get_cm_event()");
		return RPMA_E_PROVIDER;
	}

	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		RPMA_LOG_ERROR("unexpected event on the endpoint: %s (%d)",
			       rdma_event_str(event->event), (int)event->event);
		(void)rdma_ack_cm_event(event);
		return RPMA_E_INVAL;
	}

	/* the event must be acknowledged before its id can be destroyed */
	struct rdma_cm_id *id = event->id;
	struct rpma_conn_private_data pdata;

	ret = rpma__private_data_store(event, &pdata);
	if (rdma_ack_cm_event(event)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_ack_cm_event()");
		if (ret == 0) {
			rpma__private_data_delete(&pdata);
			ret = RPMA_E_PROVIDER;
		}
	}
	if (ret)
		goto err_reject;

	ret = rpma__conn_req_from_id(ep->peer, id, cfg, true, &req);
	if (ret)
		goto err_pdata_delete;

	rpma__private_data_move(rpma__conn_req_pdata(req), &pdata);
	*req_ptr = req;
	return 0;

err_pdata_delete:
	rpma__private_data_delete(&pdata);
err_reject:
	(void)rdma_reject(id, NULL, 0);
	(void)rdma_destroy_id(id);
	return ret;
}
