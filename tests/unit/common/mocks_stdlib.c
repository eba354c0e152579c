/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_stdlib.c -- malloc/calloc/realloc/free wrappers (-Wl,--wrap=...)
 * with failure injection and tracking of live allocations
 *
 * The live pointers are kept in an open-addressing hash set. They are
 * stored XOR-ed with a mask, so the set does not hide real leaks from
 * LeakSanitizer.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "mocks_internal.h"

#define KEY_MASK       ((uintptr_t)0x5a5a5a5a5a5a5a5aULL)
#define SLOT_EMPTY     ((uintptr_t)0)
#define SLOT_TOMB      ((uintptr_t)1)
#define ALLOC_FAIL_MAX 32

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t *Tab; /* slots: SLOT_EMPTY, SLOT_TOMB or ptr ^ KEY_MASK */
static size_t Cap;     /* number of slots, a power of 2 */
static size_t Used;    /* live + tombstones */
static long Live;      /* live tracked allocations */

static long Alloc_calls;		/* malloc+calloc+realloc calls */
static long Alloc_fail[ALLOC_FAIL_MAX]; /* Alloc_calls values to fail */
static int Alloc_fail_num;

/* slot_of -- first slot to probe for key */
static size_t
slot_of(uintptr_t key)
{
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ULL) >> 32) & (Cap - 1);
}

/* set_rehash -- rebuild the set with new_cap slots (drops tombstones) */
static int
set_rehash(size_t new_cap)
{
	uintptr_t *old = Tab;
	size_t old_cap = Cap;
	uintptr_t *tab = __real_calloc(new_cap, sizeof(*tab));

	if (tab == NULL)
		return -1;

	Tab = tab;
	Cap = new_cap;
	Used = 0;
	for (size_t i = 0; i < old_cap; i++) {
		uintptr_t key = old[i];

		if (key == SLOT_EMPTY || key == SLOT_TOMB)
			continue;
		size_t s = slot_of(key);

		while (Tab[s] != SLOT_EMPTY)
			s = (s + 1) & (Cap - 1);
		Tab[s] = key;
		Used++;
	}
	__real_free(old);

	return 0;
}

/* set_insert -- start tracking ptr */
static void
set_insert(void *ptr)
{
	uintptr_t key = (uintptr_t)ptr ^ KEY_MASK;

	if ((Used + 1) * 2 > Cap) {
		size_t new_cap = Cap ? Cap : 1024;

		while ((size_t)(Live + 1) * 4 > new_cap)
			new_cap *= 2;
		if (set_rehash(new_cap))
			return; /* cannot track: it will look like untracked */
	}

	size_t s = slot_of(key);

	while (Tab[s] != SLOT_EMPTY && Tab[s] != SLOT_TOMB)
		s = (s + 1) & (Cap - 1);
	if (Tab[s] == SLOT_EMPTY)
		Used++;
	Tab[s] = key;
	Live++;
}

/* set_remove -- stop tracking ptr; tell whether it was tracked */
static bool
set_remove(void *ptr)
{
	uintptr_t key = (uintptr_t)ptr ^ KEY_MASK;

	if (Cap == 0)
		return false;

	for (size_t s = slot_of(key); Tab[s] != SLOT_EMPTY; s = (s + 1) & (Cap - 1)) {
		if (Tab[s] == key) {
			Tab[s] = SLOT_TOMB;
			Live--;
			return true;
		}
	}

	return false;
}

/* alloc_enter -- count an allocation call; tell whether it has to fail */
static bool
alloc_enter(const char *func, int *err)
{
	bool fail;

	pthread_mutex_lock(&Lock);
	fail = mock_enter(func, err);
	Alloc_calls++;
	for (int i = 0; i < Alloc_fail_num; i++) {
		if (Alloc_fail[i] != Alloc_calls)
			continue;
		Alloc_fail[i] = Alloc_fail[--Alloc_fail_num];
		if (!fail) {
			fail = true;
			*err = ENOMEM;
		}
		break;
	}
	pthread_mutex_unlock(&Lock);

	return fail;
}

/* track -- start tracking a fresh allocation */
static void
track(void *ptr)
{
	pthread_mutex_lock(&Lock);
	set_insert(ptr);
	pthread_mutex_unlock(&Lock);
}

/* __wrap_malloc -- counted, failable malloc */
void *
__wrap_malloc(size_t size)
{
	int err;

	if (alloc_enter("malloc", &err)) {
		errno = err;
		return NULL;
	}

	void *ptr = __real_malloc(size);

	if (ptr != NULL)
		track(ptr);

	return ptr;
}

/* __wrap_calloc -- counted, failable calloc */
void *
__wrap_calloc(size_t nmemb, size_t size)
{
	int err;

	if (alloc_enter("calloc", &err)) {
		errno = err;
		return NULL;
	}

	void *ptr = __real_calloc(nmemb, size);

	if (ptr != NULL)
		track(ptr);

	return ptr;
}

/*
 * __wrap_realloc -- counted, failable realloc; the result is tracked when
 * ptr was NULL or tracked; an injected failure leaves ptr untouched
 */
void *
__wrap_realloc(void *ptr, size_t size)
{
	int err;

	if (alloc_enter("realloc", &err)) {
		errno = err;
		return NULL;
	}

	void *new_ptr = __real_realloc(ptr, size);

	pthread_mutex_lock(&Lock);
	if (new_ptr != NULL) {
		bool tracked = (ptr == NULL) || set_remove(ptr);

		if (tracked)
			set_insert(new_ptr);
	} else if (ptr != NULL && size == 0) {
		/* glibc: realloc(ptr, 0) frees ptr */
		set_remove(ptr);
	}
	pthread_mutex_unlock(&Lock);

	return new_ptr;
}

/* __wrap_free -- counted free, untracks the pointer */
void
__wrap_free(void *ptr)
{
	int err;

	pthread_mutex_lock(&Lock);
	(void)mock_enter("free", &err);
	if (ptr != NULL)
		set_remove(ptr);
	pthread_mutex_unlock(&Lock);

	__real_free(ptr);
}

/* mock_alloc_fail_nth -- make the nth allocation from now return NULL */
void
mock_alloc_fail_nth(int nth)
{
	if (nth < 1)
		mock_die("mock_alloc_fail_nth(%d): nth must be >= 1", nth);

	pthread_mutex_lock(&Lock);
	if (Alloc_fail_num == ALLOC_FAIL_MAX) {
		pthread_mutex_unlock(&Lock);
		mock_die("too many allocation failures armed");
	}
	Alloc_fail[Alloc_fail_num++] = Alloc_calls + nth;
	pthread_mutex_unlock(&Lock);
}

/* mock_alloc_live -- tracked allocations not freed yet */
long
mock_alloc_live(void)
{
	long live;

	pthread_mutex_lock(&Lock);
	live = Live;
	pthread_mutex_unlock(&Lock);

	return live;
}

/* mock_stdlib_reset -- forget every tracked pointer and armed failure */
void
mock_stdlib_reset(void)
{
	pthread_mutex_lock(&Lock);
	if (Tab != NULL)
		memset(Tab, 0, Cap * sizeof(*Tab));
	Used = 0;
	Live = 0;
	Alloc_calls = 0;
	Alloc_fail_num = 0;
	pthread_mutex_unlock(&Lock);
}
