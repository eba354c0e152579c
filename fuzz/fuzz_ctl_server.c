/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_server.c -- libFuzzer harness of the server's side of the
 * control channel: sequences of messages, as a client sends them, through
 * the real dispatch (ctl/ctl.c rpmaf__ctl_recv(), server/sconn.c's session
 * and queues, server/serve.c's requests), the connection's state kept from
 * one message to the next.
 *
 * The worker under the channel is this file's: the functions of
 * workers/ the channel and the connection call (buffers, send-queue
 * admission, the receive buffer's release, timers, submitted functions,
 * attach and close) and rpma_send() are defined here over plain memory, so
 * that no device or thread is needed; every send is decoded and kept until
 * the input completes it.
 *
 * An input is a sequence of steps, each a byte:
 *   0 LEN_LO LEN_HI BYTES  a receive of LEN bytes (longer than the buffer:
 *                          a receive failed with IBV_WC_LOC_LEN_ERR)
 *   1 / 2                  the oldest send completes / fails
 *   3                      the connection's timer fires
 *   4                      the client disconnects
 * (the step byte modulo 5). The server has no key, no region, no handler.
 *
 * Properties, after every step:
 * - whatever the server sends decodes, fits the client's buffer (the size
 *   its HELLO announced, at least RPMAF__PROTO_MSG_MIN), and nothing is
 *   sent once the connection is closed;
 * - the channel never has more sends in flight than its send queue, nor
 *   the connection more requests waiting than its window; the requests
 *   counted pending are those waiting;
 * - every receive buffer is posted back exactly once;
 * - once the connection is closed and its memory freed, nothing is left:
 *   no object, no buffer, no timer (and AddressSanitizer's leak check).
 */

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librpma.h>

#include "../server/sconn.h"
#include "../workers/worker.h"
#include "fuzz_assert.h"

#define MSG_SIZE   512
#define CREDITS	   4
#define SQ	   8
#define MAX_SENDS  64
#define MAX_WORKS  8
#define STEP_KINDS 5

/* the stand-in worker: one connection, its sends, its timer, its submitted functions */
static struct {
	struct rpmaf_worker w;
	struct rpmaf_wconn wconn;
	const struct rpmaf_wconn_ops *ops;
	void *ctx;
	bool attached, closed;
	void *sends[MAX_SENDS]; /* in flight, oldest first */
	unsigned nsends;
	long bufs; /* send buffers given out and not put back */
	struct rpmaf_timer *timer;
	rpmaf_timer_fn timer_fn;
	void *timer_arg;
	struct {
		rpmaf_work_fn fn;
		void *arg;
	} works[MAX_WORKS];
	unsigned nworks;
	void *rbuf;	   /* the receive buffer lent to the connection */
	bool released;	   /* ... and posted back */
	uint32_t peer_max; /* the client's buffer, from its HELLO */
} W;

/* see rpmaf.h: buffers of plain memory, counted */
int
rpmaf_worker_buf_get(struct rpmaf_worker *w, void **buf_ptr)
{
	if (!w->slab.nfree || !(*buf_ptr = malloc(MSG_SIZE)))
		return RPMAF_E_AGAIN;
	w->slab.nfree--;
	W.bufs++;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_buf_put(struct rpmaf_worker *w, void *buf)
{
	free(buf);
	w->slab.nfree++;
	W.bufs--;
	return 0;
}

/* see rpmaf.h: no memory region under these buffers */
int
rpmaf_worker_buf_mr(const struct rpmaf_worker *w, const void *buf, struct rpma_mr_local **mr_ptr,
		    size_t *offset_ptr)
{
	(void)w;
	(void)buf;
	*mr_ptr = NULL;
	*offset_ptr = 0;
	return 0;
}

/* see rpmaf.h: the send queue's room */
int
rpmaf_wconn_admit(struct rpmaf_wconn *wconn, unsigned n)
{
	if (wconn->acct.sq.used + n > wconn->acct.sq.cap)
		return RPMAF_E_AGAIN;
	wconn->acct.sq.used += n;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_wconn_unadmit(struct rpmaf_wconn *wconn, unsigned n)
{
	fuzz_assert(wconn->acct.sq.used >= n);
	wconn->acct.sq.used -= n;
	return 0;
}

/* see rpmaf.h: the receive buffer lent goes back, once */
int
rpmaf_wconn_recv_release(struct rpmaf_wconn *wconn, void *buf)
{
	(void)wconn;
	fuzz_assert(buf == W.rbuf && !W.released);
	W.released = true;
	return 0;
}

/* see rpmaf.h */
struct rpma_conn *
rpmaf_wconn_get_conn(const struct rpmaf_wconn *wconn)
{
	(void)wconn;
	return NULL;
}

/* see rpmaf.h */
int
rpmaf_wconn_close(struct rpmaf_wconn **wconn_ptr)
{
	W.closed = true;
	*wconn_ptr = NULL;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_attach(struct rpmaf_worker *w, struct rpma_conn *conn,
		    const struct rpmaf_wconn_ops *ops, void *ctx, struct rpmaf_wconn **wconn_ptr)
{
	(void)conn;
	W.wconn.w = w;
	W.wconn.acct.sq.cap = SQ;
	W.ops = ops;
	W.ctx = ctx;
	W.attached = true;
	*wconn_ptr = &W.wconn;
	return 0;
}

/* see rpmaf.h: run once the current step is over */
int
rpmaf_worker_submit(struct rpmaf_worker *w, struct rpmaf_work *work, rpmaf_work_fn fn, void *arg)
{
	(void)w;
	(void)work;
	fuzz_assert(W.nworks < MAX_WORKS);
	W.works[W.nworks].fn = fn;
	W.works[W.nworks++].arg = arg;
	return 0;
}

/* see rpmaf.h: one timer at a time per owner is all the channel and the connection use */
int
rpmaf_worker_timer_add(struct rpmaf_worker *w, struct rpmaf_timer *t, uint64_t delay_us,
		       rpmaf_timer_fn fn, void *arg)
{
	(void)w;
	(void)delay_us;
	/* the channel's heartbeat timer is never fired here: only the connection's */
	if (arg != W.ctx)
		return 0;
	W.timer = t;
	W.timer_fn = fn;
	W.timer_arg = arg;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_timer_cancel(struct rpmaf_worker *w, struct rpmaf_timer *t)
{
	(void)w;
	if (t == W.timer)
		W.timer = NULL;
	return 0;
}

/* see rpmaf.h */
unsigned
rpmaf_worker_index(const struct rpmaf_worker *w)
{
	(void)w;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_unreserve(struct rpmaf_worker *w)
{
	(void)w;
	return 0;
}

/* see worker.h */
uint64_t
rpmaf__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* see librpma.h: what the server sends must decode and fit the client's buffer */
int
rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	  int flags, const void *op_context)
{
	struct rpmaf__proto_msg m;

	(void)conn;
	(void)src;
	(void)offset;
	(void)flags;
	fuzz_assert(!W.closed && W.nsends < MAX_SENDS);
	fuzz_assert(len <= MSG_SIZE && len <= (W.peer_max ? W.peer_max : RPMAF__PROTO_MSG_MIN));
	fuzz_assert(rpmaf__proto_msg_decode(op_context, len, &m, NULL) == 0);
	W.sends[W.nsends++] = (void *)op_context;
	return 0;
}

/* see librpma.h: the connection never got to a device */
int
rpma_conn_disconnect(struct rpma_conn *conn)
{
	(void)conn;
	return 0;
}

/* see librpma.h: a client at 127.0.0.1, port 7000, for the log lines */
int
rpma_conn_get_peer_addr(const struct rpma_conn *conn, struct sockaddr_storage *addr)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)addr;

	(void)conn;
	memset(addr, 0, sizeof(*addr));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(7000);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

/* see librpma.h */
int
rpma_conn_delete(struct rpma_conn **conn_ptr)
{
	*conn_ptr = NULL;
	return 0;
}

/* see server.h: no handler */
const struct rpmaf__srv_handler *
rpmaf__srv_handler_find(const struct rpmaf_server *srv, uint32_t id)
{
	(void)srv;
	(void)id;
	return NULL;
}

static struct rpmaf_cfg Cfg;
static struct rpmaf__wlog Log;
static struct rpmaf_server Srv;
static struct rpmaf__srv_wstate Wst;

/* LLVMFuzzerInitialize -- the server: no key, an empty region table, a quiet log */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	Cfg.queues.msg_size = MSG_SIZE;
	Cfg.queues.msg_credits = CREDITS;
	Cfg.queues.sq = SQ;
	Cfg.timeouts.connect_ms = 1000;
	Cfg.timeouts.heartbeat_interval_ms = 1000;
	Cfg.timeouts.heartbeat_misses = 3;
	Log.level = RPMAF_LOG_DEBUG; /* every line formatted, then dropped */
	fuzz_assert((Log.out = fopen("/dev/null", "w")) != NULL);
	Srv.cfg = &Cfg;
	Srv.log = &Log;
	Srv.wst = &Wst;
	fuzz_assert((Wst.scratch = malloc(MSG_SIZE)) != NULL);
	fuzz_assert(rpmaf__sregtab_init(&Srv.regs, 1) == 0);
	return 0;
}

/* drain -- the functions submitted during a step */
static void
drain(void)
{
	for (unsigned i = 0; i < W.nworks; i++)
		W.works[i].fn(&W.w, W.works[i].arg);
	W.nworks = 0;
}

/* step_recv -- a receive of len bytes of p (the client's message) */
static void
step_recv(const uint8_t *p, size_t len)
{
	struct ibv_wc wc = {.status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV};
	struct rpmaf__proto_msg m;
	int ret;

	W.rbuf = calloc(1, MSG_SIZE);
	fuzz_assert(W.rbuf != NULL);
	W.released = false;
	if (len > MSG_SIZE) {
		wc.status = IBV_WC_LOC_LEN_ERR;
		len = 0;
	}
	memcpy(W.rbuf, p, len);
	wc.byte_len = (uint32_t)len;
	if (!rpmaf__proto_msg_decode(p, len, &m, NULL) && m.hdr.type == RPMAF__PROTO_T_HELLO &&
	    !W.peer_max)
		W.peer_max = m.body.hello.max_msg_size;
	ret = W.ops->on_recv(&W.wconn, &wc, W.rbuf, W.ctx);
	/* RPMAF_RECV_DONE: posted back by the worker now, if the connection did not */
	fuzz_assert(ret == RPMAF_RECV_DONE);
	free(W.rbuf);
	W.rbuf = NULL;
}

/* step_complete -- the oldest send completes, well or not */
static void
step_complete(bool ok)
{
	struct ibv_wc wc = {.status = ok ? IBV_WC_SUCCESS : IBV_WC_RETRY_EXC_ERR,
			    .opcode = IBV_WC_SEND};

	if (!W.nsends)
		return;
	wc.wr_id = (uint64_t)(uintptr_t)W.sends[0];
	memmove(W.sends, W.sends + 1, --W.nsends * sizeof(W.sends[0]));
	if (W.closed) {
		/* a closed connection's completions are dropped: fini gave the buffers back */
		return;
	}
	W.wconn.acct.sq.used--;
	W.ops->on_wc(&W.wconn, &wc, W.ctx);
}

/* check -- the connection's invariants between steps */
static void
check(const struct rpmaf__sconn *sc)
{
	if (W.closed)
		return;
	fuzz_assert(sc->ctl.ninflight <= sc->ctl.inflight_max);
	fuzz_assert(sc->npend <= sc->pend_cap);
	fuzz_assert(atomic_load(&Srv.pending) == sc->npend);
	fuzz_assert(W.wconn.acct.sq.used <= SQ);
}

/* conn_new -- a connection accepted and attached, as the acceptor and the worker do */
static struct rpmaf__sconn *
conn_new(void)
{
	struct rpmaf__sconn *sc;

	memset(&W, 0, sizeof(W));
	W.w.slab.nfree = 2 * SQ;
	W.w.cq.cap = 4 * SQ;
	Srv.wst[0].conns = NULL;
	atomic_store(&Srv.nconns, 1);
	fuzz_assert(rpmaf__sconn_new(&Srv, &W.w, (struct rpma_conn *)&W, 1, &sc) == 0);
	rpmaf__sconn_hand_over(sc);
	drain();
	fuzz_assert(W.attached);
	return sc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct rpmaf__sconn *sc = conn_new();

	while (p < end && !W.closed) {
		size_t len;

		switch (*p++ % STEP_KINDS) {
		case 0:
			len = end - p >= 2 ? (size_t)(p[0] | p[1] << 8) : 0;
			p += end - p >= 2 ? 2 : end - p;
			if (len > (size_t)(end - p) && len <= MSG_SIZE)
				len = (size_t)(end - p);
			step_recv(p, len);
			p += len <= (size_t)(end - p) ? len : 0;
			break;
		case 1:
		case 2:
			step_complete(p[-1] % STEP_KINDS == 1);
			break;
		case 3:
			if (W.timer) {
				struct rpmaf_timer *t = W.timer;

				W.timer = NULL;
				W.timer_fn(&W.w, t, W.timer_arg);
			}
			break;
		default:
			W.ops->on_event(&W.wconn, RPMA_CONN_CLOSED, W.ctx);
			break;
		}
		check(sc);
		drain();
	}
	if (!W.closed)
		W.ops->on_event(&W.wconn, RPMA_CONN_CLOSED, W.ctx);
	drain();
	/* the closed connection's sends never complete: their buffers went back at close */
	W.nsends = 0;
	fuzz_assert(atomic_load(&Srv.nobjs) == 0 && atomic_load(&Srv.pending) == 0);
	fuzz_assert(W.bufs == 0 && W.timer == NULL && Srv.wst[0].conns == NULL);
	return 0;
}
