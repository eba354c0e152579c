/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- a server of the framework with its own call handlers.
 *
 * What it teaches: rpmaf_server_new() does the protocol (connections,
 * authentication, region lists, persistence requests, heartbeats, flow
 * control); the application adds what its clients may call, by handler id,
 * before rpmaf_server_start():
 * - HANDLER_UPPER, an immediate handler (rpmaf_server_handler_add()): it
 *   runs on the connection's worker thread, writes its reply in place and
 *   returns; it must not block. Several run at once on different workers.
 * - HANDLER_SUM, a handler answered later (rpmaf_server_call_handler_add()):
 *   it only takes the call (copying the request, which is valid during the
 *   handler only) and hands it to the application's own thread, which does
 *   the work (work that may block: files, other servers) and answers with
 *   rpmaf_call_reply() -- exactly once per call.
 * The main thread waits for SIGINT or SIGTERM, then drains the server
 * (requests in flight are answered) and releases everything.
 *
 * usage: server ADDR PORT
 * Prints "server: listening on ADDR:PORT" once clients may connect and the
 * number of calls it answered at the end. Exit status: 0 after a drain, 1
 * when the server cannot start.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>
#include <rpmaf.h>

#define HANDLER_UPPER 1 /* the request in upper case */
#define HANDLER_SUM   2 /* the sum of the decimal numbers of the request */
#define SUM_REQ_MAX   256

/* the configuration: a listening server, one worker, everything else defaults */
static const char Cfg[] = "workers: {count: 1, polling: adaptive}\n"
			  "listen: {address: \"%s\", port: %s, max_connections: 8}\n"
			  "log: {level: warning}\n";

/* one call of HANDLER_SUM waiting for the answering thread */
struct sum_call {
	struct rpmaf_call *call;
	char req[SUM_REQ_MAX + 1];
	struct sum_call *next;
};

/* the calls the handler took and the answering thread has not answered yet */
struct sum_queue {
	pthread_mutex_t lock; /* guards head, tail and stop */
	pthread_cond_t cond;  /* signalled when a call is queued or stop is set */
	struct sum_call *head, *tail;
	bool stop;
	atomic_uint answered; /* calls answered by either handler */
};

/* upper -- HANDLER_UPPER, on a worker thread: the reply is the request in upper case */
static int
upper(uint32_t handler_id, const void *req, size_t req_len, void *reply, size_t reply_max,
      size_t *reply_len, void *arg)
{
	struct sum_queue *q = arg;
	const char *in = req;
	char *out = reply;

	(void)handler_id;
	if (req_len > reply_max)
		return RPMAF_E_INVAL; /* the client gets APP_FAILED (RPMAF_E_REMOTE) */
	for (size_t i = 0; i < req_len; i++)
		out[i] = in[i] >= 'a' && in[i] <= 'z' ? (char)(in[i] - 'a' + 'A') : in[i];
	*reply_len = req_len;
	atomic_fetch_add(&q->answered, 1);
	return 0;
}

/* sum_take -- HANDLER_SUM, on a worker thread: queue the call for the answering thread */
static void
sum_take(struct rpmaf_call *call, uint32_t handler_id, const void *req, size_t req_len, void *arg)
{
	struct sum_queue *q = arg;
	struct sum_call *c;

	(void)handler_id;
	/* a call must be answered, even one that cannot be served */
	if (req_len > SUM_REQ_MAX || !(c = calloc(1, sizeof(*c)))) {
		rpmaf_call_reply(call, RPMAF_E_INVAL, NULL, 0);
		return;
	}
	c->call = call;
	memcpy(c->req, req, req_len); /* req is valid during the handler only */
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* sum_answer -- add up the numbers of c's request and answer it */
static void
sum_answer(struct sum_queue *q, struct sum_call *c)
{
	char reply[32], *p = c->req, *end;
	long long sum = 0;
	int len;

	for (;;) {
		long long v = strtoll(p, &end, 10);

		if (end == p)
			break;
		sum += v;
		p = end;
	}
	while (*p == ' ')
		p++;
	if (*p) { /* not only numbers: a failure for the client */
		rpmaf_call_reply(c->call, RPMAF_E_INVAL, NULL, 0);
		return;
	}
	len = snprintf(reply, sizeof(reply), "%lld", sum);
	if (rpmaf_call_reply(c->call, 0, reply, (size_t)len) == 0)
		atomic_fetch_add(&q->answered, 1);
}

/* answering -- the application's thread: answer the queued calls until told to stop */
static void *
answering(void *arg)
{
	struct sum_queue *q = arg;
	struct sum_call *c;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!(c = q->head))
			break; /* stop, and nothing left */
		if (!(q->head = c->next))
			q->tail = NULL;
		pthread_mutex_unlock(&q->lock);
		sum_answer(q, c);
		free(c);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* answering_stop -- let the thread answer what is queued, then join it */
static void
answering_stop(struct sum_queue *q, pthread_t th)
{
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	pthread_join(th, NULL);
}

/* serve -- the peer, the workers and the server with its handlers; until a signal */
static int
serve(struct rpmaf_cfg *cfg, const char *addr, struct sum_queue *q, const sigset_t *sigs)
{
	struct rpma_peer *peer = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_server *srv = NULL;
	struct ibv_context *dev;
	int ret, sig;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev)) ||
	    (ret = rpma_peer_new(dev, &peer))) {
		fprintf(stderr, "server: no RDMA device at %s: %s\n", addr, rpma_err_2str(ret));
		return 1;
	}
	if ((ret = rpmaf_workers_new(cfg, peer, &ws)) ||
	    (ret = rpmaf_server_new(cfg, peer, ws, &srv)) ||
	    (ret = rpmaf_server_handler_add(srv, HANDLER_UPPER, upper, q)) ||
	    (ret = rpmaf_server_call_handler_add(srv, HANDLER_SUM, sum_take, q)) ||
	    (ret = rpmaf_server_start(srv))) {
		fprintf(stderr, "server: cannot start: %s\n", rpmaf_err_str(ret));
		goto out;
	}
	printf("server: listening on %s:%u\n", addr, rpmaf_server_port(srv));
	fflush(stdout);
	sigwait(sigs, &sig);
	/* answers the requests in flight (ours too: the thread still runs), then disconnects */
	if ((ret = rpmaf_server_stop(srv, cfg->timeouts.operation_ms)))
		fprintf(stderr, "server: drain: %s\n", rpmaf_err_str(ret));
out:
	rpmaf_server_delete(&srv); /* before the workers */
	rpmaf_workers_delete(&ws);
	rpma_peer_delete(&peer);
	return ret ? 1 : 0;
}

int
main(int argc, char *argv[])
{
	struct sum_queue q = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_cfg_err err;
	sigset_t sigs;
	pthread_t th;
	char text[512];
	int ret, len;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 1;
	}
	len = snprintf(text, sizeof(text), Cfg, argv[1], argv[2]);
	if (len < 0 || (size_t)len >= sizeof(text) ||
	    rpmaf_cfg_load_buffer("server", text, (size_t)len, NULL, &cfg, &err)) {
		fprintf(stderr, "server: %s\n",
			len < 0 || (size_t)len >= sizeof(text) ? "the address is too long"
							       : err.msg);
		return 1;
	}
	/* blocked before any thread starts, so that only sigwait() takes them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (pthread_create(&th, NULL, answering, &q)) {
		fprintf(stderr, "server: cannot start the answering thread\n");
		rpmaf_cfg_delete(&cfg);
		return 1;
	}
	ret = serve(cfg, argv[1], &q, &sigs);
	answering_stop(&q, th);
	printf("server: answered %u calls\n", atomic_load(&q.answered));
	rpmaf_cfg_delete(&cfg);
	return ret;
}
