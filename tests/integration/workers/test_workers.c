// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_workers.c -- the workers of librpmaf between two processes over
 * softrdma. This process runs a set of 2 workers serving N connections
 * (accepted here, each handed to the least-loaded worker); the client is
 * this program run again ("client PORT N MODE MSGS INFLIGHT"), with a set
 * of 2 workers of its own. Every connection exchanges MSGS messages both
 * ways through the SRQs (INFLIGHT at a time), each checked to come back on
 * the connection it was sent on; writes a pattern into its slice of the
 * server's region (two writes, the first unsignaled) and reads it back.
 * A send whose buffer or credit is not there yet (its completion may
 * trail the answer to it) waits for the worker's next send completion.
 * The client also checks the admission bound of a connection's SQ, runs
 * 8 threads submitting to its workers, and checks that no CQ ever held
 * more than its size and no completion failed.
 *
 * The lost wake-up test: one connection, one message in flight,
 * WORKERS_RACE_ROUNDS (4000) round trips with event (and adaptive) polling
 * on both sides, and as many single submissions from the main thread, each
 * 0 to 127 µs after the last one ran; every wait is bounded, so a worker
 * that sleeps through a completion or a submission fails the test
 * instead of hanging it.
 *
 * WORKERS_TESTS=race runs the lost wake-up tests only, another word the
 * tests whose names contain it; INTEG_DEBUG=1 prints every stage of both
 * processes on stderr.
 */

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "rpmaf.h"

#define MAX_CONNS  128
#define SLICE	   256 /* bytes of the server's region per connection */
#define REGION	   (MAX_CONNS * SLICE)
#define MSG_SIZE   256
#define CREDITS	   4
#define APP_BUFS   (2 * CREDITS) /* slab buffers a connection may hold at once */
#define SQ	   16
#define STUCK_MS   5000 /* no progress for this long: a lost wake-up or a hang */
#define SUBMITTERS 8
#define SUBMITS	   2000
#define CLIENT_MS  120000 /* the server waits this long for the client's end */

#define MAGIC_ASK    0x61736b21u
#define MAGIC_ANSWER 0x616e7321u

struct msg {
	uint32_t magic;
	uint32_t idx; /* the connection, as the client numbers them */
	uint32_t seq;
};

/* one connection, either side */
struct tconn {
	struct rpmaf_worker *w;
	struct rpmaf_wconn *wc;
	struct rpma_conn *conn;
	struct rpmaf_work work;
	uint32_t idx;
	uint32_t sent, answered; /* client: messages sent, answers received */
	uint32_t received;	 /* server: messages received */
	uint32_t owed;		 /* server: answers not sent yet */
	struct rpma_mr_remote *dst;
	void *wbuf, *rbuf;
	int rma_done;
	uint32_t sends_done, lag_max; /* send completions; the most sends not completed */
	int read_pending;	      /* client: the read back waits for a credit */
	int stalled;		      /* on its worker's list of Stalled */
	struct tconn *next_stalled;   /* the next one there */
};

static struct tconn Conns[MAX_CONNS];
static int Nconns;
static uint32_t Msgs, Inflight;
static atomic_int Failed;
static char Why[256];
static atomic_int Done, Closed, Established;
static atomic_ullong Progress; /* bumped by every message handled */

static int Debug; /* INTEG_DEBUG set: stage-by-stage output on stderr */
static const char *Role = "server";

/* dbg -- one line of stage-by-stage output when INTEG_DEBUG is set */
static void __attribute__((format(printf, 1, 2))) dbg(const char *fmt, ...)
{
	char text[256];
	va_list ap;

	if (!Debug)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "[%lld %s] %s\n", t_now_ms() % 100000, Role, text);
}

/* t_now_us -- a monotonic clock in microseconds */
static long long
t_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* tfail -- note the first failure (any thread) */
static void
tfail(const char *what, int a, int b)
{
	if (atomic_exchange(&Failed, 1) == 0)
		snprintf(Why, sizeof(Why), "%s (%d, %d)", what, a, b);
}

/* make_cfg -- the configuration of a side: 2 workers, cpw connections each */
static void
make_cfg(struct rpmaf_cfg *cfg, enum rpmaf_polling mode, uint32_t cpw)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers.count = 2;
	cfg->workers.polling = mode;
	cfg->workers.spin_us = mode == RPMAF_POLLING_ADAPTIVE ? 20 : 0;
	cfg->workers.batch = 16;
	cfg->queues.sq = SQ;
	cfg->queues.cq = cpw * SQ;
	/*
	 * the slab's application half is as large as the SRQ: a client
	 * connection holds its two RMA buffers and CREDITS messages, a server
	 * one up to CREDITS answers and those whose send completion is late
	 */
	cfg->queues.srq_rq = cpw * APP_BUFS;
	cfg->queues.srq_rcq = cpw * APP_BUFS;
	cfg->queues.msg_size = MSG_SIZE;
	cfg->queues.msg_credits = CREDITS;
	cfg->timeouts.connect_ms = 10000;
	cfg->log.level = Debug ? RPMAF_LOG_DEBUG : RPMAF_LOG_ERROR;
	cfg->conns_per_worker = cpw;
}

/* send_msg -- send one message on the worker's thread; RPMAF_E_AGAIN: no buffer or credit */
static int
send_msg(struct tconn *c, uint32_t magic, uint32_t seq)
{
	struct rpma_mr_local *mr;
	size_t off;
	void *buf;
	int ret;

	if ((ret = rpmaf_worker_buf_get(c->w, &buf)))
		return ret;
	*(struct msg *)buf = (struct msg){.magic = magic, .idx = c->idx, .seq = seq};
	if ((ret = rpmaf_wconn_admit(c->wc, 1))) {
		(void)rpmaf_worker_buf_put(c->w, buf);
		return ret;
	}
	(void)rpmaf_worker_buf_mr(c->w, buf, &mr, &off);
	if ((ret =
		 rpma_send(c->conn, mr, off, sizeof(struct msg), RPMA_F_COMPLETION_ALWAYS, buf))) {
		(void)rpmaf_wconn_unadmit(c->wc, 1);
		(void)rpmaf_worker_buf_put(c->w, buf);
	}
	return ret;
}

/* ------------------------------------------------------------- callbacks */

#define OP_WRITE ((void *)2)
#define OP_READ	 ((void *)3)

/*
 * The connections of each worker that wait for a buffer or a credit: a send
 * completion of any connection of the worker gives them another try. Each
 * list is used by its worker's thread only.
 */
static struct tconn *Stalled[2];

/* stall -- c waits for a buffer or a credit */
static void
stall(struct tconn *c)
{
	struct tconn **head = &Stalled[rpmaf_worker_index(c->w)];

	if (c->stalled)
		return;
	c->stalled = 1;
	c->next_stalled = *head;
	*head = c;
}

/* unstall -- c no longer waits (it closes) */
static void
unstall(struct tconn *c)
{
	struct tconn **p = &Stalled[rpmaf_worker_index(c->w)];

	for (; *p; p = &(*p)->next_stalled) {
		if (*p == c) {
			*p = c->next_stalled;
			break;
		}
	}
	c->stalled = 0;
}

/* check_done -- a client connection that did everything */
static void
check_done(struct tconn *c)
{
	if (c->answered == Msgs && c->rma_done == 1) {
		dbg("conn %u: done, at most %u sends not completed", c->idx, c->lag_max);
		c->rma_done = 2;
		atomic_fetch_add(&Done, 1);
	}
}

/* issue_read -- read the slice back; RPMAF_E_AGAIN: no credit now */
static int
issue_read(struct tconn *c)
{
	struct rpma_mr_local *mr;
	size_t off;
	int ret;

	if ((ret = rpmaf_wconn_admit(c->wc, 1)))
		return ret;
	(void)rpmaf_worker_buf_mr(c->w, c->rbuf, &mr, &off);
	memset(c->rbuf, 0, SLICE);
	return rpma_read(c->conn, mr, off, c->dst, (size_t)c->idx * SLICE, SLICE,
			 RPMA_F_COMPLETION_ALWAYS, OP_READ);
}

/*
 * pump -- do what c may do now: the client its pending read and up to
 * Inflight unanswered messages, the server the answers it owes; what gets
 * RPMAF_E_AGAIN waits for a completion (stall())
 */
static void
pump(struct tconn *c)
{
	int ret;

	if (c->read_pending) {
		if ((ret = issue_read(c)) == RPMAF_E_AGAIN) {
			stall(c);
			return;
		}
		if (ret)
			tfail("read back", ret, (int)c->idx);
		c->read_pending = 0;
	}
	while (Inflight && c->sent < Msgs && c->sent - c->answered < Inflight) {
		if ((ret = send_msg(c, MAGIC_ASK, c->sent)) == RPMAF_E_AGAIN) {
			stall(c);
			return;
		}
		if (ret) {
			tfail("send", ret, (int)c->idx);
			return;
		}
		c->sent++;
		if (c->sent - c->sends_done > c->lag_max)
			c->lag_max = c->sent - c->sends_done;
	}
	while (!Inflight && c->owed) {
		if ((ret = send_msg(c, MAGIC_ANSWER, c->received - c->owed)) == RPMAF_E_AGAIN) {
			stall(c);
			return;
		}
		if (ret) {
			tfail("answer", ret, (int)c->idx);
			return;
		}
		c->owed--;
	}
}

/* pump_stalled -- give every stalled connection of worker w another try */
static void
pump_stalled(struct rpmaf_worker *w)
{
	struct tconn *c = Stalled[rpmaf_worker_index(w)];

	Stalled[rpmaf_worker_index(w)] = NULL;
	while (c) {
		struct tconn *next = c->next_stalled;

		c->stalled = 0;
		pump(c);
		c = next;
	}
}

/* on_wc -- a send completion of either side */
static void
on_wc(struct rpmaf_wconn *wc, const struct ibv_wc *wcq, void *ctx)
{
	struct tconn *c = ctx;

	(void)wc;
	if (wcq->status != IBV_WC_SUCCESS) {
		tfail("a send completion failed", (int)wcq->status, (int)c->idx);
		return;
	}
	void *op = (void *)(uintptr_t)wcq->wr_id;

	if (op == OP_WRITE) {
		c->read_pending = 1;
		pump(c);
	} else if (op == OP_READ) {
		if (memcmp(c->rbuf, c->wbuf, SLICE))
			tfail("the data read back differs", 0, (int)c->idx);
		c->rma_done = 1;
		check_done(c);
	} else if (rpmaf_worker_buf_put(c->w, op)) {
		tfail("a send buffer came back wrong", 0, (int)c->idx);
	} else {
		c->sends_done++;
	}
	/* a buffer or a credit came back */
	pump_stalled(c->w);
}

/* client_recv -- an answer: on its own connection, in order; send the next message */
static int
client_recv(struct rpmaf_wconn *wc, const struct ibv_wc *wcq, void *buf, void *ctx)
{
	struct tconn *c = ctx;
	struct msg m = *(struct msg *)buf;

	(void)wc;
	if (wcq->status != IBV_WC_SUCCESS) {
		tfail("a receive failed", (int)wcq->status, (int)c->idx);
		return RPMAF_RECV_DONE;
	}
	if (m.magic != MAGIC_ANSWER || m.idx != c->idx || m.seq != c->answered) {
		dbg("conn %u: answer magic %x idx %u seq %u, expected seq %u", c->idx, m.magic,
		    m.idx, m.seq, c->answered);
		tfail("an answer on the wrong connection or out of order", (int)m.idx, (int)c->idx);
	}
	c->answered++;
	atomic_fetch_add(&Progress, 1);
	if (c->answered == 1 || c->answered == Msgs)
		dbg("conn %u: answer %u received", c->idx, m.seq);
	if (!c->stalled)
		pump(c);
	check_done(c);
	return RPMAF_RECV_DONE;
}

/* server_recv -- a message: on its own connection, in order; answer it */
static int
server_recv(struct rpmaf_wconn *wc, const struct ibv_wc *wcq, void *buf, void *ctx)
{
	struct tconn *c = ctx;
	struct msg m = *(struct msg *)buf;

	(void)wc;
	if (wcq->status != IBV_WC_SUCCESS) {
		tfail("a receive failed", (int)wcq->status, (int)c->idx);
		return RPMAF_RECV_DONE;
	}
	if (m.magic != MAGIC_ASK || m.idx != c->idx || m.seq != c->received) {
		dbg("conn %u: message magic %x idx %u seq %u, expected seq %u", c->idx, m.magic,
		    m.idx, m.seq, c->received);
		tfail("a message on the wrong connection or out of order", (int)m.idx, (int)c->idx);
	}
	c->received++;
	c->owed++;
	atomic_fetch_add(&Progress, 1);
	if (c->received == 1 || c->received == Msgs)
		dbg("conn %u: message %u received", c->idx, m.seq);
	if (!c->stalled)
		pump(c);
	return RPMAF_RECV_DONE;
}

/* start_client_traffic -- the write of the pattern, then the first messages */
static void
start_client_traffic(struct tconn *c)
{
	struct rpma_conn_private_data pd;
	struct rpma_mr_local *mr;
	size_t off;

	if (rpma_conn_get_private_data(c->conn, &pd) || pd.len < T_MR_DESC ||
	    rpma_mr_remote_from_descriptor(pd.ptr, T_MR_DESC, &c->dst) ||
	    rpmaf_worker_buf_get(c->w, &c->wbuf) || rpmaf_worker_buf_get(c->w, &c->rbuf)) {
		tfail("client connection setup", 0, (int)c->idx);
		return;
	}
	for (int i = 0; i < SLICE; i++)
		((uint8_t *)c->wbuf)[i] = (uint8_t)(c->idx * 7 + i);
	(void)rpmaf_worker_buf_mr(c->w, c->wbuf, &mr, &off);
	/* one batch on the empty SQ: the first write unsignaled, the second signaled */
	if (rpmaf_wconn_admit(c->wc, 2) ||
	    rpma_write(c->conn, c->dst, (size_t)c->idx * SLICE, mr, off, SLICE / 2,
		       RPMA_F_COMPLETION_ON_ERROR, NULL) ||
	    rpma_write(c->conn, c->dst, (size_t)c->idx * SLICE + SLICE / 2, mr, off + SLICE / 2,
		       SLICE / 2, RPMA_F_COMPLETION_ALWAYS, OP_WRITE))
		tfail("write", 0, (int)c->idx);
	pump(c);
}

/* on_event -- established: start (client); closed: close */
static void
on_event(struct rpmaf_wconn *wc, int ev, void *ctx)
{
	struct tconn *c = ctx;

	(void)wc;
	dbg("conn %u: event %d", c->idx, ev);
	if (ev == RPMA_CONN_ESTABLISHED) {
		atomic_fetch_add(&Established, 1);
		if (Inflight) /* the client starts */
			start_client_traffic(c);
		return;
	}
	if (ev == RPMA_CONN_CLOSED || ev == RPMA_CONN_LOST) {
		unstall(c);
		if (c->wbuf)
			(void)rpmaf_worker_buf_put(c->w, c->wbuf);
		if (c->rbuf)
			(void)rpmaf_worker_buf_put(c->w, c->rbuf);
		c->wbuf = c->rbuf = NULL;
		if (c->dst)
			(void)rpma_mr_remote_delete(&c->dst);
		if (rpmaf_wconn_close(&c->wc))
			tfail("close", 0, (int)c->idx);
		atomic_fetch_add(&Closed, 1);
	}
}

static const struct rpmaf_wconn_ops Client_ops = {on_wc, client_recv, on_event};
static const struct rpmaf_wconn_ops Server_ops = {on_wc, server_recv, on_event};

/* attach_work -- on the worker: take the connection */
static void
attach_work(struct rpmaf_worker *w, void *arg)
{
	struct tconn *c = arg;
	const struct rpmaf_wconn_ops *ops = Inflight ? &Client_ops : &Server_ops;

	if (rpmaf_worker_attach(w, c->conn, ops, c, &c->wc))
		tfail("attach", 0, (int)c->idx);
	dbg("conn %u: attached to worker %u", c->idx, rpmaf_worker_index(w));
}

/* disconnect_work -- on the worker: start closing the connection */
static void
disconnect_work(struct rpmaf_worker *w, void *arg)
{
	struct tconn *c = arg;

	(void)w;
	if (rpma_conn_disconnect(c->conn))
		tfail("disconnect", 0, (int)c->idx);
}

/* wait_for_ms -- until *v reaches n, failing, or no progress for stuck_ms; 0 or -1 */
static int
wait_for_ms(atomic_int *v, int n, const char *what, long long stuck_ms)
{
	unsigned long long last = atomic_load(&Progress);
	long long since = t_now_ms();

	while (atomic_load(v) < n && !atomic_load(&Failed)) {
		usleep(1000);
		unsigned long long p = atomic_load(&Progress);

		if (p != last) {
			last = p;
			since = t_now_ms();
		} else if (t_now_ms() - since > stuck_ms) {
			tfail(what, atomic_load(v), n);
			return -1;
		}
	}
	return atomic_load(&Failed) ? -1 : 0;
}

/* wait_for -- wait_for_ms() with the bound of a lost wake-up */
static int
wait_for(atomic_int *v, int n, const char *what)
{
	return wait_for_ms(v, n, what, STUCK_MS);
}

/* ------------------------------------------------------------- the client */

static atomic_int Submitted_ran;
static unsigned Per_worker_runs[2]; /* each written by its worker only */

/* submit_fn -- a submission from a foreign thread runs on its worker */
static void
submit_fn(struct rpmaf_worker *w, void *arg)
{
	(void)arg;
	if (!rpmaf_worker_is_current(w))
		tfail("a submission ran off its worker", 0, 0);
	Per_worker_runs[rpmaf_worker_index(w)]++;
	atomic_fetch_add(&Progress, 1);
	atomic_fetch_add(&Submitted_ran, 1);
}

struct submitter {
	struct rpmaf_workers *ws;
	unsigned id;
	struct rpmaf_work work[SUBMITS];
};

/* submitter_main -- one of 8 threads submitting to both workers */
static void *
submitter_main(void *arg)
{
	struct submitter *s = arg;

	for (unsigned i = 0; i < SUBMITS; i++) {
		struct rpmaf_worker *w;

		(void)rpmaf_workers_get(s->ws, (s->id + i) % 2, &w);
		if (rpmaf_worker_submit(w, &s->work[i], submit_fn, NULL))
			tfail("submit", (int)s->id, (int)i);
	}
	return NULL;
}

/* admission_work -- on connection 0's worker: the SQ bound refuses, nothing is posted */
static atomic_int Admission_done;
static void
admission_work(struct rpmaf_worker *w, void *arg)
{
	struct tconn *c = arg;
	struct rpmaf_worker_stats st0, st1;
	unsigned n = 0;

	(void)rpmaf_worker_get_stats(w, &st0);
	if (rpmaf_wconn_outstanding(c->wc) != 0)
		tfail("outstanding requests after the traffic", (int)rpmaf_wconn_outstanding(c->wc),
		      0);
	while (rpmaf_wconn_admit(c->wc, 1) == 0)
		n++;
	if (n != SQ || rpmaf_wconn_admit(c->wc, 1) != RPMAF_E_AGAIN)
		tfail("the SQ admitted other than its size", (int)n, SQ);
	for (unsigned i = 0; i < n; i++)
		if (rpmaf_wconn_unadmit(c->wc, 1))
			tfail("unadmit", (int)i, 0);
	(void)rpmaf_worker_get_stats(w, &st1);
	if (st1.refused < st0.refused + 2 || rpmaf_wconn_outstanding(c->wc) != 0)
		tfail("refusals not counted", (int)st1.refused, (int)st0.refused);
	atomic_store(&Admission_done, 1);
}

/* ping_fn -- the main thread's single submissions of the lost wake-up test */
static atomic_int Pings;
static void
ping_fn(struct rpmaf_worker *w, void *arg)
{
	(void)w;
	(void)arg;
	atomic_fetch_add(&Progress, 1);
	atomic_fetch_add(&Pings, 1);
}

/* client_fail -- report and end the client */
static int
client_fail(const char *what)
{
	printf("ERR %s: %s\n", what, Why);
	fflush(stdout);
	return 1;
}

/* client_main -- the client process: connect N, traffic, checks, close */
static int
client_main(const char *port, int n, enum rpmaf_polling mode)
{
	struct rpma_peer *peer = t_peer_new();
	struct rpmaf_workers *ws = NULL;
	struct rpma_conn_cfg *ccfg = NULL;
	struct rpmaf_cfg cfg;

	Nconns = n;
	make_cfg(&cfg, mode, (uint32_t)(n + 1) / 2);
	if (!peer || rpmaf_workers_new(&cfg, peer, &ws) || rpma_conn_cfg_new(&ccfg))
		return client_fail("setup");
	for (int i = 0; i < n; i++) {
		struct tconn *c = &Conns[i];
		struct rpma_conn_private_data pd = {.ptr = &c->idx, .len = sizeof(c->idx)};
		struct rpma_conn_req *req;

		c->idx = (uint32_t)i;
		if (rpmaf_workers_least_loaded(ws, &c->w) || rpmaf_worker_conn_cfg(c->w, ccfg) ||
		    rpma_conn_req_new(peer, T_ADDR, port, ccfg, &req) ||
		    rpma_conn_req_connect(&req, &pd, &c->conn) ||
		    rpmaf_worker_submit(c->w, &c->work, attach_work, c))
			return client_fail("connect");
		dbg("conn %d: connecting on worker %u", i, rpmaf_worker_index(c->w));
	}
	if (wait_for(&Done, n, "traffic stopped"))
		return client_fail("traffic");

	/* 8 threads submitting at once */
	static struct submitter subs[SUBMITTERS];
	pthread_t t[SUBMITTERS];

	for (unsigned i = 0; i < SUBMITTERS; i++) {
		subs[i].ws = ws;
		subs[i].id = i;
		pthread_create(&t[i], NULL, submitter_main, &subs[i]);
	}
	for (unsigned i = 0; i < SUBMITTERS; i++)
		pthread_join(t[i], NULL);
	if (wait_for(&Submitted_ran, SUBMITTERS * SUBMITS, "submissions lost"))
		return client_fail("submissions");

	/*
	 * single submissions, each at a different moment of the worker going
	 * to sleep: the next one leaves 0 to 127 µs after the last one ran
	 */
	struct rpmaf_worker *w0;
	static struct rpmaf_work ping;
	unsigned seed = 1;

	(void)rpmaf_workers_get(ws, 0, &w0);
	dbg("%u single submissions", Msgs);
	for (int i = 0; i < (int)Msgs && !Failed; i++) {
		if (rpmaf_worker_submit(w0, &ping, ping_fn, NULL))
			tfail("ping", i, 0);
		long long t0 = t_now_ms();

		while (atomic_load(&Pings) < i + 1) {
			if (t_now_ms() - t0 > STUCK_MS) {
				tfail("a submission slept through", i, 0);
				return client_fail("ping");
			}
			sched_yield();
		}
		seed = seed * 1103515245u + 12345u;
		long long until = t_now_us() + (seed >> 16) % 128;

		while (t_now_us() < until)
			;
	}

	/* the admission bound */
	static struct rpmaf_work adm;

	if (rpmaf_worker_submit(Conns[0].w, &adm, admission_work, &Conns[0]) ||
	    wait_for(&Admission_done, 1, "admission"))
		return client_fail("admission");

	/* the CQs never held more than their size */
	for (unsigned i = 0; i < 2; i++) {
		struct rpmaf_worker *w;
		struct rpmaf_worker_stats st;

		(void)rpmaf_workers_get(ws, i, &w);
		(void)rpmaf_worker_get_stats(w, &st);
		if (st.cq_used_max > cfg.queues.cq)
			tfail("a CQ held more than its size", (int)st.cq_used_max,
			      (int)cfg.queues.cq);
		printf("STATS worker %u: polls %llu empty %llu completions %llu receives %llu "
		       "sleeps %llu wakeups %llu cq_max %u/%u\n",
		       i, (unsigned long long)st.polls, (unsigned long long)st.empty_polls,
		       (unsigned long long)st.completions, (unsigned long long)st.receives,
		       (unsigned long long)st.sleeps, (unsigned long long)st.wakeups,
		       st.cq_used_max, cfg.queues.cq);
	}
	for (int i = 0; i < n; i++)
		if (rpmaf_worker_submit(Conns[i].w, &Conns[i].work, disconnect_work, &Conns[i]))
			tfail("disconnect", i, 0);
	if (wait_for(&Closed, n, "close"))
		return client_fail("close");
	if (rpmaf_workers_delete(&ws))
		return client_fail("delete");
	(void)rpma_conn_cfg_delete(&ccfg);
	(void)rpma_peer_delete(&peer);
	printf("DONE\n");
	fflush(stdout);
	return Failed ? client_fail("late") : 0;
}

/* ------------------------------------------------------------- the server */

static bool Dirty; /* a test is running, or failed half-way */

/* run -- serve n connections of a client in polling mode, msgs messages each */
static void
run(enum rpmaf_polling mode, int n, uint32_t msgs, uint32_t inflight)
{
	struct rpma_peer *peer = t_peer_new();
	struct rpmaf_workers *ws = NULL;
	struct rpma_conn_cfg *ccfg = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpmaf_cfg cfg;
	char desc[T_MR_DESC + 8];
	char port[16], a_n[16], a_mode[16], a_msgs[16], a_in[16];
	static uint8_t region[REGION];
	struct t_srv cli;

	/* a failed test leaves its workers running on Conns: the next ones cannot run */
	if (Dirty) {
		print_message("skipped: an earlier test failed and left its workers running\n");
		skip();
	}
	Dirty = true;
	memset(Conns, 0, sizeof(Conns));
	Stalled[0] = Stalled[1] = NULL;
	atomic_store(&Failed, 0);
	atomic_store(&Closed, 0);
	Msgs = msgs;
	Inflight = 0; /* this side answers */
	Nconns = n;
	assert_non_null(peer);
	make_cfg(&cfg, mode, (uint32_t)(n + 1) / 2);
	assert_int_equal(rpmaf_workers_new(&cfg, peer, &ws), 0);
	assert_int_equal(rpma_conn_cfg_new(&ccfg), 0);
	assert_int_equal(rpma_mr_reg(peer, region, REGION,
				     RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC, &mr),
			 0);
	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	int ret = -1;

	for (int i = 0; i < 8 && ret; i++)
		ret = rpma_ep_listen(peer, T_ADDR, t_next_port(port, sizeof(port)), &ep);
	assert_int_equal(ret, 0);
	snprintf(a_n, sizeof(a_n), "%d", n);
	snprintf(a_mode, sizeof(a_mode), "%d", (int)mode);
	snprintf(a_msgs, sizeof(a_msgs), "%u", msgs);
	snprintf(a_in, sizeof(a_in), "%u", inflight);
	const char *opts[] = {a_n, a_mode, a_msgs, a_in, NULL};
	char self[PATH_MAX + 32];

	snprintf(self, sizeof(self), "%s/test_workers", t_bindir());
	assert_int_equal(t_prog_exec(&cli, self, "client", port, opts), 0);

	struct rpma_conn_private_data pd = {.ptr = desc, .len = T_MR_DESC};
	int epfd;

	assert_int_equal(rpma_ep_get_fd(ep, &epfd), 0);
	for (int i = 0; i < n; i++) {
		struct pollfd pfd = {.fd = epfd, .events = POLLIN};
		struct rpma_conn_req *req;
		struct rpma_conn_private_data cpd;
		struct rpmaf_worker *w;

		assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
		assert_int_equal(rpmaf_workers_least_loaded(ws, &w), 0);
		assert_int_equal(rpmaf_worker_conn_cfg(w, ccfg), 0);
		assert_int_equal(rpma_ep_next_conn_req(ep, ccfg, &req), 0);
		assert_int_equal(rpma_conn_req_get_private_data(req, &cpd), 0);
		assert_true(cpd.len >= sizeof(uint32_t)); /* the transport may pad it */
		uint32_t idx;

		memcpy(&idx, cpd.ptr, sizeof(idx));
		assert_true(idx < (uint32_t)n);
		struct tconn *c = &Conns[idx];

		c->idx = idx;
		c->w = w;
		assert_int_equal(rpma_conn_req_connect(&req, &pd, &c->conn), 0);
		dbg("conn %u: accepted on worker %u", idx, rpmaf_worker_index(w));
		assert_int_equal(rpmaf_worker_submit(w, &c->work, attach_work, c), 0);
	}
	/*
	 * the client disconnects once it has checked everything; it fails on
	 * its own when it makes no progress for STUCK_MS, and its connections
	 * then close as it exits
	 */
	int waited = wait_for_ms(&Closed, n, "the server's connections did not close", CLIENT_MS);
	char line[T_LINE];

	while (t_srv_line(&cli, "", line, sizeof(line), STUCK_MS + 2000) == 0)
		print_message("client: %s\n", line);
	int status = t_srv_wait(&cli, T_WAIT_MS);

	if (waited || status != 0)
		print_message("server: %s\n", Why);
	assert_int_equal(waited, 0);
	assert_int_equal(status, 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(Conns[i].received, msgs);
	for (int i = 0; i < n; i++) /* the client's pattern, read back there too */
		for (int b = 0; b < SLICE; b++)
			assert_int_equal(region[i * SLICE + b], (uint8_t)(i * 7 + b));
	for (unsigned i = 0; i < 2; i++) {
		struct rpmaf_worker *w;
		struct rpmaf_worker_stats st;

		assert_int_equal(rpmaf_workers_get(ws, i, &w), 0);
		/* a closed connection's slot is freed in its worker's next turn */
		for (long long t0 = t_now_ms();; usleep(1000)) {
			assert_int_equal(rpmaf_worker_get_stats(w, &st), 0);
			if (st.conns == 0 || t_now_ms() - t0 > 1000)
				break;
		}
		assert_true(st.cq_used_max <= cfg.queues.cq);
		assert_int_equal(st.conns, 0);
		assert_int_equal(st.cq_used, 0);
		print_message("server worker %u: polls %llu sleeps %llu receives %llu\n", i,
			      (unsigned long long)st.polls, (unsigned long long)st.sleeps,
			      (unsigned long long)st.receives);
	}
	assert_int_equal(rpmaf_workers_delete(&ws), 0);
	assert_int_equal(rpma_ep_shutdown(&ep), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_conn_cfg_delete(&ccfg), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	Dirty = false;
}

static void
test_event_1(void **s)
{
	(void)s;
	run(RPMAF_POLLING_EVENT, 1, 16, CREDITS);
}
static void
test_event_16(void **s)
{
	(void)s;
	run(RPMAF_POLLING_EVENT, 16, 16, CREDITS);
}
static void
test_event_128(void **s)
{
	(void)s;
	run(RPMAF_POLLING_EVENT, 128, 8, CREDITS);
}
static void
test_adaptive_1(void **s)
{
	(void)s;
	run(RPMAF_POLLING_ADAPTIVE, 1, 16, CREDITS);
}
static void
test_adaptive_16(void **s)
{
	(void)s;
	run(RPMAF_POLLING_ADAPTIVE, 16, 16, CREDITS);
}
static void
test_adaptive_128(void **s)
{
	(void)s;
	run(RPMAF_POLLING_ADAPTIVE, 128, 8, CREDITS);
}
static void
test_busy_1(void **s)
{
	(void)s;
	run(RPMAF_POLLING_BUSY, 1, 16, CREDITS);
}
static void
test_busy_16(void **s)
{
	(void)s;
	run(RPMAF_POLLING_BUSY, 16, 16, CREDITS);
}
static void
test_busy_128(void **s)
{
	(void)s;
	run(RPMAF_POLLING_BUSY, 128, 8, CREDITS);
}

/* race_rounds -- round trips of the lost wake-up test: WORKERS_RACE_ROUNDS, default 4000 */
static uint32_t
race_rounds(void)
{
	const char *env = getenv("WORKERS_RACE_ROUNDS");

	return env && atoi(env) > 0 ? (uint32_t)atoi(env) : 4000;
}

/* the lost wake-up race: one message in flight, thousands of sleeps on both sides */
static void
test_race_event(void **s)
{
	(void)s;
	run(RPMAF_POLLING_EVENT, 1, race_rounds(), 1);
}
static void
test_race_adaptive(void **s)
{
	(void)s;
	run(RPMAF_POLLING_ADAPTIVE, 1, race_rounds(), 1);
}

int
main(int argc, char *argv[])
{
	Debug = getenv("INTEG_DEBUG") != NULL;
	if (argc >= 7 && strcmp(argv[1], "client") == 0) {
		Role = "client";
		Msgs = (uint32_t)atoi(argv[5]);
		Inflight = (uint32_t)atoi(argv[6]);
		return client_main(argv[2], atoi(argv[3]), (enum rpmaf_polling)atoi(argv[4]));
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_race_event),	cmocka_unit_test(test_race_adaptive),
	    cmocka_unit_test(test_event_1),	cmocka_unit_test(test_event_16),
	    cmocka_unit_test(test_event_128),	cmocka_unit_test(test_adaptive_1),
	    cmocka_unit_test(test_adaptive_16), cmocka_unit_test(test_adaptive_128),
	    cmocka_unit_test(test_busy_1),	cmocka_unit_test(test_busy_16),
	    cmocka_unit_test(test_busy_128),
	};

	/* WORKERS_TESTS=race: the lost wake-up tests only; another word: the tests naming it */
	const char *only = getenv("WORKERS_TESTS");
	struct CMUnitTest some[sizeof(tests) / sizeof(tests[0])];
	size_t n = 0;

	if (!only)
		return cmocka_run_group_tests(tests, NULL, NULL);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (strstr(tests[i].name, only))
			some[n++] = tests[i];
	return _cmocka_run_group_tests(only, some, n, NULL, NULL);
}
