// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * overhead.c -- instructions per operation of the pool against bare librpma
 *
 * The server process: an rpmaf_server (one worker, event polling, no
 * heartbeats) exporting region "apm", a file with direct write, and the
 * same memory exported by server_run_apm() for the bare connection.
 *
 * The client process: the bare connection and its two phases first, then
 * one worker, the pool of one connection and its two phases. Both paths
 * poll, and sleep only when the CQ is empty: the bare one in
 * rpma_cq_wait(), the worker (workers.polling: event) in epoll_wait() after
 * arming its CQs. Spinning on an empty CQ would count instructions that
 * depend on the scheduling, not on the operation. Setup, warm-up and teardown run with callgrind's
 * instrumentation off.
 */

#include <errno.h>
#include <infiniband/verbs.h>
#include <librpma.h>
#include <poll.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define OVERHEAD_CALLGRIND 1
#endif
#endif
#ifndef OVERHEAD_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#endif

#include "overhead.h"
#include "rpmaf.h"
#include "server.h"
#include "spawn.h"
#include "util.h"

#define OVH_REGION	"apm"
#define OVH_REGION_SIZE (1u << 20)
#define OVH_SLOTS	1024u /* 64-byte slots the operations cycle through */
#define OVH_LOCAL_SIZE	(64u << 10)
#define OVH_YAML_MAX	2048
#define OVH_READY_MS	20000

/* ------------------------------------------------------------ the server process */

/* the directory of the region file (the child makes and removes it) */
static char Ovh_dir[64];

/* ovh_srv_yaml -- the rpmaf_server's configuration */
static int
ovh_srv_yaml(char *buf, size_t size, unsigned port)
{
	int n = snprintf(buf, size,
			 "workers: {count: 1, polling: event, batch: 16}\n"
			 "queues: {sq: 16, messages: {size: 4K, credits: 8}}\n"
			 "listen: {address: %s, port: %u, max_connections: 4}\n"
			 "regions:\n"
			 "  - {name: %s, size: %u, backing: {file: %s/%s, create: true},\n"
			 "     direct_write: true, persistence: apm}\n"
			 "timeouts: {heartbeat_interval_ms: 0}\n"
			 "log: {level: error}\n",
			 UTIL_ADDR, port, OVH_REGION, OVH_REGION_SIZE, Ovh_dir, OVH_REGION);

	return n > 0 && (size_t)n < size ? n : -1;
}

/* ovh_srv_down -- what ovh_srv_up() made, in reverse */
static void
ovh_srv_down(struct rpmaf_cfg **cfg, struct rpmaf_workers **ws, struct rpmaf_server **srv)
{
	(void)rpmaf_server_delete(srv);
	(void)rpmaf_workers_delete(ws);
	(void)rpmaf_cfg_delete(cfg);
}

/* ovh_srv_up -- the rpmaf_server listening on port; RPMAF_E_RDMA: the port is taken */
static int
ovh_srv_up(struct rpma_peer *peer, unsigned port, struct rpmaf_cfg **cfg, struct rpmaf_workers **ws,
	   struct rpmaf_server **srv)
{
	struct rpmaf_cfg_err err;
	char yaml[OVH_YAML_MAX];
	int len = ovh_srv_yaml(yaml, sizeof(yaml), port), ret;

	if (len < 0 ||
	    rpmaf_cfg_load_buffer("overhead-server", yaml, (size_t)len, NULL, cfg, &err)) {
		fprintf(stderr, "overhead server: configuration: %s\n",
			len < 0 ? "too long" : err.msg);
		return RPMAF_E_CONFIG;
	}
	if ((ret = rpmaf_workers_new(*cfg, peer, ws)) ||
	    (ret = rpmaf_server_new(*cfg, peer, *ws, srv)) || (ret = rpmaf_server_start(*srv)))
		ovh_srv_down(cfg, ws, srv);
	return ret;
}

/* ovh_srv_run -- the rpmaf_server on the first free port, then the plain one until SIGTERM */
static int
ovh_srv_run(int ready_fd, struct rpmaf_cfg **cfg, struct rpma_peer **peer,
	    struct rpmaf_workers **ws, struct rpmaf_server **srv)
{
	unsigned port = UTIL_PORT_FIRST;
	size_t size;
	void *ptr;
	int ret;

	if ((ret = util_peer_new(peer))) {
		fprintf(stderr, "overhead server: no device: %s\n", rpma_err_2str(ret));
		return -1;
	}
	while ((ret = ovh_srv_up(*peer, port, cfg, ws, srv)) == RPMAF_E_RDMA &&
	       port < UTIL_PORT_LAST)
		port++;
	if (ret || (ret = rpmaf_server_region_ptr(*srv, OVH_REGION, &ptr, &size))) {
		fprintf(stderr, "overhead server: %s\n", rpmaf_err_str(ret));
		return -1;
	}
	if (write(ready_fd, &port, sizeof(port)) != (ssize_t)sizeof(port)) {
		fprintf(stderr, "overhead server: cannot tell the parent its port\n");
		return -1;
	}
	return server_run_apm(ptr, size, port + 1, UTIL_PORT_LAST, ready_fd);
}

/* ovh_serve -- the server process: both servers, then everything undone */
static int
ovh_serve(int ready_fd)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpma_peer *peer = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_server *srv = NULL;
	char path[sizeof(Ovh_dir) + 8];
	int ret;

	/*
	 * the region is an ordinary file, where the server refuses persistence apm (page
	 * granularity: doc/DURABILITY.md); libpmem2's testing switch calls it persistent memory,
	 * as bare librpma's server declares direct write to PMem on the same memory: both sides
	 * measure the APM path, neither is durable here
	 */
	setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1);
	snprintf(Ovh_dir, sizeof(Ovh_dir), "/tmp/rpmaf-bench.XXXXXX");
	if (!mkdtemp(Ovh_dir)) {
		fprintf(stderr, "overhead server: mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	ret = ovh_srv_run(ready_fd, &cfg, &peer, &ws, &srv);
	ovh_srv_down(&cfg, &ws, &srv);
	(void)rpma_peer_delete(&peer);
	snprintf(path, sizeof(path), "%s/%s", Ovh_dir, OVH_REGION);
	(void)unlink(path);
	(void)rmdir(Ovh_dir);
	return ret;
}

/* ------------------------------------------------------------ the client's state */

/* the client: everything but the phases' own counters */
struct ovh {
	unsigned ops;
	unsigned depth; /* operations in flight, on both paths */
	struct rpma_peer *peer;
	void *local; /* source of the writes and destination of the reads */
	struct rpma_mr_local *local_mr;
	/* bare */
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *dst;
	uint64_t sleeps; /* rpma_cq_wait() calls of the current phase */
	/* pool */
	struct rpmaf_cfg *cfg;
	struct rpmaf_workers *ws;
	struct rpmaf_worker *w;
	struct rpmaf_pool *pool;
	bool apm;
};

/*
 * depth chains of pool operations, n operations in all: each callback
 * submits the next one with the same op, until n were submitted
 */
struct ovh_chain {
	struct ovh *o;
	struct rpmaf_op *ops; /* depth of them */
	struct rpmaf_work work;
	bool write;    /* write+persist, else read */
	bool measured; /* instrumented: start at the first, stop at the last */
	unsigned n, issued, done_ops;
	int status;
	sem_t done;
};

/* ovh_off -- the i-th operation's offset, the same for both paths */
static size_t
ovh_off(unsigned i)
{
	return (size_t)(i % OVH_SLOTS) * OVERHEAD_SIZE;
}

/* ------------------------------------------------------------ bare librpma */

/* ovh_bare_event -- the connection's next event, waited for at most LOAD-like 20 s */
static int
ovh_bare_event(struct rpma_conn *conn, enum rpma_conn_event *ev)
{
	struct pollfd pfd = {.events = POLLIN};

	(void)rpma_conn_get_event_fd(conn, &pfd.fd);
	if (poll(&pfd, 1, OVH_READY_MS) != 1)
		return RPMA_E_NO_EVENT;
	return rpma_conn_next_event(conn, ev);
}

/* ovh_bare_remote -- the private data: the peer configuration, then the region */
static int
ovh_bare_remote(struct ovh *o)
{
	struct rpma_conn_private_data pd;
	struct rpma_peer_cfg *pcfg = NULL;
	size_t plen = 0;
	int ret;

	if ((ret = rpma_conn_get_private_data(o->conn, &pd)) || (ret = rpma_peer_cfg_new(&pcfg)) ||
	    (ret = rpma_peer_cfg_get_descriptor_size(pcfg, &plen)))
		goto out;
	(void)rpma_peer_cfg_delete(&pcfg);
	if (!pd.ptr || pd.len <= plen) {
		ret = RPMA_E_INVAL;
		goto out;
	}
	if ((ret = rpma_peer_cfg_from_descriptor(pd.ptr, plen, &pcfg)) ||
	    (ret = rpma_conn_apply_remote_peer_cfg(o->conn, pcfg)))
		goto out;
	ret = rpma_mr_remote_from_descriptor((const char *)pd.ptr + plen, pd.len - plen, &o->dst);
out:
	(void)rpma_peer_cfg_delete(&pcfg);
	return ret;
}

/* ovh_bare_open -- one connection with its own CQ, and the server's region */
static int
ovh_bare_open(struct ovh *o, unsigned port)
{
	struct rpma_conn_cfg *ccfg = NULL;
	struct rpma_conn_req *req;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	char p[16];
	int ret;

	snprintf(p, sizeof(p), "%u", port);
	/* two requests (a write and its flush) per operation in flight, one completion */
	if ((ret = rpma_conn_cfg_new(&ccfg)) ||
	    (ret = rpma_conn_cfg_set_sq_size(ccfg, o->depth < 2 ? 4 : 2 * o->depth)) ||
	    (ret = rpma_conn_cfg_set_cq_size(ccfg, o->depth < 4 ? 4 : o->depth)) ||
	    (ret = rpma_conn_cfg_set_rq_size(ccfg, 1)) ||
	    (ret = rpma_conn_req_new(o->peer, UTIL_ADDR, p, ccfg, &req)) ||
	    (ret = rpma_conn_req_connect(&req, NULL, &o->conn)))
		goto out;
	if ((ret = ovh_bare_event(o->conn, &ev)) == 0 && ev != RPMA_CONN_ESTABLISHED)
		ret = RPMA_E_UNKNOWN;
	if (ret == 0 && (ret = rpma_conn_get_cq(o->conn, &o->cq)) == 0)
		ret = ovh_bare_remote(o);
out:
	(void)rpma_conn_cfg_delete(&ccfg);
	if (ret)
		fprintf(stderr, "overhead: bare connection: %s\n", rpma_err_2str(ret));
	return ret ? -1 : 0;
}

/* ovh_bare_close -- disconnect and wait for the close */
static void
ovh_bare_close(struct ovh *o)
{
	enum rpma_conn_event ev;

	if (o->conn && rpma_conn_disconnect(o->conn) == 0)
		(void)ovh_bare_event(o->conn, &ev);
	(void)rpma_mr_remote_delete(&o->dst);
	(void)rpma_conn_delete(&o->conn);
}

/*
 * ovh_bare_wait -- poll the connection's CQ until it gives completions, up
 * to the depth of them at once (*got); while it is empty, sleep on its
 * completion channel
 */
static int
ovh_bare_wait(struct ovh *o, int *got)
{
	struct ibv_wc wc[OVERHEAD_DEPTH_MAX];
	int ret;

	while ((ret = rpma_cq_get_wc(o->cq, (int)o->depth, wc, got)) == RPMA_E_NO_COMPLETION) {
		o->sleeps++;
		if ((ret = rpma_cq_wait(o->cq)) && ret != RPMA_E_NO_COMPLETION)
			return ret;
	}
	for (int k = 0; ret == 0 && k < *got; k++)
		if (wc[k].status != IBV_WC_SUCCESS)
			ret = RPMA_E_UNKNOWN;
	return ret;
}

/* ovh_bare_op -- operation i: write + persistent flush, or a read */
static int
ovh_bare_op(struct ovh *o, bool write, unsigned i)
{
	size_t off = ovh_off(i);
	int ret;

	if (write) {
		ret = rpma_write(o->conn, o->dst, off, o->local_mr, off % OVH_LOCAL_SIZE,
				 OVERHEAD_SIZE, RPMA_F_COMPLETION_ON_ERROR, NULL);
		if (ret == 0)
			ret =
			    rpma_flush(o->conn, o->dst, off, OVERHEAD_SIZE,
				       RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, NULL);
	} else {
		ret = rpma_read(o->conn, o->local_mr, off % OVH_LOCAL_SIZE, o->dst, off,
				OVERHEAD_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL);
	}
	return ret;
}

/* ovh_bare_run -- operations first..first+n with the depth of them in flight */
static int
ovh_bare_run(struct ovh *o, bool write, unsigned first, unsigned n)
{
	unsigned issued = 0, done = 0;
	int got, ret = 0;

	while (ret == 0 && done < n) {
		while (ret == 0 && issued < n && issued - done < o->depth)
			ret = ovh_bare_op(o, write, first + issued++);
		if (ret == 0 && (ret = ovh_bare_wait(o, &got)) == 0)
			done += (unsigned)got;
	}
	return ret;
}

/* ovh_bare_phase -- warm-up, then n instrumented operations; *ns the wall-clock time per op */
static int
ovh_bare_phase(struct ovh *o, bool write, const char *name, double *ns)
{
	unsigned warm = o->ops < OVERHEAD_WARMUP ? o->ops : OVERHEAD_WARMUP;
	double t0;
	int ret = 0;

	ret = ovh_bare_run(o, write, 0, warm);
	o->sleeps = 0;
	t0 = util_now();
	CALLGRIND_START_INSTRUMENTATION;
	if (ret == 0)
		ret = ovh_bare_run(o, write, 0, o->ops);
	CALLGRIND_STOP_INSTRUMENTATION;
	*ns = (util_now() - t0) * 1e9 / o->ops;
	CALLGRIND_DUMP_STATS_AT(name);
	if (ret)
		fprintf(stderr, "overhead: %s: %s\n", name, rpma_err_2str(ret));
	return ret ? -1 : 0;
}

/* ------------------------------------------------------------ the pool */

/*
 * ovh_pool_yaml -- one worker sleeping when its CQs are empty, one connection
 * to the target; at depth, the send queue of the bare connection (two
 * requests per operation) and the poll's batch as large as the bare one's,
 * with room for the control channel's messages
 */
static int
ovh_pool_yaml(char *buf, size_t size, unsigned port, unsigned depth)
{
	unsigned sq = depth < 8 ? 16 : 2 * depth + 8, batch = depth < 16 ? 16 : depth;
	int n = snprintf(buf, size,
			 "workers: {count: 1, polling: event, batch: %u}\n"
			 "queues: {sq: %u, messages: {size: 4K, credits: 8}}\n"
			 "targets: [{name: t0, address: %s, port: %u, connections: 1}]\n"
			 "timeouts: {connect_ms: %u, operation_ms: 60000}\n"
			 "log: {level: error}\n",
			 batch, sq, UTIL_ADDR, port, OVH_READY_MS);

	return n > 0 && (size_t)n < size ? n : -1;
}

/* ovh_pool_open -- the worker and the pool; ready once the region is listed */
static int
ovh_pool_open(struct ovh *o, unsigned port)
{
	struct rpmaf_pool_region info;
	struct rpmaf_cfg_err err;
	char yaml[OVH_YAML_MAX];
	int len = ovh_pool_yaml(yaml, sizeof(yaml), port, o->depth), ret;

	if (len < 0 || rpmaf_cfg_load_buffer("overhead", yaml, (size_t)len, NULL, &o->cfg, &err)) {
		fprintf(stderr, "overhead: configuration: %s\n", len < 0 ? "too long" : err.msg);
		return -1;
	}
	if ((ret = rpmaf_workers_new(o->cfg, o->peer, &o->ws)) ||
	    (ret = rpmaf_workers_get(o->ws, 0, &o->w)) ||
	    (ret = rpmaf_pool_new(o->cfg, o->peer, o->ws, &o->pool)) ||
	    (ret = rpmaf_pool_wait_ready(o->pool, OVH_READY_MS)) ||
	    (ret = rpmaf_pool_region(o->pool, OVH_REGION, &info))) {
		fprintf(stderr, "overhead: pool: %s\n", rpmaf_err_str(ret));
		return -1;
	}
	o->apm = info.apm;
	return 0;
}

/* ovh_pool_close -- the pool before its workers */
static void
ovh_pool_close(struct ovh *o)
{
	(void)rpmaf_pool_delete(&o->pool);
	(void)rpmaf_workers_delete(&o->ws);
	(void)rpmaf_cfg_delete(&o->cfg);
}

static void ovh_chain_cb(struct rpmaf_op *op, int status, void *ctx);

/* ovh_chain_submit -- the next operation, with op; 0 or the submission's error */
static int
ovh_chain_submit(struct ovh_chain *c, struct rpmaf_op *op)
{
	struct ovh *o = c->o;
	size_t off = ovh_off(c->issued++);

	if (c->write)
		return rpmaf_pool_write(o->pool, op, OVH_REGION, off, o->local_mr,
					off % OVH_LOCAL_SIZE, OVERHEAD_SIZE, RPMAF_OP_PERSIST,
					ovh_chain_cb, c);
	return rpmaf_pool_read(o->pool, op, OVH_REGION, off, o->local_mr, off % OVH_LOCAL_SIZE,
			       OVERHEAD_SIZE, ovh_chain_cb, c);
}

/* ovh_chain_end -- on the worker: the chains are over (every op done, or a failure) */
static void
ovh_chain_end(struct ovh_chain *c)
{
	if (c->measured)
		CALLGRIND_STOP_INSTRUMENTATION;
	sem_post(&c->done);
}

/*
 * ovh_chain_cb -- an operation completed: submit the next one from its
 * worker; after a failure none, and the end waits for those in flight
 */
static void
ovh_chain_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct ovh_chain *c = ctx;
	int ret;

	c->done_ops++;
	if (status && !c->status)
		c->status = status;
	if (!c->status && c->issued < c->n && (ret = ovh_chain_submit(c, op))) {
		c->issued--; /* not submitted: no callback comes */
		c->status = ret;
	}
	if (c->done_ops == c->issued && (c->status || c->done_ops == c->n))
		ovh_chain_end(c);
}

/* ovh_chain_start -- on the worker: the chains' first operations, instrumented from here on */
static void
ovh_chain_start(struct rpmaf_worker *w, void *arg)
{
	struct ovh_chain *c = arg;
	int ret = 0;

	(void)w;
	if (c->measured)
		CALLGRIND_START_INSTRUMENTATION;
	for (unsigned k = 0; k < c->o->depth && c->issued < c->n && ret == 0; k++)
		if ((ret = ovh_chain_submit(c, &c->ops[k])))
			c->issued--; /* not submitted: no callback comes */
	if (ret)
		c->status = ret;
	if (ret && c->done_ops == c->issued)
		ovh_chain_end(c);
}

/* ovh_chain_run -- n operations chained on the worker, depth in flight; 0 or the first error */
static int
ovh_chain_run(struct ovh *o, bool write, bool measured, unsigned n)
{
	static struct rpmaf_op ops[OVERHEAD_DEPTH_MAX];
	struct ovh_chain c = {.o = o, .ops = ops, .write = write, .measured = measured, .n = n};
	int ret;

	if (n == 0)
		return 0;
	if (sem_init(&c.done, 0, 0))
		return RPMAF_E_SYS;
	if ((ret = rpmaf_worker_submit(o->w, &c.work, ovh_chain_start, &c)) == 0) {
		while (sem_wait(&c.done) && errno == EINTR)
			;
		ret = c.status;
	}
	sem_destroy(&c.done);
	return ret;
}

/* ovh_pool_phase -- warm-up, then n instrumented operations; *ns the wall-clock time per op */
static int
ovh_pool_phase(struct ovh *o, bool write, const char *name, double *ns,
	       struct rpmaf_worker_stats *d)
{
	unsigned warm = o->ops < OVERHEAD_WARMUP ? o->ops : OVERHEAD_WARMUP;
	struct rpmaf_worker_stats s0, s1;
	double t0;
	int ret = ovh_chain_run(o, write, false, warm);

	(void)rpmaf_worker_get_stats(o->w, &s0);
	t0 = util_now();
	if (ret == 0)
		ret = ovh_chain_run(o, write, true, o->ops);
	*ns = (util_now() - t0) * 1e9 / o->ops;
	(void)rpmaf_worker_get_stats(o->w, &s1);
	CALLGRIND_DUMP_STATS_AT(name);
	d->polls = s1.polls - s0.polls;
	d->empty_polls = s1.empty_polls - s0.empty_polls;
	d->wakeups = s1.wakeups - s0.wakeups;
	d->sleeps = s1.sleeps - s0.sleeps;
	if (ret)
		fprintf(stderr, "overhead: %s: %s\n", name, rpmaf_err_str(ret));
	return ret ? -1 : 0;
}

/* ------------------------------------------------------------ the run */

/* the figures of one run */
struct ovh_figs {
	double bare_ns[2], pool_ns[2]; /* [0] write+persist, [1] read */
	uint64_t bare_sleeps[2];
	struct rpmaf_worker_stats pool_st[2];
};

/* ovh_print -- the table; the rows' words are what the smoke test looks for */
static void
ovh_print(const struct ovh *o, const struct ovh_figs *f)
{
	static const char *const rows[2] = {"write", "read"};

	printf("overhead: %u ops per phase, %u bytes, %u in flight; region %s (%s)\n", o->ops,
	       OVERHEAD_SIZE, o->depth, OVH_REGION,
	       o->apm ? "APM: file-backed, direct write" : "GPSPM: the target persists");
	printf("%7s %16s %16s %12s\n", "op", "pool ns/op", "bare ns/op", "pool/bare");
	for (int k = 0; k < 2; k++)
		printf("%7s %16.0f %16.0f %12.2f\n", rows[k], f->pool_ns[k], f->bare_ns[k],
		       f->bare_ns[k] > 0 ? f->pool_ns[k] / f->bare_ns[k] : 0.0);
	printf("(write: pool_write(RPMAF_OP_PERSIST) / rpma_write + rpma_flush(PERSISTENT); "
	       "wall clock, not instructions)\n");
	for (int k = 0; k < 2; k++)
		printf("%s per op: bare sleeps %.2f; pool worker polls %.2f, empty %.2f, "
		       "sleeps %.2f, wake-ups %.2f\n",
		       rows[k], (double)f->bare_sleeps[k] / o->ops,
		       (double)f->pool_st[k].polls / o->ops,
		       (double)f->pool_st[k].empty_polls / o->ops,
		       (double)f->pool_st[k].sleeps / o->ops,
		       (double)f->pool_st[k].wakeups / o->ops);
}

/* ovh_local -- the client's memory, registered for both directions */
static int
ovh_local(struct ovh *o)
{
	int ret;

	if (posix_memalign(&o->local, 4096, OVH_LOCAL_SIZE)) {
		fprintf(stderr, "overhead: out of memory\n");
		return -1;
	}
	memset(o->local, 0x5a, OVH_LOCAL_SIZE);
	ret = rpma_mr_reg(o->peer, o->local, OVH_LOCAL_SIZE,
			  RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &o->local_mr);
	if (ret)
		fprintf(stderr, "overhead: local region: %s\n", rpma_err_2str(ret));
	return ret ? -1 : 0;
}

/* ovh_phases -- bare first (no worker exists yet), then the pool */
static int
ovh_phases(struct ovh *o, const struct spawn *srv, struct ovh_figs *f)
{
	int ret;

	if ((ret = util_peer_new(&o->peer))) {
		fprintf(stderr, "overhead: no device: %s\n", rpma_err_2str(ret));
		return -1;
	}
	if (ovh_local(o) || ovh_bare_open(o, srv->ports[1]) ||
	    ovh_bare_phase(o, true, "bare-write-flush", &f->bare_ns[0]))
		return -1;
	f->bare_sleeps[0] = o->sleeps;
	if (ovh_bare_phase(o, false, "bare-read", &f->bare_ns[1]))
		return -1;
	f->bare_sleeps[1] = o->sleeps;
	ovh_bare_close(o);
	if (ovh_pool_open(o, srv->ports[0]) ||
	    ovh_pool_phase(o, true, "pool-write-persist", &f->pool_ns[0], &f->pool_st[0]) ||
	    ovh_pool_phase(o, false, "pool-read", &f->pool_ns[1], &f->pool_st[1]))
		return -1;
	return 0;
}

/* overhead_run -- see overhead.h */
int
overhead_run(unsigned ops, unsigned depth)
{
	struct ovh o = {.ops = ops, .depth = depth};
	struct ovh_figs f = {0};
	struct spawn srv = {0};
	int failed;

	if (spawn_start(ovh_serve, 2, &srv))
		return -1;
	printf("server: %s:%u (rpmaf_server) and :%u (librpma), forked\n", UTIL_ADDR, srv.ports[0],
	       srv.ports[1]);
	failed = ovh_phases(&o, &srv, &f);
	if (!failed)
		ovh_print(&o, &f);
	fflush(stdout);
	ovh_pool_close(&o);
	ovh_bare_close(&o);
	(void)rpma_mr_dereg(&o.local_mr);
	free(o.local);
	(void)rpma_peer_delete(&o.peer);
	if (spawn_stop(&srv))
		failed = -1;
	return failed ? -1 : 0;
}
