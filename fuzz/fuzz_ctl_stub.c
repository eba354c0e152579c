/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_stub.c -- the worker under a control channel, over plain
 * memory, for the harnesses of both sides of the channel (see
 * fuzz_ctl_stub.h).
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <librpma.h>

#include "../workers/credit.h"
#include "fuzz_assert.h"
#include "fuzz_ctl_stub.h"

struct fuzz_ctl_worker Fw;

/* the worker whose turn it is: none, unless the harness says so */
__thread struct rpmaf_worker *rpmaf__current __attribute__((tls_model("initial-exec")));

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_reset(uint32_t buf_size, uint32_t nbufs, uint32_t sq, uint32_t cq)
{
	fuzz_assert(sq <= FUZZ_CTL_SQ_MAX);
	memset(&Fw, 0, sizeof(Fw));
	Fw.buf_size = buf_size;
	Fw.w.slab.nfree = nbufs;
	Fw.w.sq = sq;
	Fw.w.msg_size = buf_size;
	rpmaf__credits_init(&Fw.w.cq, cq);
	fuzz_ctl_turn();
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_cfg(struct rpmaf_cfg *cfg, uint32_t msg_size, uint32_t credits, uint32_t sq)
{
	cfg->queues.msg_size = msg_size;
	cfg->queues.msg_credits = credits;
	cfg->queues.sq = sq;
	cfg->timeouts.connect_ms = 1000;
}

/* see worker.h: the monotonic clock, plus the time the fired timers skipped */
uint64_t
rpmaf__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + Fw.skew_ns;
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_turn(void)
{
	Fw.w.now_ns = rpmaf__now_ns();
}

/* see rpmaf.h: buffers of plain memory, counted */
int
rpmaf_worker_buf_get(struct rpmaf_worker *w, void **buf_ptr)
{
	if (!w->slab.nfree || !(*buf_ptr = malloc(Fw.buf_size)))
		return RPMAF_E_AGAIN;
	w->slab.nfree--;
	Fw.bufs++;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_buf_put(struct rpmaf_worker *w, void *buf)
{
	free(buf);
	w->slab.nfree++;
	Fw.bufs--;
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

/* see rpmaf.h: the worker's own accounting of the send queue and the CQ */
int
rpmaf_wconn_admit(struct rpmaf_wconn *wconn, unsigned n)
{
	if (!wconn || Fw.closed)
		return RPMAF_E_INVAL;
	return rpmaf__acct_admit(&wconn->acct, &wconn->w->cq, n);
}

/* see rpmaf.h */
int
rpmaf_wconn_unadmit(struct rpmaf_wconn *wconn, unsigned n)
{
	if (!wconn || Fw.closed)
		return RPMAF_E_INVAL;
	fuzz_assert(rpmaf__acct_unadmit(&wconn->acct, &wconn->w->cq, n) == 0);
	return 0;
}

/* see rpmaf.h: the receive buffer lent goes back, once */
int
rpmaf_wconn_recv_release(struct rpmaf_wconn *wconn, void *buf)
{
	(void)wconn;
	fuzz_assert(buf == Fw.rbuf && !Fw.released);
	Fw.released = true;
	return 0;
}

/* see rpmaf.h: the connection is the stub itself */
struct rpma_conn *
rpmaf_wconn_get_conn(const struct rpmaf_wconn *wconn)
{
	return wconn ? (struct rpma_conn *)&Fw : NULL;
}

/* see rpmaf.h */
int
rpmaf_wconn_close(struct rpmaf_wconn **wconn_ptr)
{
	fuzz_assert(*wconn_ptr == &Fw.wconn && !Fw.closed);
	Fw.closed = true;
	*wconn_ptr = NULL;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_attach(struct rpmaf_worker *w, struct rpma_conn *conn,
		    const struct rpmaf_wconn_ops *ops, void *ctx, struct rpmaf_wconn **wconn_ptr)
{
	(void)conn;
	fuzz_assert(!Fw.attached);
	Fw.wconn.w = w;
	rpmaf__acct_init(&Fw.wconn.acct, w->sq, Fw.ring);
	Fw.ops = ops;
	Fw.ctx = ctx;
	Fw.attached = true;
	*wconn_ptr = &Fw.wconn;
	return 0;
}

/* see rpmaf.h: run once the current step is over, in order */
int
rpmaf_worker_submit(struct rpmaf_worker *w, struct rpmaf_work *work, rpmaf_work_fn fn, void *arg)
{
	unsigned i = (Fw.work_head + Fw.nworks) % FUZZ_CTL_WORKS_MAX;

	(void)w;
	(void)work;
	fuzz_assert(Fw.nworks < FUZZ_CTL_WORKS_MAX);
	Fw.works[i].fn = fn;
	Fw.works[i].arg = arg;
	Fw.nworks++;
	return 0;
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_drain(void)
{
	while (Fw.nworks) {
		unsigned i = Fw.work_head;

		Fw.work_head = (i + 1) % FUZZ_CTL_WORKS_MAX;
		Fw.nworks--;
		Fw.works[i].fn(&Fw.w, Fw.works[i].arg);
	}
}

/* timer_find -- the index of armed timer t; ntimers when it is not armed */
static unsigned
timer_find(const struct rpmaf_timer *t)
{
	unsigned i;

	for (i = 0; i < Fw.ntimers; i++)
		if (Fw.timers[i].t == t)
			break;
	return i;
}

/* timer_drop -- timer i is no longer armed */
static void
timer_drop(unsigned i)
{
	Fw.timers[i] = Fw.timers[--Fw.ntimers];
}

/* see rpmaf.h: a timer armed again moves */
int
rpmaf_worker_timer_add(struct rpmaf_worker *w, struct rpmaf_timer *t, uint64_t delay_us,
		       rpmaf_timer_fn fn, void *arg)
{
	unsigned i = timer_find(t);

	(void)w;
	if (i == Fw.ntimers) {
		if (Fw.ntimers == FUZZ_CTL_TIMERS_MAX)
			return RPMAF_E_AGAIN;
		Fw.ntimers++;
	}
	Fw.timers[i].t = t;
	Fw.timers[i].fn = fn;
	Fw.timers[i].arg = arg;
	Fw.timers[i].due_ns = rpmaf__now_ns() + delay_us * 1000;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_timer_cancel(struct rpmaf_worker *w, struct rpmaf_timer *t)
{
	unsigned i = timer_find(t);

	(void)w;
	if (i < Fw.ntimers)
		timer_drop(i);
	return 0;
}

/* see fuzz_ctl_stub.h */
bool
fuzz_ctl_timer_fire(const void *arg)
{
	unsigned k = Fw.ntimers;
	struct rpmaf_timer *t;
	rpmaf_timer_fn fn;
	void *targ;
	uint64_t now;

	for (unsigned i = 0; i < Fw.ntimers; i++)
		if ((!arg || Fw.timers[i].arg == arg) &&
		    (k == Fw.ntimers || Fw.timers[i].due_ns < Fw.timers[k].due_ns))
			k = i;
	if (k == Fw.ntimers)
		return false;
	t = Fw.timers[k].t;
	fn = Fw.timers[k].fn;
	targ = Fw.timers[k].arg;
	now = rpmaf__now_ns();
	if (Fw.timers[k].due_ns > now)
		Fw.skew_ns += Fw.timers[k].due_ns - now;
	timer_drop(k);
	fuzz_ctl_turn();
	fn(&Fw.w, t, targ);
	return true;
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

/* post -- keep a work request until the input completes it */
static int
post(uint64_t wr_id, int flags, enum ibv_wc_opcode opcode)
{
	fuzz_assert(!Fw.closed && Fw.attached && Fw.nwrs < FUZZ_CTL_WRS_MAX);
	if (Fw.post_fail_in && --Fw.post_fail_in == 0)
		return RPMA_E_PROVIDER;
	Fw.wrs[Fw.nwrs].wr_id = wr_id;
	Fw.wrs[Fw.nwrs].signaled = (flags & RPMA_F_COMPLETION_ALWAYS) == RPMA_F_COMPLETION_ALWAYS;
	Fw.wrs[Fw.nwrs++].opcode = opcode;
	return 0;
}

/* see librpma.h: what the connection sends must decode and fit the peer's buffer */
int
rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	  int flags, const void *op_context)
{
	struct rpmaf__proto_msg m;

	(void)conn;
	(void)src;
	(void)offset;
	fuzz_assert(len <= Fw.buf_size &&
		    len <= (Fw.peer_max ? Fw.peer_max : RPMAF__PROTO_MSG_MIN));
	fuzz_assert(rpmaf__proto_msg_decode(op_context, len, &m, NULL) == 0);
	if (Fw.on_send)
		Fw.on_send(&m);
	return post((uint64_t)(uintptr_t)op_context, flags, IBV_WC_SEND);
}

/* remote_touch -- a remote region posted to is still alive (AddressSanitizer) */
static void
remote_touch(const struct rpma_mr_remote *dst)
{
	fuzz_assert(dst != NULL);
	(void)*(const volatile uint8_t *)dst;
}

/* see librpma.h */
int
rpma_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
	   const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
	   const void *op_context)
{
	(void)conn;
	(void)dst_offset;
	(void)src;
	(void)src_offset;
	(void)len;
	remote_touch(dst);
	return post((uint64_t)(uintptr_t)op_context, flags, IBV_WC_RDMA_WRITE);
}

/* see librpma.h */
int
rpma_read(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t dst_offset,
	  const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
	  const void *op_context)
{
	(void)conn;
	(void)dst;
	(void)dst_offset;
	(void)src_offset;
	(void)len;
	remote_touch(src);
	return post((uint64_t)(uintptr_t)op_context, flags, IBV_WC_RDMA_READ);
}

/* see librpma.h */
int
rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	   enum rpma_flush_type type, int flags, const void *op_context)
{
	(void)conn;
	(void)dst_offset;
	(void)len;
	(void)type;
	remote_touch(dst);
	return post((uint64_t)(uintptr_t)op_context, flags, IBV_WC_RDMA_READ);
}

/* see librpma.h */
int
rpma_atomic_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		  const char src[8], int flags, const void *op_context)
{
	(void)conn;
	(void)dst_offset;
	(void)src;
	remote_touch(dst);
	return post((uint64_t)(uintptr_t)op_context, flags, IBV_WC_RDMA_WRITE);
}

/* see librpma.h: the connection never got to a device */
int
rpma_conn_disconnect(struct rpma_conn *conn)
{
	(void)conn;
	return 0;
}

/* see librpma.h: a client at 127.0.0.1, port 7000, for the server's log lines */
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

/* see fuzz_ctl_stub.h */
const uint8_t *
fuzz_ctl_recv_step(const uint8_t **pp, const uint8_t *end, size_t *len_ptr)
{
	const uint8_t *p = *pp;
	size_t len = end - p >= 2 ? (size_t)(p[0] | p[1] << 8) : 0;

	p += end - p >= 2 ? 2 : end - p;
	if (len > (size_t)(end - p) && len <= Fw.buf_size)
		len = (size_t)(end - p);
	*pp = p + (len <= (size_t)(end - p) ? len : 0);
	*len_ptr = len;
	return p;
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_recv(const uint8_t *p, size_t len)
{
	struct ibv_wc wc = {.status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV};
	int ret;

	Fw.rbuf = calloc(1, Fw.buf_size);
	fuzz_assert(Fw.rbuf != NULL);
	Fw.released = false;
	if (len > Fw.buf_size) {
		wc.status = IBV_WC_LOC_LEN_ERR;
		len = 0;
	}
	memcpy(Fw.rbuf, p, len);
	wc.byte_len = (uint32_t)len;
	ret = Fw.ops->on_recv(&Fw.wconn, &wc, Fw.rbuf, Fw.ctx);
	/* RPMAF_RECV_DONE: posted back by the worker now, if the connection did not */
	fuzz_assert(ret == RPMAF_RECV_DONE);
	free(Fw.rbuf);
	Fw.rbuf = NULL;
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_recv_hello(const uint8_t *p, size_t len, uint8_t hello)
{
	struct rpmaf__proto_msg m;

	if (len <= Fw.buf_size && !rpmaf__proto_msg_decode(p, len, &m, NULL) &&
	    m.hdr.type == hello && !Fw.peer_max)
		Fw.peer_max = hello == RPMAF__PROTO_T_HELLO ? m.body.hello.max_msg_size
							    : m.body.hello_reply.max_msg_size;
	fuzz_ctl_recv(p, len);
}

/* wr_pop -- the oldest n work requests leave the queue */
static void
wr_pop(unsigned n)
{
	Fw.nwrs -= n;
	memmove(Fw.wrs, Fw.wrs + n, Fw.nwrs * sizeof(Fw.wrs[0]));
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_complete(bool ok)
{
	struct ibv_wc wc = {.status = IBV_WC_SUCCESS};
	unsigned n = 0;

	if (!Fw.nwrs)
		return;
	if (Fw.closed) {
		/* a closed connection's completions are dropped: fini gave the buffers back */
		wr_pop(1);
		return;
	}
	if (!ok || Fw.broken) {
		wc.status = Fw.broken ? IBV_WC_WR_FLUSH_ERR : IBV_WC_RETRY_EXC_ERR;
		Fw.broken = true;
	} else {
		/* the device completes in order: the unsignaled ones before succeeded silently */
		while (n < Fw.nwrs && !Fw.wrs[n].signaled)
			n++;
		if (n == Fw.nwrs)
			return;
	}
	wc.wr_id = Fw.wrs[n].wr_id;
	wc.opcode = Fw.wrs[n].opcode;
	wr_pop(n + 1);
	(void)rpmaf__acct_retire(&Fw.wconn.acct, &Fw.w.cq, wc.status == IBV_WC_SUCCESS);
	Fw.ops->on_wc(&Fw.wconn, &wc, Fw.ctx);
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_disconnect(void)
{
	if (!Fw.closed)
		Fw.ops->on_event(&Fw.wconn, RPMA_CONN_CLOSED, Fw.ctx);
}

/* see fuzz_ctl_stub.h */
void
fuzz_ctl_check_idle(void)
{
	fuzz_assert(Fw.closed && Fw.bufs == 0 && Fw.ntimers == 0 && Fw.nworks == 0);
}
