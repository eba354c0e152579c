/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mr.h -- local and remote memory regions and the work requests that use
 * them. The post functions are the data path: they allocate nothing and take
 * no lock.
 */

#ifndef RPMA_MR_H
#define RPMA_MR_H

#include "librpma.h"

/* the size of a serialized memory region: u64 addr, u64 length, u32 rkey, u8 usage */
#define RPMA_MR_DESCRIPTOR_SIZE 21

/* every usage bit librpma defines */
#define RPMA_MR_USAGE_ALL                                                                          \
	(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |               \
	 RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |                            \
	 RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/*
 * rpma__mr_check_local -- check that [offset, offset + len) lies inside a
 * local region that has every bit of usage; mr NULL is accepted only as an
 * empty buffer (offset and len 0) when allow_null is set.
 * ERRORS: RPMA_E_INVAL.
 */
int rpma__mr_check_local(const struct rpma_mr_local *mr, size_t offset, size_t len, int usage,
			 bool allow_null);

/* rpma__mr_check_remote -- the same for a remote region. ERRORS: RPMA_E_INVAL. */
int rpma__mr_check_remote(const struct rpma_mr_remote *mr, size_t offset, size_t len, int usage,
			  bool allow_null);

/*
 * rpma__mr_post_rdma -- post one RDMA READ, WRITE or WRITE_WITH_IMM between a
 * local and a remote range (both NULL and len 0: an empty operation).
 *
 * ASSUMPTIONS: the ranges were checked; send_flags are verbs send flags.
 * ERRORS: RPMA_E_PROVIDER (ibv_post_send() failed; errno kept).
 */
int rpma__mr_post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		       const struct rpma_mr_local *local, size_t local_offset,
		       const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		       unsigned send_flags, uint32_t imm, const void *op_context);

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
int rpma__mr_post_send(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
		       const struct rpma_mr_local *src, size_t offset, size_t len,
		       unsigned send_flags, uint32_t imm, const void *op_context);

/*
 * rpma__mr_post_recv -- post a receive buffer to a QP (srq NULL) or to a
 * shared receive queue. ERRORS: RPMA_E_PROVIDER.
 */
int rpma__mr_post_recv(struct ibv_qp *qp, struct ibv_srq *srq, const struct rpma_mr_local *dst,
		       size_t offset, size_t len, const void *op_context);

/*
 * rpma__mr_local_ptr -- the address of offset within a local region.
 * ASSUMPTIONS: mr is not NULL and the offset was checked.
 */
void *rpma__mr_local_ptr(const struct rpma_mr_local *mr, size_t offset);

/*
 * rpma__mr_remote_to_descriptor -- serialize a remote region back into the
 * 21-byte wire format, e.g. to pass it on to another peer.
 * ASSUMPTIONS: mr and desc are not NULL; desc holds RPMA_MR_DESCRIPTOR_SIZE bytes.
 */
void rpma__mr_remote_to_descriptor(const struct rpma_mr_remote *mr, void *desc);

/* rpma__mr_remote_usage -- the usage bits of a remote region */
int rpma__mr_remote_usage(const struct rpma_mr_remote *mr);

/* rpma__mr_remote_size -- the size of a remote region */
uint64_t rpma__mr_remote_size(const struct rpma_mr_remote *mr);

/*
 * rpma__flags_to_send_flags -- check RPMA_F_* flags and turn them into verbs
 * send flags. ERRORS: RPMA_E_INVAL (flags neither ON_ERROR nor ALWAYS).
 */
int rpma__flags_to_send_flags(int flags, unsigned *send_flags);

#endif /* RPMA_MR_H */
