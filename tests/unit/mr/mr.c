/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c -- unit tests of librpma/src/mr.c: registration, the descriptor,
 * remote regions, advice, the argument checks of the data path and the
 * posting of work requests
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "librpma.h"
#include "mocks.h"
#include "mr.h"
#include "peer.h"

/* a pointer value no function may write over an output on failure */
#define SENTINEL ((void *)(uintptr_t)0xbadc0ffe)

#define BUF_SIZE 4096
#define RADDR	 0x1000000ULL
#define RSIZE	 0x2000ULL
#define RKEY	 0xa1b2c3d4U

static char Buf[BUF_SIZE];

/* the test state: a peer, and a fake CM id with a QP for the post tests */
struct fixture {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
};

static struct fixture Fix;

/* setup -- a clean mock state, a peer and a QP */
static int
setup(void **state)
{
	struct ibv_qp_init_attr_ex attr;

	mock_reset();
	memset(&Fix, 0, sizeof(Fix));
	assert_int_equal(rpma_peer_new(mock_ibv_context(), &Fix.peer), 0);
	assert_int_equal(rdma_create_id(NULL, &Fix.id, NULL, RDMA_PS_TCP), 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = rpma__peer_pd(Fix.peer);
	assert_int_equal(rdma_create_qp_ex(Fix.id, &attr), 0);
	*state = &Fix;
	return 0;
}

/* teardown -- release the fixture; nothing may leak */
static int
teardown(void **state)
{
	(void)state;
	rdma_destroy_qp(Fix.id);
	assert_int_equal(rdma_destroy_id(Fix.id), 0);
	assert_int_equal(rpma_peer_delete(&Fix.peer), 0);
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	return 0;
}

/* reg -- register size bytes of Buf (from offset 0) for usage, asserted to succeed */
static struct rpma_mr_local *
reg(size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, size, usage, &mr), 0);
	assert_non_null(mr);
	return mr;
}

/* desc_make -- a 21-byte descriptor in the wire format */
static void
desc_make(uint8_t *desc, uint64_t addr, uint64_t len, uint32_t rkey, uint8_t usage)
{
	for (int i = 0; i < 8; i++) {
		desc[i] = (uint8_t)(addr >> (8 * i));
		desc[8 + i] = (uint8_t)(len >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		desc[16 + i] = (uint8_t)(rkey >> (8 * i));
	desc[20] = usage;
}

/* remote -- a remote region at RADDR of RSIZE bytes with the given usage */
static struct rpma_mr_remote *
remote(int usage)
{
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *mr = NULL;

	desc_make(desc, RADDR, RSIZE, RKEY, (uint8_t)usage);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	assert_non_null(mr);
	return mr;
}

/*
 * reg_access -- every usage maps to the access flags librpma 1.3 grants: a
 * write source gets local write (so it may be received or read into), a
 * send source nothing
 */
static void
reg_access(void **state)
{
	(void)state;
	static const struct {
		int usage;
		int access;
	} map[] = {
	    {RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
	    {RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_WRITE_SRC, IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_WRITE_DST, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, IBV_ACCESS_REMOTE_READ},
	    {RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ},
	    {RPMA_MR_USAGE_SEND, 0},
	    {RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC, IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST,
	     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
	    {RPMA_MR_USAGE_ALL,
	     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_last_reg_mr_access = -1;
		struct rpma_mr_local *mr = reg(100, map[i].usage);

		assert_int_equal(mock_last_reg_mr_access, map[i].access);
		assert_ptr_equal(mock_last_reg_mr->addr, Buf);
		assert_int_equal(mock_last_reg_mr->length, 100);
		assert_ptr_equal(mock_last_reg_mr->pd, rpma__peer_pd(Fix.peer));
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_null(mr);
	}
	assert_int_equal(mock_calls("ibv_dereg_mr"), 12);
}

/*
 * reg_access_iwarp -- iWARP reads by writing into the reader's region: a
 * read destination also gets remote write there, and only there
 */
static void
reg_access_iwarp(void **state)
{
	(void)state;
	mock_ibv_context()->device->transport_type = IBV_TRANSPORT_IWARP;

	struct rpma_mr_local *mr = reg(100, RPMA_MR_USAGE_READ_DST);

	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	mr = reg(100, RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(mock_last_reg_mr_access, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* reg_invalid -- NULL arguments, size 0, usage 0 or unknown bits: INVAL, nothing done */
static void
reg_invalid(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = SENTINEL;
	int u = RPMA_MR_USAGE_READ_SRC;

	assert_int_equal(rpma_mr_reg(NULL, Buf, 10, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, NULL, 10, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, u, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 0, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, 0, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, 1 << 8, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, u | (1 << 12), &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, -1, &mr), RPMA_E_INVAL);
	assert_ptr_equal(mr, SENTINEL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 0);
}

/* reg_provider_fails -- a refused registration: PROVIDER with errno, nothing kept */
static void
reg_provider_fails(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = SENTINEL;

	mock_fail("ibv_reg_mr_iova2", EFAULT);
	errno = 0;
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, RPMA_MR_USAGE_SEND, &mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_ptr_equal(mr, SENTINEL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2"), 1);
}

/* reg_malloc_fails -- no memory: NOMEM before anything is registered */
static void
reg_malloc_fails(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = SENTINEL;

	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, 10, RPMA_MR_USAGE_SEND, &mr), RPMA_E_NOMEM);
	assert_ptr_equal(mr, SENTINEL);
	assert_int_equal(mock_calls("ibv_reg_mr_iova2") + mock_calls("ibv_reg_mr"), 0);
}

/* dereg -- NULL refused, *NULL a no-op, a failing dereg reported but freed */
static void
dereg(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_dereg(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(mock_calls("ibv_dereg_mr"), 0);

	mr = reg(10, RPMA_MR_USAGE_SEND);
	struct ibv_mr *ibv_mr = mock_last_reg_mr;

	mock_fail("ibv_dereg_mr", EBUSY);
	errno = 0;
	assert_int_equal(rpma_mr_dereg(&mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(mr);
	assert_int_equal(mock_alloc_live(), 1); /* the peer only */
	assert_int_equal(ibv_dereg_mr(ibv_mr), 0);
}

/* getters -- ptr and size of a local region; NULL arguments refused and untouched */
static void
getters(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = reg(123, RPMA_MR_USAGE_READ_DST);
	void *ptr = SENTINEL;
	size_t size = 7;

	assert_int_equal(rpma_mr_get_ptr(mr, &ptr), 0);
	assert_ptr_equal(ptr, Buf);
	assert_int_equal(rpma_mr_get_size(mr, &size), 0);
	assert_int_equal(size, 123);
	assert_ptr_equal(rpma__mr_local_ptr(mr, 17), Buf + 17);

	ptr = SENTINEL;
	size = 7;
	assert_int_equal(rpma_mr_get_ptr(NULL, &ptr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_ptr(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(mr, NULL), RPMA_E_INVAL);
	assert_ptr_equal(ptr, SENTINEL);
	assert_int_equal(size, 7);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* descriptor_layout -- 21 bytes: u64 addr, u64 length, u32 rkey, u8 usage, little-endian */
static void
descriptor_layout(void **state)
{
	(void)state;
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	struct rpma_mr_local *mr = reg(0x0102, usage);
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE + 3];
	uint8_t expected[RPMA_MR_DESCRIPTOR_SIZE];
	size_t desc_size = 0;

	assert_int_equal(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	assert_int_equal(desc_size, 21);

	memset(desc, 0xee, sizeof(desc));
	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	desc_make(expected, (uint64_t)(uintptr_t)Buf, 0x0102, MOCK_RKEY, (uint8_t)usage);
	assert_memory_equal(desc, expected, RPMA_MR_DESCRIPTOR_SIZE);
	/* byte by byte, independent of desc_make */
	assert_int_equal(desc[8], 0x02);
	assert_int_equal(desc[9], 0x01);
	assert_int_equal(desc[15], 0);
	assert_int_equal(desc[16], MOCK_RKEY);
	assert_int_equal(desc[17], 0);
	assert_int_equal(desc[20], usage);
	assert_int_equal(desc[0], (uint8_t)(uintptr_t)Buf);
	/* nothing written past the descriptor */
	assert_int_equal(desc[21], 0xee);
	assert_int_equal(desc[23], 0xee);

	/* NULL arguments */
	desc_size = 5;
	assert_int_equal(rpma_mr_get_descriptor(NULL, desc), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(NULL, &desc_size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(desc_size, 5);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* descriptor_round_trip -- a local region's descriptor makes the same remote region */
static void
descriptor_round_trip(void **state)
{
	(void)state;
	int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	struct rpma_mr_local *mr = reg(999, usage);
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE], again[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *rmr = NULL;
	size_t size = 0;
	int flush_type = -1;

	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), 0);
	assert_non_null(rmr);
	assert_int_equal(rpma_mr_remote_get_size(rmr, &size), 0);
	assert_int_equal(size, 999);
	assert_int_equal(rmr->size, 999);
	assert_int_equal(rmr->usage, usage);
	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, &flush_type), 0);
	assert_int_equal(flush_type, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	memset(again, 0, sizeof(again));
	rpma__mr_remote_to_descriptor(rmr, again);
	assert_memory_equal(again, desc, sizeof(desc));

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_null(rmr);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* from_descriptor_values -- the decoded fields, from a longer buffer too */
static void
from_descriptor_values(void **state)
{
	(void)state;
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE + 10];
	struct rpma_mr_remote *rmr = NULL;
	uint8_t out[RPMA_MR_DESCRIPTOR_SIZE];

	memset(desc, 0x55, sizeof(desc));
	desc_make(desc, 0x1122334455667788ULL, 0x0000000100000000ULL, 0xdeadbeef,
		  RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), 0);
	assert_int_equal(rmr->size, 0x0000000100000000ULL);
	rpma__mr_remote_to_descriptor(rmr, out);
	assert_memory_equal(out, desc, RPMA_MR_DESCRIPTOR_SIZE);

	int flush_type = 0;

	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, &flush_type), 0);
	assert_int_equal(flush_type,
			 RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);

	/* the last address before the wrap is fine; no flush type at all */
	desc_make(desc, UINT64_MAX - 10, 10, 1, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, RPMA_MR_DESCRIPTOR_SIZE, &rmr), 0);
	flush_type = -1;
	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, &flush_type), 0);
	assert_int_equal(flush_type, 0);
	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
}

/* from_descriptor_rejects -- NULL, short buffer (INVAL); bad usage, wrapping range (NOSUPP) */
static void
from_descriptor_rejects(void **state)
{
	(void)state;
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *rmr = SENTINEL;

	desc_make(desc, RADDR, RSIZE, RKEY, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_from_descriptor(NULL, sizeof(desc), &rmr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc) - 1, &rmr),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, 0, &rmr), RPMA_E_INVAL);

	/* usage 0 (every one of the 8 usage bits is defined, so no byte has unknown bits) */
	desc_make(desc, RADDR, RSIZE, RKEY, 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), RPMA_E_NOSUPP);

	/* addr + length wraps around */
	desc_make(desc, UINT64_MAX, 1, RKEY, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), RPMA_E_NOSUPP);
	desc_make(desc, 0x8000000000000000ULL, 0x8000000000000001ULL, RKEY, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), RPMA_E_NOSUPP);

	/* no memory */
	desc_make(desc, RADDR, RSIZE, RKEY, RPMA_MR_USAGE_READ_SRC);
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr), RPMA_E_NOMEM);

	assert_ptr_equal(rmr, SENTINEL);
}

/* remote_getters_null -- NULL arguments of the remote getters and delete */
static void
remote_getters_null(void **state)
{
	(void)state;
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_READ_SRC);
	size_t size = 3;
	int flush_type = 3;

	assert_int_equal(rpma_mr_remote_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_size(rmr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(NULL, &flush_type), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, NULL), RPMA_E_INVAL);
	assert_int_equal(size, 3);
	assert_int_equal(flush_type, 3);

	assert_int_equal(rpma_mr_remote_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_null(rmr);
	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
}

/* advise_ok -- each supported advice, with the sge of the range and the flags */
static void
advise_ok(void **state)
{
	(void)state;
	static const int advices[] = {
	    IBV_ADVISE_MR_ADVICE_PREFETCH,
	    IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
	    IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
	};
	struct rpma_mr_local *mr = reg(BUF_SIZE, RPMA_MR_USAGE_READ_DST);

	for (int i = 0; i < 3; i++) {
		memset(&mock_last_advise_sge, 0, sizeof(mock_last_advise_sge));
		assert_int_equal(
		    rpma_mr_advise(mr, 100 + i, 200, advices[i], IBV_ADVISE_MR_FLAG_FLUSH), 0);
		assert_int_equal(mock_last_advise, advices[i]);
		assert_int_equal(mock_last_advise_flags, IBV_ADVISE_MR_FLAG_FLUSH);
		assert_int_equal(mock_last_advise_sge.addr, (uint64_t)(uintptr_t)Buf + 100 + i);
		assert_int_equal(mock_last_advise_sge.length, 200);
		assert_int_equal(mock_last_advise_sge.lkey, MOCK_LKEY);
	}

	/* the whole region */
	assert_int_equal(rpma_mr_advise(mr, 0, BUF_SIZE, IBV_ADVISE_MR_ADVICE_PREFETCH, 0), 0);
	assert_int_equal(mock_last_advise_sge.length, BUF_SIZE);
	assert_int_equal(mock_calls("ibv_advise_mr"), 4);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* advise_invalid -- NULL, empty or outside ranges, unknown advice: INVAL, no call */
static void
advise_invalid(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = reg(BUF_SIZE, RPMA_MR_USAGE_READ_DST);
	int a = IBV_ADVISE_MR_ADVICE_PREFETCH;

	assert_int_equal(rpma_mr_advise(NULL, 0, 1, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 0, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, BUF_SIZE + 1, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 1, BUF_SIZE, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, BUF_SIZE + 1, 1, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, SIZE_MAX, 2, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 1, 77, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 1, -1, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* longer than an sge can express, though inside the region */
	size_t huge = (size_t)UINT32_MAX + 2;

	assert_int_equal(rpma_mr_reg(Fix.peer, Buf, huge, RPMA_MR_USAGE_READ_DST, &mr), 0);
	assert_int_equal(rpma_mr_advise(mr, 0, (size_t)UINT32_MAX + 1, a, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 1, UINT32_MAX, a, 0), 0);
	assert_int_equal(mock_last_advise_sge.length, UINT32_MAX);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	assert_int_equal(mock_calls("ibv_advise_mr"), 1);
}

/* advise_errors -- EOPNOTSUPP is NOSUPP, EINVAL/EFAULT INVAL, others PROVIDER; errno kept */
static void
advise_errors(void **state)
{
	(void)state;
	/* clang-format off */
	static const struct {
		int err;
		int ret;
	} map[] = {
		{EOPNOTSUPP, RPMA_E_NOSUPP},
		{ENOTSUP, RPMA_E_NOSUPP},
		{EINVAL, RPMA_E_INVAL},
		{EFAULT, RPMA_E_INVAL},
		{EIO, RPMA_E_PROVIDER},
		{ENOMEM, RPMA_E_PROVIDER},
	};
	/* clang-format on */
	struct rpma_mr_local *mr = reg(BUF_SIZE, RPMA_MR_USAGE_READ_DST);

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_fail("ibv_advise_mr", map[i].err);
		errno = 0;
		assert_int_equal(rpma_mr_advise(mr, 0, 8, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0),
				 map[i].ret);
		assert_int_equal(errno, map[i].err);
	}
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/*
 * check_pair -- the regions of a read or a write: both, or neither with
 * offsets and length 0; neither usage nor range is librpma's to check (the
 * device does, see mr.h); only a length beyond one work request is refused
 */
static void
check_pair(void **state)
{
	(void)state;
	/* usages that name neither a read nor a write, a region of 100 bytes */
	struct rpma_mr_local *mr = reg(100, RPMA_MR_USAGE_SEND);
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	assert_int_equal(rpma__mr_check_pair(mr, 0, rmr, 0, 100), 0);
	assert_int_equal(rpma__mr_check_pair(mr, 0, rmr, 0, 0), 0);
	/* ranges outside the regions: the device reports them in a completion */
	assert_int_equal(rpma__mr_check_pair(mr, 99, rmr, RSIZE, 1000), 0);
	assert_int_equal(rpma__mr_check_pair(mr, SIZE_MAX, rmr, SIZE_MAX, 8), 0);
	assert_int_equal(rpma__mr_check_pair(mr, 0, rmr, 0, UINT32_MAX), 0);
	/* a length a work request cannot hold */
	assert_int_equal(rpma__mr_check_pair(mr, 0, rmr, 0, (size_t)UINT32_MAX + 1), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_pair(mr, 0, rmr, 0, SIZE_MAX), RPMA_E_INVAL);

	/* an empty operation: both NULL, nothing else */
	assert_int_equal(rpma__mr_check_pair(NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(rpma__mr_check_pair(NULL, 1, NULL, 0, 0), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_pair(NULL, 0, NULL, 1, 0), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_pair(NULL, 0, NULL, 0, 1), RPMA_E_INVAL);
	/* one region without the other */
	assert_int_equal(rpma__mr_check_pair(mr, 0, NULL, 0, 0), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_pair(NULL, 0, rmr, 0, 0), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_pair(NULL, 0, rmr, 0, 8), RPMA_E_INVAL);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/*
 * check_buf -- the buffer of a send or a receive: a region of any usage
 * and any range, or NULL with offset and length 0
 */
static void
check_buf(void **state)
{
	(void)state;
	struct rpma_mr_local *mr = reg(100, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);

	assert_int_equal(rpma__mr_check_buf(mr, 0, 100), 0);
	assert_int_equal(rpma__mr_check_buf(mr, 100, 0), 0);
	assert_int_equal(rpma__mr_check_buf(mr, 50, 100), 0);
	assert_int_equal(rpma__mr_check_buf(mr, 0, UINT32_MAX), 0);
	assert_int_equal(rpma__mr_check_buf(mr, 0, (size_t)UINT32_MAX + 1), RPMA_E_INVAL);

	assert_int_equal(rpma__mr_check_buf(NULL, 0, 0), 0);
	assert_int_equal(rpma__mr_check_buf(NULL, 0, 1), RPMA_E_INVAL);
	assert_int_equal(rpma__mr_check_buf(NULL, 1, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* post_rdma_read -- RDMA READ: opcode, wr_id, flags, sge of the local range, remote address */
static void
post_rdma_read(void **state)
{
	(void)state;
	struct rpma_mr_local *local = reg(BUF_SIZE, RPMA_MR_USAGE_READ_DST);
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_READ_SRC);
	int ctx;

	assert_int_equal(rpma__mr_post_rdma(Fix.id->qp, IBV_WR_RDMA_READ, local, 16, rmr, 32, 64,
					    IBV_SEND_SIGNALED, 0xffffffff, &ctx),
			 0);
	assert_int_equal(mock_calls("ibv_post_send"), 1);
	assert_int_equal(mock_posted_send_wrs, 1);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(mock_last_send_wr.wr_id, (uint64_t)(uintptr_t)&ctx);
	assert_int_equal(mock_last_send_wr.send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_non_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)Buf + 16);
	assert_int_equal(mock_last_send_sge.length, 64);
	assert_int_equal(mock_last_send_sge.lkey, MOCK_LKEY);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 32);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, RKEY);
	/* no immediate data without WRITE_WITH_IMM */
	assert_int_equal(mock_last_send_wr.imm_data, 0);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_int_equal(rpma_mr_dereg(&local), 0);
}

/* post_rdma_write_imm -- WRITE and WRITE_WITH_IMM (imm in network byte order) */
static void
post_rdma_write_imm(void **state)
{
	(void)state;
	struct rpma_mr_local *local = reg(BUF_SIZE, RPMA_MR_USAGE_WRITE_SRC);
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_WRITE_DST);

	assert_int_equal(rpma__mr_post_rdma(Fix.id->qp, IBV_WR_RDMA_WRITE, local, 0, rmr, 0, 8, 0,
					    0x12345678, NULL),
			 0);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(mock_last_send_wr.wr_id, 0);
	assert_int_equal(mock_last_send_wr.send_flags, 0);
	assert_int_equal(mock_last_send_wr.imm_data, 0);

	assert_int_equal(rpma__mr_post_rdma(Fix.id->qp, IBV_WR_RDMA_WRITE_WITH_IMM, local, 4, rmr,
					    RSIZE - 4, 4, IBV_SEND_SIGNALED, 0x12345678,
					    (void *)(uintptr_t)0x77),
			 0);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(0x12345678));
	assert_int_equal(mock_last_send_wr.wr_id, 0x77);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)Buf + 4);
	assert_int_equal(mock_last_send_sge.length, 4);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + RSIZE - 4);
	assert_int_equal(mock_posted_send_wrs, 2);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_int_equal(rpma_mr_dereg(&local), 0);
}

/* post_rdma_empty -- no regions: a WR without sge, remote address or key */
static void
post_rdma_empty(void **state)
{
	(void)state;
	mock_last_send_wr.num_sge = 9;
	assert_int_equal(rpma__mr_post_rdma(Fix.id->qp, IBV_WR_RDMA_WRITE_WITH_IMM, NULL, 0, NULL,
					    0, 0, IBV_SEND_SIGNALED, 1, (void *)(uintptr_t)5),
			 0);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, 0);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(1));
	assert_int_equal(mock_last_send_wr.wr_id, 5);
}

/* post_rdma_fails -- a refused WR is PROVIDER with errno */
static void
post_rdma_fails(void **state)
{
	(void)state;
	mock_fail("ibv_post_send", ENOMEM);
	errno = 0;
	assert_int_equal(
	    rpma__mr_post_rdma(Fix.id->qp, IBV_WR_RDMA_READ, NULL, 0, NULL, 0, 0, 0, 0, NULL),
	    RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_posted_send_wrs, 0);
}

/* post_send -- SEND and SEND_WITH_IMM of a local range, an empty SEND, a failure */
static void
post_send(void **state)
{
	(void)state;
	struct rpma_mr_local *src = reg(BUF_SIZE, RPMA_MR_USAGE_SEND);

	assert_int_equal(rpma__mr_post_send(Fix.id->qp, IBV_WR_SEND, src, 10, 20, IBV_SEND_SIGNALED,
					    0xabcd, (void *)(uintptr_t)3),
			 0);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_SEND);
	assert_int_equal(mock_last_send_wr.wr_id, 3);
	assert_int_equal(mock_last_send_wr.send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)Buf + 10);
	assert_int_equal(mock_last_send_sge.length, 20);
	assert_int_equal(mock_last_send_sge.lkey, MOCK_LKEY);
	assert_int_equal(mock_last_send_wr.imm_data, 0);

	assert_int_equal(
	    rpma__mr_post_send(Fix.id->qp, IBV_WR_SEND_WITH_IMM, src, 0, 1, 0, 0xabcd, NULL), 0);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(0xabcd));
	assert_int_equal(mock_last_send_wr.send_flags, 0);

	assert_int_equal(rpma__mr_post_send(Fix.id->qp, IBV_WR_SEND, NULL, 0, 0, 0, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_posted_send_wrs, 3);

	mock_fail("ibv_post_send", EAGAIN);
	errno = 0;
	assert_int_equal(rpma__mr_post_send(Fix.id->qp, IBV_WR_SEND, src, 0, 1, 0, 0, NULL),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(mock_posted_send_wrs, 3);

	assert_int_equal(rpma_mr_dereg(&src), 0);
}

/* post_recv_qp -- a receive on the QP: wr_id, sge; empty; a failure */
static void
post_recv_qp(void **state)
{
	(void)state;
	struct rpma_mr_local *dst = reg(BUF_SIZE, RPMA_MR_USAGE_RECV);

	assert_int_equal(rpma__mr_post_recv(Fix.id->qp, NULL, dst, 8, 56, (void *)(uintptr_t)9), 0);
	assert_int_equal(mock_calls("ibv_post_recv"), 1);
	assert_int_equal(mock_calls("ibv_post_srq_recv"), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 9);
	assert_int_equal(mock_last_recv_wr.num_sge, 1);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)Buf + 8);
	assert_int_equal(mock_last_recv_sge.length, 56);
	assert_int_equal(mock_last_recv_sge.lkey, MOCK_LKEY);

	assert_int_equal(rpma__mr_post_recv(Fix.id->qp, NULL, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_last_recv_wr.num_sge, 0);
	assert_null(mock_last_recv_wr.sg_list);
	assert_int_equal(mock_posted_recv_wrs, 2);

	mock_fail("ibv_post_recv", ENOMEM);
	errno = 0;
	assert_int_equal(rpma__mr_post_recv(Fix.id->qp, NULL, dst, 0, 1, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_posted_recv_wrs, 2);

	assert_int_equal(rpma_mr_dereg(&dst), 0);
}

/* post_recv_srq -- with a SRQ the receive goes to it, not to the QP */
static void
post_recv_srq(void **state)
{
	(void)state;
	struct rpma_mr_local *dst = reg(BUF_SIZE, RPMA_MR_USAGE_RECV);
	struct ibv_srq *srq = NULL;

	assert_int_equal(rpma__peer_create_srq(Fix.peer, 10, &srq), 0);
	assert_int_equal(rpma__mr_post_recv(NULL, srq, dst, 100, 200, (void *)(uintptr_t)11), 0);
	assert_int_equal(mock_calls("ibv_post_srq_recv"), 1);
	assert_int_equal(mock_calls("ibv_post_recv"), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 11);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)Buf + 100);
	assert_int_equal(mock_last_recv_sge.length, 200);
	assert_int_equal(mock_last_recv_sge.lkey, MOCK_LKEY);

	mock_fail("ibv_post_srq_recv", EINVAL);
	errno = 0;
	assert_int_equal(rpma__mr_post_recv(NULL, srq, dst, 0, 1, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(rpma_mr_dereg(&dst), 0);
}

/* atomic_write_native -- through the qp_ex: start, atomic write of the 8 bytes, complete */
static void
atomic_write_native(void **state)
{
	(void)state;
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_WRITE_DST);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(Fix.id->qp);
	const char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};

	assert_non_null(qpx);
	assert_int_equal(rpma__mr_post_atomic_write(Fix.id->qp, qpx, rmr, 64, src,
						    IBV_SEND_SIGNALED, (void *)(uintptr_t)0x42),
			 0);
	assert_int_equal(mock_calls("ibv_wr_start"), 1);
	assert_int_equal(mock_calls("ibv_wr_atomic_write"), 1);
	assert_int_equal(mock_calls("ibv_wr_complete"), 1);
	assert_int_equal(mock_calls("ibv_post_send"), 0);
	assert_int_equal(mock_last_atomic_write.rkey, RKEY);
	assert_int_equal(mock_last_atomic_write.remote_addr, RADDR + 64);
	assert_memory_equal(mock_last_atomic_write.data, src, 8);
	assert_int_equal(mock_last_atomic_write.wr_id, 0x42);
	assert_int_equal(mock_last_atomic_write.wr_flags, IBV_SEND_SIGNALED);

	mock_fail("ibv_wr_complete", EIO);
	errno = 0;
	assert_int_equal(rpma__mr_post_atomic_write(Fix.id->qp, qpx, rmr, 0, src, 0, NULL),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
}

/* atomic_write_emulated -- without qp_ex: an inline 8-byte RDMA WRITE of src */
static void
atomic_write_emulated(void **state)
{
	(void)state;
	struct rpma_mr_remote *rmr = remote(RPMA_MR_USAGE_WRITE_DST);
	const char src[8] = {8, 7, 6, 5, 4, 3, 2, 1};

	assert_int_equal(rpma__mr_post_atomic_write(Fix.id->qp, NULL, rmr, 8, src,
						    IBV_SEND_SIGNALED, (void *)(uintptr_t)0x43),
			 0);
	assert_int_equal(mock_calls("ibv_post_send"), 1);
	assert_int_equal(mock_calls("ibv_wr_start"), 0);
	assert_int_equal(mock_last_send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(mock_last_send_wr.wr_id, 0x43);
	assert_int_equal(mock_last_send_wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)src);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(mock_last_send_sge.lkey, 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + 8);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, RKEY);

	/* without a completion wanted, only the inline flag */
	assert_int_equal(rpma__mr_post_atomic_write(Fix.id->qp, NULL, rmr, 0, src, 0, NULL), 0);
	assert_int_equal(mock_last_send_wr.send_flags, IBV_SEND_INLINE);

	mock_fail("ibv_post_send", ENOSPC);
	errno = 0;
	assert_int_equal(rpma__mr_post_atomic_write(Fix.id->qp, NULL, rmr, 0, src, 0, NULL),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
}

/*
 * flags_to_send_flags -- as in librpma 1.3: any non-zero flags; signaled
 * when the completion-on-success bit is set; 0 is INVAL
 */
static void
flags_to_send_flags(void **state)
{
	(void)state;
	unsigned send_flags = 77;

	assert_int_equal(rpma__flags_to_send_flags(RPMA_F_COMPLETION_ALWAYS, &send_flags), 0);
	assert_int_equal(send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(rpma__flags_to_send_flags(RPMA_F_COMPLETION_ON_ERROR, &send_flags), 0);
	assert_int_equal(send_flags, 0);
	assert_int_equal(rpma__flags_to_send_flags(1 << 1, &send_flags), 0);
	assert_int_equal(send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(rpma__flags_to_send_flags(1 << 4, &send_flags), 0);
	assert_int_equal(send_flags, 0);
	assert_int_equal(
	    rpma__flags_to_send_flags(RPMA_F_COMPLETION_ALWAYS | (1 << 4), &send_flags), 0);
	assert_int_equal(send_flags, IBV_SEND_SIGNALED);

	send_flags = 77;
	assert_int_equal(rpma__flags_to_send_flags(0, &send_flags), RPMA_E_INVAL);
	assert_int_equal(send_flags, 77);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    T(reg_access),
	    T(reg_access_iwarp),
	    T(reg_invalid),
	    T(reg_provider_fails),
	    T(reg_malloc_fails),
	    T(dereg),
	    T(getters),
	    T(descriptor_layout),
	    T(descriptor_round_trip),
	    T(from_descriptor_values),
	    T(from_descriptor_rejects),
	    T(remote_getters_null),
	    T(advise_ok),
	    T(advise_invalid),
	    T(advise_errors),
	    T(check_pair),
	    T(check_buf),
	    T(post_rdma_read),
	    T(post_rdma_write_imm),
	    T(post_rdma_empty),
	    T(post_rdma_fails),
	    T(post_send),
	    T(post_recv_qp),
	    T(post_recv_srq),
	    T(atomic_write_native),
	    T(atomic_write_emulated),
	    T(flags_to_send_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
