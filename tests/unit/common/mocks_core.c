/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_core.c -- call counters, failure injection and the registry of
 * fake objects shared by all the mocks
 */

#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mocks_internal.h"

struct mock_name {
	const char *name;
	bool can_fail;
};

/* every mocked function; void functions cannot be armed */
static const struct mock_name Names[] = {
    /* libibverbs */
    {"ibv_alloc_pd", true},
    {"ibv_dealloc_pd", true},
    {"ibv_reg_mr", true},
    {"ibv_reg_mr_iova2", true},
    {"ibv_dereg_mr", true},
    {"ibv_create_comp_channel", true},
    {"ibv_destroy_comp_channel", true},
    {"ibv_create_cq", true},
    {"ibv_destroy_cq", true},
    {"ibv_get_cq_event", true},
    {"ibv_ack_cq_events", false},
    {"ibv_create_srq", true},
    {"ibv_destroy_srq", true},
    {"ibv_qp_to_qp_ex", true},
    {"ibv_query_device", true},
    {"ibv_query_port", true},
    {"ibv_fork_init", true},
    {"ibv_wc_status_str", false},
    {"ibv_get_device_list", true},
    {"ibv_free_device_list", false},
    {"ibv_open_device", true},
    {"ibv_close_device", true},
    /* context ops reached through the inline functions */
    {"ibv_post_send", true},
    {"ibv_post_recv", true},
    {"ibv_post_srq_recv", true},
    {"ibv_poll_cq", true},
    {"ibv_req_notify_cq", true},
    {"ibv_query_device_ex", true},
    {"ibv_advise_mr", true},
    /* struct ibv_qp_ex callbacks */
    {"ibv_wr_start", false},
    {"ibv_wr_complete", true},
    {"ibv_wr_abort", false},
    {"ibv_wr_atomic_write", false},
    {"ibv_wr_rdma_write", false},
    {"ibv_wr_rdma_read", false},
    {"ibv_wr_send", false},
    {"ibv_wr_set_sge", false},
    {"ibv_wr_set_inline_data", false},
    /* librdmacm */
    {"rdma_getaddrinfo", true},
    {"rdma_freeaddrinfo", false},
    {"rdma_create_id", true},
    {"rdma_destroy_id", true},
    {"rdma_bind_addr", true},
    {"rdma_resolve_addr", true},
    {"rdma_resolve_route", true},
    {"rdma_listen", true},
    {"rdma_create_event_channel", true},
    {"rdma_destroy_event_channel", false},
    {"rdma_get_cm_event", true},
    {"rdma_ack_cm_event", true},
    {"rdma_migrate_id", true},
    {"rdma_create_qp_ex", true},
    {"rdma_create_qp", true},
    {"rdma_destroy_qp", false},
    {"rdma_connect", true},
    {"rdma_accept", true},
    {"rdma_reject", true},
    {"rdma_disconnect", true},
    {"rdma_establish", true},
    {"rdma_event_str", false},
    /* allocator */
    {"malloc", true},
    {"calloc", true},
    {"realloc", true},
    {"free", false},
};

#define NAMES_NUM (sizeof(Names) / sizeof(Names[0]))
#define ARMED_MAX 128

static int Calls[NAMES_NUM];

static struct {
	int idx;    /* index in Names */
	int target; /* value of Calls[idx] at the failing call */
	int err;
} Armed[ARMED_MAX];
static int Armed_num;

/* header of every fake object, linked in a list so they stay reachable */
struct mock_obj {
	struct mock_obj *next;
	struct mock_obj *prev;
	const char *kind;
	unsigned long gen;
};

#define OBJ_HDR_SIZE                                                                               \
	((sizeof(struct mock_obj) + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1))

static struct mock_obj Objs = {&Objs, &Objs, "head", 0};
static unsigned long Gen = 1;

/* mock_die -- report a misuse of the mock layer and fail the current test */
void
mock_die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fail_msg("mocks: %s", buf);
}

/* name_index -- index of the mocked function func in Names */
static int
name_index(const char *func)
{
	char alias[64];

	if (func == NULL)
		mock_die("NULL function name");

	/* accept "wr_start" for "ibv_wr_start" */
	if (strncmp(func, "wr_", 3) == 0) {
		snprintf(alias, sizeof(alias), "ibv_%s", func);
		func = alias;
	}

	for (size_t i = 0; i < NAMES_NUM; i++) {
		if (strcmp(Names[i].name, func) == 0)
			return (int)i;
	}

	mock_die("'%s' is not a mocked function", func);
	return -1; /* not reached */
}

/* mock_enter -- count a call of func; tell whether it has to fail */
bool
mock_enter(const char *func, int *err)
{
	int idx = name_index(func);

	Calls[idx]++;
	for (int i = 0; i < Armed_num; i++) {
		if (Armed[i].idx != idx || Armed[i].target != Calls[idx])
			continue;
		*err = Armed[i].err;
		Armed[i] = Armed[--Armed_num];
		return true;
	}

	return false;
}

/* mock_fail_nth -- arm a failure of the nth call from now of func */
void
mock_fail_nth(const char *func, int nth, int err)
{
	int idx = name_index(func);

	if (!Names[idx].can_fail)
		mock_die("'%s' returns void and cannot fail", func);
	if (nth < 1)
		mock_die("mock_fail_nth(%s, %d): nth must be >= 1", func, nth);
	if (Armed_num == ARMED_MAX)
		mock_die("too many failures armed");

	Armed[Armed_num].idx = idx;
	Armed[Armed_num].target = Calls[idx] + nth;
	Armed[Armed_num].err = err;
	Armed_num++;
}

/* mock_fail -- arm a failure of the next call of func */
void
mock_fail(const char *func, int err)
{
	mock_fail_nth(func, 1, err);
}

/* mock_calls -- number of calls of func since the last reset */
int
mock_calls(const char *func)
{
	return Calls[name_index(func)];
}

/* mock_obj_new -- allocate a zeroed fake object and register it */
void *
mock_obj_new(size_t size, const char *kind)
{
	struct mock_obj *o = __real_calloc(1, OBJ_HDR_SIZE + size);

	if (o == NULL)
		mock_die("out of memory allocating a fake %s", kind);

	o->kind = kind;
	o->gen = Gen;
	o->next = Objs.next;
	o->prev = &Objs;
	Objs.next->prev = o;
	Objs.next = o;

	return (char *)o + OBJ_HDR_SIZE;
}

/* obj_find -- header of the live fake object obj, or NULL */
static struct mock_obj *
obj_find(const void *obj)
{
	if (obj == NULL)
		return NULL;

	for (struct mock_obj *o = Objs.next; o != &Objs; o = o->next) {
		if ((const char *)o + OBJ_HDR_SIZE == (const char *)obj)
			return o;
	}

	return NULL;
}

/* mock_obj_is -- tell whether obj is a live fake object of this kind */
bool
mock_obj_is(const void *obj, const char *kind)
{
	struct mock_obj *o = obj_find(obj);

	return o != NULL && strcmp(o->kind, kind) == 0;
}

/* mock_obj_destroy -- free a live fake object of this kind or fail */
void
mock_obj_destroy(void *obj, const char *kind, const char *func)
{
	struct mock_obj *o = obj_find(obj);

	if (o == NULL || strcmp(o->kind, kind) != 0)
		mock_die("%s(%p): not a live fake %s (double destroy?)", func, obj, kind);

	o->prev->next = o->next;
	o->next->prev = o->prev;
	__real_free(o);
}

/* mock_enter_obj -- count a call taking a fake object and check it */
bool
mock_enter_obj(const char *func, const void *obj, const char *kind, int *err)
{
	bool fail = mock_enter(func, err);

	if (!mock_obj_is(obj, kind))
		mock_die("%s(%p): not a live fake %s (double destroy?)", func, obj, kind);

	return fail;
}

/* mock_obj_find -- a live fake object of the kind that match() accepts */
void *
mock_obj_find(const char *kind, bool (*match)(const void *obj, const void *arg), const void *arg)
{
	for (struct mock_obj *o = Objs.next; o != &Objs; o = o->next) {
		void *obj = (char *)o + OBJ_HDR_SIZE;

		if (strcmp(o->kind, kind) == 0 && match(obj, arg))
			return obj;
	}

	return NULL;
}

/* mock_objects_live -- fake objects created since reset and still alive */
int
mock_objects_live(void)
{
	int n = 0;

	for (struct mock_obj *o = Objs.next; o != &Objs; o = o->next) {
		if (o->gen == Gen)
			n++;
	}

	return n;
}

/* mock_test_setup -- see mocks.h */
int
mock_test_setup(void **state)
{
	(void)state;
	mock_reset();
	return 0;
}

/* mock_test_teardown -- see mocks.h */
int
mock_test_teardown(void **state)
{
	(void)state;
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	return 0;
}

/* mock_reset -- reset every counter, armed failure, queue and capture */
void
mock_reset(void)
{
	memset(Calls, 0, sizeof(Calls));
	Armed_num = 0;
	Gen++;

	mock_stdlib_reset();
	mock_ibverbs_reset();
	mock_rdmacm_reset();
}
