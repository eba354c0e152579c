/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softrdma-bench: one run measures, between this process and a peer it
 * forks, 8-byte RDMA WRITE/READ latency (post to completion), an 8-byte
 * SEND ping-pong, 1 MiB WRITE/READ bandwidth and the idle CPU use of a
 * connected process, next to the host's own yardsticks: a TCP loopback
 * ping-pong, a shared-memory cache-line ping-pong and memcpy bandwidth,
 * both on one hot 1 MiB buffer and streaming across a 64 MiB working set.
 * One-sided operations are measured twice: into the peer's anonymous memory
 * (reached through the kernel, process_vm_readv/writev) and into shareable
 * memory (a memfd mapped MAP_SHARED, as servers map their region files,
 * which the initiator maps itself).
 * Built against rdma-core; run it under tools/softrdma-run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rc_qp.h"

#define MSG	  8
#define BIG	  (1u << 20)
#define BUF_SIZE  (4u * BIG)
#define QDEPTH	  8
#define MEMCPY_WS (64u * BIG)
/*
 * Bandwidths (memcpy and RDMA alike) are the best of ROUNDS rounds: on a
 * machine other work shares, a round that lost its CPU says nothing of
 * either, and both sides of a ratio are measured the same way.
 */
#define ROUNDS 5
/* the rounds of a latency benchmark before those it times */
#define WARMUP 100

enum cmd { CMD_SEND_PP = 1, CMD_IDLE, CMD_QUIT };

struct conn_info {
	uint32_t qpn;
	uint32_t rkey; /* anonymous memory */
	uint64_t addr;
	uint32_t srkey; /* shareable memory */
	uint64_t saddr;
};

struct ep {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_mr *smr; /* over @sbuf, a memfd mapped MAP_SHARED */
	char *sbuf;
	struct conn_info remote;
	/* where one-sided operations go: the peer's anonymous or shareable buffer */
	uint64_t taddr;
	uint32_t trkey;
};

struct stats {
	double median;
	double p99;
};

static int iters = 20000;
static int idle_s = 3;

/* Monotonic time in nanoseconds. */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Order two samples. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and 99th percentile (in microseconds) of @n samples in ns. */
static struct stats
summarize(uint64_t *s, int n)
{
	struct stats st;

	qsort(s, n, sizeof(*s), cmp_u64);
	st.median = s[n / 2] / 1000.0;
	st.p99 = s[(int)(n * 0.99)] / 1000.0;
	return st;
}

/* Read or write exactly @len bytes on @fd; 0 or -1. */
static int
xfer(int fd, void *buf, size_t len, int wr)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = wr ? write(fd, (char *)buf + done, len - done)
			       : read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

/*
 * memcpy bandwidth in GB/s of 1 MiB copies, the n-th between the n-th 1 MiB
 * blocks (modulo @ws) of two @ws-byte buffers: with @ws == BIG both stay in
 * cache, with a larger @ws the copies stream through memory. The best of
 * ROUNDS rounds of 400 copies.
 */
static double
bench_memcpy(size_t ws)
{
	char *a = aligned_alloc(4096, ws), *b = aligned_alloc(4096, ws);
	size_t nb = ws / BIG, off;
	double best = 0, bw;
	uint64_t t;
	int i, r, n = 400;

	if (!a || !b) {
		perror("memcpy buffers");
		exit(1);
	}
	memset(a, 1, ws);
	memset(b, 2, ws);
	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			off = (i % nb) * BIG;
			memcpy(b + off, a + off, BIG);
			__asm__ volatile("" : : "r"(b) : "memory");
		}
		bw = (double)n * BIG / (now_ns() - t);
		if (bw > best)
			best = bw;
	}
	free(a);
	free(b);
	return best;
}

/* 8-byte ping-pong over TCP loopback between two processes. */
static struct stats
bench_tcp(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int lfd, fd, one = 1, i, n = iters / 4;
	uint64_t *s = calloc(n, sizeof(*s));
	char m[MSG] = {0};
	struct stats st;
	pid_t pid;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len)) {
		perror("tcp listener");
		exit(1);
	}
	pid = fork();
	if (!pid) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			_exit(1);
		for (i = 0; i < n; i++)
			if (xfer(fd, m, MSG, 0) || xfer(fd, m, MSG, 1))
				_exit(1);
		_exit(0);
	}
	fd = accept(lfd, NULL, NULL);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < n; i++) {
		uint64_t t = now_ns();

		if (xfer(fd, m, MSG, 1) || xfer(fd, m, MSG, 0)) {
			fprintf(stderr, "tcp ping-pong failed\n");
			exit(1);
		}
		s[i] = now_ns() - t;
	}
	waitpid(pid, NULL, 0);
	close(fd);
	close(lfd);
	st = summarize(s, n);
	free(s);
	return st;
}

/* Round trip of a value through one shared cache line between two processes. */
static struct stats
bench_cacheline(void)
{
	volatile uint64_t *line =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, n = iters * 5;
	uint64_t *s = calloc(n, sizeof(*s));
	struct stats st;
	pid_t pid;

	pid = fork();
	if (!pid) {
		for (i = 0; i < n; i++) {
			while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != (uint64_t)(2 * i + 1))
				__builtin_ia32_pause();
			__atomic_store_n(line, 2 * i + 2, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		uint64_t t = now_ns();

		__atomic_store_n(line, 2 * i + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != (uint64_t)(2 * i + 2))
			__builtin_ia32_pause();
		s[i] = now_ns() - t;
	}
	waitpid(pid, NULL, 0);
	munmap((void *)line, 4096);
	st = summarize(s, n);
	free(s);
	return st;
}

/* Open the device and create PD, CQ, QP and a registered buffer. */
static void
ep_init(struct ep *e)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia;
	int fd;

	if (!l || !l[0]) {
		fprintf(stderr, "no RDMA device (run under tools/softrdma-run)\n");
		exit(1);
	}
	e->ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	if (!e->ctx)
		goto fail;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	e->buf = aligned_alloc(4096, BUF_SIZE);
	fd = (int)syscall(SYS_memfd_create, "softrdma-bench", 0);
	if (!e->pd || !e->cq || !e->buf || fd < 0 || ftruncate(fd, BUF_SIZE))
		goto fail;
	e->sbuf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (e->sbuf == MAP_FAILED)
		goto fail;
	memset(e->buf, 0, BUF_SIZE);
	memset(e->sbuf, 0, BUF_SIZE);
	e->mr =
	    ibv_reg_mr(e->pd, e->buf, BUF_SIZE,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	e->smr =
	    ibv_reg_mr(e->pd, e->sbuf, BUF_SIZE,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = e->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 64;
	e->qp = ibv_create_qp(e->pd, &ia);
	if (!e->mr || !e->smr || !e->qp)
		goto fail;
	return;
fail:
	perror("verbs setup");
	exit(1);
}

/* What the peer needs to know: our QP number and both buffers with their keys. */
static void
ep_info(struct ep *e, struct conn_info *me)
{
	memset(me, 0, sizeof(*me));
	me->qpn = e->qp->qp_num;
	me->rkey = e->mr->rkey;
	me->addr = (uintptr_t)e->buf;
	me->srkey = e->smr->rkey;
	me->saddr = (uintptr_t)e->sbuf;
}

/* Aim one-sided operations at the peer's shareable buffer (@shared) or its anonymous one. */
static void
ep_target(struct ep *e, int shared)
{
	e->taddr = shared ? e->remote.saddr : e->remote.addr;
	e->trkey = shared ? e->remote.srkey : e->remote.rkey;
}

/* Move the QP through INIT, RTR and RTS towards the peer on 127.0.0.1. */
static void
ep_connect(struct ep *e)
{
	struct rc_qp_path p = {.dest_qpn = e->remote.qpn,
			       .access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_LOCAL_WRITE,
			       .rnr_retry = 7,
			       .mtu = IBV_MTU_4096,
			       .rd_atomic = 16,
			       .loopback = 1};
	int err = rc_qp_to_rts(e->qp, &p);

	if (err) {
		fprintf(stderr, "ibv_modify_qp: %s\n", strerror(err));
		exit(1);
	}
}

/* Busy-poll @cq for one completion; exit on an error status. */
static void
wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0)
		;
	if (n < 0 || wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "completion failed: %s\n",
			n < 0 ? "poll error" : ibv_wc_status_str(wc->status));
		exit(1);
	}
}

/* Post a receive of @len bytes at @off. */
static void
post_recv(struct ep *e, uint32_t off, uint32_t len)
{
	struct ibv_sge s = {.addr = (uintptr_t)e->buf + off, .length = len, .lkey = e->mr->lkey};
	struct ibv_recv_wr wr = {.sg_list = &s, .num_sge = 1}, *bad;

	if (ibv_post_recv(e->qp, &wr, &bad)) {
		perror("ibv_post_recv");
		exit(1);
	}
}

/* Post one send-queue WR; @off is local, @roff remote. */
static void
post(struct ep *e, enum ibv_wr_opcode op, uint32_t off, uint32_t len, uint64_t roff, int flags)
{
	struct ibv_sge s = {.addr = (uintptr_t)e->buf + off, .length = len, .lkey = e->mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &s, .num_sge = 1, .opcode = op, .send_flags = flags},
			   *bad;

	wr.wr.rdma.remote_addr = e->taddr + roff;
	wr.wr.rdma.rkey = e->trkey;
	if (ibv_post_send(e->qp, &wr, &bad)) {
		perror("ibv_post_send");
		exit(1);
	}
}

/*
 * The latency of @round with @op: the median and 99th percentile of ITERS
 * rounds, each timed from its start to its end, after WARMUP untimed ones.
 */
static struct stats
time_rounds(struct ep *e, enum ibv_wr_opcode op, void (*round)(struct ep *, enum ibv_wr_opcode))
{
	uint64_t *s = calloc(iters, sizeof(*s));
	struct stats st;
	int i;

	for (i = 0; i < iters + WARMUP; i++) {
		uint64_t t = now_ns();

		round(e, op);
		if (i >= WARMUP)
			s[i - WARMUP] = now_ns() - t;
	}
	st = summarize(s, iters);
	free(s);
	return st;
}

/* One 8-byte one-sided @op, posted and completed. */
static void
lat_round(struct ep *e, enum ibv_wr_opcode op)
{
	struct ibv_wc wc;

	post(e, op, 0, MSG, 0, IBV_SEND_SIGNALED);
	wait_wc(e->cq, &wc);
}

/* 8-byte one-sided latency: post to completion. */
static struct stats
bench_lat(struct ep *e, enum ibv_wr_opcode op)
{
	return time_rounds(e, op, lat_round);
}

/*
 * 1 MiB one-sided bandwidth in GB/s with QDEPTH requests in flight: the
 * best of ROUNDS rounds of 256 requests.
 */
static double
bench_bw(struct ep *e, enum ibv_wr_opcode op)
{
	int n = 256, posted, done, r;
	double best = 0, bw;
	struct ibv_wc wc;
	uint64_t t;

	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (posted = done = 0; done < n; done++) {
			while (posted < n && posted - done < QDEPTH) {
				post(e, op, (posted % 2) * BIG, BIG, (posted % 2) * BIG,
				     IBV_SEND_SIGNALED);
				posted++;
			}
			wait_wc(e->cq, &wc);
		}
		bw = (double)n * BIG / (now_ns() - t);
		if (bw > best)
			best = bw;
	}
	return best;
}

/* One 8-byte @op out and the peer's answer back: both completions. */
static void
send_round(struct ep *e, enum ibv_wr_opcode op)
{
	struct ibv_wc wc;
	int got;

	post(e, op, 0, MSG, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	for (got = 0; got < 2; got++) {
		wait_wc(e->cq, &wc);
		if (wc.opcode == IBV_WC_RECV)
			post_recv(e, 2 * BIG, MSG);
	}
}

/* 8-byte SEND ping-pong; the peer answers every message. */
static struct stats
bench_send(struct ep *e, int ctl)
{
	int cmd = CMD_SEND_PP;

	post_recv(e, 2 * BIG, MSG);
	if (xfer(ctl, &cmd, sizeof(cmd), 1) || xfer(ctl, &cmd, sizeof(cmd), 0))
		exit(1);
	return time_rounds(e, IBV_WR_SEND, send_round);
}

/* CPU seconds (user + system, all threads) of this process so far. */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The forked peer: serve commands from the parent on @ctl. */
static void
peer_main(int ctl)
{
	struct ep e = {0};
	struct conn_info me;
	struct ibv_wc wc;
	int cmd, i;

	ep_init(&e);
	ep_info(&e, &me);
	if (xfer(ctl, &me, sizeof(me), 1) || xfer(ctl, &e.remote, sizeof(e.remote), 0))
		_exit(1);
	ep_connect(&e);
	cmd = 0;
	xfer(ctl, &cmd, sizeof(cmd), 1);
	while (!xfer(ctl, &cmd, sizeof(cmd), 0)) {
		if (cmd == CMD_SEND_PP) {
			for (i = 0; i < 4; i++)
				post_recv(&e, 2 * BIG, MSG);
			xfer(ctl, &cmd, sizeof(cmd), 1);
			for (i = 0; i < iters + WARMUP;) {
				wait_wc(e.cq, &wc);
				if (wc.opcode != IBV_WC_RECV)
					continue;
				post_recv(&e, 2 * BIG, MSG);
				post(&e, IBV_WR_SEND, 0, MSG, 0,
				     IBV_SEND_INLINE | (i % 16 == 15 ? IBV_SEND_SIGNALED : 0));
				i++;
			}
		} else if (cmd == CMD_IDLE) {
			double c = cpu_s();

			sleep(idle_s);
			c = cpu_s() - c;
			xfer(ctl, &c, sizeof(c), 1);
		} else {
			break;
		}
	}
	_exit(0);
}

/* Print a latency line. */
static void
print_lat(const char *what, struct stats s)
{
	printf("  %-38s median %8.2f us   p99 %8.2f us\n", what, s.median, s.p99);
}

int
main(int argc, char **argv)
{
	struct stats tcp, line, wr, rd, swr, srd, snd;
	double mc, mcs, bww, bwr, sbww, sbwr, idle_self, idle_peer;
	const char *tr = getenv("SOFTRDMA_TRANSPORT");
	struct ep e = {0};
	struct conn_info me;
	int sv[2], opt, cmd;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:i:")) != -1) {
		if (opt == 'n')
			iters = atoi(optarg);
		else if (opt == 'i')
			idle_s = atoi(optarg);
		else {
			fprintf(stderr, "usage: %s [-n ITERATIONS] [-i IDLE_SECONDS]\n", argv[0]);
			return 2;
		}
	}
	if (iters < 100)
		iters = 100;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	mc = bench_memcpy(BIG);
	mcs = bench_memcpy(MEMCPY_WS);
	tcp = bench_tcp();
	line = bench_cacheline();
	/* fork the peer before any verbs call: both sides start fresh */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	pid = fork();
	if (!pid) {
		close(sv[0]);
		peer_main(sv[1]);
	}
	close(sv[1]);
	ep_init(&e);
	ep_info(&e, &me);
	if (xfer(sv[0], &e.remote, sizeof(e.remote), 0) || xfer(sv[0], &me, sizeof(me), 1))
		return 1;
	ep_connect(&e);
	if (xfer(sv[0], &cmd, sizeof(cmd), 0))
		return 1;
	ep_target(&e, 0);
	wr = bench_lat(&e, IBV_WR_RDMA_WRITE);
	rd = bench_lat(&e, IBV_WR_RDMA_READ);
	ep_target(&e, 1);
	swr = bench_lat(&e, IBV_WR_RDMA_WRITE);
	srd = bench_lat(&e, IBV_WR_RDMA_READ);
	snd = bench_send(&e, sv[0]);
	ep_target(&e, 0);
	bww = bench_bw(&e, IBV_WR_RDMA_WRITE);
	bwr = bench_bw(&e, IBV_WR_RDMA_READ);
	ep_target(&e, 1);
	sbww = bench_bw(&e, IBV_WR_RDMA_WRITE);
	sbwr = bench_bw(&e, IBV_WR_RDMA_READ);
	cmd = CMD_IDLE;
	xfer(sv[0], &cmd, sizeof(cmd), 1);
	idle_self = cpu_s();
	sleep(idle_s);
	idle_self = cpu_s() - idle_self;
	if (xfer(sv[0], &idle_peer, sizeof(idle_peer), 0))
		return 1;
	cmd = CMD_QUIT;
	xfer(sv[0], &cmd, sizeof(cmd), 1);
	waitpid(pid, NULL, 0);

	printf("softrdma-bench: transport %s, %d iterations, 2 processes\n",
	       tr && *tr ? tr : "auto (same host: shm)", iters);
	printf("latency (8 bytes, round trip):\n");
	print_lat("RDMA WRITE (post -> completion)", wr);
	print_lat("RDMA READ (post -> completion)", rd);
	print_lat("RDMA WRITE, shareable memory", swr);
	print_lat("RDMA READ, shareable memory", srd);
	print_lat("SEND ping-pong", snd);
	print_lat("TCP loopback ping-pong", tcp);
	print_lat("shared cache line ping-pong", line);
	printf("bandwidth (1 MiB messages, %d in flight):\n", QDEPTH);
	printf("  %-38s %8.2f GB/s\n", "RDMA WRITE", bww);
	printf("  %-38s %8.2f GB/s\n", "RDMA READ", bwr);
	printf("  %-38s %8.2f GB/s\n", "RDMA WRITE, shareable memory", sbww);
	printf("  %-38s %8.2f GB/s\n", "RDMA READ, shareable memory", sbwr);
	printf("  %-38s %8.2f GB/s\n", "memcpy", mc);
	printf("  %-38s %8.2f GB/s\n", "memcpy (64 MiB working set)", mcs);
	printf("ratios:\n");
	printf("  %-38s %8.2f\n", "WRITE latency / TCP ping-pong", wr.median / tcp.median);
	printf("  %-38s %8.2f\n", "SEND ping-pong / TCP ping-pong", snd.median / tcp.median);
	printf("  %-38s %8.2f\n", "WRITE latency / cache line", wr.median / line.median);
	printf("  %-38s %8.2f\n", "READ latency / cache line", rd.median / line.median);
	printf("  %-38s %8.2f\n", "shareable WRITE latency / cache line", swr.median / line.median);
	printf("  %-38s %8.2f\n", "shareable READ latency / cache line", srd.median / line.median);
	printf("  %-38s %8.2f\n", "SEND ping-pong / cache line", snd.median / line.median);
	printf("  %-38s %8.2f\n", "WRITE bandwidth / memcpy", bww / mc);
	printf("  %-38s %8.2f\n", "READ bandwidth / memcpy", bwr / mc);
	printf("  %-38s %8.2f\n", "shareable WRITE bandwidth / memcpy", sbww / mc);
	printf("  %-38s %8.2f\n", "shareable READ bandwidth / memcpy", sbwr / mc);
	printf("  %-38s %8.2f\n", "WRITE bandwidth / memcpy (64 MiB)", bww / mcs);
	printf("  %-38s %8.2f\n", "READ bandwidth / memcpy (64 MiB)", bwr / mcs);
	printf("idle CPU, connected, over %d s:\n", idle_s);
	printf("  %-38s %8.2f %%\n", "initiator", 100.0 * idle_self / idle_s);
	printf("  %-38s %8.2f %%\n", "peer", 100.0 * idle_peer / idle_s);
	return 0;
}
