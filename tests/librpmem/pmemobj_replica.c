/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pmemobj_replica.c -- Debian's libpmemobj, unchanged, on a pool set whose
 * REPLICA line names a pool of rpmemd: libpmemobj loads librpmem.so.1 with
 * dlopen() and replicates every persist of the pool to the target
 * (tests/librpmem/test-libpmemobj.sh):
 *
 *   pmemobj_replica create POOLSET N MANIFEST   a new pool of N objects
 *   pmemobj_replica verify POOLSET N[+] MANIFEST  reopen, check, add, check
 *   pmemobj_replica mt POOLSET MANIFEST          a new pool, 4 threads at once
 *   pmemobj_replica loop POOLSET N               N transactions on a pool
 *
 * The pool's root holds the objects of the test, object i in objs[i] for i
 * below count, and the generation of each (how often it was rewritten).
 * Object i has a size and a content that follow from the pool's seed, i and
 * its generation alone, so that a reader checks every byte without knowing
 * what happened before. Every change is a transaction.
 *
 * create  makes the pool, N objects (each allocated and written in a
 *         transaction of its own), then rewrites every third one.
 * verify  opens the pool (libpmemobj then checks the replica's attributes:
 *         this fails unless rpmem_open() gives back exactly those of
 *         rpmem_create()) and checks it: exactly N objects, at least N with
 *         "N+"; then adds a quarter more, rewrites every fifth one, checks
 *         again.
 * mt      makes the pool and runs 4 threads, each allocating, rewriting and
 *         replacing (free and allocate) its own objects in transactions,
 *         all at once; then checks.
 * loop    opens the pool and runs N transactions one by one (a rewrite, or
 *         now and then a new object), printing "committed K" after each.
 *
 * A check reads the heap too: the objects of the test's type that the heap
 * holds must be exactly those the root names (none lost, none leaked).
 * create, verify and mt write MANIFEST, a line "OFFSET LENGTH NAME" for the
 * root and for every object: the pool offsets (offsets from the start of
 * the first part) of the bytes libpmemobj persisted, which the replica must
 * hold at the same offsets.
 *
 * Exit status: 0; 1 a libpmemobj call failed or a check found a
 * difference (each named on standard error); 2 wrong usage.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpmemobj.h>

#define LAYOUT	   "librpmem-pmemobj-test"
#define MAX_OBJS   4096
#define OBJ_TYPE   7
#define ROOT_MAGIC 0x4a424f4d454d5052ULL /* "RPMEMOBJ" */
#define OBJ_MAGIC  0x54434a424f4d454dULL /* "MEMOBJCT" */
#define NTHREADS   4			 /* threads of mt */
#define MT_PER	   64			 /* objects of each thread of mt */
#define LOOP_MAX   400			 /* loop adds objects up to this count */
#define MAX_REPORT 10			 /* differences reported one by one */

struct root {
	uint64_t magic;		/* ROOT_MAGIC once the root is set up */
	uint64_t seed;		/* the pool's seed: every object's size and content */
	uint64_t count;		/* objects 0 to count - 1 exist */
	uint64_t gen[MAX_OBJS]; /* the generation of each object */
	PMEMoid objs[MAX_OBJS]; /* the objects */
};

struct obj {
	uint64_t magic;	      /* OBJ_MAGIC */
	uint64_t id;	      /* its index in the root */
	uint64_t gen;	      /* its generation: the root's gen[id] */
	uint64_t size;	      /* bytes of the object, this header included */
	unsigned char data[]; /* the pattern of (seed, id, gen) */
};

static PMEMobjpool *Pop;
static struct root *Root;
static unsigned Problems;

/* problem -- report a difference (the first MAX_REPORT of them) and count it */
__attribute__((format(printf, 1, 2))) static void
problem(const char *fmt, ...)
{
	va_list ap;

	if (Problems++ >= MAX_REPORT)
		return;
	fputs("pmemobj_replica: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * mix -- a 64-bit hash: shifts folded in and multiplications by odd numbers,
 * each step one to one, so that nearby inputs give unrelated outputs
 */
static uint64_t
mix(uint64_t x)
{
	x = (x + 0x7a3c5e9d2b4f6a1bULL) * 0x3d2f8b6c9e1a4c57ULL;
	x = (x ^ (x >> 31)) * 0x9b1d7c45e3a2f86bULL;
	x = (x ^ (x >> 29)) * 0x3d2f8b6c9e1a4c57ULL;
	return x ^ (x >> 32);
}

/*
 * obj_size -- the size of object id: below 1 KiB, every 11th from 2 to 4 KiB
 * (a few sizes of objects: each size class of the heap takes runs of its own)
 */
static size_t
obj_size(uint64_t seed, uint64_t id)
{
	uint64_t h = mix(seed ^ mix(id));

	if (id % 11 == 3)
		return (size_t)(2 << 10) + (size_t)(h % (2 << 10));
	return sizeof(struct obj) + 8 + (size_t)(h % 1000);
}

/* pattern -- byte i of the data of object id in generation gen */
static unsigned char
pattern(uint64_t seed, uint64_t id, uint64_t gen, size_t i)
{
	uint64_t w = mix(seed ^ (id << 20) ^ (gen << 48) ^ (uint64_t)(i / 8));

	return (unsigned char)(w >> (8 * (i % 8)));
}

/* obj_fill -- the whole content of object id in generation gen at o */
static void
obj_fill(struct obj *o, uint64_t id, uint64_t gen)
{
	size_t size = obj_size(Root->seed, id);

	o->magic = OBJ_MAGIC;
	o->id = id;
	o->gen = gen;
	o->size = size;
	for (size_t i = 0; i < size - sizeof(*o); i++)
		o->data[i] = pattern(Root->seed, id, gen, i);
}

/* tx_end -- commit the transaction begun unless ret says it failed; 0 or an errno */
static int
tx_end(int ret)
{
	if (pmemobj_tx_stage() == TX_STAGE_WORK) {
		if (ret)
			pmemobj_tx_abort(ret);
		else
			pmemobj_tx_commit();
	}
	ret = pmemobj_tx_end();
	if (ret)
		fprintf(stderr, "pmemobj_replica: transaction aborted: %s (%s)\n", strerror(ret),
			pmemobj_errormsg());
	return ret;
}

/* tx_begin -- begin a transaction on the pool; 0 or an errno */
static int
tx_begin(void)
{
	if (pmemobj_tx_begin(Pop, NULL, TX_PARAM_NONE) == 0)
		return 0;
	fprintf(stderr, "pmemobj_replica: pmemobj_tx_begin: %s\n", pmemobj_errormsg());
	return tx_end(errno ? errno : EINVAL);
}

/* link_obj -- in the transaction: object id is oid, of generation gen */
static int
link_obj(uint64_t id, PMEMoid oid, uint64_t gen)
{
	if (pmemobj_tx_add_range_direct(&Root->objs[id], sizeof(PMEMoid)) ||
	    pmemobj_tx_add_range_direct(&Root->gen[id], sizeof(uint64_t)))
		return errno ? errno : EINVAL;
	Root->objs[id] = oid;
	Root->gen[id] = gen;
	return 0;
}

/* new_obj -- in the transaction: allocate, write and link object id of generation gen */
static int
new_obj(uint64_t id, uint64_t gen)
{
	PMEMoid oid = pmemobj_tx_alloc(obj_size(Root->seed, id), OBJ_TYPE);

	if (OID_IS_NULL(oid))
		return errno ? errno : ENOMEM;
	obj_fill(pmemobj_direct(oid), id, gen);
	return link_obj(id, oid, gen);
}

/* add_obj -- a transaction: a new object id (of generation 0), count id + 1 when counted */
static int
add_obj(uint64_t id, bool counted)
{
	int ret = tx_begin();

	if (ret)
		return ret;
	ret = new_obj(id, 0);
	if (!ret && counted) {
		if (pmemobj_tx_add_range_direct(&Root->count, sizeof(Root->count)))
			ret = errno ? errno : EINVAL;
		else
			Root->count = id + 1;
	}
	return tx_end(ret);
}

/* replace_obj -- a transaction: object id freed, a new one in its next generation in its place */
static int
replace_obj(uint64_t id)
{
	PMEMoid old = Root->objs[id];
	int ret = tx_begin();

	if (ret)
		return ret;
	if (pmemobj_tx_free(old))
		ret = errno ? errno : EINVAL;
	else
		ret = new_obj(id, Root->gen[id] + 1);
	return tx_end(ret);
}

/* rewrite_obj -- a transaction: object id rewritten whole in its next generation */
static int
rewrite_obj(uint64_t id)
{
	PMEMoid oid = Root->objs[id];
	uint64_t gen = Root->gen[id] + 1;
	int ret = tx_begin();

	if (ret)
		return ret;
	if (pmemobj_tx_add_range(oid, 0, obj_size(Root->seed, id)))
		ret = errno ? errno : EINVAL;
	else
		obj_fill(pmemobj_direct(oid), id, gen);
	if (!ret)
		ret = link_obj(id, oid, gen);
	return tx_end(ret);
}

/* set_count -- a transaction: the root counts n objects */
static int
set_count(uint64_t n)
{
	int ret = tx_begin();

	if (ret)
		return ret;
	if (pmemobj_tx_add_range_direct(&Root->count, sizeof(Root->count)))
		ret = errno ? errno : EINVAL;
	else
		Root->count = n;
	return tx_end(ret);
}

/* cmp_u64 -- qsort() and bsearch() order of offsets */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * heap_objs -- the offsets of the objects of the test's type the heap holds,
 * sorted, into *offs (free it); their number, or -1
 */
static long
heap_objs(uint64_t **offs)
{
	size_t n = 0, cap = 64;
	uint64_t *v = malloc(cap * sizeof(*v));

	for (PMEMoid oid = pmemobj_first(Pop); v && !OID_IS_NULL(oid); oid = pmemobj_next(oid)) {
		if (pmemobj_type_num(oid) != OBJ_TYPE)
			continue;
		if (n == cap) {
			uint64_t *w = realloc(v, (cap *= 2) * sizeof(*v));

			if (!w)
				free(v);
			v = w;
		}
		if (v)
			v[n++] = oid.off;
	}
	if (!v) {
		fprintf(stderr, "pmemobj_replica: out of memory\n");
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	*offs = v;
	return (long)n;
}

/* check_data -- the data of object id against the pattern; false after reporting a difference */
static bool
check_data(const struct obj *o, uint64_t id, uint64_t gen, size_t size)
{
	for (size_t i = 0; i < size - sizeof(*o); i++) {
		unsigned char want = pattern(Root->seed, id, gen, i);

		if (o->data[i] != want) {
			problem("object %" PRIu64 " (generation %" PRIu64
				", at pool offset %" PRIu64
				"): data byte %zu is 0x%02x, expected 0x%02x",
				id, gen, (uint64_t)((const char *)o - (const char *)Pop), i,
				o->data[i], want);
			return false;
		}
	}
	return true;
}

/* check_obj -- object id, known to be an allocated object of the heap */
static void
check_obj(uint64_t id)
{
	PMEMoid oid = Root->objs[id];
	const struct obj *o = pmemobj_direct(oid);
	size_t size = obj_size(Root->seed, id);
	uint64_t gen = Root->gen[id];

	if (pmemobj_alloc_usable_size(oid) < size)
		problem("object %" PRIu64 " at pool offset %" PRIu64
			": %zu usable bytes, expected %zu",
			id, oid.off, pmemobj_alloc_usable_size(oid), size);
	else if (o->magic != OBJ_MAGIC || o->id != id || o->gen != gen || o->size != size)
		problem("object %" PRIu64 " at pool offset %" PRIu64 ": header magic 0x%" PRIx64
			" id %" PRIu64 " generation %" PRIu64 " size %" PRIu64
			", expected 0x%llx %" PRIu64 " %" PRIu64 " %zu",
			id, oid.off, o->magic, o->id, o->gen, o->size, OBJ_MAGIC, id, gen, size);
	else
		check_data(o, id, gen, size);
}

/*
 * check_pool -- the root and every object; exactly n objects (at least n
 * when !exact); the heap's objects of the test's type exactly those of the
 * root. Returns the number of differences found.
 */
static unsigned
check_pool(uint64_t n, bool exact)
{
	unsigned before = Problems;
	uint64_t *offs = NULL;
	long nheap;

	if (Root->magic != ROOT_MAGIC || Root->seed == 0) {
		problem("root: magic 0x%" PRIx64 " seed 0x%" PRIx64 ": not a pool of this test",
			Root->magic, Root->seed);
		return Problems - before;
	}
	if (Root->count > MAX_OBJS || Root->count < n || (exact && Root->count != n)) {
		problem("root: %" PRIu64 " objects, expected %s%" PRIu64, Root->count,
			exact ? "" : "at least ", n);
		if (Root->count > MAX_OBJS)
			return Problems - before;
	}
	if ((nheap = heap_objs(&offs)) < 0)
		return ++Problems - before;
	if ((uint64_t)nheap != Root->count)
		problem("heap: %ld objects of type %d, the root names %" PRIu64, nheap, OBJ_TYPE,
			Root->count);
	for (uint64_t id = 0; id < Root->count; id++) {
		PMEMoid oid = Root->objs[id];

		if (pmemobj_pool_by_oid(oid) != Pop ||
		    !bsearch(&oid.off, offs, (size_t)nheap, sizeof(*offs), cmp_u64))
			problem("object %" PRIu64 ": %" PRIx64 ":%" PRIu64
				" is no object of the heap",
				id, oid.pool_uuid_lo, oid.off);
		else
			check_obj(id);
	}
	free(offs);
	return Problems - before;
}

/* manifest -- the root's and every object's pool range into the file at path; 0 or 1 */
static int
manifest(const char *path)
{
	FILE *f = fopen(path, "w");
	PMEMoid root = pmemobj_root(Pop, sizeof(struct root));

	if (!f) {
		fprintf(stderr, "pmemobj_replica: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "%" PRIu64 " %zu root\n", root.off, sizeof(struct root));
	for (uint64_t id = 0; id < Root->count; id++)
		fprintf(f, "%" PRIu64 " %zu object-%" PRIu64 "\n", Root->objs[id].off,
			obj_size(Root->seed, id), id);
	if (fclose(f)) {
		fprintf(stderr, "pmemobj_replica: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* pool_create -- a new pool of the set, its root set up with a fresh seed; 0 or 1 */
static int
pool_create(const char *set)
{
	struct timespec ts;
	PMEMoid root;

	if (!(Pop = pmemobj_create(set, LAYOUT, 0, 0600))) {
		fprintf(stderr, "pmemobj_replica: pmemobj_create(%s): %s (%s)\n", set,
			pmemobj_errormsg(), strerror(errno));
		return 1;
	}
	root = pmemobj_root(Pop, sizeof(struct root));
	if (OID_IS_NULL(root)) {
		fprintf(stderr, "pmemobj_replica: pmemobj_root: %s\n", pmemobj_errormsg());
		return 1;
	}
	Root = pmemobj_direct(root);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (tx_begin())
		return 1;
	if (pmemobj_tx_add_range(root, 0, 2 * sizeof(uint64_t))) {
		tx_end(errno ? errno : EINVAL);
		return 1;
	}
	Root->magic = ROOT_MAGIC;
	Root->seed = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid());
	return tx_end(0) ? 1 : 0;
}

/* pool_open -- the existing pool of the set; 0 or 1 */
static int
pool_open(const char *set)
{
	if (!(Pop = pmemobj_open(set, LAYOUT))) {
		fprintf(stderr, "pmemobj_replica: pmemobj_open(%s): %s (%s)\n", set,
			pmemobj_errormsg(), strerror(errno));
		return 1;
	}
	Root = pmemobj_direct(pmemobj_root(Pop, sizeof(struct root)));
	if (!Root) {
		fprintf(stderr, "pmemobj_replica: pmemobj_root: %s\n", pmemobj_errormsg());
		return 1;
	}
	return 0;
}

/* finish -- check the pool (n objects), write the manifest, close; the exit status */
static int
finish(const char *what, uint64_t n, const char *path)
{
	int ret = 0;

	if (check_pool(n, true)) {
		fprintf(stderr, "pmemobj_replica: %s: %u differences in the pool\n", what,
			Problems);
		ret = 1;
	}
	ret |= manifest(path);
	pmemobj_close(Pop);
	if (!ret)
		printf("%s: %" PRIu64 " objects intact, pool closed\n", what, n);
	return ret;
}

/* run_create -- create POOLSET N MANIFEST */
static int
run_create(const char *set, uint64_t n, const char *path)
{
	if (pool_create(set))
		return 1;
	for (uint64_t id = 0; id < n; id++)
		if (add_obj(id, true))
			return 1;
	for (uint64_t id = 0; id < n; id += 3)
		if (rewrite_obj(id))
			return 1;
	return finish("create", n, path);
}

/* run_verify -- verify POOLSET N[+] MANIFEST */
static int
run_verify(const char *set, uint64_t n, bool exact, const char *path)
{
	uint64_t count, more;

	if (pool_open(set))
		return 1;
	if (check_pool(n, exact)) {
		fprintf(stderr, "pmemobj_replica: verify: %u differences in the reopened pool\n",
			Problems);
		pmemobj_close(Pop);
		return 1;
	}
	count = Root->count;
	printf("verify: reopened, %" PRIu64 " objects intact\n", count);
	more = count / 4 > 4 ? count / 4 : 4;
	if (count + more > MAX_OBJS)
		more = MAX_OBJS - count;
	for (uint64_t id = count; id < count + more; id++)
		if (add_obj(id, true))
			return 1;
	for (uint64_t id = 0; id < count; id += 5)
		if (rewrite_obj(id))
			return 1;
	return finish("verify", count + more, path);
}

/* mt_thread -- thread t of mt: its objects t, t + NTHREADS, ... allocated, rewritten, replaced */
static void *
mt_thread(void *arg)
{
	uint64_t t = (uint64_t)(uintptr_t)arg;

	for (uint64_t k = 0; k < MT_PER; k++) {
		uint64_t id = k * NTHREADS + t;

		if (add_obj(id, false))
			return (void *)1;
		if (k >= 1 && k % 5 == 0 && rewrite_obj(id - NTHREADS))
			return (void *)1;
		if (k >= 2 && k % 7 == 0 && replace_obj(id - 2 * NTHREADS))
			return (void *)1;
	}
	return NULL;
}

/* run_mt -- mt POOLSET MANIFEST */
static int
run_mt(const char *set, const char *path)
{
	pthread_t th[NTHREADS];
	int ret = 0;

	if (pool_create(set))
		return 1;
	for (uintptr_t t = 0; t < NTHREADS; t++)
		if ((errno = pthread_create(&th[t], NULL, mt_thread, (void *)t))) {
			fprintf(stderr, "pmemobj_replica: pthread_create: %s\n", strerror(errno));
			return 1;
		}
	for (unsigned t = 0; t < NTHREADS; t++) {
		void *r;

		pthread_join(th[t], &r);
		ret |= r != NULL;
	}
	if (ret || set_count(NTHREADS * MT_PER))
		return 1;
	return finish("mt", NTHREADS * MT_PER, path);
}

/* run_loop -- loop POOLSET N: a rewrite, or every fourth a new object, "committed K" after each */
static int
run_loop(const char *set, uint64_t n)
{
	if (pool_open(set))
		return 1;
	if (check_pool(0, false)) {
		pmemobj_close(Pop);
		return 1;
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t count = Root->count;
		bool add = count == 0 || (k % 4 == 0 && count < LOOP_MAX);

		if (add ? add_obj(count, true) : rewrite_obj(k % count))
			return 1;
		printf("committed %" PRIu64 "\n", k + 1);
		fflush(stdout);
	}
	pmemobj_close(Pop);
	return 0;
}

/* number -- argument s as a count of objects (1 to MAX_OBJS, 0 allowed when zero_ok) */
static bool
number(const char *s, bool zero_ok, uint64_t *n)
{
	char *end;

	errno = 0;
	*n = strtoull(s, &end, 10);
	return !errno && end != s && !*end && s[0] != '-' && (*n || zero_ok) && *n <= MAX_OBJS;
}

/* usage -- the usage, exit status 2 */
static int
usage(void)
{
	fprintf(stderr, "usage: pmemobj_replica create POOLSET N MANIFEST\n"
			"       pmemobj_replica verify POOLSET N[+] MANIFEST\n"
			"       pmemobj_replica mt POOLSET MANIFEST\n"
			"       pmemobj_replica loop POOLSET N\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	uint64_t n;

	if (argc == 5 && !strcmp(argv[1], "create") && number(argv[3], false, &n))
		return run_create(argv[2], n, argv[4]);
	if (argc == 5 && !strcmp(argv[1], "verify")) {
		size_t len = strlen(argv[3]);
		bool exact = !len || argv[3][len - 1] != '+';
		char num[32];

		if (len >= sizeof(num))
			return usage();
		memcpy(num, argv[3], len + 1);
		if (!exact)
			num[len - 1] = '\0';
		if (!number(num, !exact, &n))
			return usage();
		return run_verify(argv[2], n, exact, argv[4]);
	}
	if (argc == 4 && !strcmp(argv[1], "mt"))
		return run_mt(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		errno = 0;
		n = strtoull(argv[3], NULL, 10);
		if (errno || !n)
			return usage();
		return run_loop(argv[2], n);
	}
	return usage();
}
