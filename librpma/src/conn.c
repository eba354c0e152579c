/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * conn.c -- an established (or establishing) connection: its events, its
 * queues, and the operations posted on it. The operations are the data path:
 * they read only fields fixed at creation, allocate nothing and take no lock.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "cq.h"
#include "flush.h"
#include "log.h"
#include "mr.h"
#include "peer.h"
#include "private_data.h"

struct rpma_conn {
	struct rpma_conn_resources res;
	struct rdma_event_channel *evch;
	struct rpma_flush *flush;
	struct ibv_qp_ex *qpx;	   /* for the device's atomic write, NULL when emulated */
	bool direct_write_to_pmem; /* of the remote peer; accessed atomically */
	struct ibv_qp *qp;	   /* res.id->qp, fixed: what every operation posts on */
};

/* see conn.h */
int
rpma__conn_new(struct rpma_peer *peer, struct rpma_conn_resources *res, struct rpma_conn **conn_ptr)
{
	struct rdma_event_channel *evch;
	struct rpma_flush *flush;
	struct rpma_conn *conn;
	int ret;

	evch = rdma_create_event_channel();
	if (evch == NULL) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_create_event_channel()");
		return RPMA_E_PROVIDER;
	}

	if (rdma_migrate_id(res->id, evch)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_migrate_id()");
		ret = RPMA_E_PROVIDER;
		goto err_destroy_evch;
	}

	ret = rpma__flush_new(peer, &flush);
	if (ret)
		goto err_migrate_back;

	conn = malloc(sizeof(*conn));
	if (conn == NULL) {
		RPMA_LOG_ERROR("cannot allocate a connection");
		ret = RPMA_E_NOMEM;
		goto err_flush_delete;
	}

	conn->qpx = NULL;
	if (rpma__peer_native_atomic_write(peer)) {
		conn->qpx = ibv_qp_to_qp_ex(res->id->qp);
		if (conn->qpx && conn->qpx->wr_atomic_write == NULL)
			conn->qpx = NULL;
	}
	conn->res = *res;
	conn->qp = res->id->qp;
	memset(res, 0, sizeof(*res));
	conn->evch = evch;
	conn->flush = flush;
	conn->direct_write_to_pmem = false;
	*conn_ptr = conn;
	return 0;

err_flush_delete:
	(void)rpma__flush_delete(&flush);
err_migrate_back:
	/* hand the id back to no channel, so that the caller can still destroy it */
	(void)rdma_migrate_id(res->id, NULL);
err_destroy_evch:
	rdma_destroy_event_channel(evch);
	return ret;
}

/* see conn.h */
struct rdma_cm_id *
rpma__conn_get_id(const struct rpma_conn *conn)
{
	return conn->res.id;
}

/* see conn.h */
int
rpma__conn_resources_release(struct rpma_conn_resources *res)
{
	int ret = 0, ret2;

	if (res->id && res->id->qp)
		rdma_destroy_qp(res->id);

	if (res->drop_rcq) {
		ret2 = rpma__cq_drop(&res->rcq);
		ret = ret ? ret : ret2;
	}
	res->rcq = NULL;

	ret2 = rpma__cq_drop(&res->cq);
	ret = ret ? ret : ret2;

	if (res->id && rdma_destroy_id(res->id)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_destroy_id()");
		ret = ret ? ret : RPMA_E_PROVIDER;
	}
	res->id = NULL;

	if (res->channel) {
		int err = ibv_destroy_comp_channel(res->channel);

		if (err) {
			RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_destroy_comp_channel()");
			if (ret == 0) {
				errno = err;
				ret = RPMA_E_PROVIDER;
			}
		}
	}
	res->channel = NULL;

	rpma__private_data_delete(&res->pdata);
	return ret;
}

/* see librpma.h */
int
rpma_conn_delete(struct rpma_conn **conn_ptr)
{
	if (conn_ptr == NULL) {
		RPMA_LOG_ERROR("conn_ptr is NULL");
		return RPMA_E_INVAL;
	}

	struct rpma_conn *conn = *conn_ptr;

	if (conn == NULL)
		return 0;

	int ret = rpma__conn_resources_release(&conn->res);
	int ret2 = rpma__flush_delete(&conn->flush);

	ret = ret ? ret : ret2;
	rdma_destroy_event_channel(conn->evch);
	free(conn);
	*conn_ptr = NULL;
	return ret;
}

/* see librpma.h */
int
rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL) {
		RPMA_LOG_ERROR("conn or fd is NULL");
		return RPMA_E_INVAL;
	}
	*fd = conn->evch->fd;
	return 0;
}

/*
 * cm_event_to_conn_event -- what a CM event means for the connection, or
 * RPMA_CONN_UNDEFINED when librpma does not expect it (as in librpma 1.3,
 * address and route errors are among those: both are resolved before a
 * connection exists).
 */
static enum rpma_conn_event
cm_event_to_conn_event(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return RPMA_CONN_ESTABLISHED;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RPMA_CONN_LOST;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RPMA_CONN_CLOSED;
	case RDMA_CM_EVENT_REJECTED:
		return RPMA_CONN_REJECTED;
	case RDMA_CM_EVENT_UNREACHABLE:
		return RPMA_CONN_UNREACHABLE;
	default:
		return RPMA_CONN_UNDEFINED;
	}
}

/* see librpma.h */
int
rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	struct rdma_cm_event *edata;
	int ret = 0;

	if (conn == NULL || event == NULL) {
		RPMA_LOG_ERROR("conn or event is NULL");
		return RPMA_E_INVAL;
	}

	if (rdma_get_cm_event(conn->evch, &edata)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENODATA)
			return RPMA_E_NO_EVENT;
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_get_cm_event()");
		return RPMA_E_PROVIDER;
	}

	enum rpma_conn_event ev = cm_event_to_conn_event(edata->event);

	if (ev == RPMA_CONN_UNDEFINED) {
		RPMA_LOG_ERROR("unexpected connection manager event: %s (%d)",
			       rdma_event_str(edata->event), (int)edata->event);
		ret = RPMA_E_UNKNOWN;
	} else if (ev == RPMA_CONN_ESTABLISHED && conn->res.pdata.ptr == NULL) {
		/* a client learns the server's private data here */
		ret = rpma__private_data_store(edata, &conn->res.pdata);
	}

	if (rdma_ack_cm_event(edata)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_ack_cm_event()");
		if (ret == 0)
			ret = RPMA_E_PROVIDER;
	}
	if (ret)
		return ret;

	*event = ev;
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_private_data(const struct rpma_conn *conn, struct rpma_conn_private_data *pdata)
{
	if (conn == NULL || pdata == NULL) {
		RPMA_LOG_ERROR("conn or pdata is NULL");
		return RPMA_E_INVAL;
	}
	*pdata = conn->res.pdata;
	return 0;
}

/* see librpma.h */
int
rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg)
{
	bool supported;

	if (conn == NULL || pcfg == NULL) {
		RPMA_LOG_ERROR("conn or pcfg is NULL");
		return RPMA_E_INVAL;
	}

	int ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported);

	if (ret)
		return ret;
	__atomic_store_n(&conn->direct_write_to_pmem, supported, __ATOMIC_RELEASE);
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num)
{
	if (conn == NULL || qp_num == NULL) {
		RPMA_LOG_ERROR("conn or qp_num is NULL");
		return RPMA_E_INVAL;
	}
	*qp_num = conn->res.id->qp->qp_num;
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_peer_addr(const struct rpma_conn *conn, struct sockaddr_storage *addr)
{
	if (conn == NULL || addr == NULL) {
		RPMA_LOG_ERROR("conn or addr is NULL");
		return RPMA_E_INVAL;
	}
	/* the id's route holds a whole struct sockaddr_storage for the peer */
	memcpy(addr, rdma_get_peer_addr(conn->res.id), sizeof(*addr));
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr)
{
	if (conn == NULL || cq_ptr == NULL) {
		RPMA_LOG_ERROR("conn or cq_ptr is NULL");
		return RPMA_E_INVAL;
	}
	*cq_ptr = conn->res.cq;
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr)
{
	if (conn == NULL || rcq_ptr == NULL) {
		RPMA_LOG_ERROR("conn or rcq_ptr is NULL");
		return RPMA_E_INVAL;
	}
	*rcq_ptr = conn->res.rcq;
	return 0;
}

/* see librpma.h */
int
rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL) {
		RPMA_LOG_ERROR("conn or fd is NULL");
		return RPMA_E_INVAL;
	}
	if (conn->res.channel == NULL) {
		RPMA_LOG_ERROR("the connection's CQs do not share a completion channel");
		return RPMA_E_NOT_SHARED_CHNL;
	}
	*fd = conn->res.channel->fd;
	return 0;
}

/* see librpma.h */
int
rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq)
{
	struct ibv_cq *ev_cq;
	struct rpma_cq *found;
	int ret;

	/* flags are reserved; like librpma 1.3, any value is accepted and ignored */
	(void)flags;
	if (conn == NULL) {
		RPMA_LOG_ERROR("conn is NULL");
		return RPMA_E_INVAL;
	}
	if (conn->res.channel == NULL) {
		RPMA_LOG_ERROR("the connection's CQs do not share a completion channel");
		return RPMA_E_NOT_SHARED_CHNL;
	}

	ret = rpma__comp_channel_get_event(conn->res.channel, &ev_cq);
	if (ret)
		return ret;

	if (ev_cq == rpma__cq_get_ibv_cq(conn->res.cq)) {
		found = conn->res.cq;
	} else if (conn->res.rcq && ev_cq == rpma__cq_get_ibv_cq(conn->res.rcq)) {
		found = conn->res.rcq;
	} else {
		RPMA_LOG_ERROR("completion event of a CQ of another connection");
		ibv_ack_cq_events(ev_cq, 1);
		return RPMA_E_UNKNOWN;
	}

	ret = rpma__cq_rearm(found);
	if (ret)
		return ret;
	if (cq)
		*cq = found;
	if (is_rcq)
		*is_rcq = found == conn->res.rcq;
	return 0;
}

/* see librpma.h */
int
rpma_conn_disconnect(struct rpma_conn *conn)
{
	if (conn == NULL) {
		RPMA_LOG_ERROR("conn is NULL");
		return RPMA_E_INVAL;
	}
	if (rdma_disconnect(conn->res.id)) {
		RPMA_LOG_ERROR_WITH_ERRNO(errno, "rdma_disconnect()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

/*
 * conn_check -- the checks shared by every operation: a connection and
 * completion flags (see mr.h for what is checked when posting).
 */
static inline int
conn_check(const struct rpma_conn *conn, int flags, unsigned *send_flags)
{
	if (conn == NULL) {
		RPMA_LOG_ERROR("conn is NULL");
		return RPMA_E_INVAL;
	}
	return rpma__flags_to_send_flags(flags, send_flags);
}

/*
 * Every operation has a fast path and a checked one. The fast path takes
 * the arguments of nearly every call (a connection, non-zero flags, the
 * regions given, a length one work request holds) and posts at once; any
 * other arguments go to the checked path, which makes every check in
 * librpma 1.3's order, logs the first that fails, and posts what passes
 * (an empty operation). Both post the same work request.
 */

/* conn_send_flags -- the verbs send flags of flags that passed conn_check() */
static inline unsigned
conn_send_flags(int flags)
{
	return (flags & RPMA_F_COMPLETION_ON_SUCCESS) ? IBV_SEND_SIGNALED : 0;
}

/*
 * conn_rdma_checked -- the checked path of a read or a write: local is the
 * read's destination or the write's source, remote the other side.
 */
static RPMA_COLD int
conn_rdma_checked(struct rpma_conn *conn, enum ibv_wr_opcode opcode,
		  const struct rpma_mr_local *local, size_t local_offset,
		  const struct rpma_mr_remote *remote, size_t remote_offset, size_t len, int flags,
		  uint32_t imm, const void *op_context)
{
	unsigned send_flags = 0;
	int ret;

	if ((ret = conn_check(conn, flags, &send_flags)) ||
	    (ret = rpma__mr_check_pair(local, local_offset, remote, remote_offset, len)))
		return ret;

	return rpma__mr_post_rdma(conn->qp, opcode, local, local_offset, remote, remote_offset, len,
				  send_flags, imm, op_context);
}

/*
 * conn_rdma -- a read, a write or a write with immediate data: the fast
 * path, or the checked one for unusual arguments.
 */
static inline int
conn_rdma(struct rpma_conn *conn, enum ibv_wr_opcode opcode, const struct rpma_mr_local *local,
	  size_t local_offset, const struct rpma_mr_remote *remote, size_t remote_offset,
	  size_t len, int flags, uint32_t imm, const void *op_context)
{
	/*
	 * One call of the checked path a test: tests joined by || that share
	 * a branch become flag arithmetic, more instructions than the branches.
	 */
	if (RPMA_UNLIKELY(conn == NULL) || RPMA_UNLIKELY(flags == 0))
		return conn_rdma_checked(conn, opcode, local, local_offset, remote, remote_offset,
					 len, flags, imm, op_context);
	if (RPMA_UNLIKELY(local == NULL))
		return conn_rdma_checked(conn, opcode, local, local_offset, remote, remote_offset,
					 len, flags, imm, op_context);
	if (RPMA_UNLIKELY(remote == NULL) || RPMA_UNLIKELY(len > UINT32_MAX))
		return conn_rdma_checked(conn, opcode, local, local_offset, remote, remote_offset,
					 len, flags, imm, op_context);

	return rpma__mr_post_rdma(conn->qp, opcode, local, local_offset, remote, remote_offset, len,
				  conn_send_flags(flags), imm, op_context);
}

/* see librpma.h */
int
rpma_read(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t dst_offset,
	  const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
	  const void *op_context)
{
	return conn_rdma(conn, IBV_WR_RDMA_READ, dst, dst_offset, src, src_offset, len, flags, 0,
			 op_context);
}

/* see librpma.h */
int
rpma_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
	   const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
	   const void *op_context)
{
	return conn_rdma(conn, IBV_WR_RDMA_WRITE, src, src_offset, dst, dst_offset, len, flags, 0,
			 op_context);
}

/* see librpma.h */
int
rpma_write_with_imm(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		    const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
		    uint32_t imm, const void *op_context)
{
	return conn_rdma(conn, IBV_WR_RDMA_WRITE_WITH_IMM, src, src_offset, dst, dst_offset, len,
			 flags, imm, op_context);
}

/* see librpma.h */
int
rpma_atomic_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		  const char src[8], int flags, const void *op_context)
{
	unsigned send_flags = 0;
	int ret;

	if ((ret = conn_check(conn, flags, &send_flags)))
		return ret;
	if (dst == NULL || src == NULL) {
		RPMA_LOG_ERROR("dst or src is NULL");
		return RPMA_E_INVAL;
	}
	if (dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT) {
		RPMA_LOG_ERROR("dst_offset %zu is not aligned to %d", dst_offset,
			       RPMA_ATOMIC_WRITE_ALIGNMENT);
		return RPMA_E_INVAL;
	}

	return rpma__mr_post_atomic_write(conn->qp, conn->qpx, dst, dst_offset, src, send_flags,
					  op_context);
}

/*
 * rpma_write_atomic -- the 8 bytes are read from the local region by the
 * CPU when the write is posted (as inline data), not by the device, so
 * their range is checked here: a range outside the region would read
 * memory the caller never registered.
 */
int
rpma_write_atomic(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		  const struct rpma_mr_local *src, size_t src_offset, int flags,
		  const void *op_context)
{
	if (src == NULL ||
	    !rpma__range_ok(src->ibv_mr->length, src_offset, RPMA_ATOMIC_WRITE_ALIGNMENT)) {
		RPMA_LOG_ERROR("src is NULL or [%zu, +%d) lies outside it", src_offset,
			       RPMA_ATOMIC_WRITE_ALIGNMENT);
		return RPMA_E_INVAL;
	}
	return rpma_atomic_write(conn, dst, dst_offset, rpma__mr_local_ptr(src, src_offset), flags,
				 op_context);
}

/*
 * flush_check -- whether the flush type is one the remote region and the
 * remote peer support, in librpma 1.3's order of checks.
 * ERRORS: RPMA_E_NOSUPP (not supported), RPMA_E_INVAL (unknown type).
 */
static inline int
flush_check(const struct rpma_conn *conn, const struct rpma_mr_remote *dst,
	    enum rpma_flush_type type)
{
	switch (type) {
	case RPMA_FLUSH_TYPE_PERSISTENT:
		if (!__atomic_load_n(&conn->direct_write_to_pmem, __ATOMIC_ACQUIRE)) {
			RPMA_LOG_ERROR("the remote peer does not declare direct write to PMem");
			return RPMA_E_NOSUPP;
		}
		if (!(dst->usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) {
			RPMA_LOG_ERROR("the remote region does not support persistent flush");
			return RPMA_E_NOSUPP;
		}
		return 0;
	case RPMA_FLUSH_TYPE_VISIBILITY:
		if (!(dst->usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)) {
			RPMA_LOG_ERROR("the remote region does not support visibility flush");
			return RPMA_E_NOSUPP;
		}
		return 0;
	default:
		RPMA_LOG_ERROR("invalid flush type: %d", (int)type);
		return RPMA_E_INVAL;
	}
}

/*
 * flush_ok -- whether flush_check() passes, without a word: the fast
 * path's test
 */
static inline bool
flush_ok(const struct rpma_conn *conn, const struct rpma_mr_remote *dst, enum rpma_flush_type type)
{
	if (type == RPMA_FLUSH_TYPE_PERSISTENT)
		return __atomic_load_n(&conn->direct_write_to_pmem, __ATOMIC_ACQUIRE) &&
		       (dst->usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return type == RPMA_FLUSH_TYPE_VISIBILITY &&
	       (dst->usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
}

/*
 * conn_flush_checked -- the checked path of rpma_flush(). Every flush it
 * posts would have passed the fast path's test but for a change of the
 * remote peer's configuration since (rpma_conn_apply_remote_peer_cfg() in
 * another thread).
 */
static RPMA_COLD int
conn_flush_checked(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		   size_t len, enum rpma_flush_type type, int flags, const void *op_context)
{
	unsigned send_flags = 0;
	int ret;

	if ((ret = conn_check(conn, flags, &send_flags)))
		return ret;
	if (dst == NULL) {
		RPMA_LOG_ERROR_IN("rpma_flush", "dst is NULL");
		return RPMA_E_INVAL;
	}
	if ((ret = flush_check(conn, dst, type)))
		return ret;

	return rpma__flush_execute(conn->qp, conn->flush, dst, dst_offset, len, send_flags,
				   op_context);
}

/* see librpma.h */
int
rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	   enum rpma_flush_type type, int flags, const void *op_context)
{
	/* one call of the checked path a test (see conn_rdma()) */
	if (RPMA_UNLIKELY(conn == NULL) || RPMA_UNLIKELY(flags == 0))
		return conn_flush_checked(conn, dst, dst_offset, len, type, flags, op_context);
	if (RPMA_UNLIKELY(dst == NULL) || RPMA_UNLIKELY(!flush_ok(conn, dst, type)))
		return conn_flush_checked(conn, dst, dst_offset, len, type, flags, op_context);

	return rpma__flush_execute(conn->qp, conn->flush, dst, dst_offset, len,
				   conn_send_flags(flags), op_context);
}

/* conn_send_checked -- the checked path of rpma_send() and rpma_send_with_imm() */
static RPMA_COLD int
conn_send_checked(struct rpma_conn *conn, enum ibv_wr_opcode opcode,
		  const struct rpma_mr_local *src, size_t offset, size_t len, int flags,
		  uint32_t imm, const void *op_context)
{
	unsigned send_flags = 0;
	int ret;

	if ((ret = conn_check(conn, flags, &send_flags)) ||
	    (ret = rpma__mr_check_buf(src, offset, len)))
		return ret;

	return rpma__mr_post_send(conn->qp, opcode, src, offset, len, send_flags, imm, op_context);
}

/*
 * conn_send -- rpma_send() and rpma_send_with_imm() share everything but
 * the opcode and the immediate data.
 */
static inline int
conn_send(struct rpma_conn *conn, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
	  size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (RPMA_UNLIKELY(conn == NULL || flags == 0 || src == NULL || len > UINT32_MAX))
		return conn_send_checked(conn, opcode, src, offset, len, flags, imm, op_context);

	return rpma__mr_post_send(conn->qp, opcode, src, offset, len, conn_send_flags(flags), imm,
				  op_context);
}

/* see librpma.h */
int
rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	  int flags, const void *op_context)
{
	return conn_send(conn, IBV_WR_SEND, src, offset, len, flags, 0, op_context);
}

/* see librpma.h */
int
rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		   size_t len, int flags, uint32_t imm, const void *op_context)
{
	return conn_send(conn, IBV_WR_SEND_WITH_IMM, src, offset, len, flags, imm, op_context);
}

/* conn_recv_checked -- the checked path of rpma_recv() */
static RPMA_COLD int
conn_recv_checked(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		  const void *op_context)
{
	if (conn == NULL) {
		RPMA_LOG_ERROR_IN("rpma_recv", "conn is NULL");
		return RPMA_E_INVAL;
	}

	int ret = rpma__mr_check_buf(dst, offset, len);

	if (ret)
		return ret;
	return rpma__mr_post_recv(conn->qp, NULL, dst, offset, len, op_context);
}

/* see librpma.h */
int
rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
	  const void *op_context)
{
	/* one call of the checked path a test (see conn_rdma()) */
	if (RPMA_UNLIKELY(conn == NULL) || RPMA_UNLIKELY(dst == NULL))
		return conn_recv_checked(conn, dst, offset, len, op_context);
	if (RPMA_UNLIKELY(len > UINT32_MAX))
		return conn_recv_checked(conn, dst, offset, len, op_context);

	return rpma__mr_post_recv(conn->qp, NULL, dst, offset, len, op_context);
}
