/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * softrdma_fuzz.c -- the environment of the softrdma harnesses and of their
 * seed recorder: device, arena, healthy pair, sink, scripted work requests
 * and small socket helpers (see softrdma_fuzz.h).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rc_qp.h"
#include "softrdma_fuzz.h"

struct sfz_env sfz = {.sink_fd = -1};

/* sizes of the arena's regions, in the order of enum sfz_region */
static const uint64_t Region_len[SFZ_NREGIONS] = {
    SFZ_PAGE, 4 * SFZ_PAGE, SFZ_PAGE, 4 * SFZ_PAGE, SFZ_PAGE, SFZ_PAGE, SFZ_PAGE, 2 * SFZ_PAGE,
};

/* the access each region is registered with */
static const int Region_access[SFZ_NREGIONS] = {
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_REMOTE_ATOMIC,
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_LOCAL_WRITE,
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
};

static const char *const Region_name[SFZ_NREGIONS] = {
    "guard 0", "W", "guard 1", "R", "guard 2", "RO", "guard 3", "H",
};

/* sfz_fail -- print why and abort, so that libFuzzer keeps the input */
void
sfz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("softrdma fuzz: property failed: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* sfz_now_ms -- monotonic milliseconds, for the deadlines of the harnesses */
uint64_t
sfz_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* sfz_region_off -- offset of region @r in the arena */
static uint64_t
sfz_region_off(enum sfz_region r)
{
	uint64_t off = 0;

	for (int i = 0; i < (int)r; i++)
		off += Region_len[i];
	return off;
}

/* sfz_addr -- address of byte @off of region @r, as the wire names it */
uint64_t
sfz_addr(enum sfz_region r, uint64_t off)
{
	return (uint64_t)(uintptr_t)sfz.arena + sfz_region_off(r) + off;
}

/* sfz_sink_qpn -- the QP number that makes a QP connect to the sink */
uint32_t
sfz_sink_qpn(void)
{
	return (uint32_t)sfz.sink_port << 8 | 1;
}

/* sfz_arena_map -- the arena at its fixed address (elsewhere if taken), and its pattern */
static void
sfz_arena_map(void)
{
	void *want = (void *)(uintptr_t)SFZ_ARENA_ADDR;
	void *p;

	sfz.arena_len = sfz_region_off(SFZ_NREGIONS);
	p = mmap(want, sfz.arena_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && p != want) {
		munmap(p, sfz.arena_len);
		p = MAP_FAILED;
	}
	if (p == MAP_FAILED) {
		/* recorded addresses then point nowhere, but nothing else changes */
		fprintf(stderr, "softrdma fuzz: arena not at its fixed address\n");
		p = mmap(NULL, sfz.arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			sfz_fail("mmap: %s", strerror(errno));
	}
	sfz.arena = p;
	sfz.ref = malloc(sfz.arena_len);
	if (!sfz.ref)
		sfz_fail("out of memory");
	for (size_t i = 0; i < sfz.arena_len; i++)
		sfz.ref[i] = (unsigned char)((i * 0x9e3779b1u) >> 24) ^ 0x5a;
	memcpy(sfz.arena, sfz.ref, sfz.arena_len);
}

/* sfz_arena_reset -- every region but the healthy pair's back to its pattern */
void
sfz_arena_reset(void)
{
	memcpy(sfz.arena, sfz.ref, sfz_region_off(SFZ_H));
}

/* sfz_region_check -- region @r equals its pattern, except for the ranges in @may */
static void
sfz_region_check(enum sfz_region r, const struct sfz_range *may, int n)
{
	uint64_t base = sfz_addr(r, 0), len = Region_len[r];
	unsigned char *tmp = malloc(len);
	const unsigned char *ref = sfz.ref + sfz_region_off(r);

	if (!tmp)
		sfz_fail("out of memory");
	memcpy(tmp, sfz.arena + sfz_region_off(r), len);
	for (int i = 0; i < n; i++) {
		uint64_t lo = may[i].addr, hi = may[i].addr + may[i].len;

		if (hi <= base || lo >= base + len)
			continue;
		lo = lo < base ? base : lo;
		hi = hi > base + len ? base + len : hi;
		memcpy(tmp + (lo - base), ref + (lo - base), hi - lo);
	}
	for (uint64_t i = 0; i < len; i++)
		if (tmp[i] != ref[i])
			sfz_fail("byte %llu of region %s written (0x%02x, pattern 0x%02x)",
				 (unsigned long long)i, Region_name[r], tmp[i], ref[i]);
	free(tmp);
}

/*
 * sfz_arena_check -- nothing was written outside the ranges in @may: guards
 * and RO never change, R only inside @may, W only when @w_may_change
 */
void
sfz_arena_check(const struct sfz_range *may, int n, int w_may_change)
{
	static const enum sfz_region fixed[] = {SFZ_G0, SFZ_G1, SFZ_G2, SFZ_RO, SFZ_G3};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		sfz_region_check(fixed[i], NULL, 0);
	if (!w_may_change)
		sfz_region_check(SFZ_W, NULL, 0);
	sfz_region_check(SFZ_R, may, n);
}

/* see softrdma_fuzz.h */
struct ibv_qp_init_attr
sfz_qp_attr(uint32_t send_wr, uint32_t recv_wr, uint32_t sge, uint32_t inline_data)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = sfz.scq;
	a.recv_cq = sfz.rcq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = send_wr;
	a.cap.max_recv_wr = recv_wr;
	a.cap.max_send_sge = sge;
	a.cap.max_recv_sge = sge;
	a.cap.max_inline_data = inline_data;
	return a;
}

/* sfz_qp_new -- an RC QP on the CQs of the QPs under test, in RESET */
struct ibv_qp *
sfz_qp_new(void)
{
	struct ibv_qp_init_attr a = sfz_qp_attr(64, 32, 8, 64);
	struct ibv_qp *qp;

	qp = ibv_create_qp(sfz.pd, &a);
	if (!qp)
		sfz_fail("ibv_create_qp: %s", strerror(errno));
	return qp;
}

/*
 * sfz_qp_connect -- @qp through INIT and RTR to RTS towards QP @dest on this
 * host (MTU 4096, 16 READs or atomics in flight each way, no GRH); its
 * receive side waits 10 us per RNR retry. 0 or the errno of the failing
 * transition.
 */
int
sfz_qp_connect(struct ibv_qp *qp, uint32_t dest, int access, uint8_t rnr_retry)
{
	struct rc_qp_path p = {.dest_qpn = dest,
			       .access = access,
			       .rnr_retry = rnr_retry,
			       .mtu = IBV_MTU_4096,
			       .rd_atomic = 16};

	return rc_qp_to_rts(qp, &p);
}

/* sfz_qp_destroy -- destroy a QP of the harness, which must succeed */
void
sfz_qp_destroy(struct ibv_qp *qp)
{
	if (ibv_destroy_qp(qp))
		sfz_fail("ibv_destroy_qp failed");
}

/* sfz_qp_state -- the current state of @qp, read under its lock */
int
sfz_qp_state(struct ibv_qp *qp)
{
	struct softrdma_qp *q = (struct softrdma_qp *)qp;
	int st;

	pthread_mutex_lock(&q->lock);
	st = q->qpx.qp_base.state;
	pthread_mutex_unlock(&q->lock);
	return st;
}

/* sfz_qp_owns_qpn -- @qpn names a QP of the healthy pair, which no input may reach */
int
sfz_qp_owns_qpn(uint32_t qpn)
{
	return sfz.h1 && (qpn == sfz.h1->qp_num || qpn == sfz.h2->qp_num);
}

/* sfz_sge -- a scatter/gather element over region @r */
static struct ibv_sge
sfz_sge(enum sfz_region r, uint64_t off, uint32_t len)
{
	struct ibv_sge s = {.addr = sfz_addr(r, off), .length = len, .lkey = sfz.mr[r]->lkey};

	return s;
}

/* sfz_resp_access -- the access flags of a responder under test in configuration @cfg */
int
sfz_resp_access(unsigned cfg)
{
	int access = IBV_ACCESS_LOCAL_WRITE;

	if (!(cfg & SFZ_RESP_NO_WRITE))
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	if (!(cfg & SFZ_RESP_NO_READ))
		access |= IBV_ACCESS_REMOTE_READ;
	return access;
}

/* the receive WQEs of a responder: buffers in R of various shapes, the last in a guard */
static const struct {
	enum sfz_region reg;
	int n;
	struct {
		uint32_t off, len;
	} s[3];
} Recv_layout[SFZ_NRECV] = {
    {SFZ_R, 1, {{0, 64}}},	 {SFZ_R, 2, {{128, 32}, {192, 96}}},
    {SFZ_R, 1, {{512, 1024}}},	 {SFZ_R, 3, {{2048, 16}, {2080, 0}, {2100, 200}}},
    {SFZ_R, 1, {{4096, 4096}}},	 {SFZ_R, 0, {{0, 0}}},
    {SFZ_R, 1, {{12288, 2048}}}, {SFZ_G1, 1, {{0, 256}}},
};

/* sfz_recv_sges -- the buffers of receive WQE @k of sfz_resp_prepare(); their count */
int
sfz_recv_sges(int k, struct sfz_range *sges)
{
	for (int i = 0; i < Recv_layout[k].n; i++) {
		sges[i].addr = sfz_addr(Recv_layout[k].reg, Recv_layout[k].s[i].off);
		sges[i].len = Recv_layout[k].s[i].len;
	}
	return Recv_layout[k].n;
}

/*
 * sfz_resp_prepare -- post the receive WQEs of a responder in configuration
 * @cfg (none with SFZ_RESP_NO_RECV). @may gets the ranges incoming SENDs
 * may fill: all buffers but the one in a guard. 0 or the errno of the post.
 */
int
sfz_resp_prepare(struct ibv_qp *qp, unsigned cfg, struct sfz_range *may, int *nmay)
{
	struct ibv_sge s[SFZ_NRECV][3];
	struct ibv_recv_wr wr[SFZ_NRECV], *bad;

	*nmay = 0;
	if (cfg & SFZ_RESP_NO_RECV)
		return 0;
	for (int i = 0; i < SFZ_NRECV; i++) {
		const int n = Recv_layout[i].n;

		for (int k = 0; k < n; k++)
			s[i][k] = sfz_sge(Recv_layout[i].reg, Recv_layout[i].s[k].off,
					  Recv_layout[i].s[k].len);
		wr[i].wr_id = SFZ_RECV_WRID + i;
		wr[i].sg_list = s[i];
		wr[i].num_sge = n;
		wr[i].next = i + 1 < SFZ_NRECV ? &wr[i + 1] : NULL;
		if (Recv_layout[i].reg == SFZ_R)
			*nmay += sfz_recv_sges(i, may + *nmay);
	}
	return ibv_post_recv(qp, wr, &bad);
}

/* one work request of a script: opcode, local and remote side */
struct sfz_step {
	enum ibv_wr_opcode op;
	int signaled;
	enum sfz_region rreg; /* remote region, and its key unless @bad_key */
	uint32_t roff;
	int bad_key;
	int nsge;
	struct {
		uint32_t off, len;
	} sge[4]; /* local pieces, all in R */
};

/* the requester scripts: mixed, reads, a remote error, unsignaled writes, atomics */
static const struct sfz_step Scripts[SFZ_NSCRIPTS][SFZ_MAX_SCRIPT] = {
    {
	{IBV_WR_RDMA_WRITE, 1, SFZ_W, 0, 0, 1, {{8192, 64}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 1024, 0, 2, {{0, 64}, {256, 64}}},
	{IBV_WR_SEND, 0, SFZ_W, 0, 0, 1, {{8192, 32}}},
	{IBV_WR_RDMA_WRITE_WITH_IMM, 1, SFZ_W, 2048, 0, 1, {{8192, 16}}},
	{IBV_WR_RDMA_READ, 1, SFZ_RO, 0, 0, 1, {{1024, 1000}}},
	{IBV_WR_SEND_WITH_IMM, 1, SFZ_W, 0, 0, 1, {{8192, 8}}},
    },
    {
	{IBV_WR_RDMA_READ, 1, SFZ_W, 0, 0, 0, {{0, 0}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 4096, 0, 1, {{4096, 4096}}},
	{IBV_WR_RDMA_READ, 0, SFZ_RO, 100, 0, 3, {{0, 100}, {200, 100}, {400, 100}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 16000, 0, 1, {{9000, 16}}},
    },
    {
	{IBV_WR_RDMA_WRITE, 1, SFZ_W, 0, 1, 1, {{8192, 32}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 0, 0, 1, {{0, 64}}},
	{IBV_WR_SEND, 1, SFZ_W, 0, 0, 1, {{8192, 16}}},
    },
    {
	{IBV_WR_RDMA_WRITE, 0, SFZ_W, 100, 0, 1, {{8192, 100}}},
	{IBV_WR_RDMA_WRITE, 0, SFZ_W, 300, 0, 1, {{8192, 100}}},
	{IBV_WR_RDMA_WRITE, 0, SFZ_W, 500, 0, 1, {{8192, 100}}},
	{IBV_WR_RDMA_WRITE, 0, SFZ_W, 700, 0, 1, {{8192, 100}}},
	{IBV_WR_SEND, 1, SFZ_W, 0, 0, 1, {{8192, 40}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 100, 0, 1, {{64, 8}}},
    },
    {
	{IBV_WR_ATOMIC_FETCH_AND_ADD, 1, SFZ_W, 64, 0, 1, {{512, 8}}},
	{IBV_WR_RDMA_WRITE, 0, SFZ_W, 0, 0, 1, {{8192, 16}}},
	{IBV_WR_ATOMIC_CMP_AND_SWP, 1, SFZ_W, 128, 0, 1, {{520, 8}}},
	{IBV_WR_RDMA_READ, 1, SFZ_W, 200, 0, 1, {{600, 8}}},
	{IBV_WR_ATOMIC_CMP_AND_SWP, 0, SFZ_W, 136, 0, 2, {{700, 4}, {800, 4}}},
	{IBV_WR_ATOMIC_FETCH_AND_ADD, 1, SFZ_W, 64, 0, 1, {{904, 8}}},
    },
};

static const int Script_len[SFZ_NSCRIPTS] = {6, 4, 3, 6, 6};

/* sfz_wc_opcode -- the completion opcode of a send work request of @op */
static enum ibv_wc_opcode
sfz_wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return IBV_WC_SEND;
	default:
		return IBV_WC_RDMA_WRITE;
	}
}

/*
 * sfz_script_post -- post requester script @script on @qp, one post per
 * work request; @wrs gets what was posted (wr_ids increase). 0 or the
 * errno of a post.
 */
int
sfz_script_post(struct ibv_qp *qp, unsigned script, struct sfz_wr *wrs, int *nwrs)
{
	const struct sfz_step *st = Scripts[script % SFZ_NSCRIPTS];

	*nwrs = 0;
	for (int i = 0; i < Script_len[script % SFZ_NSCRIPTS]; i++) {
		struct ibv_send_wr wr, *bad;
		struct ibv_sge sge[4];
		struct sfz_wr *w = &wrs[i];
		int err;

		memset(&wr, 0, sizeof(wr));
		memset(w, 0, sizeof(*w));
		w->wr_id = 0x1000 + (script % SFZ_NSCRIPTS) * 0x100 + i;
		w->opcode = sfz_wc_opcode(st[i].op);
		w->signaled = st[i].signaled;
		w->nsge = st[i].nsge;
		for (int k = 0; k < st[i].nsge; k++) {
			sge[k] = sfz_sge(SFZ_R, st[i].sge[k].off, st[i].sge[k].len);
			w->sge[k].addr = sge[k].addr;
			w->sge[k].len = sge[k].length;
			w->len += sge[k].length;
		}
		wr.wr_id = w->wr_id;
		wr.opcode = st[i].op;
		wr.send_flags = st[i].signaled ? IBV_SEND_SIGNALED : 0;
		wr.sg_list = sge;
		wr.num_sge = st[i].nsge;
		wr.imm_data = htonl(0x11223300 + i);
		wr.wr.rdma.remote_addr = sfz_addr(st[i].rreg, st[i].roff);
		wr.wr.rdma.rkey = st[i].bad_key ? sfz.mr[SFZ_G0]->rkey : sfz.mr[st[i].rreg]->rkey;
		if (st[i].op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    st[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.wr.atomic.remote_addr = sfz_addr(st[i].rreg, st[i].roff);
			wr.wr.atomic.rkey =
			    st[i].bad_key ? sfz.mr[SFZ_G0]->rkey : sfz.mr[st[i].rreg]->rkey;
			wr.wr.atomic.compare_add = 0x0102030405060708ull + i;
			wr.wr.atomic.swap = 0x1112131415161718ull + i;
		}
		err = ibv_post_send(qp, &wr, &bad);
		if (err)
			return err;
		(*nwrs)++;
	}
	return 0;
}

/* sfz_poll -- poll @cq until @want completions (at most @max) or @ms pass; the count */
int
sfz_poll(struct ibv_cq *cq, struct ibv_wc *wc, int max, int want, int ms)
{
	uint64_t end = sfz_now_ms() + ms;
	int got = 0;

	for (;;) {
		int n = ibv_poll_cq(cq, max - got, wc + got);

		if (n < 0)
			sfz_fail("ibv_poll_cq failed");
		got += n;
		if (got >= want || got == max || sfz_now_ms() >= end)
			return got;
		if (!n)
			usleep(20);
	}
}

/*
 * sfz_healthy_check -- the healthy pair still moves data: a WRITE and a SEND
 * from h1 to h2 complete successfully and land where they should
 */
void
sfz_healthy_check(void)
{
	uint32_t r = ++sfz.hround;
	unsigned char *src = (unsigned char *)(uintptr_t)sfz_addr(SFZ_H, 0);
	unsigned char *dst = (unsigned char *)(uintptr_t)sfz_addr(SFZ_H, SFZ_PAGE);
	struct ibv_sge wsge = sfz_sge(SFZ_H, 0, 64), ssge = sfz_sge(SFZ_H, 64, 32);
	struct ibv_sge rsge = sfz_sge(SFZ_H, SFZ_PAGE + 2048, 64);
	struct ibv_recv_wr rwr = {.wr_id = 0xb0000000u | r, .sg_list = &rsge, .num_sge = 1};
	struct ibv_send_wr swr = {.wr_id = 0xa1000000u | r,
				  .sg_list = &ssge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr wwr = {.wr_id = 0xa0000000u | r,
				  .sg_list = &wsge,
				  .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED,
				  .next = &swr};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_wc wc[4];
	int n;

	for (int i = 0; i < 96; i++)
		src[i] = (unsigned char)(r * 7 + i);
	wwr.wr.rdma.remote_addr = (uintptr_t)dst;
	wwr.wr.rdma.rkey = sfz.mr[SFZ_H]->rkey;
	if (ibv_post_recv(sfz.h2, &rwr, &rbad) || ibv_post_send(sfz.h1, &wwr, &sbad))
		sfz_fail("healthy pair: cannot post (round %u)", r);
	n = sfz_poll(sfz.hcq, wc, 4, 3, 10000);
	if (n != 3)
		sfz_fail("healthy pair: %d of 3 completions in 10 s (round %u)", n, r);
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			sfz_fail("healthy pair: completion %llx with status %d (round %u)",
				 (unsigned long long)wc[i].wr_id, wc[i].status, r);
	if (memcmp(dst, src, 64) || memcmp(dst + 2048, src + 64, 32))
		sfz_fail("healthy pair: data not delivered (round %u)", r);
}

/* sfz_tcp_listen -- a non-blocking listener on 127.0.0.1, its port in @port */
int
sfz_tcp_listen(uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&sin, &len))
		sfz_fail("listener: %s", strerror(errno));
	*port = ntohs(sin.sin_port);
	return fd;
}

/*
 * sfz_tcp_connect -- a connected, non-blocking socket to 127.0.0.1:@port (the
 * connect does not block: libFuzzer's timer signals would interrupt it)
 */
int
sfz_tcp_connect(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, err = 0;
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	socklen_t len = sizeof(err);
	uint64_t end = sfz_now_ms() + 10000;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) && errno != EINPROGRESS))
		sfz_fail("connect to port %u: %s", port, strerror(errno));
	while (poll(&p, 1, 100) != 1)
		if (sfz_now_ms() > end)
			sfz_fail("connect to port %u: no answer in 10 s", port);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
		sfz_fail("connect to port %u: %s", port, strerror(err));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* sfz_accept -- a connection accepted on @lfd within @ms (non-blocking), or -1 */
int
sfz_accept(int lfd, int ms)
{
	struct pollfd p = {.fd = lfd, .events = POLLIN};
	uint64_t end = sfz_now_ms() + ms;

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd >= 0)
			return fd;
		if (sfz_now_ms() >= end)
			return -1;
		poll(&p, 1, 10);
	}
}

/* sfz_read_full -- read exactly @len bytes of non-blocking @fd within @ms; 0 or -1 */
int
sfz_read_full(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	uint64_t end = sfz_now_ms() + ms;
	size_t have = 0;

	while (have < len) {
		ssize_t n = recv(fd, (char *)buf + have, len - have, MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n > 0) {
			have += n;
			continue;
		}
		if (sfz_now_ms() >= end)
			return -1;
		poll(&p, 1, 10);
	}
	return 0;
}

/* sfz_fd_count -- how many descriptors this process has open */
int
sfz_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		sfz_fail("opendir /proc/self/fd: %s", strerror(errno));
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

#define SFZ_SINK_MAX 1024

/* a connection of the sink: bytes of the hello and offer seen so far */
struct sfz_sink_conn {
	int fd;
	size_t have;
};

/* sfz_sink_greet -- the hello arrived: answer without rings, then end the stream */
static void
sfz_sink_greet(int fd)
{
	unsigned char buf[sizeof(struct softrdma_wire_shm) + sizeof(struct softrdma_wire_hdr)];
	struct softrdma_wire_shm a;
	struct softrdma_wire_hdr h;

	memset(&a, 0, sizeof(a));
	a.seg_fd = a.bell_fd = a.ring_fd = -1;
	softrdma__wire_shm_to_le(&a);
	memset(&h, 0, sizeof(h));
	h.op = SOFTRDMA_OP_EOS;
	softrdma__wire_hdr_to_le(&h);
	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), &h, sizeof(h));
	if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(buf)) {
		/* a fresh socket takes 96 bytes; if not, the QP sees a cut answer */
	}
}

/* sfz_sink_read -- read what @c's peer sent; 0 once it closed */
static int
sfz_sink_read(struct sfz_sink_conn *c)
{
	static char scratch[65536];

	for (;;) {
		ssize_t n = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0)
			return 0;
		if (c->have < SOFTRDMA_WIRE_HELLO_LEN && c->have + n >= SOFTRDMA_WIRE_HELLO_LEN)
			sfz_sink_greet(c->fd);
		c->have += n;
	}
}

/* sfz_sink_main -- the sink's thread: accept, greet, read until each connection closes */
static void *
sfz_sink_main(void *arg)
{
	static struct sfz_sink_conn c[SFZ_SINK_MAX];
	static struct pollfd p[SFZ_SINK_MAX + 1];
	int n = 0;

	(void)arg;
	for (;;) {
		p[0].fd = sfz.sink_fd;
		p[0].events = POLLIN;
		for (int i = 0; i < n; i++) {
			p[i + 1].fd = c[i].fd;
			p[i + 1].events = POLLIN;
		}
		if (poll(p, n + 1, -1) < 0)
			continue;
		for (int i = n - 1; i >= 0; i--) {
			if (!p[i + 1].revents || sfz_sink_read(&c[i]))
				continue;
			close(c[i].fd);
			c[i] = c[--n];
		}
		while (n < SFZ_SINK_MAX) {
			int fd = accept4(sfz.sink_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd < 0)
				break;
			c[n].fd = fd;
			c[n].have = 0;
			n++;
		}
	}
	return NULL;
}

/* sfz_sink_start -- the sink's listener and thread */
static void
sfz_sink_start(void)
{
	pthread_t thr;

	sfz.sink_fd = sfz_tcp_listen(&sfz.sink_port);
	if (pthread_create(&thr, NULL, sfz_sink_main, NULL))
		sfz_fail("sink thread");
	pthread_detach(thr);
}

/* sfz_healthy_start -- create the healthy pair and connect its two QPs */
static void
sfz_healthy_start(void)
{
	struct ibv_qp_init_attr a;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	sfz.hcq = ibv_create_cq(sfz.ctx, 256, NULL, NULL, 0);
	if (!sfz.hcq)
		sfz_fail("ibv_create_cq: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = sfz.hcq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	sfz.h1 = ibv_create_qp(sfz.pd, &a);
	sfz.h2 = ibv_create_qp(sfz.pd, &a);
	if (!sfz.h1 || !sfz.h2)
		sfz_fail("ibv_create_qp: %s", strerror(errno));
	if (sfz_qp_connect(sfz.h1, sfz.h2->qp_num, access, 7) ||
	    sfz_qp_connect(sfz.h2, sfz.h1->qp_num, access, 7))
		sfz_fail("healthy pair: cannot connect");
}

/*
 * sfz_env_init -- the whole environment, always in the same order: the
 * device, the arena and its regions' MRs, the CQs, the sink, the healthy
 * pair (unless !@healthy). @transport sets SOFTRDMA_TRANSPORT ("tcp": no
 * same-host rings) unless NULL.
 */
void
sfz_env_init(const char *transport, int healthy)
{
	struct ibv_device **list;

	if (transport)
		setenv("SOFTRDMA_TRANSPORT", transport, 1);
	/* refused CM connects are reported at once, timeouts never get in the way */
	setenv("SOFTRDMA_CM_REJECT_GRACE_MS", "0", 0);
	setenv("SOFTRDMA_CM_TIMEOUT_MS", "600000", 0);
	list = ibv_get_device_list(NULL);
	if (!list || !list[0])
		sfz_fail("no softrdma device");
	sfz.ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!sfz.ctx)
		sfz_fail("ibv_open_device: %s", strerror(errno));
	sfz.pd = ibv_alloc_pd(sfz.ctx);
	if (!sfz.pd)
		sfz_fail("ibv_alloc_pd: %s", strerror(errno));
	sfz_arena_map();
	for (int r = 0; r < SFZ_NREGIONS; r++) {
		sfz.mr[r] = ibv_reg_mr(sfz.pd, (void *)(uintptr_t)sfz_addr(r, 0), Region_len[r],
				       Region_access[r]);
		if (!sfz.mr[r])
			sfz_fail("ibv_reg_mr %s: %s", Region_name[r], strerror(errno));
	}
	sfz.scq = ibv_create_cq(sfz.ctx, 4096, NULL, NULL, 0);
	sfz.rcq = ibv_create_cq(sfz.ctx, 4096, NULL, NULL, 0);
	if (!sfz.scq || !sfz.rcq)
		sfz_fail("ibv_create_cq: %s", strerror(errno));
	sfz_sink_start();
	if (healthy)
		sfz_healthy_start();
}

/*
 * sfz_qp_idle -- whether the QP's side the pump @p plays against is done with
 * the input: 2 when it reads nothing more, whatever is still written (it saw
 * the end of the stream, or its responder waits for a receive WQE with no
 * deadline), 1 when it has read everything its socket holds, 0 when it is not
 * done (or, a requester, still connecting; a responder, not attached)
 */
static int
sfz_qp_idle(struct ibv_qp *qp, const struct sfz_pump *p)
{
	struct softrdma_qp *q = (struct softrdma_qp *)qp;
	struct softrdma_conn *c;
	int idle = 0, pending;

	pthread_mutex_lock(&q->lock);
	c = p->responder ? q->in : q->out;
	if (!c || c->dead || (!p->responder && c->connecting))
		idle = 0;
	else if (c->eos)
		idle = 2; /* nothing after the marker is read */
	else if (p->responder && c->rx == SOFTRDMA_RX_WAIT_RWQE)
		idle = c->rnr_deadline ? 0 : 2;
	else if (!ioctl(c->fd, FIONREAD, &pending) && !pending)
		idle = 1;
	pthread_mutex_unlock(&q->lock);
	return idle;
}

/*
 * sfz_skip -- pass over up to *@skip bytes of the @n at *@p (a payload a
 * harness does not parse): *@p and *@n move past them, *@skip counts them
 * off
 */
void
sfz_skip(uint64_t *skip, const unsigned char **p, size_t *n)
{
	size_t take = *skip < *n ? (size_t)*skip : *n;

	*skip -= take;
	*p += take;
	*n -= take;
}

/*
 * sfz_gather -- add bytes of the @n at *@p to @buf, which holds *@have of
 * the @need a harness parses at once: 1 when it holds them all (*@have back
 * to 0 for the next), 0 when the bytes ran out first
 */
int
sfz_gather(unsigned char *buf, size_t *have, size_t need, const unsigned char **p, size_t *n)
{
	size_t take = need - *have < *n ? need - *have : *n;

	memcpy(buf + *have, *p, take);
	*have += take;
	*p += take;
	*n -= take;
	if (*have < need)
		return 0;
	*have = 0;
	return 1;
}

/* sfz_drain -- read what the QP sent, into p->feed; 1 once it closed the connection */
int
sfz_drain(int fd, const struct sfz_pump *p)
{
	unsigned char buf[16384];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			p->feed(p->out, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		return 1;
	}
}

/*
 * sfz_pump -- the harnesses' one loop as a QP's peer: write the input @buf
 * and read what the QP sends until the QP is done (or has read everything
 * and the input is all written); 1 when the QP closed the connection
 */
int
sfz_pump(struct ibv_qp *qp, int fd, const uint8_t *buf, size_t n, const struct sfz_pump *p)
{
	uint64_t end = sfz_now_ms() + 10000;
	size_t off = 0;
	int shut = 0;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int idle;

		if (off < n) {
			ssize_t w = send(fd, buf + off, n - off, MSG_DONTWAIT | MSG_NOSIGNAL);

			if (w > 0)
				off += w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				return 1;
		}
		if (off == n && n < p->shut_below && !shut) {
			shutdown(fd, SHUT_WR);
			shut = 1;
		}
		if (sfz_drain(fd, p))
			return 1;
		idle = shut ? 0 : sfz_qp_idle(qp, p);
		if (idle == 2 || (idle == 1 && off == n))
			return 0;
		if (sfz_now_ms() > end)
			sfz_fail("%s: input not done in 10 s (%zu of %zu bytes written)",
				 p->responder ? "responder" : "requester", off, n);
		pfd.events |= off < n ? POLLOUT : 0;
		poll(&pfd, 1, 1);
	}
}
