/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn_req.c -- connection requests: outgoing ones made by a client, incoming
 * ones taken from an endpoint, and turning either into a connection.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "conn_cfg.h"
#include "conn_req.h"
#include "cq.h"
#include "info.h"
#include "log.h"
#include "mr.h"
#include "peer.h"
#include "private_data.h"
#include "srq.h"

struct rpma_conn_req {
	struct rpma_peer *peer;
	struct rpma_conn_resources res;
	bool is_passive; /* an incoming request, answered with accept or reject */
};

/* see conn_req.h */
int
rpma__conn_req_from_id(struct rpma_peer *peer, struct rdma_cm_id *id,
		       const struct rpma_conn_cfg *cfg, bool is_passive,
		       struct rpma_conn_req **req_ptr)
{
	struct rpma_conn_cfg_snapshot snap;
	struct rpma_conn_resources res;
	struct rpma_conn_req *req;
	int ret;

	rpma__conn_cfg_snapshot(cfg, &snap);
	memset(&res, 0, sizeof(res));
	res.id = id;

	if (snap.shared_comp_channel) {
		res.channel = ibv_create_comp_channel(id->verbs);
		if (res.channel == NULL) {
			RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_comp_channel()");
			return RPMA_E_PROVIDER;
		}
	}

	ret = rpma__cq_new(id->verbs, snap.cq_size, res.channel, &res.cq);
	if (ret)
		goto err_destroy_channel;

	if (snap.srq) {
		res.rcq = rpma__srq_get_rcq(snap.srq);
		res.rcq_owned = false;
	} else if (snap.rcq_size) {
		ret = rpma__cq_new(id->verbs, snap.rcq_size, res.channel, &res.rcq);
		if (ret)
			goto err_delete_cq;
		res.rcq_owned = true;
	}

	ret = rpma__peer_create_qp(peer, id, res.cq, res.rcq, &snap);
	if (ret)
		goto err_delete_rcq;

	req = malloc(sizeof(*req));
	if (req == NULL) {
		RPMA_LOG_ERROR("cannot allocate a connection request");
		ret = RPMA_E_NOMEM;
		goto err_destroy_qp;
	}
	req->peer = peer;
	req->res = res;
	req->is_passive = is_passive;
	*req_ptr = req;
	return 0;

err_destroy_qp:
	rdma_destroy_qp(id);
err_delete_rcq:
	if (res.rcq_owned)
		(void)rpma__cq_delete(&res.rcq);
err_delete_cq:
	(void)rpma__cq_delete(&res.cq);
err_destroy_channel:
	if (res.channel)
		(void)ibv_destroy_comp_channel(res.channel);
	return ret;
}

/* see conn_req.h */
struct rpma_conn_private_data *
rpma__conn_req_pdata(struct rpma_conn_req *req)
{
	return &req->res.pdata;
}

/* see librpma.h */
int
rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		  const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	struct rpma_conn_cfg_snapshot snap;
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id = NULL;
	int ret;

	if (peer == NULL || addr == NULL || port == NULL || req_ptr == NULL) {
		RPMA_LOG_ERROR("peer, addr, port or req_ptr is NULL");
		return RPMA_E_INVAL;
	}

	rpma__conn_cfg_snapshot(cfg, &snap);

	ret = rpma__info_new(addr, port, RPMA_INFO_ACTIVE, &info);
	if (ret)
		return ret;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_id()");
		ret = RPMA_E_PROVIDER;
		goto err_info_delete;
	}

	ret = rpma__info_resolve_addr(info, id, snap.timeout_ms);
	if (ret)
		goto err_destroy_id;

	if (rdma_resolve_route(id, snap.timeout_ms)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_resolve_route(%s:%s)", addr, port);
		ret = RPMA_E_PROVIDER;
		goto err_destroy_id;
	}

	ret = rpma__conn_req_from_id(peer, id, cfg, false, req_ptr);
	if (ret)
		goto err_destroy_id;

	rpma__info_delete(&info);
	return 0;

err_destroy_id:
	(void)rdma_destroy_id(id);
err_info_delete:
	rpma__info_delete(&info);
	return ret;
}

/* see librpma.h */
int
rpma_conn_req_delete(struct rpma_conn_req **req_ptr)
{
	int ret = 0;

	if (req_ptr == NULL) {
		RPMA_LOG_ERROR("req_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_conn_req *req = *req_ptr;

	if (req == NULL)
		return 0;

	if (req->is_passive && rdma_reject(req->res.id, NULL, 0)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_reject()");
		ret = RPMA_E_PROVIDER;
	}

	int ret2 = rpma__conn_resources_release(&req->res);

	if (ret == 0)
		ret = ret2;
	free(req);
	*req_ptr = NULL;
	return ret;
}

/* see librpma.h */
int
rpma_conn_req_connect(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		      struct rpma_conn **conn_ptr)
{
	struct rdma_conn_param param;
	struct rpma_conn *conn;
	int ret;

	if (req_ptr == NULL || *req_ptr == NULL || conn_ptr == NULL) {
		RPMA_LOG_ERROR("req_ptr, *req_ptr or conn_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_conn_req *req = *req_ptr;

	/* refused as librpma 1.3 refuses it: the request stays as it was */
	ret = rpma__private_data_validate(pdata);
	if (ret)
		return ret;

	/*
	 * where 1.3 has the connection manager fail the connect or accept, and
	 * the request consumed with it, this is refused before trying, with the
	 * request consumed just the same
	 */
	ret = rpma__private_data_fits(pdata, req->is_passive ? RPMA_PRIVATE_DATA_ACCEPT_MAX
							     : RPMA_PRIVATE_DATA_CONNECT_MAX);
	if (ret)
		goto err_req_delete;

	ret = rpma__conn_new(req->peer, &req->res, &conn);
	if (ret)
		goto err_req_delete;

	memset(&param, 0, sizeof(param));
	if (pdata) {
		param.private_data = pdata->ptr;
		param.private_data_len = pdata->len;
	}
	param.responder_resources = RDMA_MAX_RESP_RES;
	param.initiator_depth = RDMA_MAX_INIT_DEPTH;
	param.flow_control = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;

	struct rdma_cm_id *id = rpma__conn_get_id(conn);

	if (req->is_passive ? rdma_accept(id, &param) : rdma_connect(id, &param)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "%s()",
					  req->is_passive ? "rdma_accept" : "rdma_connect");
		ret = RPMA_E_PROVIDER;
		(void)rpma_conn_delete(&conn);
		goto err_free_req;
	}

	free(req);
	*req_ptr = NULL;
	*conn_ptr = conn;
	return 0;

err_req_delete:
	(void)rpma_conn_req_delete(req_ptr);
	return ret;
err_free_req:
	free(req);
	*req_ptr = NULL;
	return ret;
}

/* see librpma.h */
int
rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset, size_t len,
		   const void *op_context)
{
	if (req == NULL) {
		RPMA_LOG_ERROR("req is NULL");
		return RPMA_E_INVAL;
	}

	int ret = rpma__mr_check_buf(dst, offset, len);

	if (ret)
		return ret;
	return rpma__mr_post_recv(req->res.id->qp, NULL, dst, offset, len, op_context);
}

/* see librpma.h */
int
rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
			       struct rpma_conn_private_data *pdata)
{
	if (req == NULL || pdata == NULL) {
		RPMA_LOG_ERROR("req or pdata is NULL");
		return RPMA_E_INVAL;
	}
	*pdata = req->res.pdata;
	return 0;
}
