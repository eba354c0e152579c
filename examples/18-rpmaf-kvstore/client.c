/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- a persistent key-value store on the framework: the client.
 *
 * What it teaches: the two ways a framework client reaches a server, each
 * where it fits. A get is one-sided: the client hashes the key and reads
 * the buckets of its probe straight from the server's region with
 * rpmaf_pool_read() -- no server CPU, no message -- and takes a bucket only
 * when it is whole (kv.h: an even version and a matching checksum; a read
 * that raced the server's change of the bucket is read again). A put or a
 * delete is a call (rpmaf_pool_call()) to the server's handler, which
 * changes the table and persists it before it answers.
 *
 * usage: client ADDR PORT get KEY | put KEY VALUE | del KEY
 *        client ADDR PORT --verify [--keys N] [--race-ms MS] [--check-only]
 *        client ADDR PORT --load [--keys N] [--seconds S]
 *   --verify  puts N keys (default 1000), gets each back and compares; deletes
 *             them all, puts half of them again with other values, compares
 *             all; then, for MS milliseconds (default 1000; 0: no race), a
 *             thread puts one key again and again while the main thread gets
 *             it: every value got must be one the writer put, never a mix
 *   --check-only  only the comparison of the end state of --verify (after a
 *             server restart: the data persisted in the region file)
 *   --load    puts N keys load-0... (default 1000), then for S seconds each (default
 *             2), one operation at a time: gets of random keys, bare reads of
 *             a random bucket (the one-sided read a get makes), puts of random
 *             keys, bare calls (a handler that does nothing); ops/s and
 *             latency percentiles of each
 * Exit status: 0 when everything matched, 1 otherwise, 3 when the server
 * cannot be reached.
 */

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librpma.h>
#include <rpmaf.h>

#include "kv.h"

#define EXIT_NOT_CONNECTED 3
#define AREA_SIZE	   4096 /* registered memory of one thread */
#define NAREAS		   2
#define REREADS_MAX	   100000 /* a bucket never whole: the server is gone */
#define HIST_N		   512

static const char Cfg[] = "workers: {count: 1, polling: adaptive}\n"
			  "queues: {messages: {size: 1K}}\n"
			  "targets: [{name: kv, address: \"%s\", port: %s}]\n";

/* the client: the framework's objects and the table's shape */
struct kvc {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
	uint8_t *mem; /* NAREAS areas, one per thread, the local side of reads */
	struct rpma_mr_local *mr;
	uint64_t nbuckets;
	atomic_ulong rereads; /* buckets read again: not whole (raced a change) */
};

/* now_ns -- CLOCK_MONOTONIC in nanoseconds */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------- the store's API */

/* bucket_read -- one bucket, whole, into area (a struct kv_bucket); 0 or an error */
static int
bucket_read(struct kvc *c, unsigned area, uint64_t i, struct kv_bucket **b_ptr)
{
	struct kv_bucket *b = (struct kv_bucket *)(c->mem + (size_t)area * AREA_SIZE);
	struct rpmaf_op op;
	int ret;

	for (unsigned n = 0; n < REREADS_MAX; n++) {
		if ((ret = rpmaf_pool_read(c->pool, &op, KV_REGION, kv_bucket_off(i), c->mr,
					   (size_t)area * AREA_SIZE, KV_BUCKET_SIZE, NULL, NULL)) ||
		    (ret = rpmaf_op_wait(&op)))
			return ret;
		if (kv_bucket_whole(b)) {
			*b_ptr = b;
			return 0;
		}
		atomic_fetch_add_explicit(&c->rereads, 1, memory_order_relaxed);
	}
	return RPMAF_E_TIMEOUT;
}

/*
 * kv_get -- the value of key into value (KV_VALUE_MAX bytes), its length in
 * *vlen; on the thread's area. RETURN VALUE: 1 found, 0 absent, or an error.
 */
static int
kv_get(struct kvc *c, unsigned area, const char *key, void *value, size_t *vlen)
{
	size_t klen = strlen(key);
	uint64_t h = kv_hash(key, klen);
	struct kv_bucket *b;
	int ret;

	for (unsigned i = 0; i < KV_PROBE_MAX; i++) {
		if ((ret = bucket_read(c, area, (h + i) % c->nbuckets, &b)))
			return ret;
		if (b->state == KV_EMPTY)
			return 0;
		if (b->state == KV_USED && b->klen == klen && !memcmp(b->key, key, klen)) {
			memcpy(value, b->value, b->vlen);
			*vlen = b->vlen;
			return 1;
		}
	}
	return 0;
}

/* call -- a put or a delete (vlen 0, value NULL); a delete's reply byte in *deleted */
static int
call(struct kvc *c, uint32_t id, const char *key, const void *value, size_t vlen, int *deleted)
{
	uint8_t req[KV_REQ_MAX], reply[8];
	struct kv_req r = {.klen = (uint16_t)strlen(key), .vlen = (uint16_t)vlen};
	struct rpmaf_op op;
	int ret;

	if (!r.klen || r.klen > KV_KEY_MAX || vlen > KV_VALUE_MAX)
		return RPMAF_E_INVAL;
	memcpy(req, &r, sizeof(r));
	memcpy(req + sizeof(r), key, r.klen);
	if (vlen)
		memcpy(req + sizeof(r) + r.klen, value, vlen);
	if ((ret = rpmaf_pool_call(c->pool, &op, "kv", id, req, sizeof(r) + r.klen + vlen, reply,
				   sizeof(reply), NULL, NULL)) ||
	    (ret = rpmaf_op_wait(&op)))
		return ret;
	if (deleted)
		*deleted = rpmaf_op_reply_len(&op) == 1 && reply[0] == 1;
	return 0;
}

/* kv_put -- key = value, durable when it returns 0 */
static int
kv_put(struct kvc *c, const char *key, const void *value, size_t vlen)
{
	return call(c, KV_HANDLER_PUT, key, value, vlen, NULL);
}

/* kv_del -- delete key; *deleted 1 when it was there */
static int
kv_del(struct kvc *c, const char *key, int *deleted)
{
	return call(c, KV_HANDLER_DEL, key, NULL, 0, deleted);
}

/* ---------------------------------------------------------- opening */

/* kvc_open -- configuration, peer, workers, pool, memory, the table's header */
static int
kvc_open(struct kvc *c, const char *addr, const char *port)
{
	struct rpmaf_cfg_err err;
	struct ibv_context *dev;
	struct rpmaf_op op;
	struct kv_hdr hdr;
	char text[512];
	int ret, len = snprintf(text, sizeof(text), Cfg, addr, port);

	if (len < 0 || (size_t)len >= sizeof(text) ||
	    rpmaf_cfg_load_buffer("client", text, (size_t)len, NULL, &c->cfg, &err)) {
		fprintf(stderr, "client: %s\n",
			len < 0 || (size_t)len >= sizeof(text) ? "the address is too long"
							       : err.msg);
		return 1;
	}
	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)) ||
	    (ret = rpma_peer_new(dev, &c->peer))) {
		fprintf(stderr, "client: no RDMA device reaches %s: %s\n", addr,
			rpma_err_2str(ret));
		return 1;
	}
	if (!(c->mem = aligned_alloc(AREA_SIZE, AREA_SIZE * NAREAS)) ||
	    rpma_mr_reg(c->peer, c->mem, AREA_SIZE * NAREAS, RPMA_MR_USAGE_READ_DST, &c->mr)) {
		fprintf(stderr, "client: cannot register %d bytes\n", AREA_SIZE * NAREAS);
		return 1;
	}
	if ((ret = rpmaf_workers_new(c->cfg, c->peer, &c->ws)) ||
	    (ret = rpmaf_pool_new(c->cfg, c->peer, c->ws, &c->pool))) {
		fprintf(stderr, "client: %s\n", rpmaf_err_str(ret));
		return 1;
	}
	if ((ret = rpmaf_pool_wait_ready(c->pool, c->cfg->timeouts.connect_ms))) {
		fprintf(stderr, "client: the server is not ready: %s\n", rpmaf_err_str(ret));
		return EXIT_NOT_CONNECTED;
	}
	if ((ret =
		 rpmaf_pool_read(c->pool, &op, KV_REGION, 0, c->mr, 0, sizeof(hdr), NULL, NULL)) ||
	    (ret = rpmaf_op_wait(&op))) {
		fprintf(stderr, "client: cannot read the table's header: %s\n", rpmaf_err_str(ret));
		return 1;
	}
	memcpy(&hdr, c->mem, sizeof(hdr));
	if (hdr.magic != KV_MAGIC || hdr.bucket_size != KV_BUCKET_SIZE || !hdr.nbuckets) {
		fprintf(stderr, "client: the region holds no table\n");
		return 1;
	}
	c->nbuckets = hdr.nbuckets;
	return 0;
}

/* kvc_close -- everything kvc_open() made, in the reverse order */
static void
kvc_close(struct kvc *c)
{
	rpmaf_pool_delete(&c->pool);
	rpmaf_workers_delete(&c->ws);
	if (c->mr)
		rpma_mr_dereg(&c->mr);
	free(c->mem);
	if (c->peer)
		rpma_peer_delete(&c->peer);
	rpmaf_cfg_delete(&c->cfg);
}

/* ---------------------------------------------------------- --verify */

/* value_of -- the value --verify puts for seed: its length and bytes */
static size_t
value_of(unsigned seed, uint8_t *v)
{
	size_t len = 1 + (seed * 13u) % KV_VALUE_MAX;

	for (size_t j = 0; j < len; j++)
		v[j] = (uint8_t)(seed * 31u + j * 7u + (seed >> 8));
	return len;
}

/* check -- key i holds the value of seed (or is absent when seed < 0); 0 or 1 (printed) */
static int
check(struct kvc *c, unsigned i, long seed)
{
	uint8_t want[KV_VALUE_MAX], got[KV_VALUE_MAX];
	char key[32];
	size_t wlen = seed < 0 ? 0 : value_of((unsigned)seed, want), glen = 0;
	int ret;

	snprintf(key, sizeof(key), "key-%u", i);
	ret = kv_get(c, 0, key, got, &glen);
	if (ret < 0 || ret != (seed >= 0) || glen != wlen || memcmp(got, want, wlen)) {
		fprintf(stderr, "client: verify: %s: got %s (%zu bytes), expected %s (%zu bytes)\n",
			key,
			ret < 0	   ? rpmaf_err_str(ret)
			: ret == 0 ? "nothing"
				   : "a value",
			glen, seed < 0 ? "nothing" : "its value", wlen);
		return 1;
	}
	return 0;
}

/* put_seed -- put key i with the value of seed; 0 or 1 (printed) */
static int
put_seed(struct kvc *c, unsigned i, unsigned seed)
{
	uint8_t v[KV_VALUE_MAX];
	char key[32];
	size_t len = value_of(seed, v);
	int ret;

	snprintf(key, sizeof(key), "key-%u", i);
	if ((ret = kv_put(c, key, v, len)))
		fprintf(stderr, "client: verify: put %s: %s\n", key, rpmaf_err_str(ret));
	return ret ? 1 : 0;
}

/* end_state -- the state --verify leaves: the first half with seeds n + i, the rest absent */
static int
end_state(struct kvc *c, unsigned n)
{
	int bad = 0;

	for (unsigned i = 0; i < n && !bad; i++)
		bad |= check(c, i, i < n / 2 ? (long)(n + i) : -1);
	return bad;
}

/* what the race's writer shares with the reader */
struct race {
	struct kvc *c;
	atomic_int stop;
	atomic_ulong puts;
	int err;
};

/* race_writer -- put "race" again and again, each value one 8-byte number repeated */
static void *
race_writer(void *arg)
{
	struct race *r = arg;
	uint64_t v[KV_VALUE_MAX / 8];

	for (uint64_t gen = 1; !atomic_load(&r->stop); gen++) {
		for (size_t j = 0; j < KV_VALUE_MAX / 8; j++)
			v[j] = gen;
		if ((r->err = kv_put(r->c, "race", v, sizeof(v))))
			break;
		atomic_fetch_add(&r->puts, 1);
	}
	return NULL;
}

/* race -- get "race" while race_writer() puts it: every value must be whole */
static int
race(struct kvc *c, unsigned ms)
{
	struct race r = {.c = c};
	uint64_t v[KV_VALUE_MAX / 8], end = now_ns() + ms * 1000000ull, gets = 0, torn = 0;
	unsigned long rereads0 = atomic_load(&c->rereads);
	size_t len;
	pthread_t th;
	int ret = 0;

	if (pthread_create(&th, NULL, race_writer, &r)) {
		fprintf(stderr, "client: verify: cannot start the writer\n");
		return 1;
	}
	while (now_ns() < end && ret >= 0) {
		if ((ret = kv_get(c, 1, "race", v, &len)) != 1)
			continue;
		gets++;
		for (size_t j = 1; j < KV_VALUE_MAX / 8; j++)
			torn += v[j] != v[0] || len != sizeof(v);
	}
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	printf("client: verify: race: %lu gets, %lu puts, %lu rereads, %lu torn values\n",
	       (unsigned long)gets, atomic_load(&r.puts), atomic_load(&c->rereads) - rereads0,
	       (unsigned long)torn);
	if (ret < 0 || r.err)
		fprintf(stderr, "client: verify: race: %s\n", rpmaf_err_str(ret < 0 ? ret : r.err));
	return ret < 0 || r.err || torn || !gets || !atomic_load(&r.puts);
}

/* verify -- --verify: see the top of the file */
static int
verify(struct kvc *c, unsigned n, unsigned race_ms, bool check_only)
{
	int bad = 0, deleted;
	char key[32];

	if (check_only) {
		if ((bad = end_state(c, n)) == 0)
			printf("client: verify: %u keys checked after the restart: all match\n", n);
		return bad;
	}
	for (unsigned i = 0; i < n && !bad; i++)
		bad |= put_seed(c, i, i);
	for (unsigned i = 0; i < n && !bad; i++)
		bad |= check(c, i, i);
	if (bad)
		return 1;
	printf("client: verify: %u keys put, read back by get: all match\n", n);
	for (unsigned i = 0; i < n && !bad; i++) {
		snprintf(key, sizeof(key), "key-%u", i);
		if (kv_del(c, key, &deleted) || !deleted) {
			fprintf(stderr, "client: verify: delete %s failed\n", key);
			bad = 1;
		}
	}
	for (unsigned i = 0; i < n / 2 && !bad; i++)
		bad |= put_seed(c, i, n + i);
	if (bad || (bad = end_state(c, n)))
		return 1;
	printf("client: verify: %u keys deleted, %u put again: all match\n", n, n / 2);
	return race_ms ? race(c, race_ms) : 0;
}

/* ---------------------------------------------------------- --load */

/* a latency histogram: 8 buckets per power of two (within 12.5%) */
struct hist {
	uint64_t n[HIST_N];
	uint64_t count;
};

/* hist_add -- count one latency of ns nanoseconds */
static void
hist_add(struct hist *h, uint64_t ns)
{
	unsigned i = ns < 8 ? (unsigned)ns
			    : (unsigned)((63 - __builtin_clzll(ns) - 2) * 8 +
					 ((ns >> (63 - __builtin_clzll(ns) - 3)) & 7));

	h->n[i]++;
	h->count++;
}

/* hist_pct -- the latency (µs) under which the fraction q of the counts are */
static double
hist_pct(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)(q * (double)h->count), seen = 0;

	for (unsigned i = 0; i < HIST_N; i++) {
		if ((seen += h->n[i]) > want || seen == h->count)
			return (i < 8 ? i : (8.0 + i % 8) * (double)(1ull << (i / 8 + 2 - 3))) /
			       1000.0;
	}
	return 0;
}

/* one operation of a phase of the load, on key (or bucket) number i */
typedef int (*load_fn)(struct kvc *c, unsigned i);

/* load_get -- a get of key i */
static int
load_get(struct kvc *c, unsigned i)
{
	uint8_t v[KV_VALUE_MAX];
	char key[32];
	size_t len;

	snprintf(key, sizeof(key), "load-%u", i);
	return kv_get(c, 0, key, v, &len) == 1 ? 0 : RPMAF_E_NOENT;
}

/* load_read -- a bare read of one bucket, the size a get reads */
static int
load_read(struct kvc *c, unsigned i)
{
	struct rpmaf_op op;
	int ret = rpmaf_pool_read(c->pool, &op, KV_REGION, kv_bucket_off(i % c->nbuckets), c->mr, 0,
				  KV_BUCKET_SIZE, NULL, NULL);

	return ret ? ret : rpmaf_op_wait(&op);
}

/* load_put -- a put of key i, a full value */
static int
load_put(struct kvc *c, unsigned i)
{
	uint8_t v[KV_VALUE_MAX];
	char key[32];

	memset(v, (int)i, sizeof(v));
	snprintf(key, sizeof(key), "load-%u", i);
	return kv_put(c, key, v, sizeof(v));
}

/* load_call -- a bare call: a handler that does nothing */
static int
load_call(struct kvc *c, unsigned i)
{
	struct rpmaf_op op;
	uint8_t reply[8];
	int ret = rpmaf_pool_call(c->pool, &op, "kv", KV_HANDLER_PING, &i, sizeof(i), reply,
				  sizeof(reply), NULL, NULL);

	(void)i;
	return ret ? ret : rpmaf_op_wait(&op);
}

/* phase -- fn on random keys below n, one at a time, for seconds; its figures */
static int
phase(struct kvc *c, const char *name, load_fn fn, unsigned n, unsigned seconds)
{
	static struct hist h;
	uint64_t t0 = now_ns(), end = t0 + seconds * 1000000000ull, t = t0,
		 rng = 88172645463325252ull;
	unsigned long rereads0 = atomic_load(&c->rereads);
	int ret = 0;

	memset(&h, 0, sizeof(h));
	while (t < end) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		if ((ret = fn(c, (unsigned)(rng % n)))) {
			fprintf(stderr, "client: load: %s: %s\n", name, rpmaf_err_str(ret));
			return 1;
		}
		uint64_t t1 = now_ns();

		hist_add(&h, t1 - t);
		t = t1;
	}
	printf("client: load: %-4s %8lu ops in %.2f s: %8.0f ops/s, p50 %.1f us, p99 %.1f us, "
	       "p99.9 %.1f us, %lu rereads\n",
	       name, (unsigned long)h.count, (double)(t - t0) / 1e9,
	       (double)h.count * 1e9 / (double)(t - t0), hist_pct(&h, 0.5), hist_pct(&h, 0.99),
	       hist_pct(&h, 0.999), atomic_load(&c->rereads) - rereads0);
	return 0;
}

/* load -- --load: put n keys, then each phase for seconds */
static int
load(struct kvc *c, unsigned n, unsigned seconds)
{
	for (unsigned i = 0; i < n; i++) {
		if (load_put(c, i)) {
			fprintf(stderr, "client: load: cannot put load-%u\n", i);
			return 1;
		}
	}
	return phase(c, "get", load_get, n, seconds) || phase(c, "read", load_read, n, seconds) ||
	       phase(c, "put", load_put, n, seconds) || phase(c, "call", load_call, n, seconds);
}

/* ---------------------------------------------------------- the command line */

/* command -- get KEY, put KEY VALUE, del KEY */
static int
command(struct kvc *c, int argc, char *argv[])
{
	char value[KV_VALUE_MAX + 1];
	size_t len;
	int ret, deleted;

	if (argc == 2 && !strcmp(argv[0], "get")) {
		if ((ret = kv_get(c, 0, argv[1], value, &len)) == 1)
			printf("%.*s\n", (int)len, value);
		else if (ret == 0)
			fprintf(stderr, "client: %s: no such key\n", argv[1]);
	} else if (argc == 3 && !strcmp(argv[0], "put")) {
		if ((len = strlen(argv[2])) > KV_VALUE_MAX)
			ret = RPMAF_E_INVAL;
		else
			ret = kv_put(c, argv[1], argv[2], len);
	} else if (argc == 2 && !strcmp(argv[0], "del")) {
		if ((ret = kv_del(c, argv[1], &deleted)) == 0 && !deleted)
			fprintf(stderr, "client: %s: no such key\n", argv[1]);
		ret = ret ? ret : !deleted;
	} else {
		fprintf(stderr, "client: unknown command (get KEY, put KEY VALUE, del KEY)\n");
		return 1;
	}
	if (ret < 0)
		fprintf(stderr, "client: %s: %s\n", argv[0], rpmaf_err_str(ret));
	return ret == 1 && argv[0][0] == 'g' ? 0 : ret != 0;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
	    {"verify", no_argument, NULL, 'v'},
	    {"load", no_argument, NULL, 'l'},
	    {"keys", required_argument, NULL, 'k'},
	    {"race-ms", required_argument, NULL, 'r'},
	    {"seconds", required_argument, NULL, 's'},
	    {"check-only", no_argument, NULL, 'c'},
	    {NULL, 0, NULL, 0},
	};
	struct kvc c = {0};
	unsigned keys = 1000, race_ms = 1000, seconds = 2;
	int mode = 0, o, ret;
	bool check_only = false;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'v' || o == 'l')
			mode = o;
		else if (o == 'k')
			keys = (unsigned)strtoul(optarg, NULL, 10);
		else if (o == 'r')
			race_ms = (unsigned)strtoul(optarg, NULL, 10);
		else if (o == 's')
			seconds = (unsigned)strtoul(optarg, NULL, 10);
		else if (o == 'c')
			check_only = true;
		else
			mode = '?';
	}
	if (mode == '?' || argc - optind < 2 || (mode && argc - optind != 2) ||
	    (!mode && argc - optind < 4) || keys < 2 || keys > 1000000 || !seconds) {
		fprintf(stderr,
			"usage: %s ADDR PORT get KEY | put KEY VALUE | del KEY\n"
			"       %s ADDR PORT --verify [--keys N] [--race-ms MS] [--check-only]\n"
			"       %s ADDR PORT --load [--keys N] [--seconds S]\n",
			argv[0], argv[0], argv[0]);
		return 1;
	}
	if (!(ret = kvc_open(&c, argv[optind], argv[optind + 1]))) {
		if (mode == 'v')
			ret = verify(&c, keys, race_ms, check_only);
		else if (mode == 'l')
			ret = load(&c, keys, seconds);
		else
			ret = command(&c, argc - optind - 2, argv + optind + 2);
	}
	kvc_close(&c);
	return ret;
}
