/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_regtab.c -- the region table on one thread: add, replace, remove,
 * lookup (and the data path's lookup that remembers its last entry),
 * generations, tombstones, name bounds, the descriptor objects and when
 * they are freed, allocation failures.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "regtab.h"

/* --wrap=malloc,calloc: fail the next allocation of the code under test on demand */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
static int fail_alloc;

/* __wrap_malloc -- malloc, or NULL when a failure was asked for */
void *
__wrap_malloc(size_t size)
{
	if (fail_alloc) {
		fail_alloc = 0;
		return NULL;
	}
	return __real_malloc(size);
}

/* __wrap_calloc -- calloc, or NULL when a failure was asked for */
void *
__wrap_calloc(size_t n, size_t size)
{
	if (fail_alloc) {
		fail_alloc = 0;
		return NULL;
	}
	return __real_calloc(n, size);
}

/* the descriptor objects: a copy of the descriptor, counted */
struct obj {
	uint8_t desc[RPMAF__REGTAB_DESC_MAX];
	size_t len;
};
static int objs_live, objs_deleted, obj_fail;

/* obj_new -- the obj_new hook: copy the descriptor (or fail on demand) */
static int
obj_new(const uint8_t *desc, size_t len, void *arg, void **out)
{
	struct obj *o;

	assert_ptr_equal(arg, &objs_live);
	if (obj_fail)
		return -1;
	o = __real_malloc(sizeof(*o));
	assert_non_null(o);
	memcpy(o->desc, desc, len);
	o->len = len;
	__atomic_add_fetch(&objs_live, 1, __ATOMIC_RELAXED);
	*out = o;
	return 0;
}

/* obj_delete -- the obj_delete hook */
static void
obj_delete(void *o, void *arg)
{
	assert_ptr_equal(arg, &objs_live);
	free(o);
	__atomic_sub_fetch(&objs_live, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&objs_deleted, 1, __ATOMIC_RELAXED);
}

static const struct rpmaf__regtab_ops ops = {obj_new, obj_delete, &objs_live};

/* region -- a valid announcement of name at gen with a descriptor derived from both */
static struct rpmaf__proto_region
region(const char *name, uint64_t gen, uint8_t *desc)
{
	struct rpmaf__proto_region r = {.size = 4096 * gen,
					.generation = gen,
					.persist = RPMAF__PROTO_PERSIST_APM,
					.usage = RPMAF__PROTO_USAGE_ALL,
					.name_len = (uint8_t)strlen(name),
					.desc_len = 21,
					.name = name,
					.desc = desc};

	for (int i = 0; i < 21; i++)
		desc[i] = (uint8_t)(gen * 31 + i);
	return r;
}

/* apply -- apply name at gen for target 7; return the table's answer */
static int
apply(struct rpmaf__regtab *tab, const char *name, uint64_t gen)
{
	uint8_t desc[21];
	struct rpmaf__proto_region r = region(name, gen, desc);

	return rpmaf__regtab_apply(tab, 7, &r);
}

/* live_gen -- the generation of name's live entry, 0 when none */
static uint64_t
live_gen(struct rpmaf__regtab *tab, const char *name)
{
	struct rpmaf__regtab_info info;
	int ret = rpmaf__regtab_get(tab, name, strlen(name), &info);

	if (ret == RPMAF__REGTAB_E_NOENT)
		return 0;
	assert_int_equal(ret, 0);
	return info.generation;
}

/* setup -- a table with the counting hooks */
static int
setup(void **state)
{
	struct rpmaf__regtab *tab = NULL;

	objs_live = objs_deleted = obj_fail = fail_alloc = 0;
	if (rpmaf__regtab_new(&ops, &tab) != 0)
		return -1;
	*state = tab;
	return 0;
}

/* teardown -- delete the table: every object is freed by then */
static int
teardown(void **state)
{
	struct rpmaf__regtab *tab = *state;

	if (rpmaf__regtab_delete(&tab) != 0 || tab != NULL)
		return -1;
	return objs_live == 0 ? 0 : -1;
}

/* test_add_lookup -- an added region is found with every field as announced */
static void
test_add_lookup(void **state)
{
	struct rpmaf__regtab *tab = *state;
	const struct rpmaf__regtab_entry *e;
	uint8_t desc[21];
	struct rpmaf__proto_region r = region("alpha", 3, desc);

	assert_int_equal(rpmaf__regtab_apply(tab, 5, &r), 0);
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, "alpha", 5);
	assert_non_null(e);
	assert_int_equal(e->size, 3 * 4096);
	assert_int_equal(e->generation, 3);
	assert_int_equal(e->target, 5);
	assert_int_equal(e->persist, RPMAF__PROTO_PERSIST_APM);
	assert_int_equal(e->usage, RPMAF__PROTO_USAGE_ALL);
	assert_string_equal(e->name, "alpha");
	assert_int_equal(e->desc_len, 21);
	assert_memory_equal(e->desc, desc, 21);
	assert_non_null(e->obj);
	assert_memory_equal(((struct obj *)e->obj)->desc, desc, 21);
	assert_int_equal(rpmaf__regtab_entry_check(e), 0);
	/* a prefix, a longer name, another name: not found */
	assert_null(rpmaf__regtab_lookup(tab, "alph", 4));
	assert_null(rpmaf__regtab_lookup(tab, "alphab", 6));
	assert_null(rpmaf__regtab_lookup(tab, "beta", 4));
	rpmaf__regtab_read_unlock();
	assert_int_equal(rpmaf__regtab_count(tab), 1);
	assert_int_equal(objs_live, 1);
}

/* test_get -- the copy-out carries what an operation needs */
static void
test_get(void **state)
{
	struct rpmaf__regtab *tab = *state;
	struct rpmaf__regtab_info info;
	uint8_t desc[21];

	region("g", 9, desc);
	assert_int_equal(apply(tab, "g", 9), 0);
	memset(&info, 0xa5, sizeof(info));
	assert_int_equal(rpmaf__regtab_get(tab, "g", 1, &info), 0);
	assert_int_equal(info.size, 9 * 4096);
	assert_int_equal(info.generation, 9);
	assert_int_equal(info.target, 7);
	assert_int_equal(info.desc_len, 21);
	assert_memory_equal(info.desc, desc, 21);
	assert_int_equal(rpmaf__regtab_get(tab, "h", 1, &info), RPMAF__REGTAB_E_NOENT);
	assert_int_equal(rpmaf__regtab_get(NULL, "g", 1, &info), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_get(tab, NULL, 1, &info), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_get(tab, "g", 1, NULL), RPMAF__REGTAB_E_INVAL);
}

/*
 * test_replace -- a newer generation replaces the entry; the entry found
 * before stays readable until the section ends, refuses new operations,
 * and is freed (with its object) only after a grace period
 */
static void
test_replace(void **state)
{
	struct rpmaf__regtab *tab = *state;
	const struct rpmaf__regtab_entry *old, *cur;

	assert_int_equal(apply(tab, "r", 1), 0);
	rpmaf__regtab_read_lock();
	old = rpmaf__regtab_lookup(tab, "r", 1);
	assert_non_null(old);
	assert_int_equal(apply(tab, "r", 2), 0);
	/* still our old entry, intact, but no longer in the table */
	assert_int_equal(old->generation, 1);
	assert_int_equal(old->size, 4096);
	assert_int_equal(rpmaf__regtab_entry_check(old), RPMAF__REGTAB_E_NOENT);
	cur = rpmaf__regtab_lookup(tab, "r", 1);
	assert_non_null(cur);
	assert_int_equal(cur->generation, 2);
	assert_int_equal(cur->size, 2 * 4096);
	assert_int_equal(rpmaf__regtab_entry_check(cur), 0);
	assert_int_equal(objs_deleted, 0);
	rpmaf__regtab_read_unlock();
	urcu_qsbr_barrier(); /* waits for a grace period and runs the callback */
	assert_int_equal(objs_deleted, 1);
	assert_int_equal(objs_live, 1);
	assert_int_equal(rpmaf__regtab_count(tab), 1);
}

/* test_generations -- an older or equal generation never overwrites a newer one */
static void
test_generations(void **state)
{
	struct rpmaf__regtab *tab = *state;

	assert_int_equal(apply(tab, "x", 10), 0);
	assert_int_equal(apply(tab, "x", 9), RPMAF__REGTAB_E_STALE);
	assert_int_equal(apply(tab, "x", 10), RPMAF__REGTAB_E_STALE);
	assert_int_equal(live_gen(tab, "x"), 10);
	assert_int_equal(apply(tab, "x", 11), 0);
	assert_int_equal(live_gen(tab, "x"), 11);
	/* a stale removal changes nothing either */
	assert_int_equal(rpmaf__regtab_remove(tab, "x", 1, 11), RPMAF__REGTAB_E_STALE);
	assert_int_equal(rpmaf__regtab_remove(tab, "x", 1, 5), RPMAF__REGTAB_E_STALE);
	assert_int_equal(live_gen(tab, "x"), 11);
	urcu_qsbr_barrier();
	/* the refused entries were freed with their objects at once */
	assert_int_equal(objs_live, 1);
}

/*
 * test_remove -- a removal hides the region, refuses operations on an entry
 * found before, and its tombstone keeps older announcements out until prune
 */
static void
test_remove(void **state)
{
	struct rpmaf__regtab *tab = *state;
	const struct rpmaf__regtab_entry *e;
	uint8_t desc[21];
	struct rpmaf__proto_region r = region("gone", 4, desc);

	assert_int_equal(apply(tab, "gone", 4), 0);
	assert_int_equal(apply(tab, "kept", 1), 0);
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, "gone", 4);
	assert_non_null(e);
	assert_int_equal(rpmaf__regtab_remove(tab, "gone", 4, 5), 0);
	assert_int_equal(rpmaf__regtab_entry_check(e), RPMAF__REGTAB_E_NOENT);
	assert_string_equal(e->name, "gone"); /* readable until unlock */
	assert_null(rpmaf__regtab_lookup(tab, "gone", 4));
	rpmaf__regtab_read_unlock();
	assert_int_equal(rpmaf__regtab_count(tab), 1);
	/* a REGION_LIST page taken before the removal cannot bring it back */
	assert_int_equal(apply(tab, "gone", 4), RPMAF__REGTAB_E_STALE);
	assert_int_equal(apply(tab, "gone", 5), RPMAF__REGTAB_E_STALE);
	assert_int_equal(live_gen(tab, "gone"), 0);
	/* through an ANNOUNCE too */
	assert_int_equal(rpmaf__regtab_announce(tab, 7, &r, false), RPMAF__REGTAB_E_STALE);
	/* a newer announcement does */
	assert_int_equal(apply(tab, "gone", 6), 0);
	assert_int_equal(live_gen(tab, "gone"), 6);
	r = region("gone", 7, desc);
	r.desc_len = 0;
	r.desc = NULL;
	assert_int_equal(rpmaf__regtab_announce(tab, 7, &r, true), 0);
	assert_int_equal(live_gen(tab, "gone"), 0);
	/* a removal of a name never seen leaves a tombstone as well */
	assert_int_equal(rpmaf__regtab_remove(tab, "never", 5, 3), 0);
	assert_int_equal(apply(tab, "never", 2), RPMAF__REGTAB_E_STALE);
	/* prune drops both tombstones; then any generation is accepted again */
	assert_int_equal(rpmaf__regtab_prune(tab), 2);
	assert_int_equal(rpmaf__regtab_prune(tab), 0);
	assert_int_equal(apply(tab, "never", 2), 0);
	assert_int_equal(rpmaf__regtab_count(tab), 2);
	urcu_qsbr_barrier();
	assert_int_equal(objs_live, 2);
}

/* test_names -- names of 1 to 63 bytes of the wire's alphabet; others refused */
static void
test_names(void **state)
{
	struct rpmaf__regtab *tab = *state;
	char name[RPMAF__REGTAB_NAME_MAX + 2];
	const struct rpmaf__regtab_entry *e;

	memset(name, 'n', sizeof(name));
	name[RPMAF__REGTAB_NAME_MAX] = '\0';
	assert_int_equal(apply(tab, name, 1), 0);
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, name, RPMAF__REGTAB_NAME_MAX);
	assert_non_null(e);
	assert_int_equal(e->name_len, RPMAF__REGTAB_NAME_MAX);
	assert_int_equal(strlen(e->name), RPMAF__REGTAB_NAME_MAX);
	assert_null(rpmaf__regtab_lookup(tab, name, RPMAF__REGTAB_NAME_MAX + 1));
	assert_null(rpmaf__regtab_lookup(tab, name, 0));
	assert_null(rpmaf__regtab_lookup(tab, NULL, 3));
	assert_null(rpmaf__regtab_lookup(NULL, name, 3));
	rpmaf__regtab_read_unlock();
	name[RPMAF__REGTAB_NAME_MAX] = 'n';
	name[RPMAF__REGTAB_NAME_MAX + 1] = '\0';
	assert_int_equal(apply(tab, name, 1), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_remove(tab, name, RPMAF__REGTAB_NAME_MAX + 1, 2),
			 RPMAF__REGTAB_E_INVAL);
	assert_int_equal(apply(tab, "", 1), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(apply(tab, "a b", 1), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_remove(tab, "a/b", 3, 2), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_remove(tab, "", 0, 2), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_remove(tab, NULL, 1, 2), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_count(tab), 1);
}

/* test_bad_args -- NULLs and entries the protocol would refuse */
static void
test_bad_args(void **state)
{
	struct rpmaf__regtab *tab = *state;
	uint8_t desc[21];
	struct rpmaf__proto_region r = region("b", 1, desc);

	assert_int_equal(rpmaf__regtab_new(&ops, NULL), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_delete(NULL), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_apply(NULL, 0, &r), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_apply(tab, 0, NULL), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_announce(tab, 0, NULL, false), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_remove(NULL, "b", 1, 1), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_prune(NULL), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_entry_check(NULL), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_foreach(NULL, NULL, NULL), RPMAF__REGTAB_E_INVAL);
	r.size = 0;
	assert_int_equal(rpmaf__regtab_apply(tab, 0, &r), RPMAF__REGTAB_E_INVAL);
	r = region("b", 1, desc);
	r.desc_len = 0; /* an add without a descriptor */
	assert_int_equal(rpmaf__regtab_apply(tab, 0, &r), RPMAF__REGTAB_E_INVAL);
	r = region("b", 1, desc);
	r.desc_len = RPMAF__REGTAB_DESC_MAX + 1;
	assert_int_equal(rpmaf__regtab_apply(tab, 0, &r), RPMAF__REGTAB_E_INVAL);
	r = region("b", 1, desc);
	r.persist = RPMAF__PROTO_PERSIST_MAX + 1;
	assert_int_equal(rpmaf__regtab_apply(tab, 0, &r), RPMAF__REGTAB_E_INVAL);
	assert_int_equal(rpmaf__regtab_count(tab), 0);
	assert_int_equal(objs_live, 0);
}

/* test_failures -- an allocation or a descriptor refused: nothing changes */
static void
test_failures(void **state)
{
	struct rpmaf__regtab *tab = *state;
	struct rpmaf__regtab *t2 = NULL;

	assert_int_equal(apply(tab, "f", 1), 0);
	fail_alloc = 1;
	assert_int_equal(apply(tab, "f", 2), RPMAF__REGTAB_E_NOMEM);
	fail_alloc = 1;
	assert_int_equal(rpmaf__regtab_remove(tab, "f", 1, 2), RPMAF__REGTAB_E_NOMEM);
	obj_fail = 1;
	assert_int_equal(apply(tab, "f", 2), RPMAF__REGTAB_E_DECODE);
	obj_fail = 0;
	assert_int_equal(live_gen(tab, "f"), 1);
	fail_alloc = 1;
	assert_int_equal(rpmaf__regtab_new(&ops, &t2), RPMAF__REGTAB_E_NOMEM);
	assert_null(t2);
	assert_int_equal(objs_live, 1);
}

/* visit -- foreach callback: record generations, stop at the stop-th when asked */
struct visit_state {
	uint64_t gens;
	int seen;
	int stop;
};

/* visit -- foreach callback: sum generations, stop when asked */
static int
visit(const struct rpmaf__regtab_entry *e, void *arg)
{
	struct visit_state *v = arg;

	v->gens += e->generation;
	return ++v->seen == v->stop ? 42 : 0;
}

/* test_foreach -- every live entry once, no tombstone; a callback can stop it */
static void
test_foreach(void **state)
{
	struct rpmaf__regtab *tab = *state;
	struct visit_state v = {0, 0, 0};
	char name[8];

	for (int i = 1; i <= 100; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(apply(tab, name, (uint64_t)i), 0);
	}
	assert_int_equal(rpmaf__regtab_remove(tab, "n100", 4, 101), 0);
	rpmaf__regtab_read_lock();
	assert_int_equal(rpmaf__regtab_foreach(tab, visit, &v), 0);
	assert_int_equal(v.seen, 99);
	assert_int_equal(v.gens, 99 * 100 / 2);
	v = (struct visit_state){0, 0, 10};
	assert_int_equal(rpmaf__regtab_foreach(tab, visit, &v), 42);
	assert_int_equal(v.seen, 10);
	rpmaf__regtab_read_unlock();
}

/* test_no_ops -- a table without hooks carries no objects */
static void
test_no_ops(void **state)
{
	struct rpmaf__regtab *tab = NULL;
	const struct rpmaf__regtab_entry *e;

	(void)state;
	assert_int_equal(rpmaf__regtab_new(NULL, &tab), 0);
	assert_int_equal(apply(tab, "p", 1), 0);
	assert_int_equal(apply(tab, "p", 2), 0);
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, "p", 1);
	assert_non_null(e);
	assert_null(e->obj);
	rpmaf__regtab_read_unlock();
	assert_int_equal(rpmaf__regtab_delete(&tab), 0);
	assert_null(tab);
	assert_int_equal(rpmaf__regtab_delete(&tab), 0); /* NULL: nothing to do */
}

/*
 * test_lookup_str -- the lookup of the data path: what the thread found
 * last is returned again only while nothing was unlinked, for the same
 * name of the same table; a replacement, a removal or another name is
 * looked up afresh
 */
static void
test_lookup_str(void **state)
{
	struct rpmaf__regtab *tab = *state;
	const struct rpmaf__regtab_entry *a, *b, *e;
	char name[8] = "a";

	assert_int_equal(apply(tab, "a", 1), 0);
	assert_int_equal(apply(tab, "b", 1), 0);
	rpmaf__regtab_read_lock();
	a = rpmaf__regtab_lookup_str(tab, "a");
	assert_non_null(a);
	assert_ptr_equal(rpmaf__regtab_lookup_str(tab, name), a);
	/* the same buffer holding another name: the other entry */
	name[0] = 'b';
	b = rpmaf__regtab_lookup_str(tab, name);
	assert_non_null(b);
	assert_string_equal(b->name, "b");
	/* a longer name sharing the remembered one's start is another name */
	assert_null(rpmaf__regtab_lookup_str(tab, "bb"));
	assert_null(rpmaf__regtab_lookup_str(tab, ""));
	assert_null(rpmaf__regtab_lookup_str(tab, NULL));
	assert_null(rpmaf__regtab_lookup_str(NULL, "b"));
	assert_ptr_equal(rpmaf__regtab_lookup_str(tab, "b"), b);
	/* a replacement: the new generation */
	assert_int_equal(apply(tab, "b", 2), 0);
	e = rpmaf__regtab_lookup_str(tab, "b");
	assert_non_null(e);
	assert_int_equal(e->generation, 2);
	assert_int_equal(rpmaf__regtab_entry_check(e), 0);
	/* a removal: nothing */
	assert_int_equal(rpmaf__regtab_remove(tab, "b", 1, 3), 0);
	assert_null(rpmaf__regtab_lookup_str(tab, "b"));
	assert_ptr_equal(rpmaf__regtab_lookup_str(tab, "a"), a);
	rpmaf__regtab_read_unlock();
}

/*
 * test_lookup_str_tables -- what a thread remembers of a deleted table is
 * never taken for an entry of another one, made at the same address or not
 */
static void
test_lookup_str_tables(void **state)
{
	struct rpmaf__regtab *t1 = NULL, *t2 = NULL;
	const struct rpmaf__regtab_entry *e;

	(void)state;
	for (int i = 0; i < 8; i++) {
		assert_int_equal(rpmaf__regtab_new(NULL, &t1), 0);
		assert_int_equal(apply(t1, "same", (uint64_t)i + 1), 0);
		rpmaf__regtab_read_lock();
		e = rpmaf__regtab_lookup_str(t1, "same");
		assert_non_null(e);
		assert_int_equal(e->generation, (uint64_t)i + 1);
		rpmaf__regtab_read_unlock();
		assert_int_equal(rpmaf__regtab_delete(&t1), 0);
		/* a table made after the delete, often at the old one's address */
		assert_int_equal(rpmaf__regtab_new(NULL, &t2), 0);
		rpmaf__regtab_read_lock();
		assert_null(rpmaf__regtab_lookup_str(t2, "same"));
		rpmaf__regtab_read_unlock();
		assert_int_equal(apply(t2, "same", 100), 0);
		rpmaf__regtab_read_lock();
		e = rpmaf__regtab_lookup_str(t2, "same");
		assert_non_null(e);
		assert_int_equal(e->generation, 100);
		rpmaf__regtab_read_unlock();
		assert_int_equal(rpmaf__regtab_delete(&t2), 0);
	}
}

/* change -- announce name changed at gen for target 7; the table's answer */
static int
change(struct rpmaf__regtab *tab, const char *name, uint64_t gen)
{
	uint8_t desc[21];
	struct rpmaf__proto_region r = region(name, gen, desc);

	return rpmaf__regtab_change(tab, 7, &r);
}

/* since_of -- the since of name's live entry (it must have one) */
static uint64_t
since_of(struct rpmaf__regtab *tab, const char *name)
{
	const struct rpmaf__regtab_entry *e;
	uint64_t since;

	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, name, strlen(name));
	assert_non_null(e);
	since = e->since;
	rpmaf__regtab_read_unlock();
	return since;
}

/*
 * a change replaces the entry in one step (a reader that held the old one
 * sees it replaced, a lookup finds the new one: never none) and continues
 * it: operations of the older generations go on through it; an addition,
 * a list page, a change after a removal start a region of their own
 */
static void
test_change(void **state)
{
	struct rpmaf__regtab *tab = *state;
	const struct rpmaf__regtab_entry *e, *n;

	assert_int_equal(apply(tab, "r", 3), 0);
	assert_int_equal(since_of(tab, "r"), 3);
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup(tab, "r", 1);
	assert_int_equal(change(tab, "r", 5), 0);
	n = rpmaf__regtab_lookup(tab, "r", 1);
	assert_non_null(n);
	assert_int_equal(rpmaf__regtab_entry_check(e), RPMAF__REGTAB_E_NOENT);
	assert_int_equal(n->generation, 5);
	assert_int_equal(n->size, 4096 * 5);
	assert_int_equal(n->since, 3);
	assert_true(rpmaf__regtab_entry_continues(n, 3));
	assert_true(rpmaf__regtab_entry_continues(n, 4));
	assert_true(rpmaf__regtab_entry_continues(n, 5));
	assert_false(rpmaf__regtab_entry_continues(n, 2));
	assert_false(rpmaf__regtab_entry_continues(n, 6));
	rpmaf__regtab_read_unlock();
	/* the same change from another connection, or an older one: nothing changes */
	assert_int_equal(change(tab, "r", 5), RPMAF__REGTAB_E_STALE);
	assert_int_equal(change(tab, "r", 4), RPMAF__REGTAB_E_STALE);
	/* changes chain */
	assert_int_equal(change(tab, "r", 8), 0);
	assert_int_equal(since_of(tab, "r"), 3);
	/* a list page of a newer generation cannot tell: it starts anew */
	assert_int_equal(apply(tab, "r", 9), 0);
	assert_int_equal(since_of(tab, "r"), 9);
	/* after a removal, a change is an addition: the old generations are another region's */
	assert_int_equal(rpmaf__regtab_remove(tab, "r", 1, 10), 0);
	assert_int_equal(change(tab, "r", 11), 0);
	assert_int_equal(since_of(tab, "r"), 11);
	/* a change of a name never seen is an addition */
	assert_int_equal(change(tab, "new", 2), 0);
	assert_int_equal(since_of(tab, "new"), 2);
	assert_int_equal(rpmaf__regtab_count(tab), 2);
	urcu_qsbr_barrier();
	assert_int_equal(objs_live, 2);
}

/* what the resident reader of test_resident() and the test tell each other */
static int resident_stage; /* set by the test: 1 leave the section, 2 sleep, 3 wake, 4 be quiescent,
			      5 exit */
static int resident_done;  /* set by the reader: the last stage it reached */
static const struct rpmaf__regtab_entry *resident_entry;

/* stage_wait -- wait until *word reaches at least v */
static void
stage_wait(int *word, int v)
{
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < v)
		usleep(1000);
}

/* stage_set -- announce stage v in *word */
static void
stage_set(int *word, int v)
{
	__atomic_store_n(word, v, __ATOMIC_RELEASE);
}

/* objs_deleted_now -- the objects freed so far (call_rcu frees them on its thread) */
static int
objs_deleted_now(void)
{
	return __atomic_load_n(&objs_deleted, __ATOMIC_RELAXED);
}

/*
 * resident_main -- a worker's way of reading: online for good, its
 * sections free, quiescent when told, offline while asleep
 */
static void *
resident_main(void *arg)
{
	struct rpmaf__regtab *tab = arg;

	rpmaf__regtab_thread_resident();
	rpmaf__regtab_read_lock();
	resident_entry = rpmaf__regtab_lookup(tab, "q", 1);
	stage_set(&resident_done, 1);
	stage_wait(&resident_stage, 1);
	rpmaf__regtab_read_unlock();
	stage_wait(&resident_stage, 2);
	rpmaf__regtab_thread_sleep();
	stage_set(&resident_done, 2);
	stage_wait(&resident_stage, 3);
	rpmaf__regtab_thread_wake();
	stage_set(&resident_done, 3);
	stage_wait(&resident_stage, 4);
	while (__atomic_load_n(&resident_stage, __ATOMIC_ACQUIRE) < 5) {
		rpmaf__regtab_quiescent();
		usleep(1000);
	}
	rpmaf__regtab_thread_unregister();
	return NULL;
}

/*
 * test_resident -- a resident reader (a worker) holds back the free of an
 * entry it may hold until its quiescent state, whatever its sections, and
 * holds back nothing while it sleeps offline
 */
static void
test_resident(void **state)
{
	struct rpmaf__regtab *tab = *state;
	pthread_t t;

	resident_stage = resident_done = 0;
	assert_int_equal(apply(tab, "q", 1), 0);
	assert_int_equal(pthread_create(&t, NULL, resident_main, tab), 0);
	stage_wait(&resident_done, 1);
	assert_non_null(resident_entry);
	/* replaced while the reader holds it, even past the end of its section */
	assert_int_equal(apply(tab, "q", 2), 0);
	stage_set(&resident_stage, 1);
	usleep(200000);
	assert_int_equal(objs_deleted_now(), 0);
	assert_int_equal(resident_entry->generation, 1);
	/* asleep (offline): grace periods end without it */
	stage_set(&resident_stage, 2);
	stage_wait(&resident_done, 2);
	urcu_qsbr_barrier();
	assert_int_equal(objs_deleted_now(), 1);
	assert_int_equal(apply(tab, "q", 3), 0);
	urcu_qsbr_barrier();
	assert_int_equal(objs_deleted_now(), 2);
	/* awake (online) again: a grace period waits for its quiescent state */
	stage_set(&resident_stage, 3);
	stage_wait(&resident_done, 3);
	assert_int_equal(apply(tab, "q", 4), 0);
	usleep(200000);
	assert_int_equal(objs_deleted_now(), 2);
	stage_set(&resident_stage, 4);
	urcu_qsbr_barrier();
	assert_int_equal(objs_deleted_now(), 3);
	stage_set(&resident_stage, 5);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* main -- the tests run on a registered RCU thread */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_add_lookup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_get, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_generations, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_change, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_foreach, setup, teardown),
	    cmocka_unit_test(test_no_ops),
	    cmocka_unit_test_setup_teardown(test_lookup_str, setup, teardown),
	    cmocka_unit_test(test_lookup_str_tables),
	    cmocka_unit_test_setup_teardown(test_resident, setup, teardown),
	};
	int ret;

	rpmaf__regtab_thread_register();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rpmaf__regtab_thread_unregister();
	return ret;
}
