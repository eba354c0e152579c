/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops.c -- unit tests of the data path of librpma/src/conn.c: read, write,
 * atomic write, flush, send and receive, checked on the posted work requests
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn_helpers.h"
#include "ops.h"

#define BUF_SIZE 64
#define RADDR	 0x10000ULL
#define RSIZE	 64ULL
#define RKEY	 0xabcdU

/* usages of a local region that allow every operation */
#define LOCAL_ALL                                                                                  \
	(RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)
/* usages of a remote region that allow every operation */
#define REMOTE_ALL                                                                                 \
	(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |  \
	 RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/* the objects of a data-path test */
struct ops {
	struct h_state *st;
	struct rpma_conn *conn;
	unsigned char buf[BUF_SIZE];
	struct rpma_mr_local *local;   /* every local usage */
	struct rpma_mr_local *none;    /* READ_SRC: none of the local usages */
	struct rpma_mr_remote *remote; /* every remote usage */
	struct rpma_mr_remote *rnone;  /* READ_DST: none of the remote usages */
};

static struct ops Ops;

/* ops_setup -- a connection and regions for the data path */
static int
ops_setup_common(void **state, bool native)
{
	h_setup_common(state, native);
	memset(&Ops, 0, sizeof(Ops));
	Ops.st = *state;
	Ops.conn = h_conn_active(Ops.st->peer, NULL);
	for (int i = 0; i < BUF_SIZE; i++)
		Ops.buf[i] = (unsigned char)(i + 1);
	Ops.local = h_mr_reg(Ops.st->peer, Ops.buf, BUF_SIZE, LOCAL_ALL);
	Ops.none = h_mr_reg(Ops.st->peer, Ops.buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC);
	Ops.remote = h_mr_remote(RADDR, RSIZE, RKEY, REMOTE_ALL);
	Ops.rnone = h_mr_remote(RADDR, RSIZE, RKEY, RPMA_MR_USAGE_READ_DST);
	*state = &Ops;
	return 0;
}

/* ops_setup -- on a device without native atomic write */
static int
ops_setup(void **state)
{
	return ops_setup_common(state, false);
}

/* ops_setup_native -- on a device with native atomic write */
static int
ops_setup_native(void **state)
{
	return ops_setup_common(state, true);
}

/* ops_teardown -- release everything; nothing may leak */
static int
ops_teardown(void **state)
{
	struct ops *o = *state;

	assert_int_equal(rpma_mr_dereg(&o->local), 0);
	assert_int_equal(rpma_mr_dereg(&o->none), 0);
	assert_int_equal(rpma_mr_remote_delete(&o->remote), 0);
	assert_int_equal(rpma_mr_remote_delete(&o->rnone), 0);
	h_conn_delete(&o->conn);
	*state = o->st;
	return h_teardown(state);
}

/* posted -- the number of ibv_post_send calls so far */
static int
posted(void)
{
	return mock_calls("ibv_post_send");
}

/* assert_send_wr -- the captured send WR */
static void
assert_send_wr(enum ibv_wr_opcode opcode, const void *ctx, unsigned flags)
{
	assert_int_equal(mock_last_send_wr.opcode, opcode);
	assert_int_equal(mock_last_send_wr.wr_id, (uint64_t)(uintptr_t)ctx);
	assert_int_equal(mock_last_send_wr.send_flags, flags);
}

/* assert_sge -- the captured send SGE */
static void
assert_sge(const void *addr, uint32_t len)
{
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_non_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)addr);
	assert_int_equal(mock_last_send_sge.length, len);
	assert_int_equal(mock_last_send_sge.lkey, MOCK_LKEY);
}

/* assert_remote -- the captured remote address and key */
static void
assert_remote(uint64_t offset)
{
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + offset);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, RKEY);
}

/*
 * read_posts -- rpma_read posts an RDMA READ of the slices, signaled iff
 * RPMA_F_COMPLETION_ALWAYS; both regions NULL is an empty read
 */
static void
read_posts(void **state)
{
	struct ops *o = *state;
	int ctx = 0;

	assert_int_equal(
	    rpma_read(o->conn, o->local, 8, o->remote, 16, 32, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_send_wr(IBV_WR_RDMA_READ, &ctx, IBV_SEND_SIGNALED);
	assert_sge(o->buf + 8, 32);
	assert_remote(16);

	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 0, BUF_SIZE,
				   RPMA_F_COMPLETION_ON_ERROR, NULL),
			 0);
	assert_send_wr(IBV_WR_RDMA_READ, NULL, 0);
	assert_sge(o->buf, BUF_SIZE);
	assert_remote(0);

	assert_int_equal(rpma_read(o->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	assert_send_wr(IBV_WR_RDMA_READ, &ctx, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_int_equal(posted(), 3);
}

/*
 * read_invalid -- what librpma 1.3 refuses: a NULL conn, flags 0, one
 * region without the other, offsets or a length without regions; and a
 * length no work request holds. Nothing is posted; a failing post gives
 * RPMA_E_PROVIDER
 */
static void
read_invalid(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;

	assert_int_equal(rpma_read(NULL, o->local, 0, o->remote, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 0, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, NULL, 0, o->remote, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, o->local, 0, NULL, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, NULL, 0, o->remote, 0, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, NULL, 0, NULL, 0, 1, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, NULL, 1, NULL, 0, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, NULL, 0, NULL, 1, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(
	    rpma_read(o->conn, o->local, 0, o->remote, 0, (size_t)UINT32_MAX + 1, F, NULL),
	    RPMA_E_INVAL);
	assert_int_equal(rpma_read(o->conn, o->local, 8, o->remote, 0, SIZE_MAX, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_post_send", ENOMEM);
	errno = 0;
	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 0, 8, F, NULL),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
}

/*
 * write_posts -- rpma_write and rpma_write_with_imm post RDMA WRITE (with
 * the immediate data in network order); both regions NULL is empty
 */
static void
write_posts(void **state)
{
	struct ops *o = *state;
	int ctx = 0;

	assert_int_equal(
	    rpma_write(o->conn, o->remote, 24, o->local, 4, 40, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, &ctx, IBV_SEND_SIGNALED);
	assert_sge(o->buf + 4, 40);
	assert_remote(24);
	assert_int_equal(mock_last_send_wr.imm_data, 0);

	assert_int_equal(rpma_write_with_imm(o->conn, o->remote, 0, o->local, 0, 8,
					     RPMA_F_COMPLETION_ON_ERROR, 0x01020304, &ctx),
			 0);
	assert_send_wr(IBV_WR_RDMA_WRITE_WITH_IMM, &ctx, 0);
	assert_sge(o->buf, 8);
	assert_remote(0);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(0x01020304));

	assert_int_equal(rpma_write(o->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ON_ERROR, NULL),
			 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, NULL, 0);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_int_equal(
	    rpma_write_with_imm(o->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, 7, NULL),
	    0);
	assert_send_wr(IBV_WR_RDMA_WRITE_WITH_IMM, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(7));
	assert_int_equal(posted(), 4);
}

/*
 * write_invalid -- the refusals of rpma_write and rpma_write_with_imm (those
 * of librpma 1.3 and a length no work request holds); a failing post gives
 * RPMA_E_PROVIDER
 */
static void
write_invalid(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;

	assert_int_equal(rpma_write(NULL, o->remote, 0, o->local, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, o->local, 0, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, NULL, 0, o->local, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, NULL, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, NULL, 0, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, NULL, 0, NULL, 4, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, NULL, 4, NULL, 0, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, o->local, 1, SIZE_MAX, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(NULL, o->remote, 0, o->local, 0, 8, F, 1, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(o->conn, o->remote, 0, o->local, 0, 8, 0, 1, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(o->conn, NULL, 0, o->local, 0, 8, F, 1, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_with_imm(o->conn, o->remote, 0, o->local, 0,
					     (size_t)UINT32_MAX + 1, F, 1, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_post_send", EINVAL);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, o->local, 0, 8, F, NULL),
			 RPMA_E_PROVIDER);
	mock_fail("ibv_post_send", EINVAL);
	assert_int_equal(rpma_write_with_imm(o->conn, o->remote, 0, o->local, 0, 8, F, 1, NULL),
			 RPMA_E_PROVIDER);
}

/*
 * atomic_write_emulated -- without native atomic write the 8 bytes go as an
 * inline RDMA WRITE from the caller's buffer
 */
static void
atomic_write_emulated(void **state)
{
	struct ops *o = *state;
	const char src[8] = "1234567";
	int ctx = 0;

	assert_int_equal(
	    rpma_atomic_write(o->conn, o->remote, 56, src, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, &ctx, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)src);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_remote(56);

	assert_int_equal(
	    rpma_atomic_write(o->conn, o->remote, 0, src, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, NULL, IBV_SEND_INLINE);
	assert_int_equal(mock_calls("ibv_wr_atomic_write"), 0);
	assert_int_equal(posted(), 2);
}

/*
 * atomic_write_invalid -- NULL conn, region or src, flags 0 and an
 * unaligned offset are refused (as by librpma 1.3); a failing post gives
 * RPMA_E_PROVIDER
 */
static void
atomic_write_invalid(void **state)
{
	struct ops *o = *state;
	const char src[8] = {0};
	const int F = RPMA_F_COMPLETION_ALWAYS;

	assert_int_equal(rpma_atomic_write(NULL, o->remote, 0, src, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 0, NULL, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, NULL, 0, src, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 0, src, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 4, src, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 1, src, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, SIZE_MAX, src, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_post_send", EIO);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 0, src, F, NULL), RPMA_E_PROVIDER);
}

/*
 * atomic_write_native -- with native atomic write the qp_ex posts it: rkey,
 * address, the 8 bytes, wr_id and flags; nothing goes through ibv_post_send;
 * a failing ibv_wr_complete gives RPMA_E_PROVIDER
 */
static void
atomic_write_native(void **state)
{
	struct ops *o = *state;
	const char src[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
	int ctx = 0;

	assert_int_equal(
	    rpma_atomic_write(o->conn, o->remote, 16, src, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_int_equal(mock_calls("ibv_wr_atomic_write"), 1);
	assert_int_equal(mock_calls("ibv_wr_start"), 1);
	assert_int_equal(mock_calls("ibv_wr_complete"), 1);
	assert_int_equal(mock_last_atomic_write.rkey, RKEY);
	assert_int_equal(mock_last_atomic_write.remote_addr, RADDR + 16);
	assert_memory_equal(mock_last_atomic_write.data, src, 8);
	assert_int_equal(mock_last_atomic_write.wr_id, (uint64_t)(uintptr_t)&ctx);
	assert_int_equal(mock_last_atomic_write.wr_flags, IBV_SEND_SIGNALED);

	assert_int_equal(
	    rpma_atomic_write(o->conn, o->remote, 0, src, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(mock_last_atomic_write.wr_flags, 0);
	assert_int_equal(mock_last_atomic_write.wr_id, 0);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_wr_complete", EIO);
	errno = 0;
	assert_int_equal(
	    rpma_atomic_write(o->conn, o->remote, 0, src, RPMA_F_COMPLETION_ALWAYS, NULL),
	    RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
}

/*
 * atomic_write_native_no_op -- a device reporting the capability whose
 * qp_ex lacks the operation falls back to the emulation
 */
static void
atomic_write_native_no_op(void **state)
{
	struct h_state *st = ((struct ops *)*state)->st;
	const char src[8] = "7654321";

	mock_qpx_no_atomic_write(true);
	struct rpma_conn *conn = h_conn_active(st->peer, NULL);
	struct rpma_mr_remote *remote = h_mr_remote(RADDR, RSIZE, RKEY, REMOTE_ALL);

	assert_int_equal(rpma_atomic_write(conn, remote, 8, src, RPMA_F_COMPLETION_ALWAYS, NULL),
			 0);
	assert_int_equal(mock_calls("ibv_wr_atomic_write"), 0);
	assert_int_equal(posted(), 1);
	assert_send_wr(IBV_WR_RDMA_WRITE, NULL, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(rpma_mr_remote_delete(&remote), 0);
	h_conn_delete(&conn);
	mock_qpx_no_atomic_write(false);
}

/*
 * write_atomic -- the 0.11 form writes the 8 bytes at the local region's
 * offset, whatever the region's usage; those 8 bytes are read by the CPU,
 * so they must lie inside the region
 */
static void
write_atomic(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	int ctx = 0;

	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 8, o->local, 16, F, &ctx), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, &ctx, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)(o->buf + 16));
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_remote(8);
	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 0, o->none, 56, F, NULL), 0);
	assert_int_equal(mock_last_send_sge.addr, (uint64_t)(uintptr_t)(o->buf + 56));

	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 8, NULL, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 8, o->local, 60, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 8, o->local, SIZE_MAX, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(NULL, o->remote, 8, o->local, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(o->conn, NULL, 8, o->local, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 3, o->local, 0, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(o->conn, o->remote, 8, o->local, 0, 0, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 2);
}

/* write_atomic_native -- the 0.11 form uses the native operation too */
static void
write_atomic_native(void **state)
{
	struct ops *o = *state;

	assert_int_equal(
	    rpma_write_atomic(o->conn, o->remote, 24, o->local, 8, RPMA_F_COMPLETION_ALWAYS, NULL),
	    0);
	assert_int_equal(mock_calls("ibv_wr_atomic_write"), 1);
	assert_memory_equal(mock_last_atomic_write.data, o->buf + 8, 8);
	assert_int_equal(mock_last_atomic_write.remote_addr, RADDR + 24);
}

/* apply -- declare whether the remote peer writes directly to PMem */
static void
apply(struct rpma_conn *conn, bool direct)
{
	struct rpma_peer_cfg *pcfg = NULL;

	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, direct), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(conn, pcfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

/*
 * flush_persistent -- a persistent flush needs the region's PERSISTENT
 * usage and the remote peer's direct write to PMem; it posts an 8-byte READ
 * inside the flushed range into the connection's own region
 */
static void
flush_persistent(void **state)
{
	struct ops *o = *state;
	struct rpma_mr_remote *vis =
	    h_mr_remote(RADDR, RSIZE, RKEY, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	int ctx = 0;

	/* not declared yet */
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	apply(o->conn, false);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	apply(o->conn, true);
	/* the region lacks the persistent usage */
	assert_int_equal(rpma_flush(o->conn, vis, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(posted(), 0);

	assert_int_equal(rpma_flush(o->conn, o->remote, 16, 32, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	assert_send_wr(IBV_WR_RDMA_READ, &ctx, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(mock_last_send_sge.lkey, MOCK_LKEY);
	assert_true(mock_last_send_sge.addr < (uint64_t)(uintptr_t)o->buf ||
		    mock_last_send_sge.addr >= (uint64_t)(uintptr_t)(o->buf + BUF_SIZE));
	assert_remote(16);

	/* at the region's end the read moves back inside it */
	assert_int_equal(rpma_flush(o->conn, o->remote, 60, 4, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ON_ERROR, NULL),
			 0);
	assert_send_wr(IBV_WR_RDMA_READ, NULL, 0);
	assert_remote(56);
	assert_int_equal(posted(), 2);

	/* withdrawn again */
	apply(o->conn, false);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(rpma_mr_remote_delete(&vis), 0);
}

/*
 * flush_visibility -- a visibility flush needs the region's VISIBILITY
 * usage (a PERSISTENT one alone is not enough, as in librpma 1.3) and no
 * declaration of the peer; a region of 4 bytes is read whole
 */
static void
flush_visibility(void **state)
{
	struct ops *o = *state;
	struct rpma_mr_remote *vis =
	    h_mr_remote(RADDR, RSIZE, RKEY, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	struct rpma_mr_remote *pers =
	    h_mr_remote(RADDR, RSIZE, RKEY, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	struct rpma_mr_remote *tiny =
	    h_mr_remote(RADDR, 4, RKEY, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	int ctx = 0;

	assert_int_equal(rpma_flush(o->conn, vis, 8, 8, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	assert_send_wr(IBV_WR_RDMA_READ, &ctx, IBV_SEND_SIGNALED);
	assert_remote(8);
	assert_int_equal(rpma_flush(o->conn, tiny, 0, 4, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 0);
	assert_int_equal(mock_last_send_sge.length, 4);
	assert_remote(0);
	apply(o->conn, true);
	assert_int_equal(rpma_flush(o->conn, pers, 0, 64, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(rpma_flush(o->conn, o->rnone, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(posted(), 2);

	assert_int_equal(rpma_mr_remote_delete(&vis), 0);
	assert_int_equal(rpma_mr_remote_delete(&pers), 0);
	assert_int_equal(rpma_mr_remote_delete(&tiny), 0);
}

/*
 * flush_invalid -- NULL conn or region, flags 0 and an unknown type are
 * refused; a failing post gives RPMA_E_PROVIDER
 */
static void
flush_invalid(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	const enum rpma_flush_type V = RPMA_FLUSH_TYPE_VISIBILITY;

	apply(o->conn, true);
	assert_int_equal(rpma_flush(NULL, o->remote, 0, 8, V, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(o->conn, NULL, 0, 8, V, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(o->conn, NULL, 0, 0, V, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, V, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, (enum rpma_flush_type)7, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_post_send", EIO);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F, NULL),
			 RPMA_E_PROVIDER);
}

/*
 * flush_check_order -- librpma 1.3's order: the arguments (INVAL), then the
 * peer's direct write to PMem, then the region's usage (both NOSUPP)
 */
static void
flush_check_order(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;

	/* neither the peer nor the region allows it: still INVAL for flags 0 */
	assert_int_equal(rpma_flush(o->conn, o->rnone, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, 0, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_flush(o->conn, o->rnone, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F, NULL),
			 RPMA_E_NOSUPP);
	assert_string_equal(rpma_errormsg(),
			    "the remote peer does not declare direct write to PMem");
	apply(o->conn, true);
	assert_int_equal(rpma_flush(o->conn, o->rnone, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F, NULL),
			 RPMA_E_NOSUPP);
	assert_string_equal(rpma_errormsg(), "the remote region does not support persistent flush");
	assert_int_equal(posted(), 0);
}

/*
 * flush_range_to_device -- the flush reads at dst_offset whatever len is;
 * an offset past the region is posted as it is (the device refuses it in a
 * completion), one near the end reads the region's last 8 bytes
 */
static void
flush_range_to_device(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	const enum rpma_flush_type V = RPMA_FLUSH_TYPE_VISIBILITY;

	assert_int_equal(rpma_flush(o->conn, o->remote, 60, 8, V, F, NULL), 0);
	assert_remote(56);
	assert_int_equal(rpma_flush(o->conn, o->remote, 64, 0, V, F, NULL), 0);
	assert_remote(56);
	assert_int_equal(rpma_flush(o->conn, o->remote, 65, 0, V, F, NULL), 0);
	assert_remote(65);
	assert_int_equal(mock_last_send_sge.length, 8);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, SIZE_MAX, V, F, NULL), 0);
	assert_remote(0);
	assert_int_equal(posted(), 4);
}

/*
 * send_posts -- rpma_send and rpma_send_with_imm post SEND of the slice
 * (imm in network order); a NULL region with 0 length is an empty message
 */
static void
send_posts(void **state)
{
	struct ops *o = *state;
	int ctx = 0;

	assert_int_equal(rpma_send(o->conn, o->local, 2, 30, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_send_wr(IBV_WR_SEND, &ctx, IBV_SEND_SIGNALED);
	assert_sge(o->buf + 2, 30);

	assert_int_equal(rpma_send_with_imm(o->conn, o->local, 0, 64, RPMA_F_COMPLETION_ON_ERROR,
					    0xdeadbeef, &ctx),
			 0);
	assert_send_wr(IBV_WR_SEND_WITH_IMM, &ctx, 0);
	assert_sge(o->buf, 64);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(0xdeadbeef));

	assert_int_equal(rpma_send(o->conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_send_wr(IBV_WR_SEND, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_int_equal(rpma_send_with_imm(o->conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, 5, NULL),
			 0);
	assert_send_wr(IBV_WR_SEND_WITH_IMM, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(mock_last_send_wr.imm_data, htonl(5));
	assert_int_equal(posted(), 4);
}

/*
 * send_invalid -- the refusals of the sends (those of librpma 1.3 and a
 * length no work request holds); a failing post
 */
static void
send_invalid(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;

	assert_int_equal(rpma_send(NULL, o->local, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(o->conn, o->local, 0, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(o->conn, NULL, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(o->conn, NULL, 8, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(o->conn, o->local, 0, (size_t)UINT32_MAX + 1, F, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(NULL, o->local, 0, 8, F, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(o->conn, o->local, 0, 8, 0, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(o->conn, NULL, 0, 1, F, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(o->conn, o->local, 0, SIZE_MAX, F, 1, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(posted(), 0);

	mock_fail("ibv_post_send", EIO);
	assert_int_equal(rpma_send(o->conn, o->local, 0, 8, F, NULL), RPMA_E_PROVIDER);
	mock_fail("ibv_post_send", EIO);
	assert_int_equal(rpma_send_with_imm(o->conn, o->local, 0, 8, F, 1, NULL), RPMA_E_PROVIDER);
}

/*
 * recv_posts -- rpma_recv posts a receive of the slice on the connection's
 * QP; a NULL region with 0 length is an empty receive; the refusals and a
 * failing post
 */
static void
recv_posts(void **state)
{
	struct ops *o = *state;
	int ctx = 0;

	assert_int_equal(rpma_recv(o->conn, o->local, 12, 20, &ctx), 0);
	assert_int_equal(mock_last_recv_wr.wr_id, (uint64_t)(uintptr_t)&ctx);
	assert_int_equal(mock_last_recv_wr.num_sge, 1);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)(o->buf + 12));
	assert_int_equal(mock_last_recv_sge.length, 20);
	assert_int_equal(mock_last_recv_sge.lkey, MOCK_LKEY);
	assert_int_equal(rpma_recv(o->conn, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_last_recv_wr.num_sge, 0);
	assert_int_equal(mock_last_recv_wr.wr_id, 0);
	assert_int_equal(mock_calls("ibv_post_recv"), 2);

	assert_int_equal(rpma_recv(NULL, o->local, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(o->conn, o->local, 8, SIZE_MAX, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(o->conn, NULL, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(o->conn, NULL, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(mock_calls("ibv_post_recv"), 2);

	mock_fail("ibv_post_recv", ENOMEM);
	assert_int_equal(rpma_recv(o->conn, o->local, 0, 8, NULL), RPMA_E_PROVIDER);
}

/*
 * ops_left_to_device -- usages and ranges are the device's to check (see
 * mr.h): a region whose usage word names another operation, or a range
 * past a region's end, is posted exactly as given
 */
static void
ops_left_to_device(void **state)
{
	struct ops *o = *state;
	const char src[8] = {0};
	const int F = RPMA_F_COMPLETION_ALWAYS;

	/* o->none is READ_SRC only, o->rnone READ_DST only */
	assert_int_equal(rpma_read(o->conn, o->none, 4, o->rnone, 8, 16, F, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_READ, NULL, IBV_SEND_SIGNALED);
	assert_sge(o->buf + 4, 16);
	assert_remote(8);
	assert_int_equal(rpma_write(o->conn, o->rnone, 0, o->none, 0, 8, F, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(rpma_write_with_imm(o->conn, o->rnone, 0, o->none, 0, 8, F, 3, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE_WITH_IMM, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(rpma_send(o->conn, o->none, 0, 8, F, NULL), 0);
	assert_send_wr(IBV_WR_SEND, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(rpma_atomic_write(o->conn, o->rnone, 0, src, F, NULL), 0);
	assert_int_equal(rpma_recv(o->conn, o->none, 0, 8, NULL), 0);
	assert_int_equal(mock_last_recv_sge.addr, (uint64_t)(uintptr_t)o->buf);

	/* ranges past the 64 bytes of the regions, on both sides */
	assert_int_equal(rpma_read(o->conn, o->local, 60, o->remote, 0, 8, F, NULL), 0);
	assert_sge(o->buf + 60, 8);
	assert_int_equal(rpma_write(o->conn, o->remote, SIZE_MAX, o->local, 0, 2, F, NULL), 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, RADDR + SIZE_MAX);
	assert_int_equal(rpma_send(o->conn, o->local, 0, 65, F, NULL), 0);
	assert_sge(o->buf, 65);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 64, src, F, NULL), 0);
	assert_remote(64);
	assert_int_equal(rpma_recv(o->conn, o->local, 60, 8, NULL), 0);
	assert_int_equal(mock_last_recv_sge.length, 8);
	assert_int_equal(posted(), 9);
	assert_int_equal(mock_calls("ibv_post_recv"), 2);
}

/*
 * ops_any_flags -- like librpma 1.3, any non-zero flags are taken: the
 * completion is signaled when the success bit (1 << 1) is set
 */
static void
ops_any_flags(void **state)
{
	struct ops *o = *state;

	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 0, 8, 1 << 1, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_READ, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, o->local, 0, 8, 1 << 4, NULL), 0);
	assert_send_wr(IBV_WR_RDMA_WRITE, NULL, 0);
	assert_int_equal(
	    rpma_send(o->conn, o->local, 0, 8, RPMA_F_COMPLETION_ALWAYS | 1 << 8, NULL), 0);
	assert_send_wr(IBV_WR_SEND, NULL, IBV_SEND_SIGNALED);
	assert_int_equal(posted(), 3);
}

/*
 * rule_pair -- librpma 1.3's verdict on the arguments of a read or a write:
 * a connection and flags; both regions (a length one work request holds),
 * or neither with offsets and length 0
 */
static int
rule_pair(bool conn, int flags, bool local, bool remote, size_t loff, size_t roff, size_t len)
{
	if (!conn || flags == 0)
		return RPMA_E_INVAL;
	if (local && remote)
		return len <= UINT32_MAX ? 0 : RPMA_E_INVAL;
	return !local && !remote && loff == 0 && roff == 0 && len == 0 ? 0 : RPMA_E_INVAL;
}

/* rule_buf -- the same for a send (flags) or a receive (flags -1: none to check) */
static int
rule_buf(bool conn, int flags, bool mr, size_t off, size_t len)
{
	if (!conn || flags == 0)
		return RPMA_E_INVAL;
	if (mr)
		return len <= UINT32_MAX ? 0 : RPMA_E_INVAL;
	return off == 0 && len == 0 ? 0 : RPMA_E_INVAL;
}

/* the offsets, lengths and flags the grid below combines */
static const size_t Grid_offs[] = {0, 8};
static const size_t Grid_lens[] = {0, 8, (size_t)UINT32_MAX + 1};
static const int Grid_flags[] = {0, RPMA_F_COMPLETION_ON_ERROR, RPMA_F_COMPLETION_ALWAYS};

/*
 * assert_grid_post -- a post happened exactly when want is 0, with the WR
 * of the arguments (rdma: a read or a write, which has a remote side)
 */
static void
assert_grid_post(int want, int before, int flags, bool local, bool rdma, bool remote, size_t roff)
{
	assert_int_equal(posted(), before + (want == 0));
	if (want)
		return;
	assert_int_equal(mock_last_send_wr.num_sge, local ? 1 : 0);
	assert_int_equal(mock_last_send_wr.send_flags,
			 (flags & RPMA_F_COMPLETION_ALWAYS & ~RPMA_F_COMPLETION_ON_ERROR)
			     ? IBV_SEND_SIGNALED
			     : 0);
	if (rdma)
		assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, remote ? RADDR + roff : 0);
}

/*
 * ops_arg_grid_rdma -- every combination of a missing or given connection
 * and regions, flags, offsets and lengths gets librpma 1.3's verdict from
 * read, write and write with immediate data, whichever of the fast and the
 * checked path takes it, and is posted exactly when accepted
 */
static void
ops_arg_grid_rdma(void **state)
{
	struct ops *o = *state;

	for (int m = 0; m < 16; m++) {
		bool c = m & 1, l = m & 2, r = m & 4, imm = m & 8;
		struct rpma_conn *conn = c ? o->conn : NULL;
		struct rpma_mr_local *local = l ? o->local : NULL;
		struct rpma_mr_remote *remote = r ? o->remote : NULL;

		for (size_t f = 0; f < 3; f++)
			for (size_t lo = 0; lo < 2; lo++)
				for (size_t ro = 0; ro < 2; ro++)
					for (size_t n = 0; n < 3; n++) {
						int fl = Grid_flags[f];
						size_t loff = Grid_offs[lo], roff = Grid_offs[ro];
						size_t len = Grid_lens[n];
						int want = rule_pair(c, fl, l, r, loff, roff, len);
						int before = posted();

						assert_int_equal(rpma_read(conn, local, loff,
									   remote, roff, len, fl,
									   NULL),
								 want);
						assert_grid_post(want, before, fl, l, true, r,
								 roff);
						before = posted();
						assert_int_equal(
						    imm ? rpma_write_with_imm(conn, remote, roff,
									      local, loff, len, fl,
									      7, NULL)
							: rpma_write(conn, remote, roff, local,
								     loff, len, fl, NULL),
						    want);
						assert_grid_post(want, before, fl, l, true, r,
								 roff);
					}
	}
}

/*
 * ops_arg_grid_msg -- the same for send, send with immediate data and
 * receive
 */
static void
ops_arg_grid_msg(void **state)
{
	struct ops *o = *state;

	for (int m = 0; m < 8; m++) {
		bool c = m & 1, b = m & 2, imm = m & 4;
		struct rpma_conn *conn = c ? o->conn : NULL;
		struct rpma_mr_local *mr = b ? o->local : NULL;

		for (size_t i = 0; i < 2; i++)
			for (size_t n = 0; n < 3; n++) {
				size_t off = Grid_offs[i], len = Grid_lens[n];
				int recvs = mock_calls("ibv_post_recv");
				int want = rule_buf(c, -1, b, off, len);

				assert_int_equal(rpma_recv(conn, mr, off, len, NULL), want);
				assert_int_equal(mock_calls("ibv_post_recv"), recvs + (want == 0));
				for (size_t f = 0; f < 3; f++) {
					int fl = Grid_flags[f];
					int before = posted();

					want = rule_buf(c, fl, b, off, len);
					assert_int_equal(
					    imm ? rpma_send_with_imm(conn, mr, off, len, fl, 7,
								     NULL)
						: rpma_send(conn, mr, off, len, fl, NULL),
					    want);
					assert_grid_post(want, before, fl, b, false, false, 0);
				}
			}
	}
}

/*
 * poison_stack -- fill the stack the next call will use with a pattern, so
 * that a work-request field a post left unset would show it
 */
static void __attribute__((noinline)) poison_stack(void)
{
	volatile unsigned char junk[8192];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

/*
 * ops_wr_fields_set -- the posts build their work requests field by field,
 * not cleared first: every field the verbs contract has the provider read
 * is set (immediate data 0 without it, no scatter-gather entry and no
 * remote address for an empty operation), whatever the stack held before
 */
static void
ops_wr_fields_set(void **state)
{
	struct ops *o = *state;
	const int F = RPMA_F_COMPLETION_ALWAYS;

	poison_stack();
	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 8, 16, F, NULL), 0);
	assert_int_equal(mock_last_send_wr.imm_data, 0);
	assert_int_equal(mock_last_send_wr.wr_id, 0);
	poison_stack();
	assert_int_equal(rpma_write(o->conn, NULL, 0, NULL, 0, 0, F, NULL), 0);
	assert_int_equal(mock_last_send_wr.imm_data, 0);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_last_send_wr.wr.rdma.remote_addr, 0);
	assert_int_equal(mock_last_send_wr.wr.rdma.rkey, 0);
	poison_stack();
	assert_int_equal(rpma_send(o->conn, o->local, 0, 8, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(mock_last_send_wr.imm_data, 0);
	assert_int_equal(mock_last_send_wr.send_flags, 0);
	poison_stack();
	assert_int_equal(rpma_send(o->conn, NULL, 0, 0, F, NULL), 0);
	assert_int_equal(mock_last_send_wr.num_sge, 0);
	assert_null(mock_last_send_wr.sg_list);
	assert_int_equal(mock_last_send_wr.imm_data, 0);
	apply(o->conn, true);
	poison_stack();
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F, NULL),
			 0);
	assert_int_equal(mock_last_send_wr.imm_data, 0);
	assert_int_equal(mock_last_send_wr.num_sge, 1);
	poison_stack();
	assert_int_equal(rpma_recv(o->conn, NULL, 0, 0, NULL), 0);
	assert_int_equal(mock_last_recv_wr.num_sge, 0);
	assert_null(mock_last_recv_wr.sg_list);
	assert_int_equal(mock_last_recv_wr.wr_id, 0);
}

/* the function name of the last message logged */
static char Log_func[64];

/* log_record -- a log function keeping the name of the function that logged */
static void
log_record(enum rpma_log_level level, const char *file_name, const int line_no,
	   const char *function_name, const char *message_format, ...)
{
	(void)level;
	(void)file_name;
	(void)line_no;
	(void)message_format;
	snprintf(Log_func, sizeof(Log_func), "%s", function_name);
}

/*
 * ops_refusals_name_the_call -- the refusals the public functions logged
 * themselves are still logged in their names, although the checked paths
 * are separate functions now
 */
static void
ops_refusals_name_the_call(void **state)
{
	struct ops *o = *state;
	enum rpma_log_level level;

	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	assert_int_equal(rpma_log_set_function(log_record), 0);

	assert_int_equal(rpma_flush(o->conn, NULL, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_INVAL);
	assert_string_equal(Log_func, "rpma_flush");
	assert_string_equal(rpma_errormsg(), "dst is NULL");
	assert_int_equal(rpma_recv(NULL, o->local, 0, 8, NULL), RPMA_E_INVAL);
	assert_string_equal(Log_func, "rpma_recv");
	assert_string_equal(rpma_errormsg(), "conn is NULL");

	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, level), 0);
}

/*
 * ops_allocate_nothing -- the data path neither allocates nor frees
 */
static void
ops_allocate_nothing(void **state)
{
	struct ops *o = *state;
	const char src[8] = {0};
	const int F = RPMA_F_COMPLETION_ALWAYS;
	int allocs = h_allocs();
	int frees = mock_calls("free");

	apply(o->conn, true);
	allocs = h_allocs();
	frees = mock_calls("free");
	assert_int_equal(rpma_read(o->conn, o->local, 0, o->remote, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_write(o->conn, o->remote, 0, o->local, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_atomic_write(o->conn, o->remote, 0, src, F, NULL), 0);
	assert_int_equal(rpma_flush(o->conn, o->remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F, NULL),
			 0);
	assert_int_equal(rpma_send(o->conn, o->local, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_recv(o->conn, o->local, 0, 8, NULL), 0);
	assert_int_equal(h_allocs(), allocs);
	assert_int_equal(mock_calls("free"), frees);
}

const struct CMUnitTest conn_ops_tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, ops_setup, ops_teardown)
#define N(f) cmocka_unit_test_setup_teardown(f, ops_setup_native, ops_teardown)
    T(read_posts),
    T(read_invalid),
    T(write_posts),
    T(write_invalid),
    T(atomic_write_emulated),
    T(atomic_write_invalid),
    N(atomic_write_native),
    N(atomic_write_native_no_op),
    T(write_atomic),
    N(write_atomic_native),
    T(flush_persistent),
    T(flush_visibility),
    T(flush_invalid),
    T(flush_check_order),
    T(flush_range_to_device),
    T(send_posts),
    T(send_invalid),
    T(recv_posts),
    T(ops_left_to_device),
    T(ops_any_flags),
    T(ops_allocate_nothing),
    T(ops_arg_grid_rdma),
    T(ops_arg_grid_msg),
    T(ops_wr_fields_set),
    T(ops_refusals_name_the_call),
#undef T
#undef N
};

const size_t conn_ops_count = sizeof(conn_ops_tests) / sizeof(conn_ops_tests[0]);
