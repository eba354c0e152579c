// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_pool.c -- the pool of librpmaf (pool/) against a server of
 * librpmaf (server/) in another process, over softrdma. The server is
 * this program run again ("server PORT DIR KEY VARIANT ADDR"); it prints
 * READY once it listens, its counters (a STATS line) on SIGUSR2, and on
 * SIGTERM deletes everything and exits 0. Its variants:
 *   std    an APM region (a file, direct write), a GPSPM region (a file), a
 *          read-only region and a region it removes on SIGUSR1; an echo
 *          handler (id 1), a handler that always fails (id 2) and the echo
 *          announced idempotent (id 3)
 *   paged  PAGED_REGIONS regions and 256-byte messages: its region list
 *          takes many pages
 *   max2   listen.max_connections 2
 * The tests stop the std server (SIGSTOP), kill it (SIGKILL) and start it
 * again; the others run on the port after the std server's, one at a time.
 * The server's application API (calls answered later, the hook of closing
 * connections, memory the application exports) is tested against a
 * server of this process instead, on the third port.
 * Ports: 19500 + 3 x (pid % 166) and the next two.
 *
 * POOL_TESTS=word runs the tests whose names contain word; POOL_KEEP_DIR=1
 * keeps /tmp/test_pool.PID with the servers' logs; INTEG_DEBUG=1
 * logs at debug level on both sides. POOL_SERVER_ADDR=A runs the server on
 * address A (default 127.0.0.1) and connects the pool to it;
 * POOL_SERVER_NETNS=NS runs the server in network namespace NS (ip netns
 * exec), the clients staying in this process's (two hosts: twohost.sh).
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "rpmaf.h"

#define REGION	      (1u << 20) /* bytes of the apm and gpspm regions */
#define SMALL	      (64u << 10)
#define RECORD	      512 /* bytes of one record */
#define THREADS	      4
#define PER_THREAD    64 /* records each thread writes in each of the two regions */
#define INFLIGHT      8	 /* operations a thread keeps in flight */
#define OP_MS	      2000
#define READY_MS      15000
#define ECHO_ID	      1
#define FAIL_ID	      2	  /* a handler that always fails */
#define IDEM_ID	      3	  /* the echo, announced idempotent */
#define FAIL_CODE     -42 /* what it returns */
#define PAGED_REGIONS 40
#define DEL_OPS	      256 /* operations in flight when a pool is deleted */
#define KEY_A	      "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY_B	      "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

/* ------------------------------------------------------------- the server process */

static volatile sig_atomic_t Remove_asked, Stats_asked, Stop_asked;

/* on_signal -- the test asks for the removal of region victim, the counters or the end */
static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		Remove_asked = 1;
	else if (sig == SIGUSR2)
		Stats_asked = 1;
	else
		Stop_asked = 1;
}

/* echo -- the application handler: the reply is the request */
static int
echo(uint32_t id, const void *req, size_t req_len, void *reply, size_t reply_max, size_t *reply_len,
     void *arg)
{
	(void)id;
	(void)arg;
	if (req_len > reply_max)
		return -1;
	memcpy(reply, req, req_len);
	*reply_len = req_len;
	return 0;
}

/* failing -- an application handler that always fails */
static int
failing(uint32_t id, const void *req, size_t req_len, void *reply, size_t reply_max,
	size_t *reply_len, void *arg)
{
	(void)id;
	(void)req;
	(void)req_len;
	(void)reply;
	(void)reply_max;
	(void)reply_len;
	(void)arg;
	return FAIL_CODE;
}

/* log_level -- the servers' and pools' log level */
static const char *
log_level(void)
{
	return getenv("INTEG_DEBUG") ? "debug" : "warning";
}

/* server_yaml -- the configuration of a server of variant on addr:port */
static int
server_yaml(char *buf, size_t size, const char *port, const char *dir, const char *key,
	    const char *variant, const char *addr)
{
	int n;

	if (strcmp(variant, "paged") == 0) {
		n = snprintf(buf, size,
			     "workers: {count: 1, polling: event}\n"
			     "queues: {sq: 16, messages: {size: 256, credits: 4}}\n"
			     "listen: {address: %s, port: %s, max_connections: 8}\n"
			     "auth: {key_file: %s}\n"
			     "log: {level: %s, file: %s/server-paged.log}\n"
			     "regions:\n",
			     addr, port, key, log_level(), dir);
		for (int i = 0; i < PAGED_REGIONS && n > 0 && (size_t)n < size; i++)
			n += snprintf(buf + n, size - (size_t)n,
				      "  - {name: paged-region-%02d, size: %dK}\n", i, 4 * (i + 1));
		return n;
	}
	if (strcmp(variant, "max2") == 0)
		return snprintf(buf, size,
				"workers: {count: 2, polling: event}\n"
				"queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
				"listen: {address: %s, port: %s, max_connections: 2}\n"
				"regions: [{name: m, size: 64K}]\n"
				"auth: {key_file: %s}\n"
				"log: {level: %s, file: %s/server-max2.log}\n",
				addr, port, key, log_level(), dir);
	return snprintf(buf, size,
			"workers: {count: 2, polling: event, batch: 16}\n"
			"queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
			"listen: {address: %s, port: %s, max_connections: 32}\n"
			"regions:\n"
			"  - {name: apm, size: 1M, backing: {file: %s/apm, create: true},\n"
			"     direct_write: true, persistence: apm}\n"
			"  - {name: gpspm, size: 1M, backing: {file: %s/gpspm, create: true},\n"
			"     persistence: gpspm}\n"
			"  - {name: ro, size: 64K, usage: [read]}\n"
			"  - {name: victim, size: 64K}\n"
			"timeouts: {heartbeat_interval_ms: 500, heartbeat_misses: 8}\n"
			"auth: {key_file: %s}\n"
			"log: {level: %s, file: %s/server-std.log}\n",
			addr, port, dir, dir, key, log_level(), dir);
}

/* peer_new -- a peer on the device of addr, local (a server's) or reaching it (a client's) */
static struct rpma_peer *
peer_new(const char *addr, enum rpma_util_ibv_context_type type)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	if (rpma_utils_get_ibv_context(addr, type, &ctx) || rpma_peer_new(ctx, &peer))
		return NULL;
	return peer;
}

/* server_serve -- answer the test's signals until SIGTERM */
static void
server_serve(struct rpmaf_server *srv)
{
	struct rpmaf_server_stats st;
	int ret;

	while (!Stop_asked) {
		if (Remove_asked) {
			Remove_asked = 0;
			ret = rpmaf_server_region_remove(srv, "victim");
			printf("REMOVED %d\n", ret);
			fflush(stdout);
		}
		if (Stats_asked) {
			Stats_asked = 0;
			(void)rpmaf_server_get_stats(srv, &st);
			printf("STATS %llu %llu %llu %llu %u\n", (unsigned long long)st.accepted,
			       (unsigned long long)st.rejected, (unsigned long long)st.requests,
			       (unsigned long long)st.app_requests, st.connections);
			fflush(stdout);
		}
		usleep(10000);
	}
}

/* server_main -- the server process: serve until SIGTERM (0) or killed */
static int
server_main(const char *port, const char *dir, const char *key, const char *variant,
	    const char *addr)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_server *srv = NULL;
	struct rpma_peer *peer = NULL;
	struct rpmaf_cfg_err err;
	char yaml[8192];
	int ret = 1;

	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	signal(SIGTERM, on_signal);
	/*
	 * region apm is an ordinary file, where the server refuses persistence apm (page
	 * granularity: doc/DURABILITY.md); libpmem2's testing switch calls it persistent
	 * memory, so that the pool's APM path is tested (its durability is not)
	 */
	setenv("PMEM2_FORCE_GRANULARITY", "CACHE_LINE", 1);
	server_yaml(yaml, sizeof(yaml), port, dir, key, variant, addr);
	if (rpmaf_cfg_load_buffer("server", yaml, strlen(yaml), NULL, &cfg, &err)) {
		fprintf(stderr, "server: %s\n", err.msg);
		return 1;
	}
	if (!(peer = peer_new(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL)) ||
	    rpmaf_workers_new(cfg, peer, &ws) || rpmaf_server_new(cfg, peer, ws, &srv) ||
	    rpmaf_server_handler_add(srv, ECHO_ID, echo, NULL) ||
	    rpmaf_server_handler_add(srv, FAIL_ID, failing, NULL) ||
	    rpmaf_server_handler_add_flags(srv, IDEM_ID, echo, NULL, RPMAF_HANDLER_IDEMPOTENT) ||
	    rpmaf_server_start(srv)) {
		fprintf(stderr, "server: setup failed\n");
		goto out;
	}
	printf("READY %u\n", rpmaf_server_port(srv));
	fflush(stdout);
	server_serve(srv);
	ret = 0;
out:
	if (srv && rpmaf_server_delete(&srv))
		ret = 1;
	if (ws && rpmaf_workers_delete(&ws))
		ret = 1;
	if (peer && rpma_peer_delete(&peer))
		ret = 1;
	rpmaf_cfg_delete(&cfg);
	return ret;
}

/* ------------------------------------------------------------- the client side */

static char Port[16], Port2[16]; /* the std server's, and the other variants' */
static char Port3[16];		 /* the server of this process (its application API) */
static char Dir[64];
static char Key_a[96], Key_b[96];
static char Exe[PATH_MAX]; /* this program, to run it again as the server */
static const char *Addr;   /* the servers' address */
static const char *Netns;  /* the servers' network namespace; NULL: this one */
static struct t_srv Srv = {.pid = -1, .fd = -1};  /* the std server */
static struct t_srv Srv2 = {.pid = -1, .fd = -1}; /* another variant's */
static struct rpmaf_cfg *Cfg;
static struct rpma_peer *Peer;
static struct rpmaf_workers *Ws;
static struct rpmaf_pool *Pool;
static uint8_t *Mem; /* the client's registered memory */
static struct rpma_mr_local *Mr;
#define MEM_SIZE (4u << 20)

/* key_write -- a key file of mode 0600 */
static int
key_write(const char *path, const char *hex)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "%s\n", hex);
	fclose(f);
	return chmod(path, 0600);
}

/*
 * srv_spawn -- run the server variant on port and wait for its READY line:
 * this program by its real path (under valgrind, /proc/self/exe would be
 * valgrind's own), through ip netns exec when the server has a namespace
 * (ip and env exec the server in place: s->pid is the server's)
 */
static int
srv_spawn(struct t_srv *s, const char *port, const char *variant)
{
	const char *opts[] = {Dir, Key_a, variant, Addr, NULL};
	const char *ns_opts[] = {"exec", Netns, Exe,	 "server", port,
				 Dir,	 Key_a, variant, Addr,	   NULL};
	char line[128];
	int ret;

	if (Netns)
		ret = t_prog_exec(s, "/usr/bin/env", "ip", "netns", ns_opts);
	else
		ret = t_prog_exec(s, Exe, "server", port, opts);
	if (ret)
		return -1;
	return t_srv_line(s, "READY", line, sizeof(line), 60000);
}

/* server_start -- run the std server and wait for its READY line */
static int
server_start(void)
{
	return srv_spawn(&Srv, Port, "std");
}

/*
 * srv_stop -- ask the server to end (SIGTERM) and wait for it: 0 when it
 * deleted everything and exited 0 (under valgrind: without an error)
 */
static int
srv_stop(struct t_srv *s)
{
	if (s->pid <= 0)
		return 0;
	if (kill(s->pid, SIGTERM)) {
		t_srv_kill(s);
		return -1;
	}
	return t_srv_wait(s, 60000) == 0 ? 0 : -1;
}

/*
 * srv_freeze -- stop the server (SIGSTOP) and wait until every thread of it
 * has stopped: kill() returns before, and a thread still running could
 * answer what the test sends next. 0 or -1.
 */
static int
srv_freeze(struct t_srv *s)
{
	long long limit = t_now_ms() + 5000;
	char path[64], stat[512];

	if (kill(s->pid, SIGSTOP))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	while (t_now_ms() < limit) {
		DIR *d = opendir(path);
		struct dirent *e;
		bool all = d != NULL;

		while (d && all && (e = readdir(d))) {
			char tpath[384];
			FILE *f;
			char *p = NULL;

			if (e->d_name[0] == '.')
				continue;
			snprintf(tpath, sizeof(tpath), "%s/%s/stat", path, e->d_name);
			if ((f = fopen(tpath, "r"))) {
				if (fgets(stat, sizeof(stat), f))
					p = strrchr(stat, ')');
				fclose(f);
			}
			all = p && (p[2] == 'T' || p[2] == 't');
		}
		if (d)
			closedir(d);
		if (all)
			return 0;
		usleep(1000);
	}
	return -1;
}

/* srv_stats -- the server's counters, from its STATS line */
static int
srv_stats(struct t_srv *s, struct rpmaf_server_stats *st)
{
	unsigned long long acc, rej, req, app;
	char line[128];

	memset(st, 0, sizeof(*st));
	if (kill(s->pid, SIGUSR2) || t_srv_line(s, "STATS", line, sizeof(line), 10000) ||
	    sscanf(line, "STATS %llu %llu %llu %llu %u", &acc, &rej, &req, &app,
		   &st->connections) != 5)
		return -1;
	st->accepted = acc;
	st->rejected = rej;
	st->requests = req;
	st->app_requests = app;
	return 0;
}

/* client_yaml -- a client's configuration: key file key, target port, extra queue and size keys */
static int
client_yaml(const char *key, const char *port, unsigned conns, const char *queues,
	    struct rpmaf_cfg **cfg_ptr)
{
	struct rpmaf_cfg_err err;
	char yaml[1024];
	int ret;

	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 2, polling: event, batch: 16}\n"
		 "queues: %s\n"
		 "targets: [{name: t0, address: %s, port: %s, connections: %u}]\n"
		 "timeouts: {connect_ms: 3000, operation_ms: %d, heartbeat_interval_ms: 500,\n"
		 "           heartbeat_misses: 8}\n"
		 "reconnect: {initial_ms: 50, max_ms: 400, multiplier: 2, jitter: 0.2}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: %s}\n",
		 queues, Addr, port, conns, OP_MS, key, getenv("INTEG_DEBUG") ? "debug" : "error");
	ret = rpmaf_cfg_load_buffer("client", yaml, strlen(yaml), NULL, cfg_ptr, &err);
	if (ret)
		fprintf(stderr, "client cfg: %s\n", err.msg);
	return ret;
}

/* client_cfg -- the client's configuration with key file key */
static int
client_cfg(const char *key, struct rpmaf_cfg **cfg_ptr)
{
	return client_yaml(key, Port, 4, "{sq: 64, messages: {size: 4K, credits: 8}}", cfg_ptr);
}

/* setup_fail -- say what of the group's setup failed, with the ports used; -1 */
static int
setup_fail(const char *what)
{
	fprintf(stderr, "test_pool: group setup (ports %s, %s, %s): %s\n", Port, Port2, Port3,
		what);
	return -1;
}

/* group_setup -- the server, the client's peer, workers, memory and pool */
static int
group_setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
	int port = 19500 + (int)(getpid() % 166) * 3;

	(void)state;
	if (n <= 0)
		return -1;
	Exe[n] = '\0';
	snprintf(Port, sizeof(Port), "%d", port);
	snprintf(Port2, sizeof(Port2), "%d", port + 1);
	snprintf(Port3, sizeof(Port3), "%d", port + 2);
	snprintf(Dir, sizeof(Dir), "/tmp/test_pool.%d", (int)getpid());
	snprintf(Key_a, sizeof(Key_a), "%s/key_a", Dir);
	snprintf(Key_b, sizeof(Key_b), "%s/key_b", Dir);
	if (mkdir(Dir, 0700) || key_write(Key_a, KEY_A) || key_write(Key_b, KEY_B))
		return setup_fail("the directory or the key files");
	if (server_start())
		return setup_fail("the server process did not start (its log is above)");
	if (client_cfg(Key_a, &Cfg))
		return setup_fail("the client's configuration");
	if (!(Peer = peer_new(Addr, RPMA_UTIL_IBV_CONTEXT_REMOTE)) ||
	    rpmaf_workers_new(Cfg, Peer, &Ws))
		return setup_fail("the peer or the workers");
	if (!(Mem = aligned_alloc(4096, MEM_SIZE)) ||
	    rpma_mr_reg(Peer, Mem, MEM_SIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &Mr))
		return setup_fail("the local memory");
	if (rpmaf_pool_new(Cfg, Peer, Ws, &Pool))
		return setup_fail("the pool");
	return rpmaf_pool_wait_ready(Pool, READY_MS) ? setup_fail("the pool is not ready") : 0;
}

/* group_teardown -- everything in reverse; the server must end well */
static int
group_teardown(void **state)
{
	char cmd[128];
	int ret = 0;

	(void)state;
	if (Pool)
		rpmaf_pool_delete(&Pool);
	if (Ws)
		rpmaf_workers_delete(&Ws);
	if (Mr)
		rpma_mr_dereg(&Mr);
	free(Mem);
	if (Peer)
		rpma_peer_delete(&Peer);
	rpmaf_cfg_delete(&Cfg);
	t_srv_kill(&Srv2);
	if (srv_stop(&Srv)) {
		fprintf(stderr, "the server did not end well\n");
		ret = -1;
	}
	if (getenv("POOL_KEEP_DIR")) /* to read the servers' logs afterwards */
		return ret;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", Dir);
	return system(cmd) == 0 ? ret : -1;
}

/* fill -- the record of thread t, index i in region r: a pattern none other has */
static uint8_t
fill(unsigned r, unsigned t, unsigned i, unsigned j)
{
	return (uint8_t)(r * 131 + t * 61 + i * 7 + j * 13 + 1);
}

/* ------------------------------------------------------------- writers */

struct writer {
	unsigned t;
	atomic_int failed;
	atomic_int busy[INFLIGHT]; /* ops[k] is in flight */
	struct rpmaf_op ops[INFLIGHT];
};

/* writer_cb -- one of a writer's operations completed: its slot is free again */
static void
writer_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct writer *wr = ctx;

	if (status)
		atomic_store(&wr->failed, status);
	atomic_store(&wr->busy[op - wr->ops], 0);
}

/* writer_slot -- a free slot of the writer, waiting for one up to 3 operation times */
static int
writer_slot(struct writer *wr)
{
	long long limit = t_now_ms() + 3 * OP_MS;

	for (;;) {
		for (int k = 0; k < INFLIGHT; k++)
			if (!atomic_load(&wr->busy[k]))
				return k;
		if (t_now_ms() > limit)
			return -1;
		usleep(50);
	}
}

/* writer_submit -- write and persist record i of the writer in region r */
static int
writer_submit(struct writer *wr, unsigned r, unsigned i)
{
	size_t off = ((size_t)wr->t * PER_THREAD + i) * RECORD;
	size_t src = (size_t)r * (MEM_SIZE / 2) + off;
	int k = writer_slot(wr), ret;

	if (k < 0)
		return RPMAF_E_TIMEOUT;
	for (unsigned j = 0; j < RECORD; j++)
		Mem[src + j] = fill(r, wr->t, i, j);
	atomic_store(&wr->busy[k], 1);
	ret = rpmaf_pool_write(Pool, &wr->ops[k], r ? "gpspm" : "apm", off, Mr, src, RECORD,
			       RPMAF_OP_PERSIST, writer_cb, wr);
	if (ret)
		atomic_store(&wr->busy[k], 0);
	return ret;
}

/* writer_main -- write every record of the thread in both regions, INFLIGHT at a time */
static void *
writer_main(void *arg)
{
	struct writer *wr = arg;
	long long limit;
	int ret;

	for (unsigned i = 0; i < PER_THREAD; i++)
		for (unsigned r = 0; r < 2; r++)
			if ((ret = writer_submit(wr, r, i)))
				atomic_store(&wr->failed, ret);
	limit = t_now_ms() + 3 * OP_MS; /* every operation completes by then: none hangs */
	for (int k = 0; k < INFLIGHT; k++)
		while (atomic_load(&wr->busy[k]) && t_now_ms() < limit)
			usleep(50);
	for (int k = 0; k < INFLIGHT; k++)
		if (atomic_load(&wr->busy[k]))
			atomic_store(&wr->failed, RPMAF_E_TIMEOUT);
	return NULL;
}

/* read_sync -- read len bytes of region at off into Mem at dst with rpmaf_op_wait() */
static int
read_sync(const char *region, size_t off, size_t dst, size_t len)
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_read(Pool, &op, region, off, Mr, dst, len, NULL, NULL);

	return ret ? ret : rpmaf_op_wait(&op);
}

/* test_write_persist_threads -- many threads over many connections, records verified */
static void
test_write_persist_threads(void **state)
{
	static struct writer wr[THREADS];
	pthread_t th[THREADS];
	size_t len = (size_t)THREADS * PER_THREAD * RECORD;
	size_t bad = 0;

	(void)state;
	for (unsigned t = 0; t < THREADS; t++) {
		memset(&wr[t], 0, sizeof(wr[t]));
		wr[t].t = t;
		assert_int_equal(pthread_create(&th[t], NULL, writer_main, &wr[t]), 0);
	}
	for (unsigned t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		assert_int_equal(atomic_load(&wr[t].failed), 0);
	}
	for (unsigned r = 0; r < 2; r++) {
		size_t base = (size_t)r * (MEM_SIZE / 2);

		memset(Mem + base, 0, len);
		assert_int_equal(read_sync(r ? "gpspm" : "apm", 0, base, len / 2), 0);
		assert_int_equal(read_sync(r ? "gpspm" : "apm", len / 2, base + len / 2, len / 2),
				 0);
		for (unsigned t = 0; t < THREADS; t++)
			for (unsigned i = 0; i < PER_THREAD; i++)
				for (unsigned j = 0; j < RECORD; j++)
					bad +=
					    Mem[base + ((size_t)t * PER_THREAD + i) * RECORD + j] !=
					    fill(r, t, i, j);
	}
	assert_int_equal(bad, 0);
}

/* write_sync -- write len bytes of Mem at src into region at off, flags, and wait */
static int
write_sync(const char *region, size_t off, size_t src, size_t len, unsigned flags)
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_write(Pool, &op, region, off, Mr, src, len, flags, NULL, NULL);

	return ret ? ret : rpmaf_op_wait(&op);
}

/* test_read_flush_atomic -- read, both flushes, atomic writes with and without a flush */
static void
test_read_flush_atomic(void **state)
{
	const char *regions[] = {"apm", "gpspm"};
	struct rpmaf_op op;
	char v[8];

	(void)state;
	for (unsigned r = 0; r < 2; r++) {
		size_t off = REGION - 4096;

		for (unsigned j = 0; j < 256; j++)
			Mem[j] = (uint8_t)(j ^ (r + 0x5a));
		assert_int_equal(write_sync(regions[r], off, 0, 256, 0), 0);
		assert_int_equal(
		    rpmaf_pool_flush(Pool, &op, regions[r], off, 256, RPMAF_OP_PERSIST, NULL, NULL),
		    0);
		assert_int_equal(rpmaf_op_wait(&op), 0);
		assert_int_equal(
		    rpmaf_pool_flush(Pool, &op, regions[r], off, 256, RPMAF_OP_VISIBLE, NULL, NULL),
		    0);
		assert_int_equal(rpmaf_op_wait(&op), 0);
		for (unsigned k = 0; k < 8; k++)
			v[k] = (char)(0xa0 + k + r);
		assert_int_equal(rpmaf_pool_atomic_write(Pool, &op, regions[r], off + 64, v,
							 RPMAF_OP_PERSIST, NULL, NULL),
				 0);
		assert_int_equal(rpmaf_op_wait(&op), 0);
		v[0] = 0x11;
		assert_int_equal(
		    rpmaf_pool_atomic_write(Pool, &op, regions[r], off + 128, v, 0, NULL, NULL), 0);
		assert_int_equal(rpmaf_op_wait(&op), 0);
		memset(Mem + 4096, 0, 256);
		assert_int_equal(read_sync(regions[r], off, 4096, 256), 0);
		for (unsigned j = 0; j < 256; j++) {
			uint8_t want = (uint8_t)(j ^ (r + 0x5a));

			if (j >= 64 && j < 72)
				want = (uint8_t)(0xa0 + (j - 64) + r);
			else if (j >= 128 && j < 136)
				want = j == 128 ? 0x11 : (uint8_t)(0xa0 + (j - 128) + r);
			assert_int_equal(Mem[4096 + j], want);
		}
	}
}

/* pool_call_sync -- a call to handler id of pool's target t0 and its wait */
static int
pool_call_sync(struct rpmaf_pool *pool, uint32_t id, const void *req, size_t len, void *reply,
	       size_t max, size_t *reply_len)
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_call(pool, &op, "t0", id, req, len, reply, max, NULL, NULL);

	if (ret || (ret = rpmaf_op_wait(&op)))
		return ret;
	*reply_len = rpmaf_op_reply_len(&op);
	return 0;
}

/* call_sync -- a call to handler id of Pool's t0 and its wait */
static int
call_sync(uint32_t id, const void *req, size_t len, void *reply, size_t max, size_t *reply_len)
{
	return pool_call_sync(Pool, id, req, len, reply, max, reply_len);
}

/* test_call -- an echo round trip, an unknown handler, a reply too long */
static void
test_call(void **state)
{
	char req[1000], reply[1000];
	size_t len = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(req); i++)
		req[i] = (char)(i * 7);
	for (unsigned n = 0; n < 50; n++) {
		size_t l = (n * 97) % sizeof(req);

		memset(reply, 0, sizeof(reply));
		assert_int_equal(call_sync(ECHO_ID, req, l, reply, sizeof(reply), &len), 0);
		assert_int_equal(len, l);
		assert_memory_equal(reply, req, l);
	}
	assert_int_equal(call_sync(99, req, 10, reply, sizeof(reply), &len), RPMAF_E_NOENT);
	assert_int_equal(call_sync(ECHO_ID, req, 100, reply, 10, &len), RPMAF_E_REMOTE);
}

/* never_cb -- a callback that must not run */
static void
never_cb(struct rpmaf_op *op, int status, void *ctx)
{
	(void)op;
	(void)status;
	atomic_store((atomic_int *)ctx, 1);
}

/* test_bad_args -- what the submission refuses, with nothing submitted */
static void
test_bad_args(void **state)
{
	static atomic_int ran;
	struct rpmaf_op op;
	char v[8] = {0};
	char big[8192];

	(void)state;
	assert_int_equal(
	    rpmaf_pool_write(Pool, &op, "apm", REGION - 8, Mr, 0, 16, 0, never_cb, &ran),
	    RPMAF_E_INVAL);
	assert_int_equal(
	    rpmaf_pool_write(Pool, &op, "apm", REGION + 4096, Mr, 0, 1, 0, never_cb, &ran),
	    RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "nosuch", 0, Mr, 0, 16, 0, never_cb, &ran),
			 RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "ro", 0, Mr, 0, 16, 0, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_flush(Pool, &op, "ro", 0, 16, RPMAF_OP_VISIBLE, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "apm", 0, Mr, 0, 16,
					  RPMAF_OP_PERSIST | RPMAF_OP_VISIBLE, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "apm", 0, Mr, 0, 0, 0, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_flush(Pool, &op, "apm", 0, 16, 0, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_atomic_write(Pool, &op, "apm", 4, v, 0, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_read(Pool, &op, "apm", 0, NULL, 0, 16, never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_pool_call(Pool, &op, "nosuch", ECHO_ID, v, 8, v, 8, never_cb, &ran),
			 RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_call(Pool, &op, "t0", ECHO_ID, big, sizeof(big), big,
					 sizeof(big), never_cb, &ran),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_op_wait(NULL), RPMAF_E_INVAL);
	usleep(100000);
	assert_int_equal(atomic_load(&ran), 0);
}

/* wait_cb -- a callback operation's completion */
static void
wait_cb(struct rpmaf_op *op, int status, void *ctx)
{
	(void)op;
	atomic_store((atomic_int *)ctx, status == 0 ? 1 : status);
}

/* test_op_wait -- the blocking helper, and what it refuses */
static void
test_op_wait(void **state)
{
	static atomic_int done;
	struct rpmaf_op op;
	long long limit;

	(void)state;
	memset(Mem, 0x3c, 4096);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "apm", 8192, Mr, 0, 4096, 0, NULL, NULL), 0);
	assert_int_equal(rpmaf_op_wait(&op), 0);
	assert_int_equal(rpmaf_op_wait(&op), RPMAF_E_INVAL); /* waited already */
	assert_int_equal(rpmaf_pool_write(Pool, &op, "apm", 8192, Mr, 0, 4096, 0, wait_cb, &done),
			 0);
	assert_int_equal(rpmaf_op_wait(&op), RPMAF_E_INVAL); /* it has a callback */
	limit = t_now_ms() + 2 * OP_MS;
	while (!atomic_load(&done) && t_now_ms() < limit)
		usleep(1000);
	assert_int_equal(atomic_load(&done), 1);
}

/* test_stats -- the counters moved, and the dump is JSON lines */
static void
test_stats(void **state)
{
	struct rpmaf_pool_stats st;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	(void)state;
	assert_int_equal(rpmaf_pool_get_stats(Pool, &st), 0);
	assert_int_equal(st.connections, 4);
	assert_true(st.healthy >= 1);
	assert_true(st.ops[3] >= 2 * THREADS * PER_THREAD);
	assert_true(st.ops[1] >= 4);
	assert_true(st.ops[5] >= 50);
	assert_true(st.lat_p50_ns > 0 && st.lat_max_ns >= st.lat_p99_ns);
	assert_non_null(f);
	assert_int_equal(rpmaf_pool_dump_json(Pool, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"scope\":\"conn\""));
	assert_non_null(strstr(text, "\"scope\":\"worker\""));
	free(text);
}

/* sync_op -- wait for op if submitted (ret 0): its status, else ret */
static int
sync_op(int ret, struct rpmaf_op *op)
{
	return ret ? ret : rpmaf_op_wait(op);
}

/* a writer of test_region_removed: INFLIGHT writes at a time, what they completed with */
struct victim_writer {
	unsigned t;
	atomic_ullong ok, noent, other;
	atomic_int first_other, inflight;
	atomic_int busy[INFLIGHT];
	struct rpmaf_op ops[INFLIGHT];
};

/* the writers of test_region_removed (static: they may outlive a failed assertion's jump) */
static struct victim_writer Victims[4];
static atomic_int Victims_stop; /* the removal did not come: stop writing */

/* victim_cb -- count a completion by its status, free its slot */
static void
victim_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct victim_writer *w = ctx;
	int none = 0;

	if (!status)
		atomic_fetch_add(&w->ok, 1);
	else if (status == RPMAF_E_NOENT)
		atomic_fetch_add(&w->noent, 1);
	else if (!atomic_fetch_add(&w->other, 1))
		atomic_compare_exchange_strong(&w->first_other, &none, status);
	atomic_store(&w->busy[op - w->ops], 0);
	atomic_fetch_sub(&w->inflight, 1);
}

/* victim_submit -- one 2 KiB write in slot i; false once the region is gone */
static bool
victim_submit(struct victim_writer *w, unsigned i)
{
	size_t len = 2 << 10, off = ((size_t)w->t * INFLIGHT + i) * len;
	int ret;

	atomic_store(&w->busy[i], 1);
	atomic_fetch_add(&w->inflight, 1);
	ret = rpmaf_pool_write(Pool, &w->ops[i], "victim", off, Mr, off, len, 0, victim_cb, w);
	if (!ret)
		return true;
	atomic_store(&w->busy[i], 0);
	atomic_fetch_sub(&w->inflight, 1);
	if (ret == RPMAF_E_NOENT) {
		atomic_fetch_add(&w->noent, 1);
		return false;
	}
	return ret == RPMAF_E_AGAIN;
}

/*
 * victim_write -- keep INFLIGHT writes into "victim" in flight until the
 * region is gone (RPMAF_E_NOENT, at a submission or a completion), then
 * wait for the last ones
 */
static void *
victim_write(void *arg)
{
	struct victim_writer *w = arg;
	long long limit = t_now_ms() + 20000;
	bool going = true;

	while (going && !atomic_load(&w->noent) && !atomic_load(&Victims_stop) &&
	       t_now_ms() < limit) {
		bool any = false;

		for (unsigned i = 0; going && i < INFLIGHT; i++) {
			if (!atomic_load(&w->busy[i]))
				any = true, going = victim_submit(w, i);
		}
		/* every slot in flight: let the workers run (valgrind runs one thread at a time) */
		if (!any)
			sched_yield();
	}
	while (atomic_load(&w->inflight) && t_now_ms() < limit + 10000)
		usleep(1000);
	return NULL;
}

/*
 * victim_remove -- the server removes "victim" while 4 threads keep writes
 * in flight to it: each write completes, or fails with RPMAF_E_NOENT once
 * the client applied the removal; none fails otherwise (the server
 * deregisters only once every client confirmed the announcement, so no
 * write meets a key that went away and no connection breaks)
 */
static void
victim_remove(void)
{
	pthread_t th[4];
	char line[64] = "";
	unsigned started = 0;
	int got;

	memset(Victims, 0, sizeof(Victims));
	atomic_store(&Victims_stop, 0);
	for (; started < 4; started++) {
		Victims[started].t = started;
		if (pthread_create(&th[started], NULL, victim_write, &Victims[started]))
			break;
	}
	usleep(50000);
	kill(Srv.pid, SIGUSR1);
	if ((got = t_srv_line(&Srv, "REMOVED", line, sizeof(line), 10000)))
		atomic_store(&Victims_stop, 1);
	/* every writer joined before anything is asserted: they use Victims */
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	assert_int_equal(started, 4);
	assert_int_equal(got, 0);
	assert_string_equal(line, "REMOVED 0");
	for (unsigned t = 0; t < 4; t++) {
		struct victim_writer *w = &Victims[t];

		assert_int_equal(atomic_load(&w->inflight), 0);
		if (atomic_load(&w->other))
			fail_msg("writer %u: %llu writes failed, the first with %d", t,
				 (unsigned long long)atomic_load(&w->other),
				 atomic_load(&w->first_other));
		assert_true(atomic_load(&w->ok) > 0);
		assert_true(atomic_load(&w->noent) >= 1);
	}
}

/*
 * test_region_removed -- a removal on the server, under load, reaches the
 * table; operations fail with RPMAF_E_NOENT, nothing reconnects
 */
static void
test_region_removed(void **state)
{
	struct rpmaf_pool_region info;
	struct rpmaf_pool_stats before, after;
	struct rpmaf_op op;
	long long limit;

	(void)state;
	assert_int_equal(rpmaf_pool_region(Pool, "victim", &info), 0);
	assert_int_equal(info.size, SMALL);
	assert_int_equal(write_sync("victim", 0, 0, 64, 0), 0);
	assert_int_equal(rpmaf_pool_get_stats(Pool, &before), 0);
	victim_remove();
	limit = t_now_ms() + 5000;
	while (rpmaf_pool_region(Pool, "victim", &info) == 0 && t_now_ms() < limit)
		usleep(1000);
	assert_int_equal(rpmaf_pool_region(Pool, "victim", &info), RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "victim", 0, Mr, 0, 64, 0, NULL, NULL),
			 RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_region(Pool, "apm", &info), 0);
	assert_true(info.apm);
	assert_int_equal(rpmaf_pool_get_stats(Pool, &after), 0);
	assert_int_equal(after.reconnects, before.reconnects);
}

/* test_wrong_key -- a pool with a key the server does not hold is refused */
static void
test_wrong_key(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	long long t0;

	(void)state;
	assert_int_equal(client_cfg(Key_b, &cfg), 0);
	assert_int_equal(rpmaf_workers_new(cfg, Peer, &ws), 0);
	assert_int_equal(rpmaf_pool_new(cfg, Peer, ws, &pool), 0);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_pool_wait_ready(pool, 10000), RPMAF_E_AUTH);
	assert_true(t_now_ms() - t0 < 9000);
	assert_int_equal(rpmaf_pool_delete(&pool), 0);
	assert_null(pool);
	assert_int_equal(rpmaf_workers_delete(&ws), 0);
	rpmaf_cfg_delete(&cfg);
}

/* silent_accept -- a listener that accepts TCP connections and never answers */
static void *
silent_accept(void *arg)
{
	int fd = *(int *)arg, c;

	while ((c = accept(fd, NULL, NULL)) >= 0)
		; /* held open, never read: the connection attempt hangs */
	return NULL;
}

/* silent_listen -- a silent listener on Addr at a port the kernel picks, into *port */
static int
silent_listen(char *port, size_t size)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || inet_pton(AF_INET, Addr, &sa.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(port, size, "%u", ntohs(sa.sin_port));
	return fd;
}

/* interrupt_later -- rpmaf_pool_interrupt() after 200 ms, from another thread */
static void *
interrupt_later(void *arg)
{
	usleep(200000);
	(void)rpmaf_pool_interrupt(arg);
	return NULL;
}

/*
 * test_interrupt_connecting -- a target that accepts and never answers:
 * rpmaf_pool_interrupt() ends the wait for readiness at once, and
 * rpmaf_pool_delete() abandons the attempt in progress rather than wait
 * for timeouts.connect_ms (3 s)
 */
static void
test_interrupt_connecting(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	pthread_t silent, intr;
	char port[16];
	long long t0;
	int fd;

	(void)state;
	if (Netns)
		skip();
	assert_true((fd = silent_listen(port, sizeof(port))) >= 0);
	assert_int_equal(pthread_create(&silent, NULL, silent_accept, &fd), 0);
	assert_int_equal(client_yaml(Key_a, port, 1, "{}", &cfg), 0);
	assert_int_equal(rpmaf_workers_new(cfg, Peer, &ws), 0);
	assert_int_equal(rpmaf_pool_new(cfg, Peer, ws, &pool), 0);
	assert_int_equal(pthread_create(&intr, NULL, interrupt_later, pool), 0);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_pool_wait_ready(pool, 10000), RPMAF_E_SHUTDOWN);
	assert_true(t_now_ms() - t0 < 1000);
	assert_int_equal(pthread_join(intr, NULL), 0);
	assert_int_equal(rpmaf_pool_wait_ready(pool, 10000), RPMAF_E_SHUTDOWN);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_pool_delete(&pool), 0);
	if (getenv("INTEG_DEBUG"))
		fprintf(stderr, "delete while connecting: %lld ms\n", t_now_ms() - t0);
	assert_true(t_now_ms() - t0 < 1000);
	assert_int_equal(rpmaf_workers_delete(&ws), 0);
	rpmaf_cfg_delete(&cfg);
	shutdown(fd, SHUT_RDWR);
	close(fd);
	assert_int_equal(pthread_join(silent, NULL), 0);
}

/* log_has -- the file at path holds text */
static bool
log_has(const char *path, const char *text)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* test_call_handler_fails -- a failing handler: RPMAF_E_REMOTE, logged; the pool goes on */
static void
test_call_handler_fails(void **state)
{
	char req[64] = "please fail", reply[64], path[128], want[64];
	size_t len = 0;
	long long limit;

	(void)state;
	assert_int_equal(call_sync(FAIL_ID, req, sizeof(req), reply, sizeof(reply), &len),
			 RPMAF_E_REMOTE);
	assert_int_equal(call_sync(FAIL_ID, req, 0, reply, sizeof(reply), &len), RPMAF_E_REMOTE);
	memset(reply, 0, sizeof(reply));
	assert_int_equal(call_sync(ECHO_ID, req, 12, reply, sizeof(reply), &len), 0);
	assert_int_equal(len, 12);
	assert_string_equal(reply, "please fail");
	snprintf(path, sizeof(path), "%s/server-std.log", Dir);
	snprintf(want, sizeof(want), "handler %u failed: %d", FAIL_ID, FAIL_CODE);
	limit = t_now_ms() + 5000; /* the server's log is written by its worker */
	while (!log_has(path, want) && t_now_ms() < limit)
		usleep(10000);
	assert_true(log_has(path, want));
}

/* side_pool -- a pool of its own (workers and all) on cfg; 0 once it is ready */
static int
side_pool(struct rpmaf_cfg *cfg, struct rpmaf_workers **ws, struct rpmaf_pool **pool)
{
	if (rpmaf_workers_new(cfg, Peer, ws) || rpmaf_pool_new(cfg, Peer, *ws, pool))
		return -1;
	return rpmaf_pool_wait_ready(*pool, READY_MS);
}

/* side_pool_end -- delete what side_pool() made */
static void
side_pool_end(struct rpmaf_cfg **cfg, struct rpmaf_workers **ws, struct rpmaf_pool **pool)
{
	assert_int_equal(rpmaf_pool_delete(pool), 0);
	assert_null(*pool);
	if (*ws)
		assert_int_equal(rpmaf_workers_delete(ws), 0);
	rpmaf_cfg_delete(cfg);
}

/*
 * test_paged_list -- a target with more regions than one message lists:
 * every one of them reaches the table, over many pages, and can be used
 */
static void
test_paged_list(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_pool_region info;
	struct rpmaf_server_stats st;
	struct rpmaf_op op;
	char name[32];

	(void)state;
	assert_int_equal(srv_spawn(&Srv2, Port2, "paged"), 0);
	assert_int_equal(
	    client_yaml(Key_a, Port2, 1, "{sq: 16, messages: {size: 4K, credits: 4}}", &cfg), 0);
	assert_int_equal(side_pool(cfg, &ws, &pool), 0);
	for (int i = 0; i < PAGED_REGIONS; i++) {
		snprintf(name, sizeof(name), "paged-region-%02d", i);
		assert_int_equal(rpmaf_pool_region(pool, name, &info), 0);
		assert_int_equal(info.size, (uint64_t)4096 * (i + 1));
	}
	/* one connection, nothing but the listing: each request served was a page */
	assert_int_equal(srv_stats(&Srv2, &st), 0);
	assert_true(st.requests >= 4);
	for (int i = 0; i < PAGED_REGIONS; i += PAGED_REGIONS - 1) {
		snprintf(name, sizeof(name), "paged-region-%02d", i);
		memset(Mem, 0x40 + i, 4096);
		assert_int_equal(
		    sync_op(rpmaf_pool_write(pool, &op, name, 0, Mr, 0, 4096, 0, NULL, NULL), &op),
		    0);
		memset(Mem + 4096, 0, 4096);
		assert_int_equal(
		    sync_op(rpmaf_pool_read(pool, &op, name, 0, Mr, 4096, 4096, NULL, NULL), &op),
		    0);
		assert_memory_equal(Mem, Mem + 4096, 4096);
	}
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(srv_stop(&Srv2), 0);
}

/*
 * test_max_connections -- a target that takes 2 connections of the pool's
 * 4: the others are rejected (and counted), the pool works on the 2
 */
static void
test_max_connections(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_server_stats st;
	struct rpmaf_pool_stats ps;
	struct rpmaf_op op;
	long long limit;

	(void)state;
	assert_int_equal(srv_spawn(&Srv2, Port2, "max2"), 0);
	assert_int_equal(
	    client_yaml(Key_a, Port2, 4, "{sq: 64, messages: {size: 4K, credits: 8}}", &cfg), 0);
	assert_int_equal(side_pool(cfg, &ws, &pool), 0);
	limit = t_now_ms() + 10000; /* every connection has been tried */
	do {
		usleep(50000);
		assert_int_equal(srv_stats(&Srv2, &st), 0);
	} while ((st.rejected < 2 || st.accepted < 2) && t_now_ms() < limit);
	assert_true(st.rejected >= 2);
	assert_int_equal(st.accepted, 2);
	assert_int_equal(st.connections, 2);
	/* the server counts a connection accepted before its session is ready on the pool's side */
	do {
		assert_int_equal(rpmaf_pool_get_stats(pool, &ps), 0);
	} while (ps.healthy < 2 && t_now_ms() < limit && !usleep(10000));
	assert_int_equal(ps.connections, 4);
	assert_int_equal(ps.healthy, 2);
	for (unsigned i = 0; i < 64; i++) {
		size_t off = (size_t)i * 1024;

		memset(Mem, (int)(i + 1), 1024);
		assert_int_equal(
		    sync_op(rpmaf_pool_write(pool, &op, "m", off, Mr, 0, 1024, 0, NULL, NULL), &op),
		    0);
	}
	memset(Mem, 0, 65536);
	assert_int_equal(sync_op(rpmaf_pool_read(pool, &op, "m", 0, Mr, 0, 65536, NULL, NULL), &op),
			 0);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(Mem[i * 1024 + 1023], i + 1);
	/* still only the two, however often the others were refused */
	assert_int_equal(srv_stats(&Srv2, &st), 0);
	assert_int_equal(st.accepted, 2);
	assert_true(st.rejected >= 2);
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(srv_stop(&Srv2), 0);
}

/* an operation of the pool deleted under it, and how often it completed */
struct del_op {
	struct rpmaf_op op;
	atomic_int calls;
	atomic_int status;
};

/* del_cb -- count the completion and keep its status */
static void
del_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct del_op *d = ctx;

	(void)op;
	atomic_store(&d->status, status);
	atomic_fetch_add(&d->calls, 1);
}

/* del_submit -- operation i of the mix: GPSPM write+persist, APM read, call, flush */
static int
del_submit(struct rpmaf_pool *pool, struct del_op *d, unsigned i, char *reply)
{
	size_t off = (size_t)(i % 64) * 8192;

	switch (i % 4) {
	case 0:
		return rpmaf_pool_write(pool, &d->op, "gpspm", off, Mr, off, 8192, RPMAF_OP_PERSIST,
					del_cb, d);
	case 1:
		/* a destination of its own: no two reads land on the same bytes */
		return rpmaf_pool_read(pool, &d->op, "apm", off, Mr,
				       MEM_SIZE / 2 + (size_t)(i / 4) * 8192, 8192, del_cb, d);
	case 2:
		return rpmaf_pool_call(pool, &d->op, "t0", ECHO_ID, "ping", 4, reply, 64, del_cb,
				       d);
	default:
		return rpmaf_pool_flush(pool, &d->op, "apm", off, 8192, RPMAF_OP_PERSIST, del_cb,
					d);
	}
}

/*
 * test_delete_inflight -- a pool deleted with operations posted, waiting
 * for replies and queued: every one completes exactly once, with its real
 * status or RPMAF_E_SHUTDOWN, and the deletion does not hang
 */
static void
test_delete_inflight(void **state)
{
	static struct del_op d[DEL_OPS];
	static struct rpmaf_op waited[8];
	static char replies[DEL_OPS][64];
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	unsigned submitted = 0, shutdown = 0, ok = 0;
	long long t0;
	int ret;

	(void)state;
	assert_int_equal(
	    client_yaml(Key_a, Port, 2, "{sq: 8, cq: 64, messages: {size: 4K, credits: 4}}", &cfg),
	    0);
	assert_int_equal(side_pool(cfg, &ws, &pool), 0);
	for (unsigned i = 0; i < DEL_OPS; i++) {
		atomic_store(&d[i].calls, 0);
		atomic_store(&d[i].status, 1);
		ret = del_submit(pool, &d[i], i, replies[i]);
		assert_int_equal(ret, 0);
		submitted++;
	}
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(rpmaf_pool_write(pool, &waited[k], "apm", (size_t)k * 65536, Mr, 0,
						  65536, RPMAF_OP_PERSIST, NULL, NULL),
				 0);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_pool_delete(&pool), 0);
	assert_true(t_now_ms() - t0 < OP_MS);
	assert_null(pool);
	/* every callback has run by the time the deletion returned, and only once */
	for (unsigned i = 0; i < submitted; i++) {
		int st = atomic_load(&d[i].status);

		assert_int_equal(atomic_load(&d[i].calls), 1);
		if (st != 0 && st != RPMAF_E_SHUTDOWN)
			fprintf(stderr,
				"test_delete_inflight: operation %u (kind %u) completed with %s\n",
				i, i % 4, rpmaf_err_str(st));
		assert_true(st == 0 || st == RPMAF_E_SHUTDOWN);
		shutdown += st == RPMAF_E_SHUTDOWN;
		ok += st == 0;
	}
	for (unsigned k = 0; k < 8; k++) {
		ret = rpmaf_op_wait(&waited[k]);
		assert_true(ret == 0 || ret == RPMAF_E_SHUTDOWN);
		shutdown += ret == RPMAF_E_SHUTDOWN;
	}
	assert_true(shutdown > 0); /* some were still in flight or queued */
	usleep(200000);
	for (unsigned i = 0; i < submitted; i++)
		assert_int_equal(atomic_load(&d[i].calls), 1);
	if (getenv("INTEG_DEBUG"))
		fprintf(stderr, "delete: %u ok, %u shut down, of %u\n", ok, shutdown,
			submitted + 8);
	assert_int_equal(rpmaf_workers_delete(&ws), 0);
	rpmaf_cfg_delete(&cfg);
}

/* test_timeout -- a stopped server: the operation times out, the pool recovers */
static void
test_timeout(void **state)
{
	struct rpmaf_op op;
	long long t0, dt;

	(void)state;
	memset(Mem, 0x77, 4096);
	assert_int_equal(srv_freeze(&Srv), 0);
	t0 = t_now_ms();
	assert_int_equal(
	    rpmaf_pool_write(Pool, &op, "gpspm", 0, Mr, 0, 4096, RPMAF_OP_PERSIST, NULL, NULL), 0);
	assert_int_equal(rpmaf_op_wait(&op), RPMAF_E_TIMEOUT);
	dt = t_now_ms() - t0;
	assert_true(dt >= OP_MS - 50 && dt < OP_MS + 1500);
	assert_int_equal(kill(Srv.pid, SIGCONT), 0);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
	assert_int_equal(write_sync("gpspm", 0, 0, 4096, RPMAF_OP_PERSIST), 0);
}

/* ------------------------------------------------------------- a server of this process */

/*
 * The server's application API (calls answered later, the hook of closing
 * connections, memory the application exports) is tested against a server
 * of this process on Port3, so that the test sees what its handlers, its
 * hook and its memory saw. Each of these tests makes its own server (and
 * skips when the servers run in another network namespace).
 */

#define LATER_ID  10 /* answered by the answering thread: the request reversed */
#define NOW_ID	  11 /* answered in the handler: the connection's id and reply_max */
#define NEG_ID	  12 /* answered in the handler with NEG_CODE */
#define LONG_ID	  13 /* answered in the handler: reply_max bytes, one more when asked ('+') */
#define TWICE_ID  14 /* answered twice in the handler */
#define ARGS_ID	  15 /* answered wrongly in the handler, then with "ok" */
#define ADD_ID	  16 /* rpmaf_server_region_add_mem() in the handler (a worker): its code */
#define ECHO2_ID  17 /* an ordinary handler (echo) among them */
#define NEG_CODE  (-5)
#define CALLERS	  4
#define CALLS	  50	     /* calls of each caller */
#define ANSWER_US 500	     /* the answering thread's delay before each answer */
#define POLL_MS	  5000	     /* how long a condition is polled for */
#define MAX_IDS	  64	     /* connection ids noted */
#define MEM_BYTES (1u << 20) /* the memory test_mem_region exports */
#define UNSET	  INT_MIN    /* an atomic_int not written yet */

/* a call the answering thread holds, with a copy of its request */
struct job {
	struct job *next;
	struct rpmaf_call *call;
	size_t len;
	uint8_t req[];
};

/* the answering thread's calls: a stack, the newest answered first (out of order) */
static struct {
	pthread_mutex_t lock; /* guards all below */
	pthread_cond_t cond;  /* a call came, or hold or stop changed */
	struct job *top;
	unsigned held;	       /* calls taken, not answered yet */
	unsigned started;      /* answers begun (rpmaf_call_reply() called) */
	unsigned answered;     /* answers done */
	unsigned errors;       /* answers rpmaf_call_reply() refused */
	bool hold;	       /* answer nothing until cleared */
	bool stop;	       /* answer what is left, hold or not, and end */
	uint64_t ids[MAX_IDS]; /* the connections the calls came on, each once */
	unsigned nids;
} Q = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* what the hook of closing connections reported */
static struct {
	pthread_mutex_t lock; /* guards all below */
	uint64_t ids[MAX_IDS];
	unsigned n; /* reports (ids holds the first MAX_IDS) */
} Closed = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* a pool of these tests, with its workers and configuration */
struct side {
	struct rpmaf_cfg *cfg;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
};

/* the server of this process, its answering thread, its pools and the memory it exports */
static struct {
	struct rpmaf_cfg *cfg;
	struct rpmaf_workers *ws;
	struct rpmaf_server *srv;
	pthread_t answerer;
	bool answering;
	struct side side[2];
	uint8_t *mem; /* mapped by test_mem_region */
} L;

static atomic_int Twice[2]; /* what the two answers of TWICE_ID returned */
static atomic_int Long_ret; /* what the answer of LONG_ID returned */
static atomic_int Args_bad; /* the checks of ARGS_ID that failed, a bit each */

/* atomic_wait -- the value of a once it is no longer UNSET (or after POLL_MS) */
static int
atomic_wait(atomic_int *a)
{
	long long limit = t_now_ms() + POLL_MS;

	while (atomic_load(a) == UNSET && t_now_ms() < limit)
		usleep(1000);
	return atomic_load(a);
}

/* id_add -- note the connection of a call (Q's lock held) */
static void
id_add(uint64_t id)
{
	for (unsigned i = 0; i < Q.nids; i++)
		if (Q.ids[i] == id)
			return;
	if (Q.nids < MAX_IDS)
		Q.ids[Q.nids++] = id;
}

/* later -- LATER_ID's handler: hand a copy of the call to the answering thread */
static void
later(struct rpmaf_call *call, uint32_t id, const void *req, size_t len, void *arg)
{
	struct job *j = malloc(sizeof(*j) + len);

	(void)id;
	(void)arg;
	if (!j) {
		(void)rpmaf_call_reply(call, -1, NULL, 0);
		return;
	}
	j->call = call;
	j->len = len;
	if (len)
		memcpy(j->req, req, len);
	pthread_mutex_lock(&Q.lock);
	id_add(rpmaf_call_conn_id(call));
	j->next = Q.top;
	Q.top = j;
	Q.held++;
	pthread_cond_broadcast(&Q.cond);
	pthread_mutex_unlock(&Q.lock);
}

/* answer -- answer j with its request reversed after a short delay, and free it */
static void
answer(struct job *j)
{
	int ret;

	usleep(ANSWER_US);
	for (size_t i = 0; i < j->len / 2; i++) {
		uint8_t c = j->req[i];

		j->req[i] = j->req[j->len - 1 - i];
		j->req[j->len - 1 - i] = c;
	}
	pthread_mutex_lock(&Q.lock);
	Q.started++;
	pthread_mutex_unlock(&Q.lock);
	ret = rpmaf_call_reply(j->call, 0, j->req, j->len);
	free(j);
	pthread_mutex_lock(&Q.lock);
	Q.held--;
	Q.answered++;
	Q.errors += ret != 0;
	pthread_mutex_unlock(&Q.lock);
}

/* answerer_main -- the answering thread: answer the calls taken, unless held, until stopped */
static void *
answerer_main(void *arg)
{
	struct job *j;

	(void)arg;
	pthread_mutex_lock(&Q.lock);
	for (;;) {
		while (!Q.stop && (!Q.top || Q.hold))
			pthread_cond_wait(&Q.cond, &Q.lock);
		if (!(j = Q.top))
			break;
		Q.top = j->next;
		pthread_mutex_unlock(&Q.lock);
		answer(j);
		pthread_mutex_lock(&Q.lock);
	}
	pthread_mutex_unlock(&Q.lock);
	return NULL;
}

/* q_hold -- hold the calls taken from now on (true), or answer them (false) */
static void
q_hold(bool hold)
{
	pthread_mutex_lock(&Q.lock);
	Q.hold = hold;
	pthread_cond_broadcast(&Q.cond);
	pthread_mutex_unlock(&Q.lock);
}

/* q_wait -- wait until the answering thread holds held calls and has answered answered */
static bool
q_wait(unsigned held, unsigned answered)
{
	long long limit = t_now_ms() + POLL_MS;
	bool ok;

	for (;;) {
		pthread_mutex_lock(&Q.lock);
		ok = Q.held == held && Q.answered == answered;
		pthread_mutex_unlock(&Q.lock);
		if (ok || t_now_ms() > limit)
			return ok;
		usleep(1000);
	}
}

/* q_get -- a field of Q, read under its lock */
static unsigned
q_get(const unsigned *field)
{
	unsigned v;

	pthread_mutex_lock(&Q.lock);
	v = *field;
	pthread_mutex_unlock(&Q.lock);
	return v;
}

/* q_ids -- the ids of the connections calls came on, into ids[MAX_IDS]; how many */
static unsigned
q_ids(uint64_t *ids)
{
	unsigned n;

	pthread_mutex_lock(&Q.lock);
	n = Q.nids;
	memcpy(ids, Q.ids, n * sizeof(ids[0]));
	pthread_mutex_unlock(&Q.lock);
	return n;
}

/* q_has_id -- a call came on connection id */
static bool
q_has_id(uint64_t id)
{
	bool found = false;

	pthread_mutex_lock(&Q.lock);
	for (unsigned i = 0; i < Q.nids && !found; i++)
		found = Q.ids[i] == id;
	pthread_mutex_unlock(&Q.lock);
	return found;
}

/* answer_ids -- NOW_ID: the call's connection id and reply_max */
static void
answer_ids(struct rpmaf_call *call)
{
	uint64_t v[2] = {rpmaf_call_conn_id(call), rpmaf_call_reply_max(call)};

	(void)rpmaf_call_reply(call, 0, v, sizeof(v));
}

/* answer_long -- LONG_ID: reply_max bytes of a pattern, or one byte more */
static void
answer_long(struct rpmaf_call *call, bool more)
{
	size_t len = rpmaf_call_reply_max(call) + (more ? 1 : 0);
	uint8_t *buf = malloc(len);

	if (!buf) {
		(void)rpmaf_call_reply(call, -1, NULL, 0);
		return;
	}
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 3 + 1);
	atomic_store(&Long_ret, rpmaf_call_reply(call, 0, buf, len));
	free(buf);
}

/*
 * answer_twice -- TWICE_ID: two answers from the handler. Safe here only:
 * the call is freed by the worker that runs this handler, after it returns
 */
static void
answer_twice(struct rpmaf_call *call)
{
	int first = rpmaf_call_reply(call, 0, "first", 5);

	atomic_store(&Twice[1], rpmaf_call_reply(call, 0, "second", 6));
	atomic_store(&Twice[0], first);
}

/* answer_bad_args -- ARGS_ID: what rpmaf_call_reply() refuses, then "ok" */
static void
answer_bad_args(struct rpmaf_call *call)
{
	int bad = 0;

	bad |= (rpmaf_call_reply(NULL, 0, "x", 1) != RPMAF_E_INVAL) << 0;
	bad |= (rpmaf_call_reply(call, 1, NULL, 0) != RPMAF_E_INVAL) << 1;
	bad |= (rpmaf_call_reply(call, 0, NULL, 3) != RPMAF_E_INVAL) << 2;
	bad |= (rpmaf_call_conn_id(NULL) != 0) << 3;
	bad |= (rpmaf_call_reply_max(NULL) != 0) << 4;
	bad |= (rpmaf_call_reply(call, 0, "ok", 2) != 0) << 5;
	atomic_store(&Args_bad, bad);
}

/* answer_add_mem -- ADD_ID: what exporting memory from a worker thread returns */
static void
answer_add_mem(struct rpmaf_call *call, struct rpmaf_server *srv)
{
	static uint8_t page[4096] __attribute__((aligned(4096)));
	struct rpmaf_mem_region r = {"from-worker",    page,  sizeof(page),
				     RPMAF_USAGE_READ, false, NULL};
	int ret = rpmaf_server_region_add_mem(srv, &r);

	(void)rpmaf_call_reply(call, 0, &ret, sizeof(ret));
}

/* special -- the handlers that answer in the handler itself, by id (arg: the server) */
static void
special(struct rpmaf_call *call, uint32_t id, const void *req, size_t len, void *arg)
{
	switch (id) {
	case NOW_ID:
		answer_ids(call);
		break;
	case NEG_ID:
		(void)rpmaf_call_reply(call, NEG_CODE, req, len);
		break;
	case LONG_ID:
		answer_long(call, len && *(const char *)req == '+');
		break;
	case TWICE_ID:
		answer_twice(call);
		break;
	case ARGS_ID:
		answer_bad_args(call);
		break;
	default:
		answer_add_mem(call, arg);
		break;
	}
}

/* on_closed -- the hook of closing connections: note the id */
static void
on_closed(uint64_t conn_id, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&Closed.lock);
	if (Closed.n < MAX_IDS)
		Closed.ids[Closed.n] = conn_id;
	Closed.n++;
	pthread_mutex_unlock(&Closed.lock);
}

/* closed_count -- how often the hook reported id; with id 0, how many reports in all */
static unsigned
closed_count(uint64_t id)
{
	unsigned n = 0;

	pthread_mutex_lock(&Closed.lock);
	for (unsigned i = 0; i < Closed.n && i < MAX_IDS; i++)
		n += Closed.ids[i] == id;
	if (!id)
		n = Closed.n;
	pthread_mutex_unlock(&Closed.lock);
	return n;
}

/* closed_ids -- the ids the hook reported, into ids[MAX_IDS]; how many */
static unsigned
closed_ids(uint64_t *ids)
{
	unsigned n;

	pthread_mutex_lock(&Closed.lock);
	n = Closed.n < MAX_IDS ? Closed.n : MAX_IDS;
	memcpy(ids, Closed.ids, n * sizeof(ids[0]));
	pthread_mutex_unlock(&Closed.lock);
	return n;
}

/* lsrv_reset -- what the handlers and the hook noted, forgotten */
static void
lsrv_reset(void)
{
	pthread_mutex_lock(&Q.lock);
	Q.held = Q.started = Q.answered = Q.nids = 0;
	Q.errors = 0;
	Q.hold = Q.stop = false;
	pthread_mutex_unlock(&Q.lock);
	pthread_mutex_lock(&Closed.lock);
	Closed.n = 0;
	pthread_mutex_unlock(&Closed.lock);
	atomic_store(&Twice[0], UNSET);
	atomic_store(&Twice[1], UNSET);
	atomic_store(&Long_ret, UNSET);
	atomic_store(&Args_bad, UNSET);
}

/* side_end_quiet -- delete what side_pool() made into s, if anything; 0 or -1 */
static int
side_end_quiet(struct side *s)
{
	int ret = 0;

	if (s->pool && rpmaf_pool_delete(&s->pool))
		ret = -1;
	if (s->ws && rpmaf_workers_delete(&s->ws))
		ret = -1;
	rpmaf_cfg_delete(&s->cfg);
	return ret;
}

/*
 * lsrv_teardown -- the pools deleted, every call held answered, then the
 * server, its workers and the memory of test_mem_region deleted; 0 when
 * all of it went well
 */
static int
lsrv_teardown(void **state)
{
	int ret = 0;

	(void)state;
	for (unsigned i = 0; i < 2; i++)
		ret |= side_end_quiet(&L.side[i]);
	if (L.answering) {
		pthread_mutex_lock(&Q.lock);
		Q.stop = true;
		pthread_cond_broadcast(&Q.cond);
		pthread_mutex_unlock(&Q.lock);
		pthread_join(L.answerer, NULL);
		L.answering = false;
	}
	if (L.srv && rpmaf_server_delete(&L.srv))
		ret = -1;
	if (L.ws && rpmaf_workers_delete(&L.ws))
		ret = -1;
	rpmaf_cfg_delete(&L.cfg);
	if (L.mem && munmap(L.mem, MEM_BYTES))
		ret = -1;
	L.mem = NULL;
	return ret;
}

/* lsrv_fail -- a setup that failed half-way: undo it; -1 */
static int
lsrv_fail(void)
{
	(void)lsrv_teardown(NULL);
	return -1;
}

/* lsrv_setup -- the server of this process on Port3, its handlers added, not started */
static int
lsrv_setup(void **state)
{
	struct rpmaf_cfg_err err;
	char yaml[1024];

	(void)state;
	lsrv_reset();
	if (Netns)
		return 0;
	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 2, polling: event}\n"
		 "queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
		 "listen: {address: %s, port: %s, max_connections: 16}\n"
		 "timeouts: {heartbeat_interval_ms: 500, heartbeat_misses: 8}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: %s, file: %s/server-local.log}\n",
		 Addr, Port3, Key_a, log_level(), Dir);
	if (rpmaf_cfg_load_buffer("local", yaml, strlen(yaml), NULL, &L.cfg, &err)) {
		fprintf(stderr, "local server: %s\n", err.msg);
		return -1;
	}
	if (rpmaf_workers_new(L.cfg, Peer, &L.ws) || rpmaf_server_new(L.cfg, Peer, L.ws, &L.srv) ||
	    rpmaf_server_call_handler_add(L.srv, LATER_ID, later, NULL))
		return lsrv_fail();
	for (uint32_t id = NOW_ID; id <= ADD_ID; id++)
		if (rpmaf_server_call_handler_add(L.srv, id, special, L.srv))
			return lsrv_fail();
	return 0;
}

/* lsrv_start -- start the answering thread and the server */
static int
lsrv_start(void)
{
	if (pthread_create(&L.answerer, NULL, answerer_main, NULL))
		return -1;
	L.answering = true;
	return rpmaf_server_start(L.srv);
}

/* lside_new -- pool s of conns connections to the server of this process, ready */
static int
lside_new(struct side *s, unsigned conns)
{
	if (client_yaml(Key_a, Port3, conns, "{sq: 64, messages: {size: 4K, credits: 8}}", &s->cfg))
		return -1;
	return side_pool(s->cfg, &s->ws, &s->pool);
}

/* lside_all_healthy -- wait until every connection of pool is healthy */
static bool
lside_all_healthy(struct rpmaf_pool *pool)
{
	long long limit = t_now_ms() + POLL_MS;
	struct rpmaf_pool_stats st;

	for (;;) {
		if (rpmaf_pool_get_stats(pool, &st))
			return false;
		if (st.healthy == st.connections || t_now_ms() > limit)
			return st.healthy == st.connections;
		usleep(1000);
	}
}

/* a client thread of test_call_later, and the first failure it saw */
struct caller {
	struct rpmaf_pool *pool;
	unsigned t;
	int failed;
};

/* caller_call -- call i of c: the reply must be the request reversed; 0 or why not */
static int
caller_call(struct caller *c, unsigned i)
{
	uint8_t req[1024], reply[1024];
	size_t len = 1 + (c->t * 131 + i * 37) % sizeof(req), rlen = 0;
	int ret;

	for (size_t j = 0; j < len; j++)
		req[j] = fill(3, c->t, i, (unsigned)j);
	memset(reply, 0, sizeof(reply));
	if ((ret = pool_call_sync(c->pool, LATER_ID, req, len, reply, sizeof(reply), &rlen)))
		return ret;
	if (rlen != len)
		return -1000;
	for (size_t j = 0; j < len; j++)
		if (reply[j] != req[len - 1 - j])
			return -1001;
	return 0;
}

/* caller_main -- CALLS calls, one at a time, until one fails */
static void *
caller_main(void *arg)
{
	struct caller *c = arg;

	for (unsigned i = 0; i < CALLS && !c->failed; i++)
		c->failed = caller_call(c, i);
	return NULL;
}

/* calls_later -- CALLERS threads of CALLS calls each, answered later and out of order */
static void
calls_later(struct rpmaf_pool *pool)
{
	static struct caller c[CALLERS];
	pthread_t th[CALLERS];
	uint64_t ids[MAX_IDS];
	unsigned nids;

	for (unsigned t = 0; t < CALLERS; t++) {
		c[t] = (struct caller){.pool = pool, .t = t};
		assert_int_equal(pthread_create(&th[t], NULL, caller_main, &c[t]), 0);
	}
	for (unsigned t = 0; t < CALLERS; t++) {
		pthread_join(th[t], NULL);
		assert_int_equal(c[t].failed, 0);
	}
	assert_true(q_wait(0, CALLERS * CALLS));
	assert_int_equal(q_get(&Q.errors), 0);
	nids = q_ids(ids);
	assert_true(nids >= 1 && nids <= 4); /* the pool's connections */
	for (unsigned i = 0; i < nids; i++)
		assert_true(ids[i] != 0);
}

/* call_ids -- a NOW_ID call: the connection's id and the reply's room the handler saw */
static void
call_ids(struct rpmaf_pool *pool, uint64_t v[2])
{
	size_t len = 0;

	memset(v, 0, 2 * sizeof(v[0]));
	assert_int_equal(pool_call_sync(pool, NOW_ID, "", 0, v, 2 * sizeof(v[0]), &len), 0);
	assert_int_equal(len, 2 * sizeof(v[0]));
	assert_true(v[0] != 0);
}

/* calls_long -- a reply of reply_max bytes goes, one of a byte more fails the call */
static void
calls_long(struct rpmaf_pool *pool, size_t max)
{
	static uint8_t reply[8192];
	size_t len = 0;

	assert_int_equal(pool_call_sync(pool, LONG_ID, "", 0, reply, sizeof(reply), &len), 0);
	assert_int_equal(len, max);
	for (size_t i = 0; i < max; i++)
		assert_int_equal(reply[i], (uint8_t)(i * 3 + 1));
	assert_int_equal(atomic_wait(&Long_ret), 0);
	atomic_store(&Long_ret, UNSET);
	assert_int_equal(pool_call_sync(pool, LONG_ID, "+", 1, reply, sizeof(reply), &len),
			 RPMAF_E_REMOTE);
	assert_int_equal(atomic_wait(&Long_ret), 0); /* taken; the call failed */
}

/* calls_in_handler -- answers from the handler itself: ids, long, negative, twice, bad */
static void
calls_in_handler(struct rpmaf_pool *pool)
{
	char reply[64] = {0};
	uint64_t v[2];
	size_t len = 0;
	int ret = 0;

	call_ids(pool, v);
	assert_true(v[1] > 0 && v[1] < 4096);
	calls_long(pool, v[1]);
	assert_int_equal(pool_call_sync(pool, NEG_ID, "neg", 3, reply, sizeof(reply), &len),
			 RPMAF_E_REMOTE);
	assert_int_equal(pool_call_sync(pool, TWICE_ID, "", 0, reply, sizeof(reply), &len), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(reply, "first", 5);
	assert_int_equal(atomic_wait(&Twice[0]), 0);
	assert_int_equal(atomic_load(&Twice[1]), RPMAF_E_INVAL);
	assert_int_equal(pool_call_sync(pool, ARGS_ID, "", 0, reply, sizeof(reply), &len), 0);
	assert_int_equal(len, 2);
	assert_memory_equal(reply, "ok", 2);
	assert_int_equal(atomic_wait(&Args_bad), 0);
	assert_int_equal(pool_call_sync(pool, ADD_ID, "", 0, &ret, sizeof(ret), &len), 0);
	assert_int_equal(len, sizeof(ret));
	assert_int_equal(ret, RPMAF_E_INVAL);
	assert_int_equal(pool_call_sync(pool, ECHO2_ID, "echo", 4, reply, sizeof(reply), &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(reply, "echo", 4);
}

/*
 * calls_one_conn -- a pool of one connection: its calls, answered at once
 * or later, all carry one id, which no connection of the other pool had
 */
static void
calls_one_conn(struct side *s)
{
	unsigned nids = q_get(&Q.nids), answered = q_get(&Q.answered);
	uint8_t reply[8];
	uint64_t first[2], v[2];
	size_t len;

	assert_int_equal(lside_new(s, 1), 0);
	call_ids(s->pool, first);
	assert_false(q_has_id(first[0]));
	for (unsigned i = 0; i < 5; i++) {
		call_ids(s->pool, v);
		assert_int_equal(v[0], first[0]);
		assert_int_equal(
		    pool_call_sync(s->pool, LATER_ID, "abcdefgh", 8, reply, sizeof(reply), &len),
		    0);
		assert_memory_equal(reply, "hgfedcba", 8);
	}
	assert_true(q_wait(0, answered + 5));
	assert_int_equal(q_get(&Q.nids), nids + 1);
	assert_true(q_has_id(first[0]));
}

/* a call whose completion the test waits for (del_cb() notes it) */
struct waited {
	struct del_op d;
	char reply[16];
};

/* waited_call -- a LATER_ID call of "0123456789" into w, held by the answering thread */
static void
waited_call(struct rpmaf_pool *pool, struct waited *w)
{
	unsigned answered = q_get(&Q.answered);

	memset(w, 0, sizeof(*w));
	q_hold(true);
	assert_int_equal(rpmaf_pool_call(pool, &w->d.op, "t0", LATER_ID, "0123456789", 10, w->reply,
					 sizeof(w->reply), del_cb, &w->d),
			 0);
	assert_true(q_wait(1, answered));
}

/* waited_done -- wait for w's completion (once); its status */
static int
waited_done(struct waited *w)
{
	long long limit = t_now_ms() + POLL_MS;

	while (!atomic_load(&w->d.calls) && t_now_ms() < limit)
		usleep(1000);
	assert_int_equal(atomic_load(&w->d.calls), 1);
	return atomic_load(&w->d.status);
}

/* release_main -- a thread that lets the answering thread go on after a while */
static void *
release_main(void *arg)
{
	(void)arg;
	usleep(300000);
	q_hold(false);
	return NULL;
}

/*
 * call_stop_waits -- rpmaf_server_stop() waits for a call still held: the
 * answer has begun when it returns, and it reached the client
 */
static void
call_stop_waits(struct rpmaf_pool *pool)
{
	static struct waited w;
	unsigned started = q_get(&Q.started), started_then;
	pthread_t th;
	int ret;

	waited_call(pool, &w);
	assert_int_equal(pthread_create(&th, NULL, release_main, NULL), 0);
	ret = rpmaf_server_stop(L.srv, 5000);
	started_then = q_get(&Q.started);
	pthread_join(th, NULL);
	assert_int_equal(ret, 0);
	assert_int_equal(started_then, started + 1);
	assert_int_equal(waited_done(&w), 0);
	assert_int_equal(rpmaf_op_reply_len(&w.d.op), 10);
	assert_memory_equal(w.reply, "9876543210", 10);
}

/* call_handler_add_args -- what adding a handler refuses, before the start */
static void
call_handler_add_args(void)
{
	assert_int_equal(rpmaf_server_call_handler_add(NULL, 20, later, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_call_handler_add(L.srv, 20, NULL, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_call_handler_add(L.srv, LATER_ID, later, NULL),
			 RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_handler_add(L.srv, NOW_ID, echo, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_handler_add(L.srv, ECHO2_ID, echo, NULL), 0);
	assert_int_equal(rpmaf_server_call_handler_add(L.srv, ECHO2_ID, later, NULL),
			 RPMAF_E_INVAL);
}

/*
 * test_call_later -- handlers that answer later, from another thread and
 * out of order, for many threads at once; answers from the handler itself
 * (a negative status, a reply too long, a second answer, bad arguments);
 * the connection ids; a stop that waits for a call
 */
static void
test_call_later(void **state)
{
	(void)state;
	if (Netns)
		skip();
	call_handler_add_args();
	assert_int_equal(lsrv_start(), 0);
	assert_int_equal(rpmaf_server_call_handler_add(L.srv, 21, later, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_on_conn_closed(L.srv, on_closed, NULL), RPMAF_E_INVAL);
	assert_int_equal(lside_new(&L.side[0], 4), 0);
	calls_later(L.side[0].pool);
	calls_in_handler(L.side[0].pool);
	calls_one_conn(&L.side[1]);
	call_stop_waits(L.side[0].pool);
	assert_int_equal(closed_count(0), 0); /* no hook: nothing reported */
}

/* ids_seen -- the ids of the connections of pool, as its calls see them (n of them at most) */
static unsigned
ids_seen(struct rpmaf_pool *pool, uint64_t *ids, unsigned n)
{
	unsigned k = 0;
	uint64_t v[2];

	for (unsigned i = 0; i < 32; i++) {
		bool known = false;

		call_ids(pool, v);
		for (unsigned j = 0; j < k; j++)
			known |= ids[j] == v[0];
		if (!known && k < n)
			ids[k++] = v[0];
	}
	return k;
}

/* all_closed -- wait until the server has no connection and the hook reported each; accepted */
static unsigned
all_closed(void)
{
	long long limit = t_now_ms() + POLL_MS;
	struct rpmaf_server_stats st;

	for (;;) {
		assert_int_equal(rpmaf_server_get_stats(L.srv, &st), 0);
		if ((st.connections == 0 && closed_count(0) == st.accepted) || t_now_ms() > limit)
			break;
		usleep(1000);
	}
	assert_int_equal(st.connections, 0);
	assert_int_equal(closed_count(0), st.accepted);
	return (unsigned)st.accepted;
}

/* hook_args -- what registering the hook refuses; it is registered once */
static void
hook_args(void)
{
	assert_int_equal(rpmaf_server_on_conn_closed(NULL, on_closed, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_on_conn_closed(L.srv, NULL, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_on_conn_closed(L.srv, on_closed, NULL), 0);
	assert_int_equal(rpmaf_server_on_conn_closed(L.srv, on_closed, NULL), RPMAF_E_INVAL);
}

/*
 * test_conn_closed_hook -- every connection of a deleted pool is reported
 * once by the hook, the ids its calls saw among them; a call held while
 * its connection closed is answered into the void, and the server stops
 * at once (nothing waits for it)
 */
static void
test_conn_closed_hook(void **state)
{
	static struct waited w;
	uint64_t ids[MAX_IDS];
	unsigned n, reports;
	long long t0;

	(void)state;
	if (Netns)
		skip();
	hook_args();
	assert_int_equal(lsrv_start(), 0);
	assert_int_equal(rpmaf_server_on_conn_closed(L.srv, on_closed, NULL), RPMAF_E_INVAL);
	assert_int_equal(lside_new(&L.side[0], 4), 0);
	assert_true(lside_all_healthy(L.side[0].pool));
	n = ids_seen(L.side[0].pool, ids, 4);
	waited_call(L.side[0].pool, &w);
	assert_int_equal(closed_count(0), 0);
	assert_int_equal(side_end_quiet(&L.side[0]), 0);
	assert_int_equal(waited_done(&w), RPMAF_E_SHUTDOWN);
	reports = all_closed();
	assert_true(reports >= 4);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(closed_count(ids[i]), 1);
	n = q_ids(ids); /* the held call's connection among them */
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(closed_count(ids[i]), 1);
	n = closed_ids(ids);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(closed_count(ids[i]), 1);
	q_hold(false);
	assert_true(q_wait(0, 1));
	assert_int_equal(q_get(&Q.errors), 0);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_server_stop(L.srv, 2000), 0);
	assert_true(t_now_ms() - t0 < 2000);
	assert_int_equal(closed_count(0), reports);
}

/* what the persist function of test_mem_region saw */
static struct {
	atomic_uint calls;    /* calls */
	atomic_uint whole;    /* of which of the whole region */
	atomic_uintptr_t ptr; /* the last call's range */
	atomic_size_t len;
} Persisted;

/* count_persist -- the persist function of the memory test_mem_region exports */
static void
count_persist(const void *ptr, size_t len)
{
	atomic_store(&Persisted.ptr, (uintptr_t)ptr);
	atomic_store(&Persisted.len, len);
	atomic_fetch_add(&Persisted.whole, ptr == L.mem && len == MEM_BYTES);
	atomic_fetch_add(&Persisted.calls, 1);
}

/* mem_region -- the description of the memory test_mem_region exports */
static struct rpmaf_mem_region
mem_region(void)
{
	return (struct rpmaf_mem_region){
	    "mem",     L.mem,
	    MEM_BYTES, RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH,
	    false,     count_persist};
}

/* add_mem_refused -- export r: RPMAF_E_INVAL and no region exported, or a code saying why not */
static int
add_mem_refused(struct rpmaf_mem_region r)
{
	struct rpmaf_server_stats st;
	int ret = rpmaf_server_region_add_mem(L.srv, &r);

	if (ret != RPMAF_E_INVAL || rpmaf_server_get_stats(L.srv, &st))
		return ret ? ret : -1000;
	return st.regions == 0 ? RPMAF_E_INVAL : -1001;
}

/* mem_bad_args -- what exporting the memory refuses, with nothing exported */
static void
mem_bad_args(void)
{
	static const char long_name[] =
	    "n123456789012345678901234567890123456789012345678901234567890123";
	struct rpmaf_mem_region r = mem_region();

	assert_int_equal(rpmaf_server_region_add_mem(NULL, &r), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_region_add_mem(L.srv, NULL), RPMAF_E_INVAL);
	r.ptr = NULL;
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r = mem_region();
	r.size = 0;
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r = mem_region();
	r.usage = 0;
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r.usage = 1u << 3; /* no usage bit */
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r = mem_region();
	r.name = NULL;
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r.name = "";
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r.name = "bad name";
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
	r.name = long_name; /* 64 bytes, one more than a name */
	assert_int_equal(add_mem_refused(r), RPMAF_E_INVAL);
}

/* mem_learned -- wait until pool knows region mem (want) or no longer does (!want) */
static bool
mem_learned(struct rpmaf_pool *pool, bool want, struct rpmaf_pool_region *info)
{
	long long limit = t_now_ms() + POLL_MS;

	while ((rpmaf_pool_region(pool, "mem", info) == 0) != want && t_now_ms() < limit)
		usleep(1000);
	return (rpmaf_pool_region(pool, "mem", info) == 0) == want;
}

/* mem_pattern -- the byte at offset i of what the client writes into the memory */
static uint8_t
mem_pattern(size_t i)
{
	return (uint8_t)(i * 11 + 5);
}

/*
 * mem_write_read -- the client writes len bytes at off with a persist,
 * they are in the memory and the persist function saw them, then reads them back
 */
static void
mem_write_read(struct rpmaf_pool *pool, size_t off, size_t len)
{
	struct rpmaf_op op;
	uintptr_t p;

	for (size_t i = 0; i < len; i++)
		Mem[i] = mem_pattern(i);
	assert_int_equal(sync_op(rpmaf_pool_write(pool, &op, "mem", off, Mr, 0, len,
						  RPMAF_OP_PERSIST, NULL, NULL),
				 &op),
			 0);
	assert_memory_equal(L.mem + off, Mem, len);
	assert_true(atomic_load(&Persisted.calls) >= 1);
	p = atomic_load(&Persisted.ptr);
	assert_true(p <= (uintptr_t)(L.mem + off));
	assert_true(p + atomic_load(&Persisted.len) >= (uintptr_t)(L.mem + off + len));
	memset(Mem + MEM_SIZE / 2, 0, len);
	assert_int_equal(
	    sync_op(rpmaf_pool_read(pool, &op, "mem", off, Mr, MEM_SIZE / 2, len, NULL, NULL), &op),
	    0);
	assert_memory_equal(Mem + MEM_SIZE / 2, Mem, len);
}

/* mem_export -- export the memory: the server's own view, a duplicate refused */
static void
mem_export(void)
{
	struct rpmaf_mem_region r = mem_region();
	struct rpmaf_server_stats st;
	size_t size = 0;
	void *ptr = NULL;

	assert_int_equal(rpmaf_server_region_add_mem(L.srv, &r), 0);
	assert_int_equal(rpmaf_server_region_ptr(L.srv, "mem", &ptr, &size), 0);
	assert_ptr_equal(ptr, L.mem);
	assert_int_equal(size, MEM_BYTES);
	assert_int_equal(rpmaf_server_region_add_mem(L.srv, &r), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_server_get_stats(L.srv, &st), 0);
	assert_int_equal(st.regions, 1);
}

/*
 * mem_remove -- the removal returns once the client confirmed it, and
 * neither persists nor unmaps the memory: it is still mapped and intact,
 * the persist function not called again
 */
static void
mem_remove(struct rpmaf_pool *pool, size_t off, size_t len)
{
	unsigned calls = atomic_load(&Persisted.calls);
	struct rpmaf_pool_region info;

	assert_int_equal(rpmaf_server_region_remove(L.srv, "mem"), 0);
	/* the removal returns once the client has applied it: no waiting here */
	assert_int_equal(rpmaf_pool_region(pool, "mem", &info), RPMAF_E_NOENT);
	assert_int_equal(atomic_load(&Persisted.calls), calls);
	assert_int_equal(atomic_load(&Persisted.whole), 0);
	assert_int_equal(msync(L.mem, MEM_BYTES, MS_ASYNC), 0); /* ENOMEM once unmapped */
	for (size_t i = 0; i < len; i++)
		assert_int_equal(L.mem[off + i], mem_pattern(i));
	assert_int_equal(rpmaf_server_region_remove(L.srv, "mem"), RPMAF_E_NOENT);
}

/*
 * test_mem_region -- memory the test maps, exported (GPSPM, the test's
 * persist function): written with a persist, read back, seen in place;
 * removed, it stays the test's; what the export refuses
 */
static void
test_mem_region(void **state)
{
	struct rpmaf_pool_region info;
	size_t off = 128 << 10, len = 64 << 10, rlen;
	uint8_t *mem;
	int ret = 0;

	(void)state;
	if (Netns)
		skip();
	atomic_store(&Persisted.calls, 0);
	atomic_store(&Persisted.whole, 0);
	mem = mmap(NULL, MEM_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	L.mem = mem;
	memset(L.mem, 0xee, MEM_BYTES);
	assert_int_equal(lsrv_start(), 0);
	mem_bad_args();
	assert_int_equal(lside_new(&L.side[0], 2), 0);
	mem_export();
	assert_true(mem_learned(L.side[0].pool, true, &info));
	assert_int_equal(info.size, MEM_BYTES);
	assert_false(info.apm);
	assert_int_equal(info.usage, RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH);
	mem_write_read(L.side[0].pool, off, len);
	assert_int_equal(pool_call_sync(L.side[0].pool, ADD_ID, "", 0, &ret, sizeof(ret), &rlen),
			 0);
	assert_int_equal(ret, RPMAF_E_INVAL); /* from a worker thread */
	mem_remove(L.side[0].pool, off, len);
}

/* ------------------------------------------------------------- a region changed */

#define CHG_SLOTS  32		/* records each changer thread writes again and again, per region */
#define CHG_EXTENT (128u << 10) /* what the changer threads use of each region */

/* a thread of test_region_changed: writes (with persists) and reads, INFLIGHT in flight */
struct changer {
	unsigned t;
	struct rpmaf_pool *pool;
	atomic_int stop;
	atomic_int inflight;
	atomic_ullong ok, failed;
	atomic_int first_failed;
	atomic_bool first_at_submit; /* the first failure came from the submission, not its end */
	atomic_int busy[INFLIGHT];
	struct rpmaf_op ops[INFLIGHT];
};

/* the changers (static: they may outlive a failed assertion's jump) */
static struct changer Changers[4];

/* chg_off -- the offset of record i of changer t in each region (and in Mem) */
static size_t
chg_off(unsigned t, unsigned i)
{
	return ((size_t)t * CHG_SLOTS + i) * RECORD;
}

/* changer_cb -- count a completion; the first failure kept */
static void
changer_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct changer *c = ctx;
	int none = 0;

	if (status == 0)
		atomic_fetch_add(&c->ok, 1);
	else if (!atomic_fetch_add(&c->failed, 1))
		atomic_compare_exchange_strong(&c->first_failed, &none, status);
	atomic_store(&c->busy[op - c->ops], 0);
	atomic_fetch_sub(&c->inflight, 1);
}

/*
 * changer_submit -- operation n in slot k: on record n % CHG_SLOTS (of
 * region chg_f when even, chg_a when odd), a write with a persist, or in
 * every third pass over the records a read into the upper half of Mem
 */
static void
changer_submit(struct changer *c, unsigned k, unsigned n)
{
	unsigned i = n % CHG_SLOTS;
	const char *region = i % 2 ? "chg_a" : "chg_f";
	size_t off = chg_off(c->t, i);
	int ret;

	atomic_store(&c->busy[k], 1);
	atomic_fetch_add(&c->inflight, 1);
	if (n / CHG_SLOTS % 3 == 2)
		ret = rpmaf_pool_read(c->pool, &c->ops[k], region, off, Mr, MEM_SIZE / 2 + off,
				      RECORD, changer_cb, c);
	else
		ret = rpmaf_pool_write(c->pool, &c->ops[k], region, off, Mr, off, RECORD,
				       RPMAF_OP_PERSIST, changer_cb, c);
	if (ret) {
		atomic_store(&c->busy[k], 0);
		atomic_fetch_sub(&c->inflight, 1);
		if (!atomic_fetch_add(&c->failed, 1)) {
			atomic_store(&c->first_failed, ret);
			atomic_store(&c->first_at_submit, true);
		}
	}
}

/* changer_main -- keep INFLIGHT operations in flight until stopped, then let them end */
static void *
changer_main(void *arg)
{
	struct changer *c = arg;
	long long limit;
	unsigned n = 0;

	while (!atomic_load(&c->stop)) {
		bool any = false;

		for (unsigned k = 0; k < INFLIGHT; k++) {
			if (!atomic_load(&c->busy[k])) {
				any = true;
				changer_submit(c, k, n++);
			}
		}
		if (!any)
			sched_yield();
	}
	limit = t_now_ms() + 3 * OP_MS;
	while (atomic_load(&c->inflight) && t_now_ms() < limit)
		usleep(1000);
	return NULL;
}

/* chg_region -- region name of size bytes and usage: a file in Dir (GPSPM) or anonymous */
static struct rpmaf_cfg_region
chg_region(const char *name, uint64_t size, unsigned usage, char *path)
{
	bool file = strcmp(name, "chg_f") == 0;

	snprintf(path, 128, "%s/chg.pmem", Dir);
	return (struct rpmaf_cfg_region){.name = (char *)name,
					 .size = size,
					 .backing =
					     file ? RPMAF_BACKING_FILE : RPMAF_BACKING_ANONYMOUS,
					 .path = file ? path : NULL,
					 .create = file,
					 .usage = usage,
					 .persistence = RPMAF_PERSIST_GPSPM};
}

/* chg_both -- change both regions to size and usage; the pool's table shows it on return */
static void
chg_both(struct rpmaf_pool *pool, uint64_t size, unsigned usage)
{
	static const char *const names[] = {"chg_f", "chg_a"};
	struct rpmaf_pool_region info;
	char path[128];

	for (int n = 0; n < 2; n++) {
		struct rpmaf_cfg_region r = chg_region(names[n], size, usage, path);

		assert_int_equal(rpmaf_server_region_change(L.srv, &r), 0);
		/* the change returned once every connection confirmed it: applied already */
		assert_int_equal(rpmaf_pool_region(pool, names[n], &info), 0);
		assert_int_equal(info.size, size);
		assert_int_equal(info.usage, usage);
	}
}

/* chg_load -- the changers run while both regions are changed again and again; none fails */
static void
chg_load(struct rpmaf_pool *pool)
{
	static const uint64_t sizes[] = {1u << 20, 512u << 10, 192u << 10, 4u << 20, 256u << 10};
	pthread_t th[4];
	unsigned started = 0;

	memset(Changers, 0, sizeof(Changers));
	for (; started < 4; started++) {
		Changers[started].t = started;
		Changers[started].pool = pool;
		if (pthread_create(&th[started], NULL, changer_main, &Changers[started]))
			break;
	}
	for (unsigned n = 0; started == 4 && n < 2 * sizeof(sizes) / sizeof(sizes[0]); n++) {
		usleep(30000);
		chg_both(pool, sizes[n % 5],
			 RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH);
	}
	usleep(30000);
	for (unsigned t = 0; t < started; t++) {
		atomic_store(&Changers[t].stop, 1);
		pthread_join(th[t], NULL);
	}
	assert_int_equal(started, 4);
	for (unsigned t = 0; t < 4; t++) {
		struct changer *c = &Changers[t];

		assert_int_equal(atomic_load(&c->inflight), 0);
		if (atomic_load(&c->failed))
			fail_msg(
			    "changer %u: %llu of %llu operations failed, the first with %d "
			    "(%s)",
			    t, (unsigned long long)atomic_load(&c->failed),
			    (unsigned long long)(atomic_load(&c->failed) + atomic_load(&c->ok)),
			    atomic_load(&c->first_failed),
			    atomic_load(&c->first_at_submit) ? "when submitted"
							     : "at its completion");
		assert_true(atomic_load(&c->ok) > 0);
	}
}

/* chg_check -- every record is in both regions, read through the pool and in the server's memory */
static void
chg_check(struct rpmaf_pool *pool)
{
	struct rpmaf_op op;
	void *ptr;
	size_t size;

	for (int n = 0; n < 2; n++) {
		const char *name = n ? "chg_a" : "chg_f";

		memset(Mem + MEM_SIZE / 2, 0, CHG_EXTENT);
		assert_int_equal(sync_op(rpmaf_pool_read(pool, &op, name, 0, Mr, MEM_SIZE / 2,
							 CHG_EXTENT, NULL, NULL),
					 &op),
				 0);
		assert_int_equal(rpmaf_server_region_ptr(L.srv, name, &ptr, &size), 0);
		for (unsigned t = 0; t < 4; t++)
			for (unsigned i = n; i < CHG_SLOTS; i += 2) {
				size_t off = chg_off(t, i);

				assert_memory_equal(Mem + off, Mem + MEM_SIZE / 2 + off, RECORD);
				assert_memory_equal(Mem + off, (uint8_t *)ptr + off, RECORD);
			}
	}
}

/*
 * chg_usage -- a narrowed usage: the pool refuses new writes at once, reads
 * go on; widened again, writes go on
 */
static void
chg_usage(struct rpmaf_pool *pool)
{
	struct rpmaf_op op;

	chg_both(pool, 256u << 10, RPMAF_USAGE_READ);
	assert_int_equal(rpmaf_pool_write(pool, &op, "chg_f", 0, Mr, 0, 64, 0, NULL, NULL),
			 RPMAF_E_INVAL);
	assert_int_equal(
	    sync_op(rpmaf_pool_read(pool, &op, "chg_f", 0, Mr, MEM_SIZE / 2, 64, NULL, NULL), &op),
	    0);
	chg_both(pool, 256u << 10, RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH);
	assert_int_equal(sync_op(rpmaf_pool_write(pool, &op, "chg_f", 0, Mr, 0, 64,
						  RPMAF_OP_PERSIST, NULL, NULL),
				 &op),
			 0);
}

/*
 * test_region_changed -- two regions (a file, anonymous memory) changed in
 * place again and again (grown, shrunk, grown) while 4 threads keep writes
 * with persists and reads in flight on 8 connections: every operation
 * succeeds, every record is intact, no connection breaks; the pool's table
 * shows each change once rpmaf_server_region_change() returned; a narrowed
 * usage refuses new writes
 */
static void
test_region_changed(void **state)
{
	struct rpmaf_pool_stats before, after;
	struct rpmaf_pool_region info;
	char path[128];
	struct rpmaf_cfg_region f = chg_region("chg_f", 256u << 10, 7, path);
	struct rpmaf_cfg_region a = chg_region("chg_a", 256u << 10, 7, path);
	long long limit;

	(void)state;
	if (Netns)
		skip();
	for (unsigned t = 0; t < 4; t++)
		for (unsigned i = 0; i < CHG_SLOTS; i++)
			for (unsigned j = 0; j < RECORD; j++)
				Mem[chg_off(t, i) + j] = fill(5, t, i, j);
	assert_int_equal(lsrv_start(), 0);
	assert_int_equal(rpmaf_server_region_add(L.srv, &f), 0);
	assert_int_equal(rpmaf_server_region_add(L.srv, &a), 0);
	assert_int_equal(lside_new(&L.side[0], 8), 0);
	assert_true(lside_all_healthy(L.side[0].pool));
	limit = t_now_ms() + POLL_MS;
	while (rpmaf_pool_region(L.side[0].pool, "chg_a", &info) && t_now_ms() < limit)
		usleep(1000);
	assert_int_equal(rpmaf_pool_get_stats(L.side[0].pool, &before), 0);
	chg_load(L.side[0].pool);
	chg_check(L.side[0].pool);
	chg_usage(L.side[0].pool);
	assert_int_equal(rpmaf_pool_get_stats(L.side[0].pool, &after), 0);
	assert_int_equal(after.reconnects, before.reconnects);
	assert_int_equal(after.errors, before.errors);
}

/* ------------------------------------------------------------- the server killed */

struct loader {
	atomic_int stop;
	atomic_int inflight;
	atomic_ullong ok, errors, refused;
	struct rpmaf_op ops[INFLIGHT];
	atomic_int busy[INFLIGHT];
};

/* loader_cb -- count a completion by its status */
static void
loader_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct loader *l = ctx;

	if (status)
		atomic_fetch_add(&l->errors, 1);
	else
		atomic_fetch_add(&l->ok, 1);
	atomic_store(&l->busy[op - l->ops], 0);
	atomic_fetch_sub(&l->inflight, 1);
}

/* loader_main -- write until told to stop, INFLIGHT at a time */
static void *
loader_main(void *arg)
{
	struct loader *l = arg;

	while (!atomic_load(&l->stop)) {
		for (int k = 0; k < INFLIGHT; k++) {
			if (atomic_load(&l->busy[k]))
				continue;
			atomic_store(&l->busy[k], 1);
			atomic_fetch_add(&l->inflight, 1);
			if (rpmaf_pool_write(Pool, &l->ops[k], k % 2 ? "gpspm" : "apm",
					     (size_t)k * 4096 + 65536, Mr, 0, 4096,
					     RPMAF_OP_PERSIST, loader_cb, l)) {
				atomic_fetch_add(&l->refused, 1);
				atomic_store(&l->busy[k], 0);
				atomic_fetch_sub(&l->inflight, 1);
			}
		}
		usleep(200);
	}
	return NULL;
}

/* test_server_killed -- every operation completes, the pool reconnects, data verified */
static void
test_server_killed(void **state)
{
	static struct loader l[2];
	pthread_t th[2];
	struct rpmaf_pool_stats st;
	unsigned long long errors = 0;
	long long limit;

	(void)state;
	for (int i = 0; i < 2; i++) {
		memset(&l[i], 0, sizeof(l[i]));
		assert_int_equal(pthread_create(&th[i], NULL, loader_main, &l[i]), 0);
	}
	usleep(300000);
	t_srv_kill(&Srv);
	usleep(500000);
	for (int i = 0; i < 2; i++) {
		atomic_store(&l[i].stop, 1);
		pthread_join(th[i], NULL);
	}
	limit = t_now_ms() + OP_MS + 3000;
	for (int i = 0; i < 2; i++) {
		while (atomic_load(&l[i].inflight) && t_now_ms() < limit)
			usleep(1000);
		assert_int_equal(atomic_load(&l[i].inflight), 0); /* none hangs */
		assert_true(atomic_load(&l[i].ok) > 0);
		errors += atomic_load(&l[i].errors) + atomic_load(&l[i].refused);
	}
	assert_true(errors > 0);
	assert_int_equal(server_start(), 0);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
	/* traffic resumes: the records of the first test written and read again */
	test_write_persist_threads(state);
	assert_int_equal(rpmaf_pool_get_stats(Pool, &st), 0);
	assert_true(st.reconnects >= 1);
	assert_true(st.errors >= 1);
}

/* ------------------------------------------------------------- faults: wait, retry, detect */

/*
 * The tests of the pool across faults of the std server (killed, frozen):
 * an operation waits for a connection of its target rather than failing,
 * is posted again after its connection was lost when it may be, completes
 * exactly once, and fails with RPMAF_E_TIMEOUT at its deadline when no
 * connection comes; a frozen server is found out by the heartbeats within
 * their bound. Each runs a pool of its own, timed for the test, and leaves
 * the std server running.
 */

#define FLOADERS    2
#define FSLOTS	    8			    /* operations each loader keeps in flight */
#define FSLOT	    4096u		    /* bytes of one slot */
#define FREGION_OFF (768u << 10)	    /* where the loaders' slots are in apm and gpspm */
#define FSRC_OFF    (3u << 20)		    /* the loaders' sources in Mem */
#define FDST_OFF    (3u << 20) + (1u << 19) /* where the check reads them back */

/* a loader of the fault tests: FSLOTS writes+persists at a time, each to its own slot */
struct floader {
	struct rpmaf_pool *pool;
	unsigned idx;
	atomic_int stop;
	atomic_ullong ok, errors, refused, twice, submitted;
	atomic_int first_error;
	atomic_int busy[FSLOTS];
	uint64_t seq[FSLOTS];	     /* the last submitted to the slot */
	atomic_ullong acked[FSLOTS]; /* the last acknowledged */
	struct rpmaf_op ops[FSLOTS];
};

static struct floader Floaders[FLOADERS];

/* fslot -- slot k of loader l: its place in the regions and in the sources */
static size_t
fslot(const struct floader *l, unsigned k)
{
	return ((size_t)l->idx * FSLOTS + k) * FSLOT;
}

/* fregion -- the region of slot k: apm and gpspm by turns */
static const char *
fregion(unsigned k)
{
	return k % 2 ? "gpspm" : "apm";
}

/* ffill -- the bytes of write seq of a slot: the sequence number, then a pattern of it */
static void
ffill(uint8_t *p, uint64_t seq)
{
	memcpy(p, &seq, sizeof(seq));
	for (size_t j = sizeof(seq); j < FSLOT; j++)
		p[j] = (uint8_t)(seq * 31 + j);
}

/* floader_cb -- a completion: counted by status; a second one of the same submission noted */
static void
floader_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct floader *l = ctx;
	unsigned k = (unsigned)(op - l->ops);

	if (status == 0) {
		atomic_store(&l->acked[k], l->seq[k]);
		atomic_fetch_add(&l->ok, 1);
	} else {
		int none = 0;

		atomic_compare_exchange_strong(&l->first_error, &none, status);
		atomic_fetch_add(&l->errors, 1);
	}
	if (atomic_exchange(&l->busy[k], 0) != 1)
		atomic_fetch_add(&l->twice, 1);
}

/* floader_main -- write until told to stop, each slot again once its write completed */
static void *
floader_main(void *arg)
{
	struct floader *l = arg;

	while (!atomic_load(&l->stop)) {
		for (unsigned k = 0; k < FSLOTS; k++) {
			if (atomic_load(&l->busy[k]))
				continue;
			l->seq[k]++;
			ffill(Mem + FSRC_OFF + fslot(l, k), (uint64_t)l->idx << 32 | l->seq[k]);
			atomic_store(&l->busy[k], 1);
			atomic_fetch_add(&l->submitted, 1);
			if (rpmaf_pool_write(l->pool, &l->ops[k], fregion(k),
					     FREGION_OFF + fslot(l, k), Mr, FSRC_OFF + fslot(l, k),
					     FSLOT, RPMAF_OP_PERSIST, floader_cb, l)) {
				atomic_fetch_add(&l->refused, 1);
				atomic_store(&l->busy[k], 0);
				l->seq[k]--;
			}
		}
		usleep(500);
	}
	return NULL;
}

/* floaders_start -- the loaders on pool, from nothing */
static void
floaders_start(struct rpmaf_pool *pool, pthread_t *th)
{
	for (unsigned i = 0; i < FLOADERS; i++) {
		memset(&Floaders[i], 0, sizeof(Floaders[i]));
		Floaders[i].pool = pool;
		Floaders[i].idx = i;
		assert_int_equal(pthread_create(&th[i], NULL, floader_main, &Floaders[i]), 0);
	}
}

/* floaders_idle -- the loaders have nothing in flight */
static bool
floaders_idle(void)
{
	for (unsigned i = 0; i < FLOADERS; i++)
		for (unsigned k = 0; k < FSLOTS; k++)
			if (atomic_load(&Floaders[i].busy[k]))
				return false;
	return true;
}

/*
 * floaders_end -- stop the loaders, wait until every operation completed
 * (within limit_ms), say what they did; then every slot read back holds
 * its last acknowledged write
 */
static void
floaders_end(struct rpmaf_pool *pool, pthread_t *th, long long limit_ms)
{
	unsigned long long ok = 0, errors = 0, refused = 0, twice = 0;
	long long limit;

	for (unsigned i = 0; i < FLOADERS; i++) {
		atomic_store(&Floaders[i].stop, 1);
		pthread_join(th[i], NULL);
	}
	limit = t_now_ms() + limit_ms;
	while (!floaders_idle() && t_now_ms() < limit)
		usleep(1000);
	assert_true(floaders_idle()); /* none hangs */
	usleep(100000);		      /* a second completion would come by now */
	for (unsigned i = 0; i < FLOADERS; i++) {
		ok += atomic_load(&Floaders[i].ok);
		errors += atomic_load(&Floaders[i].errors);
		refused += atomic_load(&Floaders[i].refused);
		twice += atomic_load(&Floaders[i].twice);
	}
	fprintf(stderr, "  loaders: %llu ok, %llu failed (first: %s), %llu refused, %llu twice\n",
		ok, errors,
		errors ? rpmaf_err_str(atomic_load(&Floaders[0].first_error)
					   ? atomic_load(&Floaders[0].first_error)
					   : atomic_load(&Floaders[1].first_error))
		       : "none",
		refused, twice);
	assert_true(ok > 0);
	assert_int_equal(twice, 0);
	assert_int_equal(errors, 0);
	assert_int_equal(refused, 0);
	for (unsigned i = 0; i < FLOADERS; i++) {
		struct floader *l = &Floaders[i];

		for (unsigned k = 0; k < FSLOTS; k++) {
			uint64_t want = (uint64_t)i << 32 | atomic_load(&l->acked[k]);
			struct rpmaf_op op;
			uint8_t expect[FSLOT];

			if (!atomic_load(&l->acked[k]))
				continue;
			assert_int_equal(rpmaf_pool_read(pool, &op, fregion(k),
							 FREGION_OFF + fslot(l, k), Mr,
							 FDST_OFF + fslot(l, k), FSLOT, NULL, NULL),
					 0);
			assert_int_equal(rpmaf_op_wait(&op), 0);
			ffill(expect, want);
			assert_memory_equal(Mem + FDST_OFF + fslot(l, k), expect, FSLOT);
		}
	}
}

/*
 * fault_pool -- a pool of its own on the std server: conns connections,
 * operations of op_ms, this side's heartbeat hb_ms x misses, its log in
 * Dir/log; 0 once ready
 */
static int
fault_pool(unsigned conns, unsigned op_ms, unsigned hb_ms, unsigned misses, const char *log,
	   struct rpmaf_cfg **cfg, struct rpmaf_workers **ws, struct rpmaf_pool **pool)
{
	struct rpmaf_cfg_err err;
	char yaml[1024];

	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 2, polling: event, batch: 16}\n"
		 "queues: {sq: 8, cq: 64, messages: {size: 4K, credits: 8}}\n"
		 "targets: [{name: t0, address: %s, port: %s, connections: %u}]\n"
		 "timeouts: {connect_ms: 3000, operation_ms: %u, heartbeat_interval_ms: %u,\n"
		 "           heartbeat_misses: %u}\n"
		 "reconnect: {initial_ms: 20, max_ms: 200, multiplier: 2, jitter: 0.2}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: %s, file: %s/%s}\n",
		 Addr, Port, conns, op_ms, hb_ms, misses, Key_a,
		 getenv("INTEG_DEBUG") ? "debug" : "notice", Dir, log);
	if (rpmaf_cfg_load_buffer("client", yaml, strlen(yaml), NULL, cfg, &err)) {
		fprintf(stderr, "fault_pool: %s\n", err.msg);
		return -1;
	}
	return side_pool(*cfg, ws, pool);
}

/* pool_healthy -- the pool's healthy connections now */
static unsigned
pool_healthy(struct rpmaf_pool *pool)
{
	struct rpmaf_pool_stats st;

	return rpmaf_pool_get_stats(pool, &st) ? 0 : st.healthy;
}

/* pool_down -- wait up to ms for the pool to have no healthy connection */
static bool
pool_down(struct rpmaf_pool *pool, long long ms)
{
	long long limit = t_now_ms() + ms;

	while (pool_healthy(pool) && t_now_ms() < limit)
		usleep(1000);
	return pool_healthy(pool) == 0;
}

/* pool_counter -- counter name of the pool's line of its JSON dump; -1 when not there */
static long long
pool_counter(struct rpmaf_pool *pool, const char *name)
{
	char *text = NULL, key[64];
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	long long v = -1;
	const char *line, *at;

	if (!f)
		return -1;
	if (rpmaf_pool_dump_json(pool, f) == 0 && fflush(f) == 0 &&
	    (line = strstr(text, "\"scope\":\"pool\""))) {
		snprintf(key, sizeof(key), "\"%s\":", name);
		if ((at = strstr(line, key)))
			v = strtoll(at + strlen(key), NULL, 10);
	}
	fclose(f);
	free(text);
	return v;
}

/* fault_log -- the path of a fault test's pool log */
static const char *
fault_log(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", Dir, name);
	return buf;
}

/* srv_restart -- the std server was killed or stopped: have it serve again, and Pool ready */
static void
srv_restart(void)
{
	if (Srv.pid > 0)
		t_srv_kill(&Srv);
	assert_int_equal(server_start(), 0);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/*
 * test_wait_server_back -- operations submitted while the target is down
 * (the server killed) wait for it: they complete, well, once the server is
 * back before their deadline, and what was written is there
 */
static void
test_wait_server_back(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_op w, c, r;
	char reply[16] = "", path[128];
	long long t0;

	(void)state;
	assert_int_equal(fault_pool(2, 8000, 500, 8, "client-back.log", &cfg, &ws, &pool), 0);
	t_srv_kill(&Srv);
	assert_true(pool_down(pool, 5000));
	memset(Mem + FSRC_OFF, 0xa5, 4096);
	t0 = t_now_ms();
	assert_int_equal(rpmaf_pool_write(pool, &w, "apm", FREGION_OFF, Mr, FSRC_OFF, 4096,
					  RPMAF_OP_PERSIST, NULL, NULL),
			 0);
	assert_int_equal(
	    rpmaf_pool_call(pool, &c, "t0", ECHO_ID, "back", 5, reply, sizeof(reply), NULL, NULL),
	    0);
	usleep(200000); /* they wait */
	assert_int_equal(server_start(), 0);
	assert_int_equal(rpmaf_op_wait(&w), 0);
	assert_int_equal(rpmaf_op_wait(&c), 0);
	assert_true(t_now_ms() - t0 < 8000);
	assert_string_equal(reply, "back");
	memset(Mem + FDST_OFF, 0, 4096);
	assert_int_equal(
	    rpmaf_pool_read(pool, &r, "apm", FREGION_OFF, Mr, FDST_OFF, 4096, NULL, NULL), 0);
	assert_int_equal(rpmaf_op_wait(&r), 0);
	assert_memory_equal(Mem + FDST_OFF, Mem + FSRC_OFF, 4096);
	assert_true(pool_counter(pool, "waited") >= 2);
	assert_int_equal(pool_counter(pool, "wait_timeouts"), 0);
	assert_true(log_has(fault_log("client-back.log", path, sizeof(path)), "connection lost"));
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/* wt_cb -- count the completions of an operation of test_wait_timeout, keep the status */
static void
wt_cb(struct rpmaf_op *op, int status, void *ctx)
{
	atomic_int *calls = ctx;

	(void)op;
	atomic_store(&calls[1], status);
	atomic_fetch_add(&calls[0], 1);
}

/*
 * test_wait_timeout -- with the target down for good, operations wait
 * and fail exactly once with RPMAF_E_TIMEOUT at their deadline (not
 * before), a line of the log says why and the counter counts them; a
 * submission beyond the waiting places (connections x queues.sq) is
 * refused at once with RPMAF_E_AGAIN
 */
static void
test_wait_timeout(void **state)
{
	enum { OPS = 8, MS = 1000 };
	static struct rpmaf_op ops[OPS + 1];
	static atomic_int calls[OPS][2];
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_op w;
	char path[128];
	long long t0, dt;

	(void)state;
	assert_int_equal(fault_pool(1, MS, 500, 8, "client-timeout.log", &cfg, &ws, &pool), 0);
	t_srv_kill(&Srv);
	assert_true(pool_down(pool, 5000));
	t0 = t_now_ms();
	assert_int_equal(
	    rpmaf_pool_write(pool, &w, "apm", 0, Mr, 0, 4096, RPMAF_OP_PERSIST, NULL, NULL), 0);
	for (unsigned i = 0; i < OPS - 1; i++) {
		atomic_store(&calls[i][0], 0);
		assert_int_equal(rpmaf_pool_write(pool, &ops[i], "gpspm", 4096 * i, Mr, 0, 4096,
						  RPMAF_OP_PERSIST, wt_cb, calls[i]),
				 0);
	}
	/* 1 connection x sq 8: every place is taken */
	assert_int_equal(
	    rpmaf_pool_read(pool, &ops[OPS], "apm", 0, Mr, 0, 64, wt_cb, calls[OPS - 1]),
	    RPMAF_E_AGAIN);
	usleep(MS * 1000 / 2);
	for (unsigned i = 0; i < OPS - 1; i++)
		assert_int_equal(atomic_load(&calls[i][0]), 0); /* not before the deadline */
	assert_int_equal(rpmaf_op_wait(&w), RPMAF_E_TIMEOUT);
	dt = t_now_ms() - t0;
	assert_true(dt >= MS - 10 && dt < MS + 600);
	usleep(300000);
	for (unsigned i = 0; i < OPS - 1; i++) {
		assert_int_equal(atomic_load(&calls[i][0]), 1); /* once */
		assert_int_equal(atomic_load(&calls[i][1]), RPMAF_E_TIMEOUT);
	}
	assert_int_equal(pool_counter(pool, "wait_timeouts"), OPS);
	assert_true(log_has(fault_log("client-timeout.log", path, sizeof(path)),
			    "timed out waiting for a connection"));
	/* the places are back */
	assert_int_equal(rpmaf_pool_read(pool, &w, "apm", 0, Mr, 0, 64, NULL, NULL), 0);
	assert_int_equal(rpmaf_op_wait(&w), RPMAF_E_TIMEOUT);
	side_pool_end(&cfg, &ws, &pool);
	srv_restart();
}

/*
 * test_kill_under_load -- the server killed under load and started again:
 * not one write+persist fails, each completes once, and every slot holds
 * its last acknowledged write
 */
static void
test_kill_under_load(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	pthread_t th[FLOADERS];

	(void)state;
	assert_int_equal(fault_pool(2, 8000, 500, 8, "client-kill.log", &cfg, &ws, &pool), 0);
	floaders_start(pool, th);
	usleep(300000);
	t_srv_kill(&Srv);
	usleep(100000);
	assert_int_equal(server_start(), 0);
	usleep(500000);
	floaders_end(pool, th, 10000);
	assert_true(pool_counter(pool, "conn_lost") >= 1);
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/*
 * test_freeze_under_load -- the server frozen (SIGSTOP) under load for
 * longer than the heartbeats' bound but shorter than an operation's time:
 * the connections are found lost, and not one operation fails
 */
static void
test_freeze_under_load(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	pthread_t th[FLOADERS];

	(void)state;
	assert_int_equal(fault_pool(2, 6000, 200, 3, "client-freeze.log", &cfg, &ws, &pool), 0);
	floaders_start(pool, th);
	usleep(300000);
	assert_int_equal(srv_freeze(&Srv), 0);
	usleep(1500000);
	assert_int_equal(kill(Srv.pid, SIGCONT), 0);
	usleep(1000000);
	floaders_end(pool, th, 10000);
	assert_true(pool_counter(pool, "peer_silent") >= 1);
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/*
 * test_frozen_detected -- a frozen server (SIGSTOP) is found out by this
 * side's heartbeats within interval x misses (200 ms x 3, shorter than
 * the server's), said so in the log and counted; after SIGCONT the pool
 * uses it again without being made anew
 */
static void
test_frozen_detected(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_op op;
	char path[128];
	long long t0, dt;

	(void)state;
	assert_int_equal(fault_pool(1, 10000, 200, 3, "client-frozen.log", &cfg, &ws, &pool), 0);
	assert_int_equal(srv_freeze(&Srv), 0);
	t0 = t_now_ms();
	assert_true(pool_down(pool, 8000));
	dt = t_now_ms() - t0;
	fprintf(stderr, "  frozen server found out after %lld ms (bound 600 ms)\n", dt);
	assert_true(dt <= 600 + 400);
	assert_true(log_has(fault_log("client-frozen.log", path, sizeof(path)),
			    "the target is silent (frozen or cut off)"));
	assert_int_equal(pool_counter(pool, "peer_silent"), 1);
	assert_int_equal(kill(Srv.pid, SIGCONT), 0);
	assert_int_equal(rpmaf_pool_wait_ready(pool, READY_MS), 0);
	memset(Mem + FSRC_OFF, 0x3c, 4096);
	assert_int_equal(rpmaf_pool_write(pool, &op, "gpspm", FREGION_OFF, Mr, FSRC_OFF, 4096,
					  RPMAF_OP_PERSIST, NULL, NULL),
			 0);
	assert_int_equal(rpmaf_op_wait(&op), 0);
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/*
 * test_call_lost -- operations in flight when their connection is lost
 * (the server stopped, then killed): a call of an ordinary handler, which
 * the server may have run, fails with RPMAF_E_CONNLOST, once and before
 * its deadline; a call of a handler the server announced idempotent and a
 * write+persist are posted again once the server is back and complete;
 * the new server ran the idempotent call only
 */
static void
test_call_lost(void **state)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_pool *pool = NULL;
	struct rpmaf_server_stats st;
	struct rpmaf_pool_fault_stats fs;
	struct rpmaf_op call, idem, write;
	char req[16] = "lost", reply[16], ireply[16] = "";
	long long t0;

	(void)state;
	assert_int_equal(fault_pool(1, 8000, 500, 8, "client-lost.log", &cfg, &ws, &pool), 0);
	assert_int_equal(srv_freeze(&Srv), 0);
	t0 = t_now_ms();
	assert_int_equal(
	    rpmaf_pool_call(pool, &call, "t0", ECHO_ID, req, 5, reply, sizeof(reply), NULL, NULL),
	    0);
	assert_int_equal(rpmaf_pool_call(pool, &idem, "t0", IDEM_ID, "again", 6, ireply,
					 sizeof(ireply), NULL, NULL),
			 0);
	memset(Mem + FSRC_OFF, 0x5e, 4096);
	assert_int_equal(rpmaf_pool_write(pool, &write, "gpspm", FREGION_OFF, Mr, FSRC_OFF, 4096,
					  RPMAF_OP_PERSIST, NULL, NULL),
			 0);
	usleep(100000);
	t_srv_kill(&Srv);
	assert_int_equal(rpmaf_op_wait(&call), RPMAF_E_CONNLOST);
	assert_true(t_now_ms() - t0 < 8000);
	assert_int_equal(server_start(), 0);
	assert_int_equal(rpmaf_op_wait(&idem), 0);
	assert_string_equal(ireply, "again");
	assert_int_equal(rpmaf_op_wait(&write), 0);
	assert_int_equal(srv_stats(&Srv, &st), 0);
	assert_int_equal(st.app_requests, 1);
	assert_int_equal(rpmaf_pool_get_fault_stats(pool, &fs), 0);
	assert_true(fs.retried >= 2 && fs.conn_lost >= 1);
	assert_int_equal(fs.waiting, 0);
	assert_int_equal(fs.wait_timeouts, 0);
	side_pool_end(&cfg, &ws, &pool);
	assert_int_equal(rpmaf_pool_wait_ready(Pool, READY_MS), 0);
}

/* writes+persist test_group_signaled submits in one turn of a worker */
#define GROUP_K	  16
#define GROUP_OFF (REGION - 65536) /* in region apm; the same offset in Mem is the source */

/* the writes of test_group_signaled */
struct group_batch {
	struct rpmaf_op ops[GROUP_K];
	struct rpmaf_work work;
	atomic_int done, failed;
};

/* group_cb -- one write of the batch completed */
static void
group_cb(struct rpmaf_op *op, int status, void *ctx)
{
	struct group_batch *g = ctx;

	(void)op;
	if (status)
		atomic_store(&g->failed, status);
	atomic_fetch_add(&g->done, 1);
}

/* group_submit -- on a worker: the batch's writes, all in this turn */
static void
group_submit(struct rpmaf_worker *w, void *arg)
{
	struct group_batch *g = arg;

	(void)w;
	for (unsigned k = 0; k < GROUP_K; k++) {
		size_t off = GROUP_OFF + (size_t)k * 64;
		int ret = rpmaf_pool_write(Pool, &g->ops[k], "apm", off, Mr, off, 64,
					   RPMAF_OP_PERSIST, group_cb, g);

		if (ret) {
			atomic_store(&g->failed, ret);
			atomic_fetch_add(&g->done, 1);
		}
	}
}

/* send_completions -- the send completions every worker of Ws has taken so far */
static uint64_t
send_completions(void)
{
	struct rpmaf_worker_stats st;
	struct rpmaf_worker *w;
	uint64_t n = 0;

	for (unsigned i = 0; i < rpmaf_workers_count(Ws); i++)
		if (rpmaf_workers_get(Ws, i, &w) == 0 && rpmaf_worker_get_stats(w, &st) == 0)
			n += st.completions;
	return n;
}

/*
 * test_group_signaled -- the writes+persist a worker's turn submits go out
 * as groups with only their last request signaled: far fewer send
 * completions than operations (each one's flush was signaled before), every
 * operation completed once, and the data in place
 */
static void
test_group_signaled(void **state)
{
	static struct group_batch g;
	struct rpmaf_worker *w;
	long long limit = t_now_ms() + 3 * OP_MS;
	uint64_t before, after;

	(void)state;
	memset(&g, 0, sizeof(g));
	for (unsigned j = 0; j < GROUP_K * 64; j++)
		Mem[GROUP_OFF + j] = (uint8_t)(j * 13 + 1);
	before = send_completions();
	assert_int_equal(rpmaf_workers_get(Ws, 0, &w), 0);
	assert_int_equal(rpmaf_worker_submit(w, &g.work, group_submit, &g), 0);
	while (atomic_load(&g.done) < GROUP_K && t_now_ms() < limit)
		usleep(100);
	after = send_completions();
	assert_int_equal(atomic_load(&g.done), GROUP_K);
	assert_int_equal(atomic_load(&g.failed), 0);
	/* a heartbeat's or a credit's send may come in between: a few more, never one per write */
	printf("test_group_signaled: %llu send completions for %u writes+persist\n",
	       (unsigned long long)(after - before), GROUP_K);
	assert_true(after - before <= GROUP_K / 2);
	memset(Mem + GROUP_OFF, 0, GROUP_K * 64);
	assert_int_equal(read_sync("apm", GROUP_OFF, GROUP_OFF, GROUP_K * 64), 0);
	for (unsigned j = 0; j < GROUP_K * 64; j++)
		assert_int_equal(Mem[GROUP_OFF + j], (uint8_t)(j * 13 + 1));
}

/* selected -- POOL_TESTS is unset or names part of the test */
static bool
selected(const char *name)
{
	const char *want = getenv("POOL_TESTS");

	return !want || strstr(name, want);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest all[] = {
	    cmocka_unit_test(test_write_persist_threads),
	    cmocka_unit_test(test_read_flush_atomic),
	    cmocka_unit_test(test_group_signaled),
	    cmocka_unit_test(test_call),
	    cmocka_unit_test(test_bad_args),
	    cmocka_unit_test(test_op_wait),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_region_removed),
	    cmocka_unit_test(test_wrong_key),
	    cmocka_unit_test(test_interrupt_connecting),
	    cmocka_unit_test(test_call_handler_fails),
	    cmocka_unit_test(test_paged_list),
	    cmocka_unit_test(test_max_connections),
	    cmocka_unit_test(test_delete_inflight),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_server_killed),
	    cmocka_unit_test(test_wait_server_back),
	    cmocka_unit_test(test_wait_timeout),
	    cmocka_unit_test(test_kill_under_load),
	    cmocka_unit_test(test_freeze_under_load),
	    cmocka_unit_test(test_frozen_detected),
	    cmocka_unit_test(test_call_lost),
	    cmocka_unit_test_setup_teardown(test_call_later, lsrv_setup, lsrv_teardown),
	    cmocka_unit_test_setup_teardown(test_conn_closed_hook, lsrv_setup, lsrv_teardown),
	    cmocka_unit_test_setup_teardown(test_mem_region, lsrv_setup, lsrv_teardown),
	    cmocka_unit_test_setup_teardown(test_region_changed, lsrv_setup, lsrv_teardown),
	};
	struct CMUnitTest run[sizeof(all) / sizeof(all[0])];
	size_t n = 0;

	if (argc == 7 && strcmp(argv[1], "server") == 0)
		return server_main(argv[2], argv[3], argv[4], argv[5], argv[6]);
	Addr = getenv("POOL_SERVER_ADDR") ? getenv("POOL_SERVER_ADDR") : "127.0.0.1";
	Netns = getenv("POOL_SERVER_NETNS");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (selected(all[i].name))
			run[n++] = all[i];
	return _cmocka_run_group_tests("pool", run, n, group_setup, group_teardown);
}
