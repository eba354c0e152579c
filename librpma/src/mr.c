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
 * usage_to_access -- the verbs access flags a region needs for its usage: a
 * flush is carried out as a read of the region, and anything written into
 * the region needs local write access.
 */
static int
usage_to_access(int usage)
{
	int access = 0;

	if (usage & (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
		     RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	if (usage & (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_RECV))
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	return access;
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

	ret = rpma__peer_mr_reg(peer, &ibv_mr, ptr, size, usage_to_access(usage));
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
rpma__mr_check_local_failed(const struct rpma_mr_local *mr, size_t offset, size_t len, int usage)
{
	if (mr == NULL)
		RPMA_LOG_ERROR("local region is NULL");
	else if ((mr->usage & usage) != usage)
		RPMA_LOG_ERROR("local region usage 0x%x lacks 0x%x", mr->usage, usage);
	else
		RPMA_LOG_ERROR("range [%zu, +%zu) is outside the local region of %zu bytes", offset,
			       len, mr->ibv_mr->length);
	return RPMA_E_INVAL;
}

/* see mr.h */
int
rpma__mr_check_remote_failed(const struct rpma_mr_remote *mr, size_t offset, size_t len, int usage)
{
	if (mr == NULL)
		RPMA_LOG_ERROR("remote region is NULL");
	else if ((mr->usage & usage) != usage)
		RPMA_LOG_ERROR("remote region usage 0x%x lacks 0x%x", mr->usage, usage);
	else
		RPMA_LOG_ERROR("range [%zu, +%zu) is outside the remote region of %llu bytes",
			       offset, len, (unsigned long long)mr->size);
	return RPMA_E_INVAL;
}

/* see mr.h */
int
rpma__flags_invalid(int flags)
{
	RPMA_LOG_ERROR("invalid flags: 0x%x", flags);
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
