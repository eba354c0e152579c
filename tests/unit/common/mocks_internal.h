/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mocks_internal.h -- helpers shared by the mock implementation files
 * (not for use by tests)
 */

#ifndef MOCKS_INTERNAL_H
#define MOCKS_INTERNAL_H 1

#include <stdbool.h>
#include <stddef.h>

#include "mocks.h"

/* the allocator symbols provided by -Wl,--wrap */
void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);

/*
 * mock_enter -- count a call of func; return true (and *err) if this call
 * has to fail
 */
bool mock_enter(const char *func, int *err);

/*
 * mock_enter_obj -- like mock_enter for a function taking a fake object
 * of the given kind; any other pointer (NULL, stale, other kind) fails the
 * test (double destroy, wrong object)
 */
bool mock_enter_obj(const char *func, const void *obj, const char *kind, int *err);

/* mock_die -- report a misuse of the mock layer and fail the current test */
void mock_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mock_obj_new -- allocate a zeroed fake object of the given kind */
void *mock_obj_new(size_t size, const char *kind);

/*
 * mock_obj_is -- tell whether obj is a live fake object of the given kind
 */
bool mock_obj_is(const void *obj, const char *kind);

/*
 * mock_obj_destroy -- free a live fake object of the given kind; any other
 * pointer (NULL, stale, other kind) fails the test: func was called with a
 * bad argument (double destroy, wrong object)
 */
void mock_obj_destroy(void *obj, const char *kind, const char *func);

/*
 * mock_obj_find -- a live fake object of the given kind for which
 * match(obj, arg) is true, or NULL (e.g. a QP still using a CQ)
 */
void *mock_obj_find(const char *kind, bool (*match)(const void *obj, const void *arg),
		    const void *arg);

/* mock_qp_new -- a fake QP (inside a struct ibv_qp_ex) made from attr */
struct ibv_qp *mock_qp_new(const struct ibv_qp_init_attr_ex *attr);

/* per-file reset hooks called by mock_reset() */
void mock_ibverbs_reset(void);
void mock_rdmacm_reset(void);
void mock_stdlib_reset(void);

#endif /* MOCKS_INTERNAL_H */
