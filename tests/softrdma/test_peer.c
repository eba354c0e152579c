/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests with a second process: a peer killed with SIGKILL in the
 * middle of a transfer, and a hostile peer that sends garbage, truncated and
 * out-of-range messages to softrdma's own TCP listeners (the CM port and the
 * data port) of a target process. The target must keep running and its
 * other connections must keep working. The program re-executes itself as
 * "victim" or "target"; those roles talk to the test over a pipe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>

#include "softrdma_test.h"
/* softrdma's own wire formats, to build well-formed and hostile messages */
#include "../../softrdma/src/cm.h"
#include "../../softrdma/src/wire.h"

#define NVICTIM 8
#define MRLEN	(4u << 20)

struct child {
	pid_t pid;
	FILE *in;  /* commands to the child */
	FILE *out; /* lines from the child */
};

/* Run this program as @role with pipes on stdin/stdout. */
static void
spawn(struct child *c, const char *role)
{
	int to[2], from[2];

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl("/proc/self/exe", "test_peer", role, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = fdopen(to[1], "w");
	c->out = fdopen(from[0], "r");
	assert_non_null(c->in);
	assert_non_null(c->out);
}

/* Read one line from the child within T_WAIT_MS. */
static void
child_line(struct child *c, char *line, size_t len)
{
	struct pollfd pfd = {.fd = fileno(c->out), .events = POLLIN};

	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_non_null(fgets(line, len, c->out));
}

/* Is the child still running? */
static int
child_alive(struct child *c)
{
	return waitpid(c->pid, NULL, WNOHANG) == 0;
}

/* Ask the child to exit and check that it exits with 0. */
static void
child_quit(struct child *c)
{
	int st = -1, i;

	fprintf(c->in, "quit\n");
	fflush(c->in);
	for (i = 0; i < 1000 && waitpid(c->pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 1000) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &st, 0);
	}
	fclose(c->in);
	fclose(c->out);
	if (!WIFEXITED(st))
		fail_msg("child died with signal %d", WTERMSIG(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- the victim: a CM server with a big MR that gets killed ---- */

/* Victim role: accept one connection, hand out the MR, then wait to die. */
static int
victim(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *l, *id;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct ibv_mr *mr;
	uint64_t pd[2];
	void *buf;

	if (!ch)
		return 1;
	l = t_listen(ch, 0);
	printf("READY %u\n", ntohs(rdma_get_src_port(l)));
	fflush(stdout);
	ev = t_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	id = ev->id;
	rdma_ack_cm_event(ev);
	t_create_qp(id);
	buf = mmap(NULL, MRLEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	mr = ibv_reg_mr(id->pd, buf, MRLEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		return 1;
	pd[0] = (uintptr_t)buf;
	pd[1] = mr->rkey;
	memset(&p, 0, sizeof(p));
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	p.responder_resources = p.initiator_depth = 1;
	if (rdma_accept(id, &p))
		return 1;
	t_event_ack(ch, RDMA_CM_EVENT_ESTABLISHED);
	for (;;)
		pause();
	return 0;
}

/* A peer killed mid-transfer: errors, one DISCONNECTED, nothing hangs. */
static void
test_peer_killed(void **state)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct child c;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_qp_init_attr ia;
	struct rdma_conn_param p;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint64_t raddr, pd[2];
	uint32_t rkey;
	char line[128], *buf;
	unsigned int port;
	int posted = 0, done = 0, errors = 0, killed = 0, st;
	int64_t end;

	(void)state;
	assert_non_null(ch);
	spawn(&c, "victim");
	child_line(&c, line, sizeof(line));
	assert_int_equal(sscanf(line, "READY %u", &port), 1);
	id = t_resolve(ch, port);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 32;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = 1;
	assert_int_equal(rdma_create_qp(id, NULL, &ia), 0);
	memset(&p, 0, sizeof(p));
	p.responder_resources = p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	assert_int_equal(rdma_connect(id, &p), 0);
	ev = t_event(ch, RDMA_CM_EVENT_ESTABLISHED);
	assert_true(ev->param.conn.private_data_len >= sizeof(pd));
	memcpy(pd, ev->param.conn.private_data, sizeof(pd));
	rdma_ack_cm_event(ev);
	raddr = pd[0];
	rkey = (uint32_t)pd[1];
	buf = malloc(MRLEN);
	assert_non_null(buf);
	mr = ibv_reg_mr(id->pd, buf, MRLEN, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	/*
	 * Keep 16 large WRITEs and READs in flight, kill the peer after 40
	 * completions and go on posting until the loss shows up.
	 */
	end = t_now_ms() + 3 * T_WAIT_MS;
	while ((!errors || done < posted) && t_now_ms() < end) {
		while (!errors && posted - done < 16) {
			uint32_t off = (posted % 16) * (MRLEN / 16);

			assert_int_equal(
			    t_post(id->qp, posted % 2 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
				   buf + off, MRLEN / 16, mr->lkey, raddr + off, rkey, 0, posted),
			    0);
			posted++;
		}
		if (ibv_poll_cq(id->send_cq, 1, &wc) != 1) {
			usleep(100);
			continue;
		}
		assert_int_equal(wc.wr_id, done);
		done++;
		if (wc.status != IBV_WC_SUCCESS) {
			assert_true(wc.status == IBV_WC_RETRY_EXC_ERR ||
				    wc.status == IBV_WC_WR_FLUSH_ERR);
			errors++;
		} else {
			/* once a WR failed, everything after it is flushed */
			assert_int_equal(errors, 0);
		}
		if (!killed && done >= 40) {
			assert_int_equal(kill(c.pid, SIGKILL), 0);
			killed = 1;
		}
	}
	assert_true(killed);
	assert_int_equal(done, posted);
	/* everything in flight at the kill cannot have completed successfully */
	assert_true(errors > 0);
	/* the QP is in error: a new WR completes flushed */
	assert_int_equal(t_post(id->qp, IBV_WR_RDMA_WRITE, buf, 8, mr->lkey, raddr, rkey, 0, 999),
			 0);
	wc = t_wait_wc(id->send_cq);
	assert_int_equal(wc.wr_id, 999);
	assert_true(wc.status == IBV_WC_WR_FLUSH_ERR || wc.status == IBV_WC_RETRY_EXC_ERR);
	t_event_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
	t_no_event(ch, 200);
	assert_int_equal(rdma_disconnect(id), 0);
	t_no_event(ch, 50);
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	assert_true(WIFSIGNALED(st));
	fclose(c.in);
	fclose(c.out);
	ibv_dereg_mr(mr);
	free(buf);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

/* ---- the target of hostile messages ---- */

struct target {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_qp *v[NVICTIM];
	uint32_t fake[NVICTIM];
	char *buf;
	struct ibv_mr *mr;
	struct rdma_event_channel *lch;
	struct rdma_cm_id *listen;
};

/* Create an RC QP of the target. */
static struct ibv_qp *
target_qp(struct target *t)
{
	struct ibv_qp_init_attr ia = t_rc_attr(t->cq, 8, 8, 1);

	return ibv_create_qp(t->pd, &ia);
}

/* Serve CM events of the target's listener: accept whatever asks. */
static void *
target_cm(void *arg)
{
	struct target *t = arg;
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(t->lch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct ibv_qp_init_attr a = t_rc_attr(NULL, 4, 4, 1);

			/* in the MR's PD: the takeover test writes into it */
			if (rdma_create_qp(ev->id, t->pd, &a) || rdma_accept(ev->id, NULL))
				rdma_reject(ev->id, NULL, 0);
		}
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

/* Poll @cq for one completion; returns its status or -1 after 10 s. */
static int
target_wc(struct ibv_cq *cq)
{
	int64_t end = t_now_ms() + T_WAIT_MS;
	struct ibv_wc wc;

	while (t_now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc.status;
		usleep(100);
	}
	return -1;
}

/* The target's own traffic still works: a WRITE, a SEND and a CM connect. */
static const char *
target_check(struct target *t)
{
	struct ibv_sge s = {.addr = (uintptr_t)t->buf + 4096, .length = 64, .lkey = t->mr->lkey};
	struct ibv_recv_wr rwr = {.wr_id = 1, .sg_list = &s, .num_sge = 1}, *rbad;
	struct rdma_event_channel *ch;
	struct sockaddr_in dst;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	const char *res = NULL;

	strcpy(t->buf, "still alive");
	if (t_post(t->a, IBV_WR_RDMA_WRITE, t->buf, 12, t->mr->lkey, (uintptr_t)t->buf + 100,
		   t->mr->rkey, IBV_SEND_SIGNALED, 1) ||
	    target_wc(t->cq) != IBV_WC_SUCCESS || strcmp(t->buf + 100, "still alive"))
		return "write";
	if (ibv_post_recv(t->b, &rwr, &rbad) ||
	    t_post(t->a, IBV_WR_SEND, t->buf, 12, t->mr->lkey, 0, 0, IBV_SEND_SIGNALED, 2) ||
	    target_wc(t->cq) != IBV_WC_SUCCESS || target_wc(t->cq) != IBV_WC_SUCCESS ||
	    strcmp(t->buf + 4096, "still alive"))
		return "send";
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return "cm id";
	dst = t_lo(ntohs(rdma_get_src_port(t->listen)));
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000))
		return "resolve";
	ev = t_try_event(ch, T_WAIT_MS);
	if (!ev || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED)
		return "addr event";
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 2000))
		return "route";
	ev = t_try_event(ch, T_WAIT_MS);
	if (!ev || ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return "route event";
	rdma_ack_cm_event(ev);
	{
		struct ibv_qp_init_attr a;

		memset(&a, 0, sizeof(a));
		a.qp_type = IBV_QPT_RC;
		a.cap.max_send_wr = a.cap.max_recv_wr = 4;
		a.cap.max_send_sge = a.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, NULL, &a) || rdma_connect(id, NULL))
			return "connect";
	}
	ev = t_try_event(ch, T_WAIT_MS);
	if (!ev || ev->event != RDMA_CM_EVENT_ESTABLISHED)
		res = "established";
	if (ev)
		rdma_ack_cm_event(ev);
	return res;
}

/* Target role: QPs, a listener, then commands from the test. */
static int
target(void)
{
	/* static: the CM thread still reads it while the process exits */
	static struct target t;
	char line[64];
	pthread_t thr;
	int i;

	memset(&t, 0, sizeof(t));
	t.ctx = t_try_open_dev();
	if (!t.ctx)
		return 1;
	t.pd = ibv_alloc_pd(t.ctx);
	t.cq = ibv_create_cq(t.ctx, 256, NULL, NULL, 0);
	t.buf = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!t.pd || !t.cq || t.buf == MAP_FAILED)
		return 1;
	t.mr = ibv_reg_mr(t.pd, t.buf, 8192, T_ACCESS_ALL);
	t.a = target_qp(&t);
	t.b = target_qp(&t);
	if (!t.mr || !t.a || !t.b || t_qp_to_rts(t.a, t.b->qp_num, T_ACCESS_ALL, 7) ||
	    t_qp_to_rts(t.b, t.a->qp_num, T_ACCESS_ALL, 7))
		return 1;
	/* victims are connected to made-up peers the hostile test impersonates */
	for (i = 0; i < NVICTIM; i++) {
		t.v[i] = target_qp(&t);
		t.fake[i] = 1u << 8 | (i + 1);
		if (!t.v[i] || t_qp_to_rts(t.v[i], t.fake[i], T_ACCESS_ALL, 7))
			return 1;
	}
	t.lch = rdma_create_event_channel();
	if (!t.lch || rdma_create_id(t.lch, &t.listen, NULL, RDMA_PS_TCP))
		return 1;
	{
		struct sockaddr_in sin = t_lo(0);

		if (rdma_bind_addr(t.listen, (struct sockaddr *)&sin) || rdma_listen(t.listen, 64))
			return 1;
	}
	if (pthread_create(&thr, NULL, target_cm, &t))
		return 1;
	printf("READY %u %u %u %u", ntohs(rdma_get_src_port(t.listen)), t.mr->rkey,
	       (unsigned int)((uintptr_t)t.buf >> 32), (unsigned int)(uintptr_t)t.buf);
	for (i = 0; i < NVICTIM; i++)
		printf(" %u %u", t.v[i]->qp_num, t.fake[i]);
	printf("\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "quit", 4))
			return 0;
		if (!strncmp(line, "check", 5)) {
			const char *r = target_check(&t);

			printf("%s %s\n", r ? "FAIL" : "OK", r ? r : "");
			fflush(stdout);
		}
	}
	return 1;
}

/* ---- the hostile side ---- */

struct hostile {
	struct child c;
	uint16_t cm_port;
	uint16_t data_port;
	uint32_t rkey;
	uint64_t addr;
	uint32_t vqpn[NVICTIM];
	uint32_t fake[NVICTIM];
};

/* Start the target and read its addresses. */
static int
hostile_setup(void **state)
{
	struct hostile *h = calloc(1, sizeof(*h));
	char line[512], *p;
	unsigned int v[4 + 2 * NVICTIM];
	int i, n;

	assert_non_null(h);
	signal(SIGPIPE, SIG_IGN);
	spawn(&h->c, "target");
	child_line(&h->c, line, sizeof(line));
	assert_int_equal(strncmp(line, "READY", 5), 0);
	p = line + 5;
	for (i = 0; i < 4 + 2 * NVICTIM; i++) {
		assert_int_equal(sscanf(p, " %u%n", &v[i], &n), 1);
		p += n;
	}
	h->cm_port = v[0];
	h->rkey = v[1];
	h->addr = (uint64_t)v[2] << 32 | v[3];
	for (i = 0; i < NVICTIM; i++) {
		h->vqpn[i] = v[4 + 2 * i];
		h->fake[i] = v[5 + 2 * i];
	}
	h->data_port = h->vqpn[0] >> 8;
	*state = h;
	return 0;
}

/* The target survived everything and its own traffic works; it exits cleanly. */
static int
hostile_teardown(void **state)
{
	struct hostile *h = *state;
	char line[128];

	assert_true(child_alive(&h->c));
	fprintf(h->c.in, "check\n");
	fflush(h->c.in);
	child_line(&h->c, line, sizeof(line));
	if (strncmp(line, "OK", 2))
		fail_msg("target check: %s", line);
	child_quit(&h->c);
	free(h);
	return 0;
}

/* A TCP connection to 127.0.0.1:@port. */
static int
tcp_to(uint16_t port)
{
	struct sockaddr_in sin = t_lo(port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Send all of @buf (the peer may already have closed: errors are fine). */
static void
put(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) < 0) {
		/* closed by the target: that is the expected outcome anyway */
	}
}

/* Read exactly @len bytes within T_WAIT_MS; returns 0 or -1. */
static int
get(int fd, void *buf, size_t len)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int64_t end = t_now_ms() + T_WAIT_MS;
	size_t have = 0;

	while (have < len && t_now_ms() < end) {
		ssize_t n;

		if (poll(&pfd, 1, 100) != 1)
			continue;
		n = recv(fd, (char *)buf + have, len - have, 0);
		if (n <= 0)
			return -1;
		have += n;
	}
	return have == len ? 0 : -1;
}

/* The target closes @fd (EOF or reset) within T_WAIT_MS; then close it here. */
static void
expect_closed(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int64_t end = t_now_ms() + T_WAIT_MS;
	char sink[512];

	while (t_now_ms() < end) {
		if (poll(&pfd, 1, 100) != 1)
			continue;
		if (recv(fd, sink, sizeof(sink), 0) <= 0) {
			close(fd);
			return;
		}
	}
	close(fd);
	fail_msg("the target kept a hostile connection open");
}

/* A CM message in wire order. */
static struct softrdma_cm_msg
cm_msg(uint8_t type, uint8_t pdata_len, uint32_t qpn)
{
	struct softrdma_cm_msg m;

	memset(&m, 0, sizeof(m));
	m.magic = htole32(SOFTRDMA_CM_MAGIC);
	m.type = type;
	m.pdata_len = pdata_len;
	m.qpn = htole32(qpn);
	return m;
}

/* Garbage, bad types, oversized private data and out-of-order messages on the CM port. */
static void
test_hostile_cm(void **state)
{
	struct hostile *h = *state;
	struct softrdma_cm_msg m;
	unsigned char junk[600];
	int fd, i;

	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 17);
	fd = tcp_to(h->cm_port);
	put(fd, junk, sizeof(junk));
	expect_closed(fd);
	/* good magic, unknown type */
	fd = tcp_to(h->cm_port);
	m = cm_msg(99, 0, 0);
	put(fd, &m, sizeof(m));
	expect_closed(fd);
	/* REQ with more private data than InfiniBand carries */
	fd = tcp_to(h->cm_port);
	m = cm_msg(SOFTRDMA_CM_REQ, SOFTRDMA_CM_REQ_PDATA + 1, 0x123);
	put(fd, &m, sizeof(m));
	expect_closed(fd);
	/* QP number beyond 24 bits */
	fd = tcp_to(h->cm_port);
	m = cm_msg(SOFTRDMA_CM_REQ, 0, 0x1000000);
	put(fd, &m, sizeof(m));
	expect_closed(fd);
	/* replies and disconnects before any request */
	for (i = SOFTRDMA_CM_REP; i <= SOFTRDMA_CM_MRA; i++) {
		fd = tcp_to(h->cm_port);
		m = cm_msg(i, 0, 0);
		put(fd, &m, sizeof(m));
		expect_closed(fd);
	}
	/* truncated message, then gone */
	fd = tcp_to(h->cm_port);
	put(fd, &m, 10);
	close(fd);
	/* a real request followed by garbage */
	fd = tcp_to(h->cm_port);
	m = cm_msg(SOFTRDMA_CM_REQ, 4, 0x123);
	put(fd, &m, sizeof(m));
	usleep(50000);
	put(fd, junk, sizeof(junk));
	expect_closed(fd);
	/* a request, then a second request on the same connection */
	fd = tcp_to(h->cm_port);
	put(fd, &m, sizeof(m));
	put(fd, &m, sizeof(m));
	expect_closed(fd);
	/* many connections that never say anything */
	for (i = 0; i < 40; i++)
		close(tcp_to(h->cm_port));
	assert_true(child_alive(&h->c));
}

/* A hello (plus same-host block) from @src to @dst in wire order. */
static void
hello(unsigned char *out, uint32_t magic, uint16_t version, uint32_t src, uint32_t dst)
{
	struct softrdma_wire_hello hl;
	struct softrdma_wire_shm shm;

	memset(&hl, 0, sizeof(hl));
	hl.magic = htole32(magic);
	hl.version = htole16(version);
	hl.src_qpn = htole32(src);
	hl.dst_qpn = htole32(dst);
	memset(&shm, 0, sizeof(shm));
	memcpy(out, &hl, sizeof(hl));
	memcpy(out + sizeof(hl), &shm, sizeof(shm));
}

/* Malformed hellos on the data port: each connection is dropped. */
static void
test_hostile_hello(void **state)
{
	struct hostile *h = *state;
	unsigned char buf[SOFTRDMA_WIRE_HELLO_LEN];
	int fd;

	fd = tcp_to(h->data_port);
	put(fd,
	    "GET / HTTP/1.0\r\n\r\n....................................................."
	    "...........................",
	    100);
	expect_closed(fd);
	hello(buf, 0x12345678, SOFTRDMA_WIRE_VERSION, h->fake[0], h->vqpn[0]);
	fd = tcp_to(h->data_port);
	put(fd, buf, sizeof(buf));
	expect_closed(fd);
	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION + 7, h->fake[0], h->vqpn[0]);
	fd = tcp_to(h->data_port);
	put(fd, buf, sizeof(buf));
	expect_closed(fd);
	/* unknown QP, QP number beyond 24 bits, wrong source QP */
	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, h->fake[0],
	      (h->vqpn[0] & ~0xffu) | 250);
	fd = tcp_to(h->data_port);
	put(fd, buf, sizeof(buf));
	expect_closed(fd);
	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, 0x7000000, h->vqpn[0]);
	fd = tcp_to(h->data_port);
	put(fd, buf, sizeof(buf));
	expect_closed(fd);
	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, h->fake[1], h->vqpn[0]);
	fd = tcp_to(h->data_port);
	put(fd, buf, sizeof(buf));
	expect_closed(fd);
	/* truncated hello */
	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, h->fake[0], h->vqpn[0]);
	fd = tcp_to(h->data_port);
	put(fd, buf, 9);
	close(fd);
	assert_true(child_alive(&h->c));
}

/* Attach to victim @i as its peer; returns the fd after the target's answer. */
static int
attach(struct hostile *h, int i, int bogus_offer)
{
	unsigned char buf[SOFTRDMA_WIRE_HELLO_LEN];
	struct softrdma_wire_shm answer;
	int fd = tcp_to(h->data_port);

	hello(buf, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, h->fake[i], h->vqpn[i]);
	if (bogus_offer) {
		struct softrdma_wire_shm *o =
		    (struct softrdma_wire_shm *)(buf + sizeof(struct softrdma_wire_hello));

		memset(o, 0xa5, sizeof(*o));
		o->flags = htole32(SOFTRDMA_SHM_OFFER);
		o->pid = htole32(1);
		o->ring_fd = htole32(3);
	}
	put(fd, buf, sizeof(buf));
	assert_int_equal(get(fd, &answer, sizeof(answer)), 0);
	return fd;
}

/* A request header in wire order. */
static struct softrdma_wire_hdr
req(uint8_t op, uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t rlen)
{
	struct softrdma_wire_hdr r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.flags = SOFTRDMA_WF_ACK_REQ;
	r.rnr_retry = 7;
	r.len = htole32(len);
	r.seq = htole32(1);
	r.raddr = htole64(raddr);
	r.rkey = htole32(rkey);
	r.rlen = htole32(rlen);
	return r;
}

/* Expect a NAK with @status, then the close. */
static void
expect_nak(int fd, uint8_t status)
{
	struct softrdma_wire_hdr r;

	assert_int_equal(get(fd, &r, sizeof(r)), 0);
	assert_int_equal(r.op, SOFTRDMA_OP_NAK);
	assert_int_equal(r.status, status);
	expect_closed(fd);
}

/* Bad opcodes, oversized lengths, out-of-range keys after a valid hello. */
static void
test_hostile_requests(void **state)
{
	struct hostile *h = *state;
	struct softrdma_wire_hdr r;
	unsigned char payload[64] = "hostile";
	int fd;

	/* unknown opcode (with a bogus same-host offer in the hello) */
	fd = attach(h, 0, 1);
	r = req(99, 0, 0, 0, 0);
	put(fd, &r, sizeof(r));
	expect_closed(fd);
	/* a response opcode sent to a responder */
	fd = attach(h, 1, 0);
	r = req(SOFTRDMA_OP_ACK, 0, 0, 0, 0);
	put(fd, &r, sizeof(r));
	expect_closed(fd);
	/* length beyond the largest message */
	fd = attach(h, 2, 0);
	r = req(SOFTRDMA_OP_WRITE, SOFTRDMA_MAX_MSG + 1, h->addr, h->rkey, 0);
	put(fd, &r, sizeof(r));
	expect_closed(fd);
	/* a key that does not exist */
	fd = attach(h, 3, 0);
	r = req(SOFTRDMA_OP_WRITE, sizeof(payload), h->addr, 0xffffffffu, 0);
	put(fd, &r, sizeof(r));
	put(fd, payload, sizeof(payload));
	expect_nak(fd, IBV_WC_REM_ACCESS_ERR);
	/* a valid key, an address far outside its region */
	fd = attach(h, 4, 0);
	r = req(SOFTRDMA_OP_WRITE, sizeof(payload), h->addr + (1ull << 40), h->rkey, 0);
	put(fd, &r, sizeof(r));
	put(fd, payload, sizeof(payload));
	expect_nak(fd, IBV_WC_REM_ACCESS_ERR);
	/* a READ running past the end of the region */
	fd = attach(h, 5, 0);
	r = req(SOFTRDMA_OP_READ_REQ, 0, h->addr + 4096, h->rkey, 1u << 20);
	put(fd, &r, sizeof(r));
	expect_nak(fd, IBV_WC_REM_ACCESS_ERR);
	/* a WRITE that promises 1 MiB and stops after a few bytes */
	fd = attach(h, 6, 0);
	r = req(SOFTRDMA_OP_WRITE, 1u << 20, h->addr, h->rkey, 0);
	put(fd, &r, sizeof(r));
	put(fd, payload, 10);
	close(fd);
	/* a truncated header, then gone */
	fd = attach(h, 7, 0);
	put(fd, &r, 7);
	close(fd);
	usleep(100000);
	assert_true(child_alive(&h->c));
}

/* A hello from @src to @dst carrying @secret (NULL: none), in wire order. */
static void
hello_secret(unsigned char *out, uint32_t src, uint32_t dst, const uint8_t *secret)
{
	struct softrdma_wire_hello *hl = (struct softrdma_wire_hello *)out;

	hello(out, SOFTRDMA_WIRE_MAGIC, SOFTRDMA_WIRE_VERSION, src, dst);
	if (secret)
		memcpy(hl->secret, secret, sizeof(hl->secret));
}

/* A plain socket says @buf to 127.0.0.1:@port and must be turned away. */
static void
refused_hello(uint16_t port, const unsigned char *buf)
{
	int fd = tcp_to(port);

	put(fd, buf, SOFTRDMA_WIRE_HELLO_LEN);
	expect_closed(fd);
}

/* WRITE @tag into the target's MR over @id's QP; it must complete. */
static void
write_through(struct rdma_cm_id *id, struct ibv_mr *mr, struct hostile *h, const char *tag)
{
	struct ibv_wc wc;

	strcpy(mr->addr, tag);
	assert_int_equal(t_post(id->qp, IBV_WR_RDMA_WRITE, mr->addr, strlen(tag) + 1, mr->lkey,
				h->addr + 2048, h->rkey, IBV_SEND_SIGNALED, 7),
			 0);
	wc = t_wait_wc(id->send_cq);
	if (wc.status != IBV_WC_SUCCESS)
		fail_msg("WRITE %s: %s", tag, ibv_wc_status_str(wc.status));
}

/*
 * A plain socket that knows both QP numbers of a connection the CM set up
 * (they are guessable: port << 8 | index) but not the connection's secret
 * can neither take the connection over nor squat a QP waiting for its
 * peer; the target's data listener for a connection over 127.0.0.1 is not
 * reachable at another address.
 */
static void
test_hostile_takeover(void **state)
{
	struct hostile *h = *state;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param p = rc_conn_param(NULL, 0);
	unsigned char buf[SOFTRDMA_WIRE_HELLO_LEN];
	struct sockaddr_in other = t_lo(0);
	uint8_t guess[SOFTRDMA_WIRE_SECRET_LEN];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	uint32_t mine, theirs;
	int fd, i;

	assert_non_null(ch);
	id = t_resolve(ch, h->cm_port);
	t_create_qp(id);
	mine = id->qp->qp_num;
	/* our QP waits for its peer: a hello naming it without the secret is refused */
	hello_secret(buf, h->fake[0], mine, NULL);
	refused_hello(mine >> 8, buf);
	assert_int_equal(rdma_connect(id, &p), 0);
	ev = t_event(ch, RDMA_CM_EVENT_ESTABLISHED);
	theirs = ev->param.conn.qp_num;
	rdma_ack_cm_event(ev);
	mr = ibv_reg_mr(id->pd, calloc(1, 4096), 4096, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	write_through(id, mr, h, "before");
	/* the right pair of numbers, with no secret, then with guessed ones */
	for (i = 0; i < 64; i++) {
		assert_int_equal(getrandom(guess, sizeof(guess), 0), (ssize_t)sizeof(guess));
		hello_secret(buf, mine, theirs, i ? guess : NULL);
		refused_hello(theirs >> 8, buf);
	}
	write_through(id, mr, h, "after");
	/* the target's QP was connected over 127.0.0.1: its listener is there alone */
	other.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	other.sin_port = htons(theirs >> 8);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	if (!connect(fd, (struct sockaddr *)&other, sizeof(other)))
		fail_msg("the data listener of a 127.0.0.1 connection answers at 127.0.0.2");
	assert_int_equal(errno, ECONNREFUSED);
	close(fd);
	assert_int_equal(rdma_disconnect(id), 0);
	t_event_ack(ch, RDMA_CM_EVENT_DISCONNECTED);
	free(mr->addr);
	ibv_dereg_mr(mr);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	assert_true(child_alive(&h->c));
}

/* Run the tests, or play the victim or target role for them. */
int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_peer_killed),
	    cmocka_unit_test_setup_teardown(test_hostile_cm, hostile_setup, hostile_teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_hello, hostile_setup, hostile_teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_requests, hostile_setup, hostile_teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_takeover, hostile_setup, hostile_teardown),
	};

	if (argc > 1 && !strcmp(argv[1], "victim"))
		return victim();
	if (argc > 1 && !strcmp(argv[1], "target"))
		return target();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
