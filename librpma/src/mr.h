/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mr.h -- local and remote memory regions and the work requests that use
 * them. The post functions are the data path: they allocate nothing and take
 * no lock.
 *
 * Threads: the post functions: any thread posting on a connection (the
 * provider's ibv_post_* is thread-safe); the regions are read-only after
 * they are made and freed by their users (rpma_mr_dereg(),
 * rpma_mr_remote_delete()) after their last use.
 */

#ifndef RPMA_MR_H
#define RPMA_MR_H

#include "librpma.h"

/* the size of a serialized memory region: u64 addr, u64 length, u32 rkey, u8 usage */
#define RPMA_MR_DESCRIPTOR_SIZE 21

/* every usage bit librpma defines */
#define RPMA_MR_USAGE_ALL                                                                          \
	(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |               \
	 RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |                           \
	 RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

#include <arpa/inet.h>
#include <string.h>

/* the layout of both regions; shared with the data path, which inlines its checks */
struct rpma_mr_local {
	struct ibv_mr *ibv_mr;
	int usage;
};

struct rpma_mr_remote {
	uint64_t raddr;
	uint64_t size;
	uint32_t rkey;
	int usage;
};

#define RPMA_LIKELY(x)	 __builtin_expect(!!(x), 1)
#define RPMA_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* a function that runs only when something failed: out of line, out of the hot code */
#define RPMA_COLD __attribute__((cold, noinline))

/*
 * What librpma checks when an operation is posted, and what it leaves to
 * the device. The rule, the same as librpma 1.3's:
 * - librpma refuses only the arguments 1.3 refuses (a NULL connection or
 *   region, flags 0, offsets or a length given with no region, an atomic
 *   write's unaligned offset, a flush type the remote region or peer does
 *   not support) and what a work request cannot express at all: a length
 *   above UINT32_MAX, which 1.3 would silently cut to 32 bits.
 * - The usage bits of a region are not checked here. They chose the
 *   access flags when the region was registered, and those flags are what
 *   the device checks when the data moves: a local buffer written to (the
 *   destination of a receive or a read) needs IBV_ACCESS_LOCAL_WRITE, a
 *   local source needs only a valid lkey, a remote region needs
 *   IBV_ACCESS_REMOTE_READ or IBV_ACCESS_REMOTE_WRITE. The device also
 *   checks that every range lies inside its region. It reports a failed
 *   check as a completion with an error status (IBV_WC_LOC_PROT_ERR,
 *   IBV_WC_REM_ACCESS_ERR), never by refusing the post, so librpma does
 *   not refuse such operations either: it would break programs the device
 *   runs (a receive that gets only empty messages, a region whose usage
 *   word lacks a bit its access flags cover).
 */

/* the bit of the RPMA_F_* flags that asks for a completion on success too */
#define RPMA_F_COMPLETION_ON_SUCCESS (RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR)

/*
 * The cold halves of the inline checks and posts below: they log why an
 * argument was refused or a post failed, and return the error code. Kept out
 * of line so that the data path stays small.
 */
RPMA_COLD int rpma__mr_pair_failed(const void *local, size_t local_offset, const void *remote,
				   size_t remote_offset, size_t len);
RPMA_COLD int rpma__mr_buf_failed(const struct rpma_mr_local *mr, size_t offset, size_t len);
RPMA_COLD int rpma__flags_invalid(int flags);
RPMA_COLD int rpma__mr_post_failed(int err, const char *what, int opcode);

/*
 * rpma__range_ok -- whether [offset, offset + len) fits in size without
 * overflow, and len fits a scatter-gather entry.
 */
static inline bool
rpma__range_ok(uint64_t size, size_t offset, size_t len)
{
	return offset <= size && len <= size - offset && len <= UINT32_MAX;
}

/*
 * rpma__mr_check_pair -- the regions of a read or a write: both given, or
 * both NULL with both offsets and len 0 (an empty operation); len fits a
 * work request. Neither range nor usage is checked (see above).
 * ERRORS: RPMA_E_INVAL.
 */
static inline int
rpma__mr_check_pair(const void *local, size_t local_offset, const void *remote,
		    size_t remote_offset, size_t len)
{
	if (RPMA_LIKELY(local != NULL && remote != NULL && len <= UINT32_MAX))
		return 0;
	if (local == NULL && remote == NULL && local_offset == 0 && remote_offset == 0 && len == 0)
		return 0;
	return rpma__mr_pair_failed(local, local_offset, remote, remote_offset, len);
}

/*
 * rpma__mr_check_buf -- the buffer of a send or a receive: a region, or
 * NULL with offset and len 0 (an empty message); len fits a work request.
 * Neither range nor usage is checked (see above).
 * ERRORS: RPMA_E_INVAL.
 */
static inline int
rpma__mr_check_buf(const struct rpma_mr_local *mr, size_t offset, size_t len)
{
	if (RPMA_LIKELY(mr != NULL && len <= UINT32_MAX))
		return 0;
	if (mr == NULL && offset == 0 && len == 0)
		return 0;
	return rpma__mr_buf_failed(mr, offset, len);
}

/*
 * rpma__flags_to_send_flags -- check RPMA_F_* flags and turn them into verbs
 * send flags: as in librpma 1.3, any non-zero value is accepted and the
 * completion is signaled when RPMA_F_COMPLETION_ON_SUCCESS is set (an
 * unsignaled work request still completes when it fails).
 * ERRORS: RPMA_E_INVAL (flags 0).
 */
static inline int
rpma__flags_to_send_flags(int flags, unsigned *send_flags)
{
	if (RPMA_LIKELY(flags != 0)) {
		*send_flags = (flags & RPMA_F_COMPLETION_ON_SUCCESS) ? IBV_SEND_SIGNALED : 0;
		return 0;
	}
	return rpma__flags_invalid(flags);
}

/*
 * rpma__post_send_wr -- hand one send work request to the device.
 * ERRORS: RPMA_E_PROVIDER (errno holds the provider's code).
 */
static inline int
rpma__post_send_wr(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad_wr;
	int err = ibv_post_send(qp, wr, &bad_wr);

	if (RPMA_LIKELY(err == 0))
		return 0;
	return rpma__mr_post_failed(err, "ibv_post_send", (int)wr->opcode);
}

/*
 * The work requests below are built field by field, not cleared first: a
 * provider reads only the fields of the verbs contract for the opcode
 * (wr_id, next, sg_list, num_sge, opcode, send_flags, imm_data, and
 * wr.rdma for RDMA operations), and clearing the whole 128-byte request
 * cost more than building it. imm_data is always set, so that no byte a
 * provider may copy to the wire is left undefined.
 */

/*
 * rpma__mr_wr_local -- fill wr for opcode on len bytes of local + offset
 * (sge holds them; local NULL: no data), imm_data in network byte order;
 * what a post of rpma__mr_post_rdma() and rpma__mr_post_send() shares.
 * The data path: inline, it allocates nothing and takes no lock.
 */
static inline void
rpma__mr_wr_local(struct ibv_send_wr *wr, struct ibv_sge *sge, enum ibv_wr_opcode opcode,
		  const struct rpma_mr_local *local, size_t offset, size_t len, unsigned send_flags,
		  uint32_t imm_data, const void *op_context)
{
	wr->wr_id = (uint64_t)(uintptr_t)op_context;
	wr->next = NULL;
	wr->opcode = opcode;
	wr->send_flags = send_flags;
	wr->imm_data = imm_data;
	if (local) {
		sge->addr = (uint64_t)(uintptr_t)local->ibv_mr->addr + offset;
		sge->length = (uint32_t)len;
		sge->lkey = local->ibv_mr->lkey;
		wr->sg_list = sge;
		wr->num_sge = 1;
	} else {
		wr->sg_list = NULL;
		wr->num_sge = 0;
	}
}

/*
 * rpma__mr_post_rdma -- post one RDMA READ, WRITE or WRITE_WITH_IMM between a
 * local and a remote range (both NULL and len 0: an empty operation).
 *
 * ASSUMPTIONS: the arguments passed rpma__mr_check_pair(); send_flags are
 * verbs send flags.
 * ERRORS: RPMA_E_PROVIDER (ibv_post_send() failed; errno kept).
 */
static inline int
rpma__mr_post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode opcode, const struct rpma_mr_local *local,
		   size_t local_offset, const struct rpma_mr_remote *remote, size_t remote_offset,
		   size_t len, unsigned send_flags, uint32_t imm, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	rpma__mr_wr_local(&wr, &sge, opcode, local, local_offset, len, send_flags,
			  opcode == IBV_WR_RDMA_WRITE_WITH_IMM ? htonl(imm) : 0, op_context);
	if (remote) {
		wr.wr.rdma.remote_addr = remote->raddr + remote_offset;
		wr.wr.rdma.rkey = remote->rkey;
	} else {
		wr.wr.rdma.remote_addr = 0;
		wr.wr.rdma.rkey = 0;
	}
	return rpma__post_send_wr(qp, &wr);
}

/*
 * rpma__mr_post_atomic_write -- store 8 bytes at remote + offset: with the
 * device's atomic write when qpx is not NULL, otherwise as an inline 8-byte
 * RDMA WRITE (aligned 8-byte stores are not torn).
 * ERRORS: RPMA_E_PROVIDER.
 */
int rpma__mr_post_atomic_write(struct ibv_qp *qp, struct ibv_qp_ex *qpx,
			       const struct rpma_mr_remote *remote, size_t offset,
			       const char src[8], unsigned send_flags, const void *op_context);

/*
 * rpma__mr_post_send -- post a SEND or SEND_WITH_IMM of a local range (NULL:
 * an empty message). ERRORS: RPMA_E_PROVIDER.
 */
static inline int
rpma__mr_post_send(struct ibv_qp *qp, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
		   size_t offset, size_t len, unsigned send_flags, uint32_t imm,
		   const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	rpma__mr_wr_local(&wr, &sge, opcode, src, offset, len, send_flags,
			  opcode == IBV_WR_SEND_WITH_IMM ? htonl(imm) : 0, op_context);
	return rpma__post_send_wr(qp, &wr);
}

/*
 * rpma__mr_post_recv -- post a receive buffer to a QP (srq NULL) or to a
 * shared receive queue. ERRORS: RPMA_E_PROVIDER.
 */
static inline int
rpma__mr_post_recv(struct ibv_qp *qp, struct ibv_srq *srq, const struct rpma_mr_local *dst,
		   size_t offset, size_t len, const void *op_context)
{
	struct ibv_recv_wr *bad_wr;
	struct ibv_sge sge;
	struct ibv_recv_wr wr;
	int err;

	wr.wr_id = (uint64_t)(uintptr_t)op_context;
	wr.next = NULL;
	if (dst) {
		sge.addr = (uint64_t)(uintptr_t)dst->ibv_mr->addr + offset;
		sge.length = (uint32_t)len;
		sge.lkey = dst->ibv_mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
	} else {
		wr.sg_list = NULL;
		wr.num_sge = 0;
	}

	if (srq)
		err = ibv_post_srq_recv(srq, &wr, &bad_wr);
	else
		err = ibv_post_recv(qp, &wr, &bad_wr);
	if (RPMA_LIKELY(err == 0))
		return 0;
	return rpma__mr_post_failed(err, srq ? "ibv_post_srq_recv" : "ibv_post_recv", -1);
}

/*
 * rpma__mr_local_ptr -- the address of offset within a local region.
 * ASSUMPTIONS: mr is not NULL and the range to be read was checked with
 * rpma__range_ok().
 */
static inline void *
rpma__mr_local_ptr(const struct rpma_mr_local *mr, size_t offset)
{
	return (char *)mr->ibv_mr->addr + offset;
}

/*
 * rpma__mr_remote_to_descriptor -- serialize a remote region back into the
 * 21-byte wire format, e.g. to pass it on to another peer.
 * ASSUMPTIONS: mr and desc are not NULL; desc holds RPMA_MR_DESCRIPTOR_SIZE bytes.
 */
void rpma__mr_remote_to_descriptor(const struct rpma_mr_remote *mr, void *desc);

#endif /* RPMA_MR_H */
