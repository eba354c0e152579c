/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_fork.c -- a forked child connects to its parent with librpma over
 * softrdma. The parent uses RDMA first (a peer, a registered region, an
 * endpoint and a connection to itself), then forks. N threads of the parent
 * each take a connection request from the endpoint, accept it and serve
 * it; the child makes N connections from N threads of its own, reads the
 * parent's region (registered before the fork), writes into it and sends a
 * message; the parent checks both and answers, the child checks the answer.
 * Afterwards the parent's own connection must still work, untouched. For
 * N = 1 and 8, on the transport softrdma picks (SOFTRDMA_TRANSPORT=tcp for
 * TCP). Every wait is bounded: a hang is a failure that says where. Under
 * ThreadSanitizer the program skips (exit 77): it does not support a child
 * that starts threads after a multithreaded fork.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define F_MAX	  8    /* connections at most */
#define F_READ	  0    /* the parent's region: what child k reads, T_MSG each */
#define F_WRITE	  1024 /* what child k writes */
#define F_RECV	  2048 /* what child k sends */
#define F_SEND	  3072 /* the parent's answer to child k */
#define F_SELF	  3584 /* the destination of the parent's own reads */
#define F_SLOT	  256  /* the child's region: per connection, write/read/send/recv */
#define F_MAGIC	  0xf5
#define F_SELF_K  0xff /* the k of the parent's connection to itself */
#define F_CHILD_S 90   /* seconds a child may live */

/* the connection request's private data: which of the child's connections */
struct f_hello {
	uint8_t magic;
	uint8_t k;
};

/* one thread's task and how it went */
struct f_task {
	pthread_t thr;
	int k; /* the child's connection (child), or the one served (parent) */
	int failed;
	char why[160];
};

static struct rpma_peer *Peer;
static struct rpma_mr_local *Mr;
static uint8_t *Region;
static struct rpma_ep *Ep;
static char Port[16];
static int N;
static int Served[F_MAX];
static pid_t Child = -1;

/* the parent's connection to itself, made before the fork */
static struct rpma_conn *Self_cli, *Self_srv;
static struct rpma_mr_remote *Self_rmr;

/* in the child */
static struct rpma_peer *C_peer;
static struct rpma_mr_local *C_mr;
static uint8_t *C_region;

/* record why @t failed (the first reason only); -1 */
static int
f_fail(struct f_task *t, const char *what, int ret)
{
	if (t->failed)
		return -1;
	t->failed = 1;
	snprintf(t->why, sizeof(t->why), "connection %d: %s (%d: %s)", t->k, what, ret,
		 ret < 0 ? rpma_err_2str(ret) : "");
	return -1;
}

/* byte i of the message tagged @tag for connection @k */
static uint8_t
f_byte(int tag, int k, size_t i)
{
	return (uint8_t)(tag * 37 + k * 11 + i * 3 + 1);
}

/* fill @len bytes at @p with message @tag of connection @k */
static void
f_fill(uint8_t *p, int tag, int k)
{
	for (size_t i = 0; i < T_MSG; i++)
		p[i] = f_byte(tag, k, i);
}

/* 1 when the T_MSG bytes at @p hold message @tag of connection @k */
static int
f_holds(const uint8_t *p, int tag, int k)
{
	for (size_t i = 0; i < T_MSG; i++)
		if (p[i] != f_byte(tag, k, i))
			return 0;
	return 1;
}

/* 1 when the T_MSG bytes at @p hold the parent's initial pattern from @off */
static int
f_holds_pattern(const uint8_t *p, size_t off)
{
	for (size_t i = 0; i < T_MSG; i++)
		if (p[i] != t_pattern(off + i))
			return 0;
	return 1;
}

/* a hung process says so before it dies */
static void
f_on_alarm(int sig)
{
	static const char msg[] = "test_fork: a wait hung: the process is killed by its alarm\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(125);
	_exit(124);
}

/* the next connection request from the (non-blocking) endpoint, within T_WAIT_MS */
static int
f_next_req(struct rpma_conn_req **req)
{
	struct pollfd pfd = {.events = POLLIN};
	long long end = t_now_ms() + T_WAIT_MS;
	int ret;

	if ((ret = rpma_ep_get_fd(Ep, &pfd.fd)))
		return ret;
	do {
		(void)poll(&pfd, 1, 50);
		ret = rpma_ep_next_conn_req(Ep, NULL, req);
		if (ret != RPMA_E_NO_EVENT)
			return ret;
	} while (t_now_ms() < end);
	return RPMA_E_NO_EVENT;
}

/* wait for completion @ctx (others are errors) on @conn's CQ */
static int
f_wait_ctx(struct rpma_conn *conn, uintptr_t ctx)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int ret;

	if ((ret = rpma_conn_get_cq(conn, &cq)) || (ret = t_wait_wc(cq, &wc, T_WAIT_MS)))
		return ret;
	if (wc.wr_id != ctx || wc.status != IBV_WC_SUCCESS)
		return RPMA_E_UNKNOWN;
	return 0;
}

/* wait for the next connection event, which must be @want */
static int
f_wait_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = t_wait_event(conn, &ev, T_WAIT_MS);

	if (ret)
		return ret;
	return ev == want ? 0 : 1000 + (int)ev;
}

/* accept @req with the region's descriptor as private data */
static int
f_accept(struct rpma_conn_req **req, struct rpma_conn **conn)
{
	uint8_t desc[T_MR_DESC];
	struct rpma_conn_private_data pd = {.ptr = desc, .len = sizeof(desc)};
	int ret;

	if ((ret = rpma_mr_get_descriptor(Mr, desc)))
		return ret;
	if ((ret = rpma_conn_req_connect(req, &pd, conn)))
		return ret;
	return f_wait_event(*conn, RPMA_CONN_ESTABLISHED);
}

/* ---- the parent's threads ---- */

/* take a request, accept it and check what child k writes and sends; 0 or -1 */
static int
f_serve(struct f_task *t)
{
	struct rpma_conn_private_data pd;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct f_hello h;
	int ret;

	if ((ret = f_next_req(&req)))
		return f_fail(t, "no connection request from the forked child", ret);
	if ((ret = rpma_conn_req_get_private_data(req, &pd)) || pd.len < sizeof(h)) {
		(void)rpma_conn_req_delete(&req);
		return f_fail(t, "no private data in the request", ret);
	}
	memcpy(&h, pd.ptr, sizeof(h));
	if (h.magic != F_MAGIC || h.k >= N ||
	    __atomic_fetch_add(&Served[h.k], 1, __ATOMIC_RELAXED)) {
		(void)rpma_conn_req_delete(&req);
		return f_fail(t, "a request that is not one of the child's", h.k);
	}
	t->k = h.k;
	if ((ret = rpma_conn_req_recv(req, Mr, F_RECV + (size_t)t->k * T_MSG, T_MSG,
				      (void *)(uintptr_t)1))) {
		(void)rpma_conn_req_delete(&req);
		return f_fail(t, "rpma_conn_req_recv", ret);
	}
	if ((ret = f_accept(&req, &conn)))
		return f_fail(t, "accepting the request", ret);
	if ((ret = f_wait_ctx(conn, 1)))
		f_fail(t, "no message from the child", ret);
	else if (!f_holds(Region + F_RECV + (size_t)t->k * T_MSG, 's', t->k))
		f_fail(t, "the child's message is not what it sent", 0);
	else if (!f_holds(Region + F_WRITE + (size_t)t->k * T_MSG, 'w', t->k))
		f_fail(t, "the child's write did not land before its message", 0);
	f_fill(Region + F_SEND + (size_t)t->k * T_MSG, 'a', t->k);
	if (!t->failed && (ret = rpma_send(conn, Mr, F_SEND + (size_t)t->k * T_MSG, T_MSG,
					   RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)2)))
		f_fail(t, "rpma_send", ret);
	if (!t->failed && (ret = f_wait_ctx(conn, 2)))
		f_fail(t, "the answer's send completion", ret);
	if (!t->failed && (ret = f_wait_event(conn, RPMA_CONN_CLOSED)))
		f_fail(t, "the child did not close the connection", ret);
	if (t->failed)
		(void)rpma_conn_disconnect(conn);
	if ((ret = rpma_conn_delete(&conn)))
		f_fail(t, "rpma_conn_delete", ret);
	return t->failed ? -1 : 0;
}

/* thread: serve one of the child's connections */
static void *
f_serve_main(void *arg)
{
	(void)f_serve(arg);
	return NULL;
}

/* ---- the child's threads ---- */

/* read the parent's pattern, write, send, check the answer; 0 or -1 */
static int
c_exchange(struct f_task *t, struct rpma_conn *conn, struct rpma_mr_remote *rmr)
{
	size_t base = (size_t)t->k * F_SLOT;
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int ret, got = 0;

	f_fill(C_region + base, 'w', t->k);
	if ((ret = rpma_write(conn, rmr, F_WRITE + (size_t)t->k * T_MSG, C_mr, base, T_MSG,
			      RPMA_F_COMPLETION_ON_ERROR, NULL)) ||
	    (ret = rpma_read(conn, C_mr, base + 64, rmr, F_READ + (size_t)t->k * T_MSG, T_MSG,
			     RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)3)) ||
	    (ret = f_wait_ctx(conn, 3)))
		return f_fail(t, "writing and reading the parent's region", ret);
	if (!f_holds_pattern(C_region + base + 64, F_READ + (size_t)t->k * T_MSG))
		return f_fail(t, "the parent's region does not hold its pattern", 0);
	f_fill(C_region + base + 128, 's', t->k);
	if ((ret = rpma_send(conn, C_mr, base + 128, T_MSG, RPMA_F_COMPLETION_ALWAYS,
			     (void *)(uintptr_t)4)) ||
	    (ret = rpma_conn_get_cq(conn, &cq)))
		return f_fail(t, "rpma_send", ret);
	/* the send's and the answer's completions, in either order */
	while (got != 3) {
		if ((ret = t_wait_wc(cq, &wc, T_WAIT_MS)))
			return f_fail(t, "no answer from the parent", ret);
		if (wc.status != IBV_WC_SUCCESS || (wc.wr_id != 4 && wc.wr_id != 5))
			return f_fail(t, "a failed or unexpected completion", (int)wc.status);
		got |= wc.wr_id == 4 ? 1 : 2;
	}
	if (!f_holds(C_region + base + 192, 'a', t->k))
		return f_fail(t, "the parent's answer is not what it sent", 0);
	return 0;
}

/* connect to the parent as connection k, exchange, close; 0 or -1 */
static int
c_connect(struct f_task *t)
{
	struct f_hello h = {.magic = F_MAGIC, .k = (uint8_t)t->k};
	struct rpma_conn_private_data pd = {.ptr = &h, .len = sizeof(h)};
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	int ret;

	if ((ret = rpma_conn_req_new(C_peer, T_ADDR, Port, NULL, &req)))
		return f_fail(t, "rpma_conn_req_new", ret);
	if ((ret = rpma_conn_req_recv(req, C_mr, (size_t)t->k * F_SLOT + 192, T_MSG,
				      (void *)(uintptr_t)5))) {
		(void)rpma_conn_req_delete(&req);
		return f_fail(t, "rpma_conn_req_recv", ret);
	}
	if ((ret = rpma_conn_req_connect(&req, &pd, &conn)))
		return f_fail(t, "rpma_conn_req_connect", ret);
	if ((ret = f_wait_event(conn, RPMA_CONN_ESTABLISHED)))
		f_fail(t, "the connection to the parent was not established", ret);
	else if ((ret = rpma_conn_get_private_data(conn, &pd)) || pd.len < T_MR_DESC ||
		 (ret = rpma_mr_remote_from_descriptor(pd.ptr, T_MR_DESC, &rmr)))
		f_fail(t, "the parent's region descriptor", ret);
	else
		(void)c_exchange(t, conn, rmr);
	(void)rpma_mr_remote_delete(&rmr);
	if (!t->failed && (ret = t_close(&conn)))
		f_fail(t, "closing the connection", ret);
	(void)rpma_conn_delete(&conn);
	return t->failed ? -1 : 0;
}

/* thread: one connection of the child */
static void *
c_connect_main(void *arg)
{
	(void)c_connect(arg);
	return NULL;
}

/* the child: a peer and a region of its own, N connections from N threads */
static int
c_main(void)
{
	struct f_task t[F_MAX];
	int i, failed = 0;

	/* a crash of the child is its own, not a failure cmocka reports */
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	alarm(F_CHILD_S);
	C_peer = t_peer_new();
	C_region = aligned_alloc(4096, 4096);
	if (!C_peer || !C_region ||
	    rpma_mr_reg(C_peer, C_region, 4096,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND |
			    RPMA_MR_USAGE_RECV,
			&C_mr)) {
		fprintf(stderr, "child: no peer or region of its own: %s\n", rpma_errormsg());
		return 1;
	}
	memset(t, 0, sizeof(t));
	for (i = 0; i < N; i++) {
		t[i].k = i;
		if (pthread_create(&t[i].thr, NULL, c_connect_main, &t[i]))
			return 2;
	}
	for (i = 0; i < N; i++) {
		pthread_join(t[i].thr, NULL);
		if (t[i].failed) {
			fprintf(stderr, "child: %s\n", t[i].why);
			failed = 1;
		}
	}
	if (rpma_mr_dereg(&C_mr) || rpma_peer_delete(&C_peer))
		return 4;
	free(C_region);
	return failed ? 3 : 0;
}

/* ---- the parent ---- */

/* listen on a free port; the endpoint's fd is non-blocking for N threads */
static void
f_listen(void)
{
	int fd, i;

	for (i = 0; i < 20; i++)
		if (rpma_ep_listen(Peer, T_ADDR, t_next_port(Port, sizeof(Port)), &Ep) == 0)
			break;
	assert_non_null(Ep);
	assert_int_equal(rpma_ep_get_fd(Ep, &fd), 0);
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

/* the parent's own connection reads the region's pattern */
static void
f_self_read(void)
{
	memset(Region + F_SELF, 0, T_MSG);
	assert_int_equal(rpma_read(Self_cli, Mr, F_SELF, Self_rmr, F_READ, T_MSG,
				   RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)6),
			 0);
	assert_int_equal(f_wait_ctx(Self_cli, 6), 0);
	assert_true(f_holds_pattern(Region + F_SELF, F_READ));
}

/* use RDMA before the fork: connect to itself and read */
static void
f_self_connect(void)
{
	struct f_hello h = {.magic = F_MAGIC, .k = F_SELF_K};
	struct rpma_conn_private_data pd = {.ptr = &h, .len = sizeof(h)};
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, Port, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &pd, &Self_cli), 0);
	assert_int_equal(f_next_req(&req), 0);
	assert_int_equal(f_accept(&req, &Self_srv), 0);
	assert_int_equal(f_wait_event(Self_cli, RPMA_CONN_ESTABLISHED), 0);
	assert_int_equal(rpma_conn_get_private_data(Self_cli, &pd), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(pd.ptr, T_MR_DESC, &Self_rmr), 0);
	f_self_read();
}

/* after the child: the parent's connection works and saw no event */
static void
f_self_check(void)
{
	enum rpma_conn_event ev;

	assert_int_equal(t_wait_event(Self_cli, &ev, 0), RPMA_E_NO_EVENT);
	assert_int_equal(t_wait_event(Self_srv, &ev, 0), RPMA_E_NO_EVENT);
	f_self_read();
	assert_int_equal(t_close(&Self_cli), 0);
	assert_int_equal(f_wait_event(Self_srv, RPMA_CONN_CLOSED), 0);
	assert_int_equal(rpma_conn_delete(&Self_srv), 0);
	assert_int_equal(rpma_mr_remote_delete(&Self_rmr), 0);
}

/* wait for the child (bounded): it must exit with 0 */
static void
f_wait_child(void)
{
	long long end = t_now_ms() + (F_CHILD_S + 10) * 1000LL;
	int st = 0;
	pid_t r;

	while ((r = waitpid(Child, &st, WNOHANG)) == 0 && t_now_ms() < end)
		usleep(10000);
	if (r == 0) {
		kill(Child, SIGKILL);
		(void)waitpid(Child, NULL, 0);
	}
	Child = -1;
	if (r == 0)
		fail_msg("the forked child did not finish within %d s", F_CHILD_S + 10);
	if (WIFSIGNALED(st))
		fail_msg("the forked child was killed by signal %d", WTERMSIG(st));
	if (WEXITSTATUS(st))
		fail_msg("the forked child failed (exit %d, its reasons above)", WEXITSTATUS(st));
}

/* fork after using RDMA; serve the child's n connections from n threads */
static void
f_run(int n)
{
	struct f_task t[F_MAX];
	int i, failed;

	N = n;
	memset(Served, 0, sizeof(Served));
	for (i = 0; i < T_REGION; i++)
		Region[i] = t_pattern((size_t)i);
	f_listen();
	f_self_connect();
	Child = fork();
	assert_true(Child >= 0);
	if (Child == 0)
		_exit(c_main());
	memset(t, 0, sizeof(t));
	for (i = 0; i < n; i++) {
		t[i].k = -1;
		assert_int_equal(pthread_create(&t[i].thr, NULL, f_serve_main, &t[i]), 0);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(pthread_join(t[i].thr, NULL), 0);
	for (i = 0, failed = 0; i < n; i++)
		if (t[i].failed && ++failed)
			print_error("parent thread %d: %s\n", i, t[i].why);
	f_wait_child();
	if (failed)
		fail_msg("%d of the parent's %d threads failed (reasons above)", failed, n);
	for (i = 0; i < n; i++)
		assert_int_equal(Served[i], 1);
	f_self_check();
	assert_int_equal(rpma_ep_shutdown(&Ep), 0);
}

/* one connection from one thread */
static void
test_fork_1(void **state)
{
	(void)state;
	f_run(1);
}

/* eight connections from eight threads on each side */
static void
test_fork_8(void **state)
{
	(void)state;
	f_run(F_MAX);
}

/* a failed test leaves no child, endpoint or connection behind */
static int
test_teardown(void **state)
{
	(void)state;
	if (Child > 0) {
		kill(Child, SIGKILL);
		(void)waitpid(Child, NULL, 0);
		Child = -1;
	}
	(void)rpma_conn_delete(&Self_cli);
	(void)rpma_conn_delete(&Self_srv);
	(void)rpma_mr_remote_delete(&Self_rmr);
	(void)rpma_ep_shutdown(&Ep);
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	signal(SIGALRM, f_on_alarm);
	return t_setup_region(&Peer, 240,
			      RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
				  RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			      &Region, &Mr);
}

static int
teardown(void **state)
{
	(void)state;
	return t_teardown_region(&Peer, &Region, &Mr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_fork_1, test_teardown),
	    cmocka_unit_test_teardown(test_fork_8, test_teardown),
	};

	if (dlsym(RTLD_DEFAULT, "__tsan_init")) {
		printf("SKIP: ThreadSanitizer does not support a child starting threads after a "
		       "multithreaded fork\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
