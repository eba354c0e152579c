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

/*
 * conn_req_unwind -- release what a request being made holds so far (not
 * its id, which the caller keeps), keeping the errno of the failure
 */
static void
conn_req_unwind(struct rpma_conn_resources *res)
{
	int err = errno;

	(void)rpma__conn_resources_release(res);
	errno = err;
}

/*
 * conn_req_check_cqs -- whether the CQs of its own that the configuration
 * names fit with the rest of it and with the device of the request.
 * ERRORS: RPMA_E_INVAL (a shared completion channel asked for too, the
 * shared receive queue has a receive CQ too, a CQ of another device).
 */
static int
conn_req_check_cqs(const struct rpma_conn_cfg_snapshot *snap, const struct ibv_context *ibv_ctx)
{
	if ((snap->cq || snap->rcq) && snap->shared_comp_channel) {
		RPMA_LOG_ERROR("a configuration with a CQ of rpma_cq_new() asks for a shared "
			       "completion channel; share the channel with rpma_cq_new() instead");
		return RPMA_E_INVAL;
	}
	if (snap->rcq && snap->srq && rpma__srq_get_rcq(snap->srq)) {
		RPMA_LOG_ERROR("both the configuration and its shared receive queue name a "
			       "receive CQ");
		return RPMA_E_INVAL;
	}
	if ((snap->cq && !rpma__cq_on_context(snap->cq, ibv_ctx)) ||
	    (snap->rcq && !rpma__cq_on_context(snap->rcq, ibv_ctx))) {
		RPMA_LOG_ERROR("a CQ of the configuration belongs to another device");
		return RPMA_E_INVAL;
	}
	return 0;
}

/*
 * conn_req_cqs_new -- the CQs (and the shared completion channel) of a new
 * request into res: those the configuration names, held, or new ones; the
 * receive CQ is the shared receive queue's when it has one.
 * ERRORS: RPMA_E_NOMEM, RPMA_E_PROVIDER (nothing is left in res).
 */
static int
conn_req_cqs_new(struct ibv_context *ibv_ctx, const struct rpma_conn_cfg_snapshot *snap,
		 struct rpma_conn_resources *res)
{
	int ret;

	if (snap->shared_comp_channel) {
		res->channel = ibv_create_comp_channel(ibv_ctx);
		if (res->channel == NULL) {
			RPMA_LOG_ERROR_WITH_ERRNO(errno, "ibv_create_comp_channel()");
			return RPMA_E_PROVIDER;
		}
	}

	if (snap->cq) {
		res->cq = snap->cq;
		rpma__cq_hold(res->cq);
	} else {
		ret = rpma__cq_new(ibv_ctx, snap->cq_size, res->channel, &res->cq);
		if (ret)
			goto err_unwind;
	}

	if (snap->srq && rpma__srq_get_rcq(snap->srq)) {
		res->rcq = rpma__srq_get_rcq(snap->srq); /* the SRQ's: not dropped */
	} else if (snap->rcq) {
		res->rcq = snap->rcq;
		rpma__cq_hold(res->rcq);
		res->drop_rcq = true;
	} else if (snap->rcq_size && !snap->srq) {
		ret = rpma__cq_new(ibv_ctx, snap->rcq_size, res->channel, &res->rcq);
		if (ret)
			goto err_unwind;
		res->drop_rcq = true;
	}
	return 0;

err_unwind:
	conn_req_unwind(res);
	return ret;
}

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
	ret = conn_req_check_cqs(&snap, id->verbs);
	if (ret)
		return ret;

	/* res.id stays NULL until the end: on failure the caller keeps the id */
	memset(&res, 0, sizeof(res));
	ret = conn_req_cqs_new(id->verbs, &snap, &res);
	if (ret)
		return ret;

	ret = rpma__peer_create_qp(peer, id, res.cq, res.rcq, &snap);
	if (ret)
		goto err_release;

	req = malloc(sizeof(*req));
	if (req == NULL) {
		RPMA_LOG_ERROR("cannot allocate a connection request");
		ret = RPMA_E_NOMEM;
		goto err_destroy_qp;
	}
	res.id = id;
	req->peer = peer;
	req->res = res;
	req->is_passive = is_passive;
	*req_ptr = req;
	return 0;

err_destroy_qp:
	rdma_destroy_qp(id);
err_release:
	conn_req_unwind(&res);
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

	ret = rpma__info_new_id(addr, port, RPMA_INFO_ACTIVE, &info, &id);
	if (ret)
		return ret;

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
