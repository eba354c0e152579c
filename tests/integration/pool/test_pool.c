// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_pool.c -- the pool of librpmaf (pool/) against a server of
 * librpmaf (server/) in another process, over softrdma. The server is
 * this program run again ("server PORT DIR KEY"); it exports an APM
 * region (a file, direct write), a GPSPM region (a file), a read-only
 * region and a region it removes on SIGUSR1, serves an echo handler (id 1)
 * and prints READY once it listens. The tests stop it (SIGSTOP), kill it
 * (SIGKILL) and start it again.
 *
 * POOL_TESTS=word runs the tests whose names contain word; INTEG_DEBUG=1
 * logs at debug level on both sides.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "rpmaf.h"

#define REGION	   (1u << 20) /* bytes of the apm and gpspm regions */
#define SMALL	   (64u << 10)
#define RECORD	   512 /* bytes of one record */
#define THREADS	   4
#define PER_THREAD 64 /* records each thread writes in each of the two regions */
#define INFLIGHT   8  /* operations a thread keeps in flight */
#define OP_MS	   2000
#define READY_MS   15000
#define ECHO_ID	   1
#define KEY_A	   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define KEY_B	   "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

/* ------------------------------------------------------------- the server process */

static volatile sig_atomic_t Remove_asked;

/* on_usr1 -- the test asks for the removal of region victim */
static void
on_usr1(int sig)
{
	(void)sig;
	Remove_asked = 1;
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

/* server_yaml -- the server's configuration */
static int
server_yaml(char *buf, size_t size, const char *port, const char *dir, const char *key)
{
	return snprintf(buf, size,
			"workers: {count: 2, polling: event, batch: 16}\n"
			"queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
			"listen: {address: 127.0.0.1, port: %s, max_connections: 32}\n"
			"regions:\n"
			"  - {name: apm, size: 1M, backing: {file: %s/apm, create: true},\n"
			"     direct_write: true, persistence: apm}\n"
			"  - {name: gpspm, size: 1M, backing: {file: %s/gpspm, create: true},\n"
			"     persistence: gpspm}\n"
			"  - {name: ro, size: 64K, usage: [read]}\n"
			"  - {name: victim, size: 64K}\n"
			"timeouts: {heartbeat_interval_ms: 500, heartbeat_misses: 8}\n"
			"auth: {key_file: %s}\n"
			"log: {level: %s}\n",
			port, dir, dir, key, getenv("INTEG_DEBUG") ? "debug" : "error");
}

/* server_main -- the server process: serve until killed */
static int
server_main(const char *port, const char *dir, const char *key)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_workers *ws = NULL;
	struct rpmaf_server *srv = NULL;
	struct rpmaf_cfg_err err;
	struct rpma_peer *peer;
	char yaml[2048];
	int ret;

	signal(SIGUSR1, on_usr1);
	server_yaml(yaml, sizeof(yaml), port, dir, key);
	if ((ret = rpmaf_cfg_load_buffer("server", yaml, strlen(yaml), NULL, &cfg, &err))) {
		fprintf(stderr, "server: %s\n", err.msg);
		return 1;
	}
	if (!(peer = t_peer_new()) || rpmaf_workers_new(cfg, peer, &ws) ||
	    rpmaf_server_new(cfg, peer, ws, &srv) ||
	    rpmaf_server_handler_add(srv, ECHO_ID, echo, NULL) || rpmaf_server_start(srv)) {
		fprintf(stderr, "server: setup failed\n");
		return 1;
	}
	printf("READY %u\n", rpmaf_server_port(srv));
	fflush(stdout);
	for (;;) {
		if (Remove_asked) {
			Remove_asked = 0;
			ret = rpmaf_server_region_remove(srv, "victim");
			printf("REMOVED %d\n", ret);
			fflush(stdout);
		}
		usleep(10000);
	}
}

/* ------------------------------------------------------------- the client side */

static char Port[16];
static char Dir[64];
static char Key_a[96], Key_b[96];
static struct t_srv Srv;
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

/* server_start -- run the server process and wait for its READY line */
static int
server_start(void)
{
	const char *opts[] = {Dir, Key_a, NULL};
	char line[128];

	if (t_prog_exec(&Srv, "/proc/self/exe", "server", Port, opts))
		return -1;
	return t_srv_line(&Srv, "READY", line, sizeof(line), 20000);
}

/* client_cfg -- the client's configuration with key file key */
static int
client_cfg(const char *key, struct rpmaf_cfg **cfg_ptr)
{
	struct rpmaf_cfg_err err;
	char yaml[1024];
	int ret;

	snprintf(yaml, sizeof(yaml),
		 "workers: {count: 2, polling: event, batch: 16}\n"
		 "queues: {sq: 64, messages: {size: 4K, credits: 8}}\n"
		 "targets: [{name: t0, address: 127.0.0.1, port: %s, connections: 4}]\n"
		 "timeouts: {connect_ms: 3000, operation_ms: %d, heartbeat_interval_ms: 500,\n"
		 "           heartbeat_misses: 8}\n"
		 "reconnect: {initial_ms: 50, max_ms: 400, multiplier: 2, jitter: 0.2}\n"
		 "auth: {key_file: %s}\n"
		 "log: {level: %s}\n",
		 Port, OP_MS, key, getenv("INTEG_DEBUG") ? "debug" : "error");
	ret = rpmaf_cfg_load_buffer("client", yaml, strlen(yaml), NULL, cfg_ptr, &err);
	if (ret)
		fprintf(stderr, "client cfg: %s\n", err.msg);
	return ret;
}

/* group_setup -- the server, the client's peer, workers, memory and pool */
static int
group_setup(void **state)
{
	(void)state;
	snprintf(Port, sizeof(Port), "%d", 19500 + (int)(getpid() % 250) * 2);
	snprintf(Dir, sizeof(Dir), "/tmp/test_pool.%d", (int)getpid());
	snprintf(Key_a, sizeof(Key_a), "%s/key_a", Dir);
	snprintf(Key_b, sizeof(Key_b), "%s/key_b", Dir);
	if (mkdir(Dir, 0700) || key_write(Key_a, KEY_A) || key_write(Key_b, KEY_B))
		return -1;
	if (server_start() || client_cfg(Key_a, &Cfg))
		return -1;
	if (!(Peer = t_peer_new()) || rpmaf_workers_new(Cfg, Peer, &Ws))
		return -1;
	if (!(Mem = aligned_alloc(4096, MEM_SIZE)) ||
	    rpma_mr_reg(Peer, Mem, MEM_SIZE, RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &Mr))
		return -1;
	if (rpmaf_pool_new(Cfg, Peer, Ws, &Pool))
		return -1;
	return rpmaf_pool_wait_ready(Pool, READY_MS) ? -1 : 0;
}

/* group_teardown -- everything in reverse */
static int
group_teardown(void **state)
{
	char cmd[128];

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
	t_srv_kill(&Srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", Dir);
	return system(cmd) == 0 ? 0 : -1;
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

/* call_sync -- a call to handler id of t0 and its wait */
static int
call_sync(uint32_t id, const void *req, size_t len, void *reply, size_t max, size_t *reply_len)
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_call(Pool, &op, "t0", id, req, len, reply, max, NULL, NULL);

	if (ret || (ret = rpmaf_op_wait(&op)))
		return ret;
	*reply_len = rpmaf_op_reply_len(&op);
	return 0;
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

/* test_region_removed -- a removal on the server reaches the table; operations fail */
static void
test_region_removed(void **state)
{
	struct rpmaf_pool_region info;
	struct rpmaf_op op;
	char line[64];
	long long limit;

	(void)state;
	assert_int_equal(rpmaf_pool_region(Pool, "victim", &info), 0);
	assert_int_equal(info.size, SMALL);
	assert_int_equal(write_sync("victim", 0, 0, 64, 0), 0);
	kill(Srv.pid, SIGUSR1);
	assert_int_equal(t_srv_line(&Srv, "REMOVED", line, sizeof(line), 5000), 0);
	assert_string_equal(line, "REMOVED 0");
	limit = t_now_ms() + 5000;
	while (rpmaf_pool_region(Pool, "victim", &info) == 0 && t_now_ms() < limit)
		usleep(1000);
	assert_int_equal(rpmaf_pool_region(Pool, "victim", &info), RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_write(Pool, &op, "victim", 0, Mr, 0, 64, 0, NULL, NULL),
			 RPMAF_E_NOENT);
	assert_int_equal(rpmaf_pool_region(Pool, "apm", &info), 0);
	assert_true(info.apm);
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

/* test_timeout -- a stopped server: the operation times out, the pool recovers */
static void
test_timeout(void **state)
{
	struct rpmaf_op op;
	long long t0, dt;

	(void)state;
	memset(Mem, 0x77, 4096);
	assert_int_equal(kill(Srv.pid, SIGSTOP), 0);
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
	    cmocka_unit_test(test_call),
	    cmocka_unit_test(test_bad_args),
	    cmocka_unit_test(test_op_wait),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_region_removed),
	    cmocka_unit_test(test_wrong_key),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_server_killed),
	};
	struct CMUnitTest run[sizeof(all) / sizeof(all[0])];
	size_t n = 0;

	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return server_main(argv[2], argv[3], argv[4]);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (selected(all[i].name))
			run[n++] = all[i];
	return _cmocka_run_group_tests("pool", run, n, group_setup, group_teardown);
}
