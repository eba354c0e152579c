/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * utils.c -- unit tests of librpma/src/utils.c: rpma_utils_get_ibv_context(),
 * rpma_utils_ibv_context_is_odp_capable() and rpma_utils_conn_event_2str()
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "librpma.h"
#include "mocks.h"

#define ADDR	"192.168.1.7"
#define BAD_CTX ((struct ibv_context *)0x5a5a)

/* every ODP capability an RC connection of librpma needs */
#define RC_ODP_ALL                                                                                 \
	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |                     \
	 IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC)

/* setup -- a clean mock state */
static int
setup(void **state)
{
	(void)state;
	mock_reset();
	return 0;
}

/* teardown -- no allocation and no provider object is left behind */
static int
teardown(void **state)
{
	(void)state;
	assert_int_equal(mock_alloc_live(), 0);
	assert_int_equal(mock_objects_live(), 0);
	mock_set_device_attr_ex(NULL);
	return 0;
}

/* get_ctx_local -- a local address is bound and its device context returned */
static void
get_ctx_local(void **state)
{
	struct ibv_context *ctx = NULL;

	(void)state;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), 0);
	assert_ptr_equal(ctx, mock_ibv_context());
	assert_int_equal(mock_calls("rdma_getaddrinfo"), 1);
	assert_int_equal(mock_calls("rdma_create_id"), 1);
	assert_int_equal(mock_calls("rdma_bind_addr"), 1);
	assert_int_equal(mock_calls("rdma_resolve_addr"), 0);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
}

/* get_ctx_remote -- a remote address is resolved and its device context returned */
static void
get_ctx_remote(void **state)
{
	struct ibv_context *ctx = NULL;

	(void)state;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx), 0);
	assert_ptr_equal(ctx, mock_ibv_context());
	assert_int_equal(mock_calls("rdma_resolve_addr"), 1);
	assert_int_equal(mock_calls("rdma_bind_addr"), 0);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
}

/* get_ctx_no_device -- an address no RDMA device serves: RPMA_E_PROVIDER, ENODEV, no output */
static void
get_ctx_no_device(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	mock_cm_bind_no_device(true);
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, ENODEV);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx),
			 RPMA_E_PROVIDER);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(mock_calls("rdma_destroy_id"), 2);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 2);
}

/* get_ctx_null_args -- NULL addr or output: RPMA_E_INVAL before any provider call */
static void
get_ctx_null_args(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	assert_int_equal(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_INVAL);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(mock_calls("rdma_getaddrinfo"), 0);
}

/* get_ctx_bad_type -- an unknown context type: RPMA_E_INVAL, output untouched */
static void
get_ctx_bad_type(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, (enum rpma_util_ibv_context_type)2, &ctx),
			 RPMA_E_INVAL);
	assert_int_equal(
	    rpma_utils_get_ibv_context(ADDR, (enum rpma_util_ibv_context_type) - 1, &ctx),
	    RPMA_E_INVAL);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_non_null(strstr(rpma_errormsg(), "invalid context type: -1"));
	assert_int_equal(mock_calls("rdma_getaddrinfo"), 0);
}

/* get_ctx_info_fail -- the address lookup fails: RPMA_E_PROVIDER with its errno */
static void
get_ctx_info_fail(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	mock_fail("rdma_getaddrinfo", EADDRNOTAVAIL);
	errno = 0;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(mock_calls("rdma_create_id"), 0);
}

/* get_ctx_create_id_fail -- rdma_create_id fails: RPMA_E_PROVIDER, info freed */
static void
get_ctx_create_id_fail(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	for (int type = RPMA_UTIL_IBV_CONTEXT_LOCAL; type <= RPMA_UTIL_IBV_CONTEXT_REMOTE; type++) {
		mock_fail("rdma_create_id", ENOMEM);
		errno = 0;
		assert_int_equal(rpma_utils_get_ibv_context(ADDR, type, &ctx), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		assert_ptr_equal(ctx, BAD_CTX);
		assert_int_equal(mock_objects_live(), 0);
	}
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 2);
	assert_non_null(strstr(rpma_errormsg(), "rdma_create_id()"));
}

/* get_ctx_bind_fail -- binding a local address fails: RPMA_E_PROVIDER, all freed */
static void
get_ctx_bind_fail(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	mock_fail("rdma_bind_addr", EADDRINUSE);
	errno = 0;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EADDRINUSE);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
}

/* get_ctx_resolve_fail -- resolving a remote address fails: RPMA_E_PROVIDER */
static void
get_ctx_resolve_fail(void **state)
{
	struct ibv_context *ctx = BAD_CTX;

	(void)state;
	mock_fail("rdma_resolve_addr", EHOSTUNREACH);
	errno = 0;
	assert_int_equal(rpma_utils_get_ibv_context(ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EHOSTUNREACH);
	assert_ptr_equal(ctx, BAD_CTX);
	assert_int_equal(mock_calls("rdma_destroy_id"), 1);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
}

/* set_odp -- make the device report the given ODP capabilities */
static void
set_odp(uint32_t general, uint32_t rc)
{
	struct ibv_device_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.orig_attr.phys_port_cnt = 1;
	attr.odp_caps.general_caps = general;
	attr.odp_caps.per_transport_caps.rc_odp_caps = rc;
	mock_set_device_attr_ex(&attr);
}

/*
 * odp_capable -- general ODP support with RC write and read, what librpma
 * 1.3 asks for: capable, with or without the other RC capabilities
 */
static void
odp_capable(void **state)
{
	int cap = -1;

	(void)state;
	set_odp(IBV_ODP_SUPPORT, RC_ODP_ALL);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap), 0);
	assert_int_equal(cap, 1);
	assert_int_equal(mock_calls("ibv_query_device_ex"), 1);
	assert_int_equal(mock_calls("ibv_query_device"), 0);

	cap = -1;
	set_odp(IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap), 0);
	assert_int_equal(cap, 1);
}

/* odp_not_capable -- the default device, or one missing RC write or read: not capable */
static void
odp_not_capable(void **state)
{
	static const uint32_t missing[] = {IBV_ODP_SUPPORT_WRITE, IBV_ODP_SUPPORT_READ};
	int cap = -1;

	(void)state;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap), 0);
	assert_int_equal(cap, 0);

	/* RC capabilities without the general support bit */
	cap = -1;
	set_odp(0, RC_ODP_ALL);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap), 0);
	assert_int_equal(cap, 0);

	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		cap = -1;
		set_odp(IBV_ODP_SUPPORT, RC_ODP_ALL & ~missing[i]);
		assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap),
				 0);
		assert_int_equal(cap, 0);
	}
}

/* odp_null_args -- NULL context or output: RPMA_E_INVAL, no query */
static void
odp_null_args(void **state)
{
	int cap = 7;

	(void)state;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(NULL, &cap), RPMA_E_INVAL);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), NULL),
			 RPMA_E_INVAL);
	assert_int_equal(cap, 7);
	assert_int_equal(mock_calls("ibv_query_device_ex"), 0);
}

/* odp_query_fail -- the device query fails: RPMA_E_PROVIDER with its errno */
static void
odp_query_fail(void **state)
{
	int cap = 7;

	(void)state;
	set_odp(IBV_ODP_SUPPORT, RC_ODP_ALL);
	mock_fail("ibv_query_device_ex", EIO);
	errno = 0;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(cap, 7);
	assert_non_null(strstr(rpma_errormsg(), "ibv_query_device_ex()"));
}

/* odp_query_fallback -- EOPNOTSUPP falls back to the legacy query: no ODP known */
static void
odp_query_fallback(void **state)
{
	int cap = 7;

	(void)state;
	set_odp(IBV_ODP_SUPPORT, RC_ODP_ALL);
	mock_fail("ibv_query_device_ex", EOPNOTSUPP);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap), 0);
	assert_int_equal(cap, 0);
	assert_int_equal(mock_calls("ibv_query_device"), 1);
}

/* odp_query_fallback_fail -- the legacy query fails too: RPMA_E_PROVIDER */
static void
odp_query_fallback_fail(void **state)
{
	int cap = 7;

	(void)state;
	mock_fail("ibv_query_device_ex", ENOSYS);
	mock_fail("ibv_query_device", ENODEV);
	errno = 0;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_context(), &cap),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(cap, 7);
}

/* event_2str -- every connection event has its own text; others are unknown */
static void
event_2str(void **state)
{
	static const struct {
		enum rpma_conn_event ev;
		const char *text;
	} cases[] = {
	    {RPMA_CONN_UNDEFINED, "Undefined connection event"},
	    {RPMA_CONN_ESTABLISHED, "Connection established"},
	    {RPMA_CONN_CLOSED, "Connection closed"},
	    {RPMA_CONN_LOST, "Connection lost"},
	    {RPMA_CONN_REJECTED, "Connection rejected"},
	    {RPMA_CONN_UNREACHABLE, "Connection unreachable"},
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(rpma_utils_conn_event_2str(cases[i].ev), cases[i].text);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(rpma_utils_conn_event_2str(cases[i].ev),
						rpma_utils_conn_event_2str(cases[j].ev));
	}
	assert_string_equal(
	    rpma_utils_conn_event_2str((enum rpma_conn_event)(RPMA_CONN_UNREACHABLE + 1)),
	    "Unsupported connection event");
	assert_string_equal(rpma_utils_conn_event_2str((enum rpma_conn_event) - 2),
			    "Unsupported connection event");
	assert_string_equal(rpma_utils_conn_event_2str((enum rpma_conn_event)1000),
			    "Unsupported connection event");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(get_ctx_local, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_remote, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_no_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_null_args, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_bad_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_info_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_create_id_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_bind_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(get_ctx_resolve_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_capable, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_not_capable, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_null_args, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_query_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_query_fallback, setup, teardown),
	    cmocka_unit_test_setup_teardown(odp_query_fallback_fail, setup, teardown),
	    cmocka_unit_test_setup_teardown(event_2str, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
