/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * regtab_torture.c -- readers look regions up and issue operations while
 * one updater adds, replaces (as a list page or a change in place) and
 * removes them, for a bounded time; built with ThreadSanitizer and with
 * AddressSanitizer.
 *
 * Environment: REGTAB_TORTURE_SECONDS (2), REGTAB_TORTURE_READERS (4),
 * REGTAB_TORTURE_NAMES (32).
 *
 * What must hold, checked on every lookup, besides what the sanitizers
 * check (no race, no use after free, nothing leaked):
 * 1. integrity: an entry found is whole: its size, descriptor and object
 *    are those the updater derived from its name and generation; the object
 *    is still alive (the hook poisons it before freeing it);
 * 2. no resurrection: a lookup never returns a generation whose removal or
 *    replacement had been applied (the call returned) before the lookup
 *    started;
 * 3. monotonic: one reader never sees a name's generation go backwards;
 * 4. an operation issued (rpmaf__regtab_entry_check() == 0) is never against
 *    an entry the reader saw retired before (the check answers NOENT then);
 * 5. every object made was deleted, each once, after the table's deletion;
 * 6. lineage: an entry continues (since) no generation older than its
 *    name's last removal, and none newer than its own.
 * The program exits 1 at the first violation, 0 with the figures otherwise.
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regtab.h"

#define OBJ_ALIVE   0x0b1ec7a11fe00001ULL
#define OBJ_DEAD    0xdeaddeaddeaddeadULL
#define NAMES_MAX   1024
#define READERS_MAX 64

/* what the updater hands the descriptor hook: the object of one generation */
struct obj {
	uint64_t magic; /* OBJ_ALIVE until obj_delete */
	uint64_t generation;
	uint64_t sum;
};

/* the state of one name, shared with the readers */
struct slot {
	char name[16];
	size_t len;
	/* the generation of the newest entry retired (replaced or removed) by a completed call */
	_Atomic uint64_t retired;
	/* the generation of the last removal applied (a completed call) */
	_Atomic uint64_t removed;
};

static struct slot slots[NAMES_MAX];
static unsigned n_names = 32, n_readers = 4;
static atomic_bool stop;
static atomic_ulong objs_made, objs_deleted;
static struct rpmaf__regtab *tab;

/* per-reader figures */
struct reader {
	pthread_t thread;
	unsigned id;
	uint64_t lookups, hits, ops_issued, ops_refused, gets;
	uint64_t last_gen[NAMES_MAX];
};

/* fail -- report a violated property and exit */
static void
fail(const char *what, unsigned slot, uint64_t a, uint64_t b)
{
	fprintf(stderr, "regtab_torture: VIOLATION: %s (name %s, %" PRIu64 " vs %" PRIu64 ")\n",
		what, slots[slot].name, a, b);
	exit(1);
}

/* desc_byte -- byte i of the descriptor of a name at a generation */
static uint8_t
desc_byte(unsigned slot, uint64_t gen, unsigned i)
{
	return (uint8_t)(slot * 131 + gen * 7 + i * 13);
}

/* size_of -- the size of a name at a generation */
static uint64_t
size_of(unsigned slot, uint64_t gen)
{
	return 4096 * (1 + (gen % 97)) + slot;
}

/* desc_sum -- a checksum of a descriptor */
static uint64_t
desc_sum(const uint8_t *desc, size_t len)
{
	uint64_t s = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		s = (s ^ desc[i]) * 1099511628211ULL;
	return s;
}

/* obj_new -- decode a descriptor: its generation is in its first 8 bytes */
static int
obj_new(const uint8_t *desc, size_t len, void *arg, void **out)
{
	struct obj *o = malloc(sizeof(*o));

	(void)arg;
	if (o == NULL)
		return -1;
	o->magic = OBJ_ALIVE;
	memcpy(&o->generation, desc, sizeof(o->generation));
	o->sum = desc_sum(desc, len);
	atomic_fetch_add_explicit(&objs_made, 1, memory_order_relaxed);
	*out = o;
	return 0;
}

/* obj_delete -- poison the object, then free it */
static void
obj_delete(void *p, void *arg)
{
	struct obj *o = p;

	(void)arg;
	if (o->magic != OBJ_ALIVE) {
		fprintf(stderr, "regtab_torture: VIOLATION: object deleted twice\n");
		exit(1);
	}
	o->magic = OBJ_DEAD;
	free(o);
	atomic_fetch_add_explicit(&objs_deleted, 1, memory_order_relaxed);
}

/* check_entry -- property 1 on an entry of slot s */
static void
check_entry(unsigned s, const struct rpmaf__regtab_entry *e)
{
	const struct obj *o = e->obj;
	uint64_t gen = e->generation, g8;

	if (e->name_len != slots[s].len || memcmp(e->name, slots[s].name, e->name_len) != 0)
		fail("entry under another name", s, e->name_len, slots[s].len);
	if (e->size != size_of(s, gen))
		fail("size does not match the generation", s, e->size, size_of(s, gen));
	if (e->desc_len != RPMAF__REGTAB_DESC_MAX)
		fail("descriptor length", s, e->desc_len, RPMAF__REGTAB_DESC_MAX);
	memcpy(&g8, e->desc, sizeof(g8));
	if (g8 != gen)
		fail("descriptor of another generation", s, g8, gen);
	for (unsigned i = 8; i < e->desc_len; i++)
		if (e->desc[i] != desc_byte(s, gen, i))
			fail("descriptor byte", s, e->desc[i], desc_byte(s, gen, i));
	if (o == NULL || o->magic != OBJ_ALIVE)
		fail("the entry's object is dead", s, o ? o->magic : 0, OBJ_ALIVE);
	if (o->generation != gen || o->sum != desc_sum(e->desc, e->desc_len))
		fail("the entry's object is another's", s, o->generation, gen);
}

/* reader_step -- one lookup and operation on a random name */
static void
reader_step(struct reader *r, unsigned *seed)
{
	unsigned s = (unsigned)rand_r(seed) % n_names;
	uint64_t retired = atomic_load_explicit(&slots[s].retired, memory_order_acquire);
	uint64_t removed = atomic_load_explicit(&slots[s].removed, memory_order_acquire);
	const struct rpmaf__regtab_entry *e;

	rpmaf__regtab_read_lock();
	r->lookups++;
	e = rpmaf__regtab_lookup(tab, slots[s].name, slots[s].len);
	if (e != NULL) {
		r->hits++;
		check_entry(s, e);
		if (e->generation <= retired)
			fail("found a generation retired before the lookup", s, e->generation,
			     retired);
		if (e->since > e->generation || (removed && e->since <= removed))
			fail("the entry continues another region", s, e->since, removed);
		if (e->generation < r->last_gen[s])
			fail("generation went backwards", s, e->generation, r->last_gen[s]);
		r->last_gen[s] = e->generation;
		/* the operation: issued only against an entry still in the table */
		if (rpmaf__regtab_entry_check(e) == 0) {
			r->ops_issued++;
			if (atomic_load_explicit(&slots[s].retired, memory_order_acquire) >=
				e->generation &&
			    rpmaf__regtab_entry_check(e) == 0)
				fail("operation issued on a retired entry", s, e->generation,
				     slots[s].retired);
		} else {
			r->ops_refused++;
		}
		check_entry(s, e); /* still whole at the end of the section */
	}
	rpmaf__regtab_read_unlock();
}

/* reader_main -- a registered RCU reader looking names up until stopped */
static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	unsigned seed = 0x5eed + r->id;
	struct rpmaf__regtab_info info;

	rpmaf__regtab_thread_register();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int i = 0; i < 64; i++)
			reader_step(r, &seed);
		/* the copy-out path now and then */
		unsigned s = (unsigned)rand_r(&seed) % n_names;
		if (rpmaf__regtab_get(tab, slots[s].name, slots[s].len, &info) == 0 &&
		    info.size != size_of(s, info.generation))
			fail("copied-out size", s, info.size, size_of(s, info.generation));
		r->gets++;
	}
	rpmaf__regtab_thread_unregister();
	return NULL;
}

/* updater figures */
static uint64_t n_adds, n_replaces, n_removes, n_stale, n_prunes;
static uint64_t gens[NAMES_MAX]; /* the newest generation given to each name */
static bool live[NAMES_MAX];

/* announce -- apply name s at generation gen (a change in place: change); the table's answer */
static int
announce(unsigned s, uint64_t gen, bool change)
{
	uint8_t desc[RPMAF__REGTAB_DESC_MAX];
	struct rpmaf__proto_region reg = {.size = size_of(s, gen),
					  .generation = gen,
					  .persist = RPMAF__PROTO_PERSIST_APM,
					  .usage = RPMAF__PROTO_USAGE_ALL,
					  .name_len = (uint8_t)slots[s].len,
					  .desc_len = sizeof(desc),
					  .name = slots[s].name,
					  .desc = desc};

	memcpy(desc, &gen, sizeof(gen));
	for (unsigned i = 8; i < sizeof(desc); i++)
		desc[i] = desc_byte(s, gen, i);
	return change ? rpmaf__regtab_change(tab, 0, &reg)
		      : rpmaf__regtab_announce(tab, 0, &reg, false);
}

/* update_step -- one random change, its effect recorded for the readers */
static void
update_step(unsigned *seed)
{
	unsigned s = (unsigned)rand_r(seed) % n_names;
	unsigned what = (unsigned)rand_r(seed) % 16;
	uint64_t old = gens[s];
	int ret;

	if (what < 9) { /* add or replace, half of them as a change in place */
		if (announce(s, ++gens[s], what & 1) != 0)
			fail("apply refused", s, gens[s], old);
		if (live[s]) {
			atomic_store_explicit(&slots[s].retired, old, memory_order_release);
			n_replaces++;
		} else {
			n_adds++;
		}
		live[s] = true;
	} else if (what < 13) { /* remove */
		ret = rpmaf__regtab_remove(tab, slots[s].name, slots[s].len, ++gens[s]);
		if (ret != 0)
			fail("remove refused", s, gens[s], (uint64_t)-ret);
		atomic_store_explicit(&slots[s].retired, gens[s], memory_order_release);
		atomic_store_explicit(&slots[s].removed, gens[s], memory_order_release);
		live[s] = false;
		n_removes++;
	} else if (what < 15) {
		/* a stale announcement: must change nothing (a pruned tombstone forgets) */
		if (live[s] && old > 1) {
			if (announce(s, old - 1, what & 1) != RPMAF__REGTAB_E_STALE)
				fail("stale announcement accepted", s, old - 1, old);
			n_stale++;
		}
	} else if ((unsigned)rand_r(seed) % 64 == 0) {
		ret = rpmaf__regtab_prune(tab);
		if (ret < 0)
			fail("prune", s, 0, (uint64_t)-ret);
		n_prunes++;
	}
}

/* env_uint -- an unsigned from the environment, or dflt */
static unsigned
env_uint(const char *name, unsigned dflt, unsigned max)
{
	const char *v = getenv(name);
	unsigned long n;

	if (v == NULL || *v == '\0')
		return dflt;
	n = strtoul(v, NULL, 10);
	return n == 0 || n > max ? dflt : (unsigned)n;
}

/* now_s -- monotonic seconds */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	static const struct rpmaf__regtab_ops ops = {obj_new, obj_delete, NULL};
	static struct reader readers[READERS_MAX];
	unsigned seconds = env_uint("REGTAB_TORTURE_SECONDS", 2, 3600);
	unsigned seed = 0xc0ffee;
	uint64_t lookups = 0, hits = 0, issued = 0, refused = 0, gets = 0, updates;
	double t0, t;

	n_readers = env_uint("REGTAB_TORTURE_READERS", 4, READERS_MAX);
	n_names = env_uint("REGTAB_TORTURE_NAMES", 32, NAMES_MAX);
	for (unsigned s = 0; s < n_names; s++)
		slots[s].len =
		    (size_t)snprintf(slots[s].name, sizeof(slots[s].name), "region-%u", s);
	rpmaf__regtab_thread_register();
	if (rpmaf__regtab_new(&ops, &tab) != 0) {
		fprintf(stderr, "regtab_torture: cannot create the table\n");
		return 1;
	}
	for (unsigned i = 0; i < n_readers; i++) {
		readers[i].id = i;
		if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]) != 0) {
			fprintf(stderr, "regtab_torture: pthread_create failed\n");
			return 1;
		}
	}
	t0 = now_s();
	do {
		for (int i = 0; i < 64; i++)
			update_step(&seed);
		t = now_s();
	} while (t - t0 < seconds);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < n_readers; i++) {
		pthread_join(readers[i].thread, NULL);
		lookups += readers[i].lookups;
		hits += readers[i].hits;
		issued += readers[i].ops_issued;
		refused += readers[i].ops_refused;
		gets += readers[i].gets;
	}
	t = now_s() - t0;
	if (rpmaf__regtab_delete(&tab) != 0) {
		fprintf(stderr, "regtab_torture: cannot delete the table\n");
		return 1;
	}
	rpmaf__regtab_thread_unregister();
	if (atomic_load(&objs_made) != atomic_load(&objs_deleted)) {
		fprintf(stderr, "regtab_torture: VIOLATION: %lu objects made, %lu deleted\n",
			atomic_load(&objs_made), atomic_load(&objs_deleted));
		return 1;
	}
	updates = n_adds + n_replaces + n_removes;
	printf("regtab_torture: %.1f s, %u readers, %u names: %" PRIu64 " lookups (%.0f/s, "
	       "%" PRIu64 " hits), %" PRIu64 " operations issued, %" PRIu64
	       " refused (retired meanwhile), %" PRIu64 " copy-outs; %" PRIu64
	       " updates (%.0f/s: %" PRIu64 " adds, %" PRIu64 " replaces, %" PRIu64
	       " removes), %" PRIu64 " stale refused, %" PRIu64 " prunes; %lu objects freed\n",
	       t, n_readers, n_names, lookups, lookups / t, hits, issued, refused, gets, updates,
	       updates / t, n_adds, n_replaces, n_removes, n_stale, n_prunes,
	       atomic_load(&objs_deleted));
	return 0;
}
