/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of fork(): a process that already uses softrdma (progress
 * and CM threads running, a connection to itself open, memory registered)
 * forks. The child must get a device of its own and connect back to the
 * parent with rdma_cm; what it inherited (contexts, PDs, MRs, QPs, CQs,
 * channels, cm ids) must stay inert in it, and tearing that down in the
 * child must leave the parent's connection working. Children are plain C
 * (no cmocka in a forked child): each step that fails is printed and becomes
 * the child's exit code, and an alarm turns a hang into a failure. A
 * child's session buffer is a memfd mapped MAP_SHARED, which the parent
 * writes through its own mapping of the child's memory (share.h).
 *
 * Under ThreadSanitizer the program skips (exit 77): it does not support a
 * child that starts threads after a multithreaded fork. Under
 * AddressSanitizer, whose allocator (gcc 12) is not locked across fork, the
 * traffic thread of test_fork_during_traffic steps aside while the process
 * forks: a child of a thread inside malloc() would deadlock there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define F_MSG	  64
#define F_BUF	  4096
#define F_CHILD_S 30 /* seconds a child may live */

/* The parent's world before it forks: a listener and a connection to itself. */
struct f_world {
	uint16_t port;
	struct rdma_event_channel *sch; /* the listener and the ids it accepts */
	struct rdma_event_channel *cch; /* the client id */
	struct rdma_cm_id *lis;
	struct rdma_cm_id *cli;
	struct rdma_cm_id *srv;
	char *buf[2]; /* the client's and the server's buffers */
	struct ibv_mr *mr[2];
};

/* What a child sends with its connect request: where the parent writes. */
struct f_hello {
	uint64_t addr;
	uint32_t rkey;
	uint8_t seed;
};

/* Traffic on the world's connection while the main thread forks. */
struct f_traffic {
	struct f_world *w;
	int stop;
	int rounds;
	int failed;
	int hold; /* AddressSanitizer only: stay out of softrdma during a fork */
	int held;
};

/* exported by libibverbs (IBVERBS_1.1) without a declaration in its headers */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

static pid_t F_child = -1;
static int F_asan;

/* Non-zero when the sanitizer runtime whose entry point is @init is loaded. */
static int
f_under(const char *init)
{
	return dlsym(RTLD_DEFAULT, init) != NULL;
}

/* Byte @i of the pattern with @seed. */
static char
f_byte(uint8_t seed, size_t i)
{
	return (char)(seed * 31 + i * 7 + 1);
}

/* Fill @len bytes at @p with the pattern of @seed. */
static void
f_fill(char *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = f_byte(seed, i);
}

/* Non-zero when the @len bytes at @p hold the pattern of @seed. */
static int
f_holds(const char *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != f_byte(seed, i))
			return 0;
	return 1;
}

/* A zeroed, page-aligned buffer of F_BUF bytes, or NULL. */
static char *
f_buf_new(void)
{
	void *p = mmap(NULL, F_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * F_BUF bytes of a memfd mapped MAP_SHARED (its descriptor kept open): the
 * parent writes into such memory of a child through its own mapping of it.
 */
static char *
f_shared_buf_new(void)
{
	int fd = memfd_create("test_fork", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || ftruncate(fd, F_BUF)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = mmap(NULL, F_BUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---- the child side: plain C, every failure is a numbered step ---- */

#define C_TRY(cond, step)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "child %d: step %d failed: %s (errno %d)\n",               \
				(int)getpid(), step, #cond, errno);                                \
			return step;                                                               \
		}                                                                                  \
	} while (0)

/* Wait up to T_WAIT_MS for an event of @type on @ch and acknowledge it; 0 or -1. */
static int
c_event(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = t_try_event(ch, T_WAIT_MS);
	int ok;

	if (!ev) {
		fprintf(stderr, "child %d: no %s within %d ms\n", (int)getpid(),
			rdma_event_str(type), T_WAIT_MS);
		return -1;
	}
	ok = ev->event == type && !ev->status;
	if (!ok)
		fprintf(stderr, "child %d: got %s (status %d), wanted %s\n", (int)getpid(),
			rdma_event_str(ev->event), ev->status, rdma_event_str(type));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* Poll @cq for one successful completion within T_WAIT_MS; 0 or -1. */
static int
c_wait_wc(struct ibv_cq *cq)
{
	int64_t end = t_now_ms() + T_WAIT_MS;
	struct ibv_wc wc;
	int n;

	while (t_now_ms() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n && wc.status != IBV_WC_SUCCESS)
			fprintf(stderr, "child %d: completion %s\n", (int)getpid(),
				ibv_wc_status_str(wc.status));
		if (n)
			return wc.status == IBV_WC_SUCCESS ? 0 : -1;
		usleep(100);
	}
	fprintf(stderr, "child %d: no completion within %d ms\n", (int)getpid(), T_WAIT_MS);
	return -1;
}

/* Post one send WR; the ibv_post_send() result. */
static int
c_post(struct ibv_qp *qp, enum ibv_wr_opcode op, void *buf, uint32_t lkey, uint64_t raddr,
       uint32_t rkey)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = F_MSG, .lkey = lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* Post one receive of F_MSG bytes at @buf; the ibv_post_recv() result. */
static int
c_post_recv(struct ibv_qp *qp, void *buf, uint32_t lkey)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = F_MSG, .lkey = lkey};
	struct ibv_recv_wr wr = {.sg_list = &s, .num_sge = 1}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Resolve an id on @ch towards the parent's port, with a QP; 0 or a step. */
static int
c_resolve(struct rdma_event_channel *ch, uint16_t port, struct rdma_cm_id **idp)
{
	struct sockaddr_in dst = t_lo(port);
	struct ibv_qp_init_attr a = t_rc_attr(NULL, 8, 8, 1);

	C_TRY(!rdma_create_id(ch, idp, NULL, RDMA_PS_TCP), 101);
	C_TRY(!rdma_resolve_addr(*idp, NULL, (struct sockaddr *)&dst, 2000), 102);
	C_TRY(!c_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED), 103);
	C_TRY(!rdma_resolve_route(*idp, 2000), 104);
	C_TRY(!c_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED), 105);
	C_TRY(!rdma_create_qp(*idp, NULL, &a), 106);
	return 0;
}

/*
 * The child's exchange with the parent (f_serve() there): connect with
 * where to write, find the parent's WRITE and SEND, answer with a SEND,
 * then wait for the parent's disconnect. 0 or the failed step.
 */
static int
c_session(uint16_t port, uint8_t seed)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct f_hello h = {.seed = seed};
	struct rdma_conn_param p = rc_conn_param(&h, sizeof(h));
	struct rdma_cm_id *id = NULL;
	char *buf = f_shared_buf_new();
	struct ibv_mr *mr;
	int rc;

	C_TRY(ch && buf, 110);
	rc = c_resolve(ch, port, &id);
	if (rc)
		return rc;
	mr = ibv_reg_mr(id->pd, buf, F_BUF, T_ACCESS_ALL);
	C_TRY(mr, 111);
	C_TRY(!c_post_recv(id->qp, buf + 128, mr->lkey), 112);
	h.addr = (uintptr_t)buf;
	h.rkey = mr->rkey;
	C_TRY(!rdma_connect(id, &p), 113);
	C_TRY(!c_event(ch, RDMA_CM_EVENT_ESTABLISHED), 114);
	/* the parent's SEND follows its WRITE: both have landed once it completes */
	C_TRY(!c_wait_wc(id->recv_cq), 115);
	C_TRY(f_holds(buf, F_MSG, seed), 116);
	C_TRY(f_holds(buf + 128, F_MSG, seed + 1), 117);
	f_fill(buf + 256, F_MSG, seed + 2);
	C_TRY(!c_post(id->qp, IBV_WR_SEND, buf + 256, mr->lkey, 0, 0), 118);
	C_TRY(!c_wait_wc(id->send_cq), 119);
	C_TRY(!c_event(ch, RDMA_CM_EVENT_DISCONNECTED), 120);
	rdma_destroy_qp(id);
	C_TRY(!ibv_dereg_mr(mr), 121);
	C_TRY(!rdma_destroy_id(id), 122);
	rdma_destroy_event_channel(ch);
	munmap(buf, F_BUF);
	return 0;
}

/* The data path and the channels of inherited objects fail at once. */
static int
c_inherited_dead(struct f_world *w)
{
	struct ibv_async_event aev;
	struct rdma_cm_event *ev;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	void *cctx;

	C_TRY(c_post(w->cli->qp, IBV_WR_RDMA_WRITE, w->buf[0], w->mr[0]->lkey, (uintptr_t)w->buf[1],
		     w->mr[1]->rkey) == EIO,
	      1);
	C_TRY(c_post_recv(w->srv->qp, w->buf[1], w->mr[1]->lkey) == EIO, 2);
	C_TRY(ibv_poll_cq(w->cli->send_cq, 1, &wc) < 0, 3);
	C_TRY(ibv_req_notify_cq(w->cli->recv_cq, 0) != 0, 4);
	/* an error, not a wait for (or a theft of) the parent's events */
	C_TRY(ibv_get_cq_event(w->cli->send_cq_channel, &cq, &cctx) == -1, 5);
	C_TRY(rdma_get_cm_event(w->cch, &ev) == -1 && errno == EIO, 6);
	C_TRY(ibv_get_async_event(w->cli->verbs, &aev) == -1, 7);
	/* the extended post interface posts nothing either */
	qpx = ibv_qp_to_qp_ex(w->cli->qp);
	C_TRY(qpx, 8);
	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, w->mr[1]->rkey, (uintptr_t)w->buf[1]);
	ibv_wr_set_sge(qpx, w->mr[0]->lkey, (uintptr_t)w->buf[0], F_MSG);
	C_TRY(ibv_wr_complete(qpx) == EIO, 9);
	return 0;
}

/* Nothing new can be made on inherited contexts, PDs and ids. */
static int
c_inherited_barren(struct f_world *w)
{
	struct ibv_qp_init_attr a = t_rc_attr(w->cli->send_cq, 1, 1, 1);
	struct sockaddr_in dst = t_lo(w->port);

	errno = 0;
	C_TRY(!ibv_create_cq(w->cli->verbs, 4, NULL, NULL, 0) && errno == EIO, 11);
	errno = 0;
	C_TRY(!ibv_create_comp_channel(w->cli->verbs) && errno == EIO, 12);
	errno = 0;
	C_TRY(!ibv_alloc_pd(w->cli->verbs) && errno == EIO, 13);
	errno = 0;
	C_TRY(!ibv_reg_mr(w->cli->pd, w->buf[0], F_BUF, T_ACCESS_ALL) && errno == EIO, 14);
	errno = 0;
	C_TRY(!ibv_create_qp(w->cli->pd, &a) && errno == EIO, 15);
	C_TRY(rdma_resolve_addr(w->cli, NULL, (struct sockaddr *)&dst, 2000) == -1 && errno == EIO,
	      16);
	return 0;
}

/* Tearing inherited objects down frees the child's copies and nothing else. */
static int
c_inherited_teardown(struct f_world *w)
{
	C_TRY(rdma_disconnect(w->cli) == -1 && errno == EIO, 21);
	rdma_destroy_qp(w->cli);
	rdma_destroy_qp(w->srv);
	C_TRY(!ibv_dereg_mr(w->mr[0]), 22);
	C_TRY(!ibv_dereg_mr(w->mr[1]), 23);
	C_TRY(!rdma_destroy_id(w->cli), 24);
	C_TRY(!rdma_destroy_id(w->srv), 25);
	C_TRY(!rdma_destroy_id(w->lis), 26);
	rdma_destroy_event_channel(w->cch);
	rdma_destroy_event_channel(w->sch);
	return 0;
}

/* ---- the parent side: cmocka ---- */

/* The world's connection works both ways and no CM event is pending. */
static void
f_world_check(struct f_world *w, uint8_t seed)
{
	struct ibv_wc wc;

	f_fill(w->buf[0], F_MSG, seed);
	assert_int_equal(t_post(w->cli->qp, IBV_WR_RDMA_WRITE, w->buf[0], F_MSG, w->mr[0]->lkey,
				(uintptr_t)w->buf[1], w->mr[1]->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wc = t_wait_wc(w->cli->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	memset(w->buf[0] + 64, 0, F_MSG);
	assert_int_equal(t_post(w->cli->qp, IBV_WR_RDMA_READ, w->buf[0] + 64, F_MSG, w->mr[0]->lkey,
				(uintptr_t)w->buf[1], w->mr[1]->rkey, IBV_SEND_SIGNALED, 2),
			 0);
	wc = t_wait_wc(w->cli->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_true(f_holds(w->buf[0] + 64, F_MSG, seed));
	t_post_recv(w->cli->qp, w->mr[0], w->buf[0] + 256, F_MSG, 3);
	f_fill(w->buf[1] + 128, F_MSG, seed + 1);
	assert_int_equal(t_post(w->srv->qp, IBV_WR_SEND, w->buf[1] + 128, F_MSG, w->mr[1]->lkey, 0,
				0, IBV_SEND_SIGNALED, 4),
			 0);
	wc = t_wait_wc(w->srv->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	wc = t_wait_wc(w->cli->recv_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_true(f_holds(w->buf[0] + 256, F_MSG, seed + 1));
	t_no_event(w->sch, 0);
	t_no_event(w->cch, 0);
}

/* Listen, connect to itself, register a buffer per side and use them. */
static void
f_world_new(struct f_world *w)
{
	struct rdma_conn_param p = rc_conn_param(NULL, 0);
	struct rdma_cm_event *ev;
	int i;

	memset(w, 0, sizeof(*w));
	w->port = t_free_port();
	w->sch = rdma_create_event_channel();
	w->cch = rdma_create_event_channel();
	assert_non_null(w->sch);
	assert_non_null(w->cch);
	w->lis = t_listen(w->sch, w->port);
	w->cli = t_resolve(w->cch, w->port);
	t_create_qp(w->cli);
	assert_int_equal(rdma_connect(w->cli, &p), 0);
	ev = t_event(w->sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	w->srv = ev->id;
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	t_create_qp(w->srv);
	assert_int_equal(rdma_accept(w->srv, &p), 0);
	t_event_ack(w->cch, RDMA_CM_EVENT_ESTABLISHED);
	t_event_ack(w->sch, RDMA_CM_EVENT_ESTABLISHED);
	for (i = 0; i < 2; i++) {
		w->buf[i] = f_buf_new();
		assert_non_null(w->buf[i]);
		w->mr[i] = ibv_reg_mr((i ? w->srv : w->cli)->pd, w->buf[i], F_BUF, T_ACCESS_ALL);
		assert_non_null(w->mr[i]);
	}
	f_world_check(w, 10);
}

/* Disconnect and release the world. */
static void
f_world_free(struct f_world *w)
{
	int i;

	assert_int_equal(rdma_disconnect(w->cli), 0);
	t_event_ack(w->cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(w->sch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(w->cli);
	rdma_destroy_qp(w->srv);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ibv_dereg_mr(w->mr[i]), 0);
		munmap(w->buf[i], F_BUF);
	}
	assert_int_equal(rdma_destroy_id(w->cli), 0);
	assert_int_equal(rdma_destroy_id(w->srv), 0);
	assert_int_equal(rdma_destroy_id(w->lis), 0);
	rdma_destroy_event_channel(w->cch);
	rdma_destroy_event_channel(w->sch);
}

/*
 * Serve one c_session() of a child on the world's listener: accept, WRITE
 * and SEND the child's pattern, check its answer, disconnect.
 */
static void
f_serve(struct f_world *w)
{
	struct rdma_conn_param p = rc_conn_param(NULL, 0);
	struct rdma_cm_event *ev = t_try_event(w->sch, T_WAIT_MS);
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	struct f_hello h;
	char *buf;

	if (!ev)
		fail_msg("no connect request from the forked child within %d ms", T_WAIT_MS);
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		fail_msg("got %s (status %d) instead of the child's connect request",
			 rdma_event_str(ev->event), ev->status);
	assert_true(ev->param.conn.private_data_len >= sizeof(h));
	memcpy(&h, ev->param.conn.private_data, sizeof(h));
	id = ev->id;
	assert_int_equal(rdma_ack_cm_event(ev), 0);
	t_create_qp(id);
	buf = f_buf_new();
	assert_non_null(buf);
	mr = ibv_reg_mr(id->pd, buf, F_BUF, T_ACCESS_ALL);
	assert_non_null(mr);
	t_post_recv(id->qp, mr, buf + 256, F_MSG, 7);
	assert_int_equal(rdma_accept(id, &p), 0);
	t_event_ack(w->sch, RDMA_CM_EVENT_ESTABLISHED);
	f_fill(buf, F_MSG, h.seed);
	f_fill(buf + 128, F_MSG, h.seed + 1);
	assert_int_equal(t_post(id->qp, IBV_WR_RDMA_WRITE, buf, F_MSG, mr->lkey, h.addr, h.rkey,
				IBV_SEND_SIGNALED, 5),
			 0);
	assert_int_equal(
	    t_post(id->qp, IBV_WR_SEND, buf + 128, F_MSG, mr->lkey, 0, 0, IBV_SEND_SIGNALED, 6), 0);
	wc = t_wait_wc(id->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	wc = t_wait_wc(id->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	wc = t_wait_wc(id->recv_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_true(f_holds(buf + 256, F_MSG, h.seed + 2));
	assert_int_equal(rdma_disconnect(id), 0);
	t_event_ack(w->sch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(id);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	munmap(buf, F_BUF);
	assert_int_equal(rdma_destroy_id(id), 0);
}

static struct f_traffic F_traffic;
static int F_traffic_on;

/* Under AddressSanitizer, have the traffic thread (if any) wait outside softrdma. */
static void
f_traffic_hold(int hold)
{
	int64_t end = t_now_ms() + T_WAIT_MS;

	if (!F_asan || !F_traffic_on)
		return;
	if (!hold) {
		__atomic_store_n(&F_traffic.hold, 0, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&F_traffic.held, __ATOMIC_ACQUIRE) && t_now_ms() < end)
		usleep(100);
	__atomic_store_n(&F_traffic.hold, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&F_traffic.held, __ATOMIC_ACQUIRE) && !F_traffic.failed &&
	       t_now_ms() < end)
		usleep(100);
}

/* Fork; the child runs @fn(@w) under an alarm and exits with its result. */
static pid_t
f_fork(int (*fn)(struct f_world *), struct f_world *w)
{
	pid_t pid;

	f_traffic_hold(1);
	pid = fork();
	if (!pid) {
		/* a crash of the child is its own, not a failure cmocka reports */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		alarm(F_CHILD_S);
		_exit(fn(w));
	}
	f_traffic_hold(0);
	assert_true(pid > 0);
	F_child = pid;
	return pid;
}

/* Wait for the child (bounded): it must exit with 0. */
static void
f_wait_child(pid_t pid)
{
	int64_t end = t_now_ms() + (F_CHILD_S + 5) * 1000;
	int st = 0;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && t_now_ms() < end)
		usleep(10000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	F_child = -1;
	if (r == 0)
		fail_msg("the forked child did not finish within %d s", F_CHILD_S + 5);
	if (WIFSIGNALED(st))
		fail_msg("the forked child was killed by signal %d%s", WTERMSIG(st),
			 WTERMSIG(st) == SIGALRM ? " (it hung)" : "");
	if (WEXITSTATUS(st))
		fail_msg("the forked child failed at step %d (see its message above)",
			 WEXITSTATUS(st));
}

static void f_traffic_stop(void);

/* Kill a child and stop a thread a failed test left behind. */
static int
f_teardown(void **state)
{
	(void)state;
	f_traffic_stop();
	if (F_child > 0) {
		kill(F_child, SIGKILL);
		waitpid(F_child, NULL, 0);
		F_child = -1;
	}
	return 0;
}

/* Child of the fork-init test: the answers are the parent's. */
static int
c_fork_status(struct f_world *w)
{
	(void)w;
	C_TRY(ibv_is_fork_initialized() == IBV_FORK_UNNEEDED, 1);
	C_TRY(ibv_fork_init() == 0, 2);
	return 0;
}

/*
 * Like rdma-core on a kernel that copies DMA pages on fork: fork support is
 * never needed, ibv_fork_init() succeeds even after registrations, and the
 * range calls are no-ops; the same holds in a child.
 */
static void
test_fork_init_unneeded(void **state)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf = f_buf_new();

	(void)state;
	assert_non_null(buf);
	assert_int_equal(ibv_fork_init(), 0);
	assert_int_equal(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	ctx = t_open_dev();
	pd = ibv_alloc_pd(ctx);
	assert_non_null(pd);
	mr = ibv_reg_mr(pd, buf, F_BUF, T_ACCESS_ALL);
	assert_non_null(mr);
	assert_int_equal(ibv_fork_init(), 0);
	assert_int_equal(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	assert_int_equal(ibv_dontfork_range(buf, F_BUF), 0);
	assert_int_equal(ibv_dofork_range(buf, F_BUF), 0);
	f_wait_child(f_fork(c_fork_status, NULL));
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
	munmap(buf, F_BUF);
}

/* Child: one session with the parent. */
static int
c_connect_once(struct f_world *w)
{
	return c_session(w->port, 21);
}

/* The child of a process that uses RDMA connects to it with rdma_cm. */
static void
test_child_connects(void **state)
{
	static struct f_world w;
	pid_t pid;

	(void)state;
	f_world_new(&w);
	pid = f_fork(c_connect_once, &w);
	f_serve(&w);
	f_wait_child(pid);
	f_world_check(&w, 30);
	f_world_free(&w);
}

/* Child: inherited objects are inert, its own device works, teardown is harmless. */
static int
c_inert_then_connect(struct f_world *w)
{
	int rc = c_inherited_dead(w);

	if (!rc)
		rc = c_inherited_barren(w);
	if (!rc)
		rc = c_session(w->port, 41);
	if (!rc)
		rc = c_inherited_teardown(w);
	return rc;
}

/*
 * In the child, inherited objects fail cleanly and destroying them neither
 * waits for the parent's threads nor disturbs the parent's connection.
 */
static void
test_inherited_objects_inert(void **state)
{
	static struct f_world w;
	pid_t pid;

	(void)state;
	f_world_new(&w);
	pid = f_fork(c_inert_then_connect, &w);
	f_serve(&w);
	f_wait_child(pid);
	f_world_check(&w, 50);
	f_world_free(&w);
}

/* Child: a session, then a grandchild's session, then one more of its own. */
static int
c_with_grandchild(struct f_world *w)
{
	int rc = c_session(w->port, 61), st = 0;
	pid_t pid;

	if (rc)
		return rc;
	pid = fork();
	C_TRY(pid >= 0, 30);
	if (!pid) {
		alarm(F_CHILD_S);
		_exit(c_session(w->port, 71));
	}
	C_TRY(waitpid(pid, &st, 0) == pid, 31);
	C_TRY(WIFEXITED(st) && WEXITSTATUS(st) == 0, 32);
	return c_session(w->port, 81);
}

/* A child that used its own device forks again: the grandchild gets one too. */
static void
test_grandchild_connects(void **state)
{
	static struct f_world w;
	pid_t pid;

	(void)state;
	f_world_new(&w);
	pid = f_fork(c_with_grandchild, &w);
	f_serve(&w);
	f_serve(&w);
	f_serve(&w);
	f_wait_child(pid);
	f_world_check(&w, 90);
	f_world_free(&w);
}

static pthread_t F_traffic_thr;

/* Thread: WRITE then READ back on the world's connection until told to stop. */
static void *
f_traffic_main(void *arg)
{
	struct f_traffic *t = arg;
	struct f_world *w = t->w;
	struct ibv_wc wc;
	int64_t end;
	int n = 0, k;

	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED) && !t->failed) {
		if (__atomic_load_n(&t->hold, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&t->held, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&t->hold, __ATOMIC_ACQUIRE))
				usleep(100);
			__atomic_store_n(&t->held, 0, __ATOMIC_RELEASE);
		}
		f_fill(w->buf[0] + 512, F_MSG, (uint8_t)t->rounds);
		if (t_post(w->cli->qp, IBV_WR_RDMA_WRITE, w->buf[0] + 512, F_MSG, w->mr[0]->lkey,
			   (uintptr_t)w->buf[1] + 512, w->mr[1]->rkey, 0, 1) ||
		    t_post(w->cli->qp, IBV_WR_RDMA_READ, w->buf[0] + 1024, F_MSG, w->mr[0]->lkey,
			   (uintptr_t)w->buf[1] + 512, w->mr[1]->rkey, IBV_SEND_SIGNALED, 2)) {
			t->failed = 1;
			break;
		}
		end = t_now_ms() + T_WAIT_MS;
		for (k = 0; !k && t_now_ms() < end;)
			k = (n = ibv_poll_cq(w->cli->send_cq, 1, &wc)) != 0;
		if (!k || n < 0 || wc.status != IBV_WC_SUCCESS ||
		    !f_holds(w->buf[0] + 1024, F_MSG, (uint8_t)t->rounds))
			t->failed = 1;
		t->rounds++;
	}
	return NULL;
}

/* Stop the traffic thread, if it runs; its result stays in F_traffic. */
static void
f_traffic_stop(void)
{
	if (!F_traffic_on)
		return;
	__atomic_store_n(&F_traffic.stop, 1, __ATOMIC_RELAXED);
	pthread_join(F_traffic_thr, NULL);
	F_traffic_on = 0;
}

/* Children fork while another thread keeps the parent's connection busy. */
static void
test_fork_during_traffic(void **state)
{
	static struct f_world w;
	int i;

	(void)state;
	f_world_new(&w);
	memset(&F_traffic, 0, sizeof(F_traffic));
	F_traffic.w = &w;
	assert_int_equal(pthread_create(&F_traffic_thr, NULL, f_traffic_main, &F_traffic), 0);
	F_traffic_on = 1;
	for (i = 0; i < 4 && !F_traffic.failed; i++) {
		pid_t pid = f_fork(c_connect_once, &w);

		f_serve(&w);
		f_wait_child(pid);
	}
	f_traffic_stop();
	assert_int_equal(F_traffic.failed, 0);
	assert_true(F_traffic.rounds > 0);
	f_world_check(&w, 100);
	f_world_free(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_fork_init_unneeded, f_teardown),
	    cmocka_unit_test_teardown(test_child_connects, f_teardown),
	    cmocka_unit_test_teardown(test_inherited_objects_inert, f_teardown),
	    cmocka_unit_test_teardown(test_grandchild_connects, f_teardown),
	    cmocka_unit_test_teardown(test_fork_during_traffic, f_teardown),
	};

	if (f_under("__tsan_init")) {
		printf("SKIP: ThreadSanitizer does not support a child starting threads after a "
		       "multithreaded fork\n");
		return 77;
	}
	F_asan = f_under("__asan_init");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
