/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of softrdma flooded with idle TCP sockets and short of
 * descriptors. A server process (this program run again as "server", its
 * RLIMIT_NOFILE lowered) listens with rdma_cm and gives every client a QP
 * and a buffer, whose address and key go in the accept's private data. The
 * tests open idle sockets, which never send a CM request or a data hello,
 * to its CM port or to its data port (a QP number is port << 8 | index),
 * and check that the server does not spin on a listener it cannot accept
 * from, that it closes the idle sockets (the oldest beyond a cap, the rest
 * after a timeout), and that a client still connects and completes an RDMA
 * WRITE and READ during the flood and after it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "softrdma_test.h"

#define D_FLOOD	   120	/* idle sockets of a flood */
#define D_BUF	   4096 /* bytes of each client's buffer on the server */
#define D_MSG	   64	/* bytes a client writes and reads back */
#define D_CPU_MS   400	/* the server's CPU time allowed in D_IDLE_MS (20 %) */
#define D_IDLE_MS  2000 /* how long the server's CPU time is watched */
#define D_SERVER_S 60	/* seconds a server may live */

/* What the server tells a client in its accept's private data. */
struct d_target {
	uint64_t addr;
	uint32_t rkey;
};

/* A server process and where it listens. */
struct d_server {
	pid_t pid;
	uint16_t port;	   /* its rdma_cm port */
	uint16_t cm_tcp;   /* the TCP port behind it */
	uint16_t data_tcp; /* its data listener */
};

/* A client's objects on the server. */
struct d_conn {
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
};

/* ---- the server: plain C, run as "server PORT FD NOFILE PENDING_MAX TIMEOUT_MS" ---- */

/*
 * Give the client of connect request @ev a QP and a buffer, and accept it;
 * -1 when it was rejected instead (its id is to be destroyed once @ev is
 * acknowledged).
 */
static int
d_serve_request(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct ibv_qp_init_attr a;
	struct rdma_conn_param p;
	struct d_target t;
	struct d_conn *c = calloc(1, sizeof(*c));

	if (!c)
		goto reject;
	c->buf = calloc(1, D_BUF);
	c->pd = ibv_alloc_pd(id->verbs);
	if (!c->buf || !c->pd)
		goto free_c;
	c->mr = ibv_reg_mr(c->pd, c->buf, D_BUF, T_ACCESS_ALL);
	if (!c->mr)
		goto free_c;
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &a))
		goto free_c;
	t.addr = (uintptr_t)c->buf;
	t.rkey = c->mr->rkey;
	memset(&p, 0, sizeof(p));
	p.private_data = &t;
	p.private_data_len = sizeof(t);
	p.responder_resources = p.initiator_depth = 1;
	p.rnr_retry_count = 7;
	id->context = c;
	if (!rdma_accept(id, &p))
		return 0;
	id->context = NULL;
	rdma_destroy_qp(id);
free_c:
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	free(c);
reject:
	rdma_reject(id, NULL, 0);
	return -1;
}

/* Release what the server holds for a client that left (@id: its id). */
static void
d_serve_end(struct rdma_cm_id *id)
{
	struct d_conn *c = id->context;

	rdma_destroy_qp(id);
	if (c) {
		ibv_dereg_mr(c->mr);
		ibv_dealloc_pd(c->pd);
		free(c->buf);
		free(c);
	}
	rdma_destroy_id(id);
}

/*
 * The data listener's port: that of a QP number. The probe QP is left
 * alone so every client's QP comes from the same listener.
 */
static int
d_data_port(void)
{
	struct ibv_context *ctx = t_try_open_dev();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	if (!cq)
		return -1;
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &a);
	return qp ? (int)(qp->qp_num >> 8) : -1;
}

/* Set environment variable @name to @v unless @v is "-". */
static void
d_setenv(const char *name, const char *v)
{
	if (strcmp(v, "-"))
		setenv(name, v, 1);
}

/* Body of the server process; its exit code names the step that failed. */
static int
d_server_main(char **argv)
{
	struct sockaddr_in sin = t_lo((uint16_t)atoi(argv[2]));
	struct rlimit rl = {.rlim_cur = (rlim_t)atol(argv[4]), .rlim_max = (rlim_t)atol(argv[4])};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *lis;
	struct rdma_cm_event *ev;
	int fd = atoi(argv[3]);
	uint16_t data;
	int port;

	alarm(D_SERVER_S);
	d_setenv("SOFTRDMA_PENDING_MAX", argv[5]);
	d_setenv("SOFTRDMA_PENDING_TIMEOUT_MS", argv[6]);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lis, (struct sockaddr *)&sin) || rdma_listen(lis, 1024))
		return 3;
	port = d_data_port();
	if (port < 0)
		return 4;
	data = (uint16_t)port;
	if (write(fd, &data, sizeof(data)) != sizeof(data))
		return 5;
	close(fd);
	while (!rdma_get_cm_event(ch, &ev)) {
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type type = ev->event;

		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			int err = d_serve_request(ev);

			rdma_ack_cm_event(ev);
			if (err)
				rdma_destroy_id(id);
			continue;
		}
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_CONNECT_ERROR ||
		    type == RDMA_CM_EVENT_UNREACHABLE || type == RDMA_CM_EVENT_REJECTED)
			d_serve_end(id);
	}
	return 6;
}

/* ---- the tests' side ---- */

/* The running server, killed by the teardown when a test fails halfway. */
static pid_t D_pid = -1;

/* An rdma_cm port P, with P and the TCP port behind it free, below 32768. */
static uint16_t
d_pick_port(int offset)
{
	int i;

	for (i = 0; i < 100; i++) {
		uint16_t p = (uint16_t)(20000 + (getpid() * 7 + i * 131 + rand()) % 8000);
		struct sockaddr_in sin = t_lo((uint16_t)(p + offset));
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int ok = fd >= 0 && !bind(fd, (struct sockaddr *)&sin, sizeof(sin));

		if (fd >= 0)
			close(fd);
		if (ok)
			return p;
	}
	fail_msg("no free port");
	return 0;
}

/*
 * Start a server with descriptor limit @nofile and SOFTRDMA_PENDING_MAX and
 * SOFTRDMA_PENDING_TIMEOUT_MS @max and @tmo ("-": unset); returns once it
 * listens and has told its data port.
 */
static void
d_server_start(struct d_server *s, int nofile, const char *max, const char *tmo)
{
	const char *off = getenv("SOFTRDMA_CM_PORT_OFFSET");
	char port[16], fd[16], lim[16];
	struct pollfd pfd;
	uint16_t data;
	int p[2];

	s->port = d_pick_port(off ? atoi(off) : 0);
	s->cm_tcp = (uint16_t)(s->port + (off ? atoi(off) : 0));
	assert_int_equal(pipe(p), 0);
	snprintf(port, sizeof(port), "%u", s->port);
	snprintf(fd, sizeof(fd), "%d", p[1]);
	snprintf(lim, sizeof(lim), "%d", nofile);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (!s->pid) {
		close(p[0]);
		execl("/proc/self/exe", "test_fdlimit", "server", port, fd, lim, max, tmo,
		      (char *)NULL);
		_exit(127);
	}
	D_pid = s->pid;
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_int_equal(read(p[0], &data, sizeof(data)), sizeof(data));
	close(p[0]);
	s->data_tcp = data;
}

/* Stop the server, which must still be running. */
static void
d_server_stop(struct d_server *s)
{
	int status;

	assert_int_equal(waitpid(s->pid, &status, WNOHANG), 0);
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	D_pid = -1;
}

/* Kill a server a failed test left running. */
static int
d_teardown(void **state)
{
	(void)state;
	if (D_pid > 0) {
		kill(D_pid, SIGKILL);
		waitpid(D_pid, NULL, 0);
		D_pid = -1;
	}
	return 0;
}

/* CPU time (user + system) of process @pid so far, in milliseconds. */
static long
d_cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = 0;
	/* after the command name: state is field 3, utime and stime 14 and 15 */
	p = strrchr(buf, ')');
	assert_non_null(p);
	assert_int_equal(
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st), 2);
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* Assert the server uses under 20 % of a CPU over D_IDLE_MS. */
static void
d_assert_quiet(const struct d_server *s)
{
	long before = d_cpu_ms(s->pid), used;

	usleep(D_IDLE_MS * 1000);
	used = d_cpu_ms(s->pid) - before;
	if (used >= D_CPU_MS)
		fail_msg("the server used %ld ms of CPU in %d ms", used, D_IDLE_MS);
}

/* Descriptors open in process @pid. */
static int
d_nfds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Open @n idle sockets to 127.0.0.1:@port into @fds; they send nothing. */
static void
d_flood(uint16_t port, int *fds, int n)
{
	struct sockaddr_in sin = t_lo(port);
	int i;

	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		assert_true(fds[i] >= 0);
		if (connect(fds[i], (struct sockaddr *)&sin, sizeof(sin)))
			assert_int_equal(errno, EINPROGRESS);
	}
}

/* Whether the peer closed idle socket @fd. */
static int
d_closed(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* How many of the @n sockets at @fds the peer closed. */
static int
d_nclosed(const int *fds, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += d_closed(fds[i]);
	return k;
}

/* Close the @n sockets at @fds. */
static void
d_unflood(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* Post one RDMA op of @len bytes at @buf against the server's target and wait for it. */
static void
d_rdma(struct rdma_cm_id *id, struct ibv_mr *mr, enum ibv_wr_opcode op, char *buf,
       const struct d_target *t)
{
	struct ibv_wc wc;

	assert_int_equal(
	    t_post(id->qp, op, buf, D_MSG, mr->lkey, t->addr, t->rkey, IBV_SEND_SIGNALED, op), 0);
	wc = t_wait_wc(id->qp->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
}

/*
 * Connect to the server as a client, write a pattern into its buffer with
 * RDMA WRITE, read it back with RDMA READ, and disconnect.
 */
static void
d_client(const struct d_server *s, uint8_t seed)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param p = rc_conn_param(NULL, 0);
	char out[D_MSG], in[D_MSG];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct d_target t;
	int i;

	assert_non_null(ch);
	id = t_resolve(ch, s->port);
	t_create_qp(id);
	for (i = 0; i < D_MSG; i++)
		out[i] = (char)(seed + i * 3);
	memset(in, 0, sizeof(in));
	mr = ibv_reg_mr(id->qp->pd, out, sizeof(out), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(rdma_connect(id, &p), 0);
	ev = t_event(ch, RDMA_CM_EVENT_ESTABLISHED);
	assert_true(ev->param.conn.private_data_len >= sizeof(t));
	memcpy(&t, ev->param.conn.private_data, sizeof(t));
	rdma_ack_cm_event(ev);
	d_rdma(id, mr, IBV_WR_RDMA_WRITE, out, &t);
	ibv_dereg_mr(mr);
	mr = ibv_reg_mr(id->qp->pd, in, sizeof(in), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	d_rdma(id, mr, IBV_WR_RDMA_READ, in, &t);
	assert_memory_equal(in, out, D_MSG);
	ibv_dereg_mr(mr);
	assert_int_equal(rdma_disconnect(id), 0);
	t_event_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

/*
 * CM port, descriptors exhausted: with no cap on pending sockets
 * (SOFTRDMA_PENDING_MAX beyond the limit), a flood larger than the
 * descriptor limit leaves accept4() failing with EMFILE. The CM thread must
 * not spin; once the idle sockets time out, a client gets through, and
 * again after the flood is gone.
 */
static void
test_cm_starved(void **state)
{
	int fds[D_FLOOD];
	struct d_server s;

	(void)state;
	d_server_start(&s, 64, "1000", "1500");
	d_flood(s.cm_tcp, fds, D_FLOOD);
	usleep(300000);
	d_assert_quiet(&s);
	d_client(&s, 1);
	d_unflood(fds, D_FLOOD);
	d_client(&s, 2);
	d_server_stop(&s);
}

/*
 * CM port, default limits (a descriptor limit of 100): the flood is capped,
 * the oldest idle sockets closed to make room, so the server stays quiet,
 * a client connects during the flood without waiting for any timeout, and
 * after it.
 */
static void
test_cm_capped(void **state)
{
	int fds[D_FLOOD];
	struct d_server s;

	(void)state;
	d_server_start(&s, 100, "-", "-");
	d_flood(s.cm_tcp, fds, D_FLOOD);
	usleep(300000);
	d_assert_quiet(&s);
	/* a pending socket costs a descriptor: most of the flood is closed already */
	assert_true(d_nclosed(fds, D_FLOOD) >= D_FLOOD - 100 / 8 - 4);
	d_client(&s, 3);
	d_unflood(fds, D_FLOOD);
	d_client(&s, 4);
	d_server_stop(&s);
}

/*
 * Data port, default cap (a descriptor limit of 200: 25 pending), 1 s
 * timeout: idle sockets that never send a hello do not pile up in the
 * server, all are closed within the timeout, and a client's data
 * connection still gets through.
 */
static void
test_data_capped(void **state)
{
	int fds[D_FLOOD], base, i;
	struct d_server s;
	int64_t end;

	(void)state;
	d_server_start(&s, 200, "-", "1000");
	base = d_nfds(s.pid);
	d_flood(s.data_tcp, fds, D_FLOOD);
	usleep(300000);
	i = d_nfds(s.pid);
	if (i > base + 200 / 8 + 4)
		fail_msg("%d descriptors open in the server, %d before the flood", i, base);
	d_client(&s, 5);
	end = t_now_ms() + 3000;
	while (d_nclosed(fds, D_FLOOD) < D_FLOOD && t_now_ms() < end)
		usleep(50000);
	i = d_nclosed(fds, D_FLOOD);
	if (i < D_FLOOD)
		fail_msg("%d idle sockets of %d still open after 3 s", D_FLOOD - i, D_FLOOD);
	d_unflood(fds, D_FLOOD);
	d_client(&s, 6);
	d_server_stop(&s);
}

/*
 * Data port, descriptors exhausted (no cap, a 1.5 s timeout): the progress
 * thread's accept4() fails with EMFILE; it must not spin, and once the idle
 * sockets time out a client gets through, and again after the flood.
 */
static void
test_data_starved(void **state)
{
	int fds[D_FLOOD];
	struct d_server s;

	(void)state;
	d_server_start(&s, 64, "1000", "1500");
	d_flood(s.data_tcp, fds, D_FLOOD);
	usleep(300000);
	d_assert_quiet(&s);
	d_client(&s, 7);
	d_unflood(fds, D_FLOOD);
	d_client(&s, 8);
	d_server_stop(&s);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_cm_starved, d_teardown),
	    cmocka_unit_test_teardown(test_cm_capped, d_teardown),
	    cmocka_unit_test_teardown(test_data_capped, d_teardown),
	    cmocka_unit_test_teardown(test_data_starved, d_teardown),
	};

	if (argc == 7 && !strcmp(argv[1], "server"))
		return d_server_main(argv);
	signal(SIGPIPE, SIG_IGN);
	srand((unsigned int)getpid());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
