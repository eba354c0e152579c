// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * rpmem-bench.c -- the cost of librpmem's compatibility layer: rpmem_persist()
 * of a pool on rpmemd beside the same write + persist through the framework
 * (rpmaf_pool_write() with RPMAF_OP_PERSIST) into a region of the same
 * daemon, for each size, mode and number of threads: ops/s and p99. Each
 * thread has its own lane (its own range); the framework path has the
 * configuration's connections, librpmem its own (the same file, through
 * LIBRPMEM_CONFIG).
 *
 * usage: rpmem-bench -c CLIENT.yaml -t HOST:PORT -p SETNAME -r REGION
 *        [-s SECONDS] [-R ROUNDS] [-T THREADS,...] [-z SIZES,...] [-I OPS]
 * The pool set SETNAME (relative to the daemon's poolset_dir) is created
 * and removed by the benchmark; REGION is a region of the daemon's
 * configuration at least as large as the pool.
 *
 * -I OPS: instead of the table, the instructions mode, to run under
 * callgrind (--instr-atstart=no): for each size, OPS rpmem_persist() calls
 * (default mode, lane 0) and then OPS framework write + persists, one
 * thread, each phase between CALLGRIND_START/STOP_INSTRUMENTATION and
 * dumped as "rpmem-SIZE" and "framework-SIZE" (64 unmeasured operations
 * before each).
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>
#include <librpmem.h>

#include "rpmaf.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#define POOL_SIZE   (64u << 20)
#define MAX_THREADS 16
#define MAX_SAMPLES (1u << 20)
#define HDR	    4096
#define MAX_ROUNDS  15

struct opts {
	const char *cfg_file, *target, *set, *region;
	double seconds;
	unsigned rounds; /* each point measured this often, the two paths in turn: medians */
	unsigned threads[8], nthreads;
	size_t sizes[8], nsizes;
	unsigned long instr_ops; /* -I: the instructions mode, this many operations a phase */
};

/* the two paths under test */
struct paths {
	RPMEMpool *rpp;
	char *mem; /* the pool's memory (librpmem) and the framework's source */
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_pool *pool;
	struct rpma_mr_local *mr;
};

/* one thread's run */
struct run {
	pthread_t th;
	struct paths *p;
	const char *region;
	unsigned lane, flags;
	bool framework;
	size_t size, span, base;
	double seconds;
	uint32_t *lat; /* ns */
	size_t n;
	int err;
};

/* now_ns -- the monotonic clock */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* one_op -- one persist of size bytes at off through the run's path; 0 or an error */
static int
one_op(struct run *r, size_t off)
{
	struct rpmaf_op op;
	int ret;

	if (!r->framework)
		return rpmem_persist(r->p->rpp, off, r->size, r->lane, r->flags) ? errno : 0;
	ret = rpmaf_pool_write(r->p->pool, &op, r->region, off, r->p->mr, off, r->size,
			       RPMAF_OP_PERSIST, NULL, NULL);
	return ret ? ret : rpmaf_op_wait(&op);
}

/* worker -- persist in a loop over the thread's range until the time is up */
static void *
worker(void *arg)
{
	struct run *r = arg;
	uint64_t end = now_ns() + (uint64_t)(r->seconds * 1e9), t0, t1;
	size_t off = 0;

	for (t0 = now_ns(); t0 < end; t0 = t1) {
		if ((r->err = one_op(r, r->base + off)))
			break;
		t1 = now_ns();
		if (r->n < MAX_SAMPLES)
			r->lat[r->n] = (uint32_t)(t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0);
		r->n++;
		off = (off + r->size) % (r->span - r->size + 1) / r->size * r->size;
	}
	return NULL;
}

/* cmp_u32 -- qsort's order of latencies */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* measure -- nthreads runs of one path; ops/s and p99 (µs) */
static int
measure(struct paths *p, const struct opts *o, bool fw, size_t size, unsigned flags,
	unsigned nthreads, double *ops, double *p99)
{
	static struct run runs[MAX_THREADS];
	size_t span = (POOL_SIZE - HDR) / nthreads / 4096 * 4096, total = 0, k = 0;
	uint32_t *all;
	int err = 0;

	for (unsigned i = 0; i < nthreads; i++) {
		runs[i] = (struct run){.p = p,
				       .region = o->region,
				       .lane = i,
				       .flags = flags,
				       .framework = fw,
				       .size = size,
				       .span = span,
				       .base = HDR + i * span,
				       .seconds = o->seconds};
		if (!(runs[i].lat = malloc(MAX_SAMPLES * sizeof(uint32_t))))
			return ENOMEM;
		pthread_create(&runs[i].th, NULL, worker, &runs[i]);
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(runs[i].th, NULL);
		total += runs[i].n;
		err = err ? err : runs[i].err;
	}
	all = malloc(total * sizeof(*all));
	for (unsigned i = 0; all && i < nthreads; i++) {
		size_t n = runs[i].n < MAX_SAMPLES ? runs[i].n : MAX_SAMPLES;

		memcpy(all + k, runs[i].lat, n * sizeof(*all));
		k += n;
	}
	for (unsigned i = 0; i < nthreads; i++)
		free(runs[i].lat);
	if (all && k)
		qsort(all, k, sizeof(*all), cmp_u32);
	*ops = (double)total / o->seconds;
	*p99 = all && k ? all[k * 99 / 100] / 1000.0 : 0;
	free(all);
	return err;
}

/* framework_open -- the framework's own pool to the daemon, its source registered */
static int
framework_open(struct paths *p, const struct opts *o)
{
	struct rpmaf_cfg_err err;
	struct ibv_context *dev;
	int ret;

	if ((ret = rpmaf_cfg_load_file(o->cfg_file, NULL, &p->cfg, &err))) {
		fprintf(stderr, "rpmem-bench: %s\n", err.msg);
		return ret;
	}
	if ((ret = rpma_utils_get_ibv_context(p->cfg->targets[0].address,
					      RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)) ||
	    (ret = rpma_peer_new(dev, &p->peer)) ||
	    (ret = rpma_mr_reg(p->peer, p->mem, POOL_SIZE, RPMA_MR_USAGE_WRITE_SRC, &p->mr)))
		return ret;
	if ((ret = rpmaf_workers_new(p->cfg, p->peer, &p->ws)) ||
	    (ret = rpmaf_pool_new(p->cfg, p->peer, p->ws, &p->pool)) ||
	    (ret = rpmaf_pool_wait_ready(p->pool, 10000)))
		return ret;
	return 0;
}

/* framework_close -- undo framework_open() */
static void
framework_close(struct paths *p)
{
	(void)rpmaf_pool_delete(&p->pool);
	(void)rpmaf_workers_delete(&p->ws);
	if (p->mr)
		(void)rpma_mr_dereg(&p->mr);
	if (p->peer)
		(void)rpma_peer_delete(&p->peer);
	(void)rpmaf_cfg_delete(&p->cfg);
}

/* list_parse -- "a,b,c" into at most 8 numbers */
static size_t
list_parse(const char *s, size_t *v)
{
	size_t n = 0;

	for (char *end; *s && n < 8; s = *end ? end + 1 : end)
		v[n++] = strtoul(s, &end, 0);
	return n;
}

/* opts_parse -- the command line; 0 or -1 (usage printed) */
static int
opts_parse(int argc, char *argv[], struct opts *o)
{
	size_t t[8];
	int c;

	*o = (struct opts){.seconds = 1,
			   .rounds = 1,
			   .threads = {1, 4},
			   .nthreads = 2,
			   .sizes = {64, 4096, 65536},
			   .nsizes = 3};
	while ((c = getopt(argc, argv, "c:t:p:r:s:T:z:R:I:")) != -1) {
		if (c == 'c')
			o->cfg_file = optarg;
		else if (c == 't')
			o->target = optarg;
		else if (c == 'p')
			o->set = optarg;
		else if (c == 'r')
			o->region = optarg;
		else if (c == 's')
			o->seconds = atof(optarg);
		else if (c == 'R')
			o->rounds = (unsigned)atoi(optarg);
		else if (c == 'T') {
			o->nthreads = (unsigned)list_parse(optarg, t);
			for (unsigned i = 0; i < o->nthreads; i++)
				o->threads[i] = (unsigned)t[i];
		} else if (c == 'z')
			o->nsizes = list_parse(optarg, o->sizes);
		else if (c == 'I')
			o->instr_ops = strtoul(optarg, NULL, 0);
		else
			return -1;
	}
	for (unsigned i = 0; i < o->nthreads; i++) {
		if (!o->threads[i] || o->threads[i] > MAX_THREADS)
			return -1;
	}
	return o->cfg_file && o->target && o->set && o->region && o->seconds > 0 && o->rounds &&
		       o->rounds <= MAX_ROUNDS
		   ? 0
		   : -1;
}

/* median -- the middle of n figures (sorted in place) */
static double
median(double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * point -- one size, flags and thread count, both paths in turn for every
 * round; the medians into f[]: rpmem ops/s, p99, framework ops/s, p99
 */
static int
point(struct paths *p, const struct opts *o, size_t size, unsigned flags, unsigned n, double f[4])
{
	double v[4][MAX_ROUNDS];
	int err;

	for (unsigned r = 0; r < o->rounds; r++) {
		if ((err = measure(p, o, false, size, flags, n, &v[0][r], &v[1][r])) ||
		    (err = measure(p, o, true, size, 0, n, &v[2][r], &v[3][r]))) {
			fprintf(stderr, "rpmem-bench: an operation failed: %d\n", err);
			return -1;
		}
	}
	for (unsigned k = 0; k < 4; k++)
		f[k] = median(v[k], o->rounds);
	return 0;
}

/* table -- every size, mode and thread count, both paths side by side */
static int
table(struct paths *p, const struct opts *o)
{
	static const char *const modes[] = {"default", "relaxed"};
	double f[4];

	printf("| size | mode | threads | rpmem_persist ops/s | p99 µs | framework ops/s | p99 µs "
	       "| ratio |\n|---:|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t s = 0; s < o->nsizes; s++) {
		for (unsigned m = 0; m < 2; m++) {
			for (unsigned t = 0; t < o->nthreads; t++) {
				if (point(p, o, o->sizes[s], m ? RPMEM_PERSIST_RELAXED : 0,
					  o->threads[t], f))
					return -1;
				printf("| %zu | %s | %u | %.0f | %.1f | %.0f | %.1f | %.2f |\n",
				       o->sizes[s], modes[m], o->threads[t], f[0], f[1], f[2], f[3],
				       f[2] > 0 ? f[0] / f[2] : 0);
				fflush(stdout);
			}
		}
	}
	return 0;
}

/* phase -- n operations of one path at offsets after the header, one thread; 0 or an error */
static int
phase(struct paths *p, const struct opts *o, bool fw, size_t size, unsigned long n)
{
	struct run r = {.p = p, .region = o->region, .framework = fw, .size = size};
	size_t span = (POOL_SIZE - HDR) / size * size;
	int err = 0;

	for (unsigned long i = 0; i < n && !err; i++)
		err = one_op(&r, HDR + i * size % span);
	return err;
}

/*
 * instructions -- the instructions mode (-I): per size, the two paths'
 * phases, each measured and dumped by callgrind on its own
 */
static int
instructions(struct paths *p, const struct opts *o)
{
	char name[64];
	int err = 0;

	for (size_t s = 0; s < o->nsizes && !err; s++) {
		for (int fw = 0; fw < 2 && !err; fw++) {
			if ((err = phase(p, o, fw, o->sizes[s], 64)))
				break;
			snprintf(name, sizeof(name), "%s-%zu", fw ? "framework" : "rpmem",
				 o->sizes[s]);
			CALLGRIND_START_INSTRUMENTATION;
			err = phase(p, o, fw, o->sizes[s], o->instr_ops);
			CALLGRIND_STOP_INSTRUMENTATION;
			CALLGRIND_DUMP_STATS_AT(name);
		}
	}
	if (err)
		fprintf(stderr, "rpmem-bench: an operation failed: %d\n", err);
	else
		printf("instructions: %lu operations a phase\n", o->instr_ops);
	return err ? -1 : 0;
}

int
main(int argc, char *argv[])
{
	struct rpmem_pool_attr attr = {.signature = "BENCH", .major = 1};
	struct paths p = {0};
	struct opts o;
	unsigned nlanes = MAX_THREADS;
	int ret = 1;

	if (opts_parse(argc, argv, &o)) {
		fprintf(stderr,
			"usage: rpmem-bench -c CLIENT.yaml -t HOST:PORT -p SETNAME -r REGION"
			" [-s SECONDS] [-R ROUNDS] [-T THREADS,...] [-z SIZES,...] [-I OPS]\n");
		return 2;
	}
	memset(attr.uuid, 1, sizeof(attr.uuid));
	setenv("LIBRPMEM_CONFIG", o.cfg_file, 1);
	p.mem = mmap(NULL, POOL_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p.mem == MAP_FAILED)
		return 1;
	memset(p.mem, 0x5a, POOL_SIZE);
	if (!(p.rpp = rpmem_create(o.target, o.set, p.mem, POOL_SIZE, &nlanes, &attr))) {
		fprintf(stderr, "rpmem-bench: rpmem_create: %s\n", rpmem_errormsg());
		return 1;
	}
	for (unsigned i = 0; i < o.nthreads; i++) {
		if (o.threads[i] > nlanes)
			o.threads[i] = nlanes;
	}
	if (framework_open(&p, &o))
		fprintf(stderr, "rpmem-bench: the framework's pool cannot start\n");
	else if (o.instr_ops)
		ret = instructions(&p, &o) ? 1 : 0;
	else
		ret = table(&p, &o) ? 1 : 0;
	framework_close(&p);
	if (rpmem_close(p.rpp) || rpmem_remove(o.target, o.set, 0)) {
		fprintf(stderr, "rpmem-bench: close/remove: %s\n", rpmem_errormsg());
		ret = 1;
	}
	munmap(p.mem, POOL_SIZE);
	return ret;
}
