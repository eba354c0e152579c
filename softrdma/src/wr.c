/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended post interface (the wr_* calls of struct ibv_qp_ex): between
 * wr_start and wr_complete or wr_abort the application holds qp->lock and
 * builds a batch of WRs in buffers of the QP, which wr_complete posts as
 * ibv_post_send would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "req.h"
#include "wr.h"

/* The softrdma QP behind an extended QP. */
static struct softrdma_qp *
softrdma_qpx(struct ibv_qp_ex *x)
{
	return (struct softrdma_qp *)x;
}

/* Start a batch of extended work requests. */
static void
softrdma_wr_start(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	pthread_mutex_lock(&qp->lock);
	qp->xcount = 0;
	qp->xerr = 0;
}

/* Append a new WR of @opcode to the batch; NULL when the batch is full. */
static struct ibv_send_wr *
softrdma_wr_new(struct ibv_qp_ex *x, enum ibv_wr_opcode opcode)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	struct ibv_send_wr *wr;

	if (qp->xcount >= qp->sq_size) {
		qp->xerr = ENOMEM;
		return NULL;
	}
	wr = &qp->xwr[qp->xcount];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = x->wr_id;
	wr->send_flags = x->wr_flags;
	wr->opcode = opcode;
	wr->sg_list = &qp->xsge[qp->xcount * SOFTRDMA_MAX_SGE];
	if (qp->xcount)
		qp->xwr[qp->xcount - 1].next = wr;
	qp->xcount++;
	return wr;
}

/* The WR being built. */
static struct ibv_send_wr *
softrdma_wr_cur(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	return qp->xcount ? &qp->xwr[qp->xcount - 1] : NULL;
}

/* Append a WR of @opcode to @rkey:@raddr (RDMA WRITE or READ); NULL as softrdma_wr_new. */
static struct ibv_send_wr *
softrdma_wr_rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode opcode, uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, opcode);

	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = raddr;
	}
	return wr;
}

/* Append an atomic WR of @opcode on the 8 bytes at @rkey:@raddr; NULL as softrdma_wr_new. */
static struct ibv_send_wr *
softrdma_wr_atomic(struct ibv_qp_ex *x, enum ibv_wr_opcode opcode, uint32_t rkey, uint64_t raddr,
		   uint64_t compare_add)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, opcode);

	if (wr) {
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.compare_add = compare_add;
	}
	return wr;
}

/* wr_rdma_write: append an RDMA WRITE to @rkey:@raddr. */
static void
softrdma_wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	(void)softrdma_wr_rdma(x, IBV_WR_RDMA_WRITE, rkey, raddr);
}

/* wr_rdma_write_imm: append an RDMA WRITE with immediate data @imm. */
static void
softrdma_wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr, __be32 imm)
{
	struct ibv_send_wr *wr = softrdma_wr_rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, raddr);

	if (wr)
		wr->imm_data = imm;
}

/* wr_rdma_read: append an RDMA READ from @rkey:@raddr. */
static void
softrdma_wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	(void)softrdma_wr_rdma(x, IBV_WR_RDMA_READ, rkey, raddr);
}

/* wr_atomic_cmp_swp: append a compare and swap of the 8 bytes at @rkey:@raddr. */
static void
softrdma_wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr, uint64_t compare,
			   uint64_t swap)
{
	struct ibv_send_wr *wr =
	    softrdma_wr_atomic(x, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, raddr, compare);

	if (wr)
		wr->wr.atomic.swap = swap;
}

/* wr_atomic_fetch_add: append a fetch and add of @add to the 8 bytes at @rkey:@raddr. */
static void
softrdma_wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr, uint64_t add)
{
	(void)softrdma_wr_atomic(x, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr, add);
}

/* wr_send: append a SEND. */
static void
softrdma_wr_send(struct ibv_qp_ex *x)
{
	softrdma_wr_new(x, IBV_WR_SEND);
}

/* wr_send_imm: append a SEND with immediate data @imm. */
static void
softrdma_wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm;
}

/* Set the scatter/gather list of the current WR. */
static void
softrdma_wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sg)
{
	struct ibv_send_wr *wr = softrdma_wr_cur(x);

	if (!wr)
		return;
	if (n > SOFTRDMA_MAX_SGE) {
		softrdma_qpx(x)->xerr = EINVAL;
		return;
	}
	if (n)
		memcpy(wr->sg_list, sg, n * sizeof(*sg));
	wr->num_sge = n;
}

/* Set a single SGE as the scatter/gather list of the current WR. */
static void
softrdma_wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge s = {.addr = addr, .length = len, .lkey = lkey};

	softrdma_wr_set_sge_list(x, 1, &s);
}

/* Inline data is copied now: the caller may reuse its buffers at once. */
static void
softrdma_wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n, const struct ibv_data_buf *bufs)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	struct ibv_send_wr *wr = softrdma_wr_cur(x);
	char *dst;
	size_t i, total = 0;

	if (!wr)
		return;
	for (i = 0; i < n; i++)
		total += bufs[i].length;
	if (total > qp->cap.max_inline_data) {
		qp->xerr = EINVAL;
		return;
	}
	dst = (char *)qp->xsge + (size_t)qp->sq_size * SOFTRDMA_MAX_SGE * sizeof(struct ibv_sge) +
	      (size_t)(qp->xcount - 1) * qp->cap.max_inline_data;
	for (i = 0, total = 0; i < n; i++) {
		if (!bufs[i].length)
			continue;
		memcpy(dst + total, bufs[i].addr, bufs[i].length);
		total += bufs[i].length;
	}
	wr->sg_list[0].addr = (uintptr_t)dst;
	wr->sg_list[0].length = total;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

/* Copy one buffer as the inline data of the current WR. */
static void
softrdma_wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t len)
{
	struct ibv_data_buf b = {.addr = addr, .length = len};

	softrdma_wr_set_inline_data_list(x, 1, &b);
}

/* Post the batch built since wr_start. */
static int
softrdma_wr_complete(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	uint32_t i;
	int err = qp->xerr;

	for (i = 0; !err && i < qp->xcount; i++)
		err = softrdma__post_one(qp, &qp->xwr[i]);
	if (qp->out && !qp->out->dead && softrdma__qp_flush_tx(qp->out))
		softrdma__qp_conn_failed(qp->out, EPIPE);
	qp->xcount = 0;
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* Drop the batch built since wr_start. */
static void
softrdma_wr_abort(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	qp->xcount = 0;
	pthread_mutex_unlock(&qp->lock);
}

/* Fill the wr_* entry points this device supports. */
void
softrdma__qpx_init(struct softrdma_qp *qp)
{
	struct ibv_qp_ex *x = &qp->qpx;

	x->wr_rdma_write = softrdma_wr_rdma_write;
	x->wr_rdma_write_imm = softrdma_wr_rdma_write_imm;
	x->wr_rdma_read = softrdma_wr_rdma_read;
	x->wr_atomic_cmp_swp = softrdma_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = softrdma_wr_atomic_fetch_add;
	x->wr_send = softrdma_wr_send;
	x->wr_send_imm = softrdma_wr_send_imm;
	x->wr_set_sge = softrdma_wr_set_sge;
	x->wr_set_sge_list = softrdma_wr_set_sge_list;
	x->wr_set_inline_data = softrdma_wr_set_inline_data;
	x->wr_set_inline_data_list = softrdma_wr_set_inline_data_list;
	x->wr_start = softrdma_wr_start;
	x->wr_complete = softrdma_wr_complete;
	x->wr_abort = softrdma_wr_abort;
}

/* Return the extended QP; the batch buffers are allocated on first use. */
struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *q)
{
	struct softrdma_qp *qp = (struct softrdma_qp *)q;

	pthread_mutex_lock(&qp->lock);
	if (!qp->xwr) {
		qp->xwr = calloc(qp->sq_size, sizeof(*qp->xwr));
		qp->xsge =
		    calloc(1, (size_t)qp->sq_size * SOFTRDMA_MAX_SGE * sizeof(struct ibv_sge) +
				  (size_t)qp->sq_size * qp->cap.max_inline_data);
		if (!qp->xwr || !qp->xsge) {
			free(qp->xwr);
			free(qp->xsge);
			qp->xwr = NULL;
			qp->xsge = NULL;
			pthread_mutex_unlock(&qp->lock);
			errno = ENOMEM;
			return NULL;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return &qp->qpx;
}
