/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mr.c -- memory regions: registration, the 21-byte descriptor exchanged with
 * peers, and the posting of work requests on them.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mr.h"
#include "peer.h"

/*
 * usage_to_access -- the verbs access flags a region gets for its usage, the
 * same as librpma 1.3 grants, because they decide which operations the
 * device runs on the region: a flush is carried out as a read of the
 * remote region; a region read into, received into or written by a peer
 * needs local write; a write source gets local write too (so such a
 * region may also be received or read into, as with 1.3); iWARP carries a
 * read out as a write into the reader's region, so a read destination
 * also needs remote write there. A send source needs nothing but its lkey.
 */
static int
usage_to_access(int usage, enum ibv_transport_type transport)
{
	int access = 0;

	if (usage & (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
		     RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	if (usage & (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_RECV))
		access |= IBV_ACCESS_LOCAL_WRITE;
	if ((usage & RPMA_MR_USAGE_READ_DST) && transport == IBV_TRANSPORT_IWARP)
		access |= IBV_ACCESS_REMOTE_WRITE;
	/* remote write needs local write as well */
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	return access;
}

/* peer_transport -- the transport of the peer's device (InfiniBand when unknown) */
static enum ibv_transport_type
peer_transport(const struct rpma_peer *peer)
{
	struct ibv_context *ctx = rpma__peer_ibv_context(peer);

	return ctx && ctx->device ? ctx->device->transport_type : IBV_TRANSPORT_IB;
}

/* see librpma.h */
int
rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
	    struct rpma_mr_local **mr_ptr)
{
	struct rpma_mr_local *mr;
	struct ibv_mr *ibv_mr;
	int ret;

	if (peer == NULL || ptr == NULL || mr_ptr == NULL) {
		RPMA_LOG_ERROR("peer, ptr or mr_ptr is NULL");
		return RPMA_E_INVAL;
	}
	if (size == 0) {
		RPMA_LOG_ERROR("size is 0");
		return RPMA_E_INVAL;
	}
	if (usage == 0 || (usage & ~RPMA_MR_USAGE_ALL)) {
		RPMA_LOG_ERROR("invalid usage: 0x%x", usage);
		return RPMA_E_INVAL;
	}

	mr = malloc(sizeof(*mr));
	if (mr == NULL) {
		RPMA_LOG_ERROR("cannot allocate a memory region");
		return RPMA_E_NOMEM;
	}

	ret = rpma__peer_mr_reg(peer, &ibv_mr, ptr, size,
				usage_to_access(usage, peer_transport(peer)));
	if (ret)
		goto err_free;

	mr->ibv_mr = ibv_mr;
	mr->usage = usage;
	*mr_ptr = mr;
	return 0;

err_free:
	free(mr);
	return ret;
}

/* see librpma.h */
int
rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	int ret = 0;

	if (mr_ptr == NULL) {
		RPMA_LOG_ERROR("mr_ptr is NULL");
		return RPMA_E_INVAL;
	}
	if (*mr_ptr == NULL)
		return 0;

	int err = ibv_dereg_mr((*mr_ptr)->ibv_mr);

	if (err) {
		RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_dereg_mr()");
		errno = err;
		ret = RPMA_E_PROVIDER;
	}
	free(*mr_ptr);
	*mr_ptr = NULL;
	return ret;
}

/*
 * descriptor_write -- lay a region out in the wire format both peers share:
 * u64 address, u64 length, u32 rkey, u8 usage, little-endian.
 */
static void
descriptor_write(void *desc, uint64_t addr, uint64_t length, uint32_t rkey, int usage)
{
	uint8_t *out = desc;

	addr = htole64(addr);
	length = htole64(length);
	rkey = htole32(rkey);
	memcpy(out, &addr, sizeof(addr));
	memcpy(out + 8, &length, sizeof(length));
	memcpy(out + 16, &rkey, sizeof(rkey));
	out[20] = (uint8_t)usage;
}

/* see mr.h */
void
rpma__mr_remote_to_descriptor(const struct rpma_mr_remote *mr, void *desc)
{
	descriptor_write(desc, mr->raddr, mr->size, mr->rkey, mr->usage);
}

/* see librpma.h */
int
rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	if (mr == NULL || desc == NULL) {
		RPMA_LOG_ERROR("mr or desc is NULL");
		return RPMA_E_INVAL;
	}

	descriptor_write(desc, (uint64_t)(uintptr_t)mr->ibv_mr->addr, mr->ibv_mr->length,
			 mr->ibv_mr->rkey, mr->usage);
	return 0;
}

/* see librpma.h */
int
rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size)
{
	if (mr == NULL || desc_size == NULL) {
		RPMA_LOG_ERROR("mr or desc_size is NULL");
		return RPMA_E_INVAL;
	}
	*desc_size = RPMA_MR_DESCRIPTOR_SIZE;
	return 0;
}

/* see librpma.h */
int
rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr)
{
	if (mr == NULL || ptr == NULL) {
		RPMA_LOG_ERROR("mr or ptr is NULL");
		return RPMA_E_INVAL;
	}
	*ptr = mr->ibv_mr->addr;
	return 0;
}

/* see librpma.h */
int
rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size)
{
	if (mr == NULL || size == NULL) {
		RPMA_LOG_ERROR("mr or size is NULL");
		return RPMA_E_INVAL;
	}
	*size = mr->ibv_mr->length;
	return 0;
}

/* see librpma.h */
int
rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice, uint32_t flags)
{
	struct ibv_sge sge;

	if (mr == NULL) {
		RPMA_LOG_ERROR("mr is NULL");
		return RPMA_E_INVAL;
	}
	if (len == 0 || len > UINT32_MAX || offset > mr->ibv_mr->length ||
	    len > mr->ibv_mr->length - offset) {
		RPMA_LOG_ERROR("range [%zu, +%zu) is outside the region of %zu bytes", offset, len,
			       mr->ibv_mr->length);
		return RPMA_E_INVAL;
	}
	if (advice != IBV_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT) {
		RPMA_LOG_ERROR("invalid advice: %d", advice);
		return RPMA_E_INVAL;
	}

	sge.addr = (uint64_t)(uintptr_t)mr->ibv_mr->addr + offset;
	sge.length = (uint32_t)len;
	sge.lkey = mr->ibv_mr->lkey;

	int err = ibv_advise_mr(mr->ibv_mr->pd, (enum ibv_advise_mr_advice)advice, flags, &sge, 1);

	if (err == 0)
		return 0;

	RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_advise_mr(advice %d, flags 0x%x)", advice, flags);
	errno = err;
	if (err == EOPNOTSUPP || err == ENOTSUP)
		return RPMA_E_NOSUPP;
	if (err == EFAULT || err == EINVAL)
		return RPMA_E_INVAL;
	return RPMA_E_PROVIDER;
}

/* see librpma.h */
int
rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size, struct rpma_mr_remote **mr_ptr)
{
	uint64_t addr, length;
	uint32_t rkey;
	uint8_t usage;

	if (desc == NULL || mr_ptr == NULL) {
		RPMA_LOG_ERROR("desc or mr_ptr is NULL");
		return RPMA_E_INVAL;
	}
	if (desc_size < RPMA_MR_DESCRIPTOR_SIZE) {
		RPMA_LOG_ERROR("memory region descriptor of %zu bytes, expected %d", desc_size,
			       RPMA_MR_DESCRIPTOR_SIZE);
		return RPMA_E_INVAL;
	}

	const uint8_t *in = desc;

	memcpy(&addr, in, sizeof(addr));
	memcpy(&length, in + 8, sizeof(length));
	memcpy(&rkey, in + 16, sizeof(rkey));
	usage = in[20];
	addr = le64toh(addr);
	length = le64toh(length);
	rkey = le32toh(rkey);

	if (usage == 0 || (usage & ~RPMA_MR_USAGE_ALL)) {
		RPMA_LOG_ERROR("descriptor has invalid usage 0x%x", usage);
		return RPMA_E_NOSUPP;
	}
	if (addr + length < addr) {
		RPMA_LOG_ERROR("descriptor's region 0x%llx + %llu wraps around",
			       (unsigned long long)addr, (unsigned long long)length);
		return RPMA_E_NOSUPP;
	}

	struct rpma_mr_remote *mr = malloc(sizeof(*mr));

	if (mr == NULL) {
		RPMA_LOG_ERROR("cannot allocate a remote memory region");
		return RPMA_E_NOMEM;
	}
	mr->raddr = addr;
	mr->size = length;
	mr->rkey = rkey;
	mr->usage = usage;
	*mr_ptr = mr;
	return 0;
}

/* see librpma.h */
int
rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size)
{
	if (mr == NULL || size == NULL) {
		RPMA_LOG_ERROR("mr or size is NULL");
		return RPMA_E_INVAL;
	}
	if (mr->size > SIZE_MAX) {
		RPMA_LOG_ERROR("remote region of %llu bytes does not fit in size_t",
			       (unsigned long long)mr->size);
		return RPMA_E_INVAL;
	}
	*size = (size_t)mr->size;
	return 0;
}

/* see librpma.h */
int
rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type)
{
	if (mr == NULL || flush_type == NULL) {
		RPMA_LOG_ERROR("mr or flush_type is NULL");
		return RPMA_E_INVAL;
	}
	*flush_type =
	    mr->usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

/* see librpma.h */
int
rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr)
{
	if (mr_ptr == NULL) {
		RPMA_LOG_ERROR("mr_ptr is NULL");
		return RPMA_E_INVAL;
	}
	free(*mr_ptr);
	*mr_ptr = NULL;
	return 0;
}

/* see mr.h */
int
rpma__mr_pair_failed(const void *local, size_t local_offset, const void *remote,
		     size_t remote_offset, size_t len)
{
	if (local == NULL && remote == NULL)
		RPMA_LOG_ERROR("no regions, but offsets %zu and %zu and length %zu", local_offset,
			       remote_offset, len);
	else if (local == NULL || remote == NULL)
		RPMA_LOG_ERROR("the %s region is NULL", local == NULL ? "local" : "remote");
	else
		RPMA_LOG_ERROR("length %zu exceeds the %u bytes of one work request", len,
			       UINT32_MAX);
	return RPMA_E_INVAL;
}

/* see mr.h */
int
rpma__mr_buf_failed(const struct rpma_mr_local *mr, size_t offset, size_t len)
{
	if (mr == NULL)
		RPMA_LOG_ERROR("no region, but offset %zu and length %zu", offset, len);
	else
		RPMA_LOG_ERROR("length %zu exceeds the %u bytes of one work request", len,
			       UINT32_MAX);
	return RPMA_E_INVAL;
}

/* see mr.h */
int
rpma__flags_invalid(int flags)
{
	RPMA_LOG_ERROR(
	    "flags are 0x%x: give RPMA_F_COMPLETION_ON_ERROR or RPMA_F_COMPLETION_ALWAYS", flags);
	return RPMA_E_INVAL;
}

/* see mr.h */
int
rpma__mr_post_failed(int err, const char *what, int opcode)
{
	if (opcode >= 0)
		RPMA_LOG_ERROR_WITH_ERRNO(err, "%s(opcode %d)", what, opcode);
	else
		RPMA_LOG_ERROR_WITH_ERRNO(err, "%s()", what);
	errno = err;
	return RPMA_E_PROVIDER;
}

/* see mr.h */
int
rpma__mr_post_atomic_write(struct ibv_qp *qp, struct ibv_qp_ex *qpx,
			   const struct rpma_mr_remote *remote, size_t offset, const char src[8],
			   unsigned send_flags, const void *op_context)
{
	if (qpx) {
		ibv_wr_start(qpx);
		qpx->wr_id = (uint64_t)(uintptr_t)op_context;
		qpx->wr_flags = send_flags;
		ibv_wr_atomic_write(qpx, remote->rkey, remote->raddr + offset, src);

		int err = ibv_wr_complete(qpx);

		if (err) {
			RPMA_LOG_ERROR_WITH_ERRNO(err, "ibv_wr_complete(atomic write)");
			errno = err;
			return RPMA_E_PROVIDER;
		}
		return 0;
	}

	struct ibv_send_wr wr;
	struct ibv_sge sge;

	memset(&wr, 0, sizeof(wr));
	sge.addr = (uint64_t)(uintptr_t)src;
	sge.length = RPMA_ATOMIC_WRITE_ALIGNMENT;
	sge.lkey = 0; /* inline data needs no key */
	wr.wr_id = (uint64_t)(uintptr_t)op_context;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = send_flags | IBV_SEND_INLINE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = remote->raddr + offset;
	wr.wr.rdma.rkey = remote->rkey;
	return rpma__post_send_wr(qp, &wr);
}
