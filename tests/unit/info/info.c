/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * info.c -- unit tests of librpma/src/info.c: address lookup, binding and
 * resolving for the connection manager
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "info.h"
#include "librpma.h"
#include "mocks.h"

#define BAD_INFO ((struct rdma_addrinfo *)0x5a5a)

/* check_sin -- addr is AF_INET ip:port */
static void
check_sin(const struct sockaddr *addr, const char *ip, uint16_t port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	char buf[INET_ADDRSTRLEN];

	assert_non_null(addr);
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), port);
	assert_non_null(inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf)));
	assert_string_equal(buf, ip);
}

/* info_new_passive -- a passive lookup asks for RAI_PASSIVE and gives a source */
static void
info_new_passive(void **state)
{
	struct rdma_addrinfo *info = NULL;

	(void)state;
	assert_int_equal(rpma__info_new("10.0.0.5", "7204", RPMA_INFO_PASSIVE, &info), 0);
	assert_non_null(info);
	assert_true(info->ai_flags & RAI_PASSIVE);
	assert_int_equal(info->ai_qp_type, IBV_QPT_RC);
	assert_int_equal(info->ai_port_space, RDMA_PS_TCP);
	check_sin(info->ai_src_addr, "10.0.0.5", 7204);
	assert_null(info->ai_dst_addr);

	rpma__info_delete(&info);
	assert_null(info);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 1);
}

/* info_new_active -- an active lookup without a port gives a destination */
static void
info_new_active(void **state)
{
	struct rdma_addrinfo *info = NULL;

	(void)state;
	assert_int_equal(rpma__info_new("10.0.0.6", NULL, RPMA_INFO_ACTIVE, &info), 0);
	assert_non_null(info);
	assert_false(info->ai_flags & RAI_PASSIVE);
	check_sin(info->ai_dst_addr, "10.0.0.6", 0);
	assert_null(info->ai_src_addr);
	rpma__info_delete(&info);
	assert_null(info);
}

/* info_new_fail -- the lookup fails: RPMA_E_PROVIDER, errno kept, output untouched */
static void
info_new_fail(void **state)
{
	struct rdma_addrinfo *info = BAD_INFO;

	(void)state;
	mock_fail("rdma_getaddrinfo", ENOENT);
	errno = 0;
	assert_int_equal(rpma__info_new("10.0.0.5", "1", RPMA_INFO_PASSIVE, &info),
			 RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOENT);
	assert_ptr_equal(info, BAD_INFO);
	assert_non_null(strstr(rpma_errormsg(), "rdma_getaddrinfo(10.0.0.5, 1)"));

	mock_fail("rdma_getaddrinfo", EINVAL);
	assert_int_equal(rpma__info_new("10.0.0.5", NULL, RPMA_INFO_ACTIVE, &info),
			 RPMA_E_PROVIDER);
	assert_non_null(strstr(rpma_errormsg(), "rdma_getaddrinfo(10.0.0.5, (none))"));
}

/*
 * info_new_id -- the information and an id; when the id cannot be made,
 * RPMA_E_PROVIDER with the information freed and nothing else left
 */
static void
info_new_id(void **state)
{
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id = NULL;

	(void)state;
	assert_int_equal(rpma__info_new_id("10.0.0.6", "7", RPMA_INFO_ACTIVE, &info, &id), 0);
	assert_non_null(info);
	assert_non_null(id);
	check_sin(info->ai_dst_addr, "10.0.0.6", 7);
	assert_int_equal(rdma_destroy_id(id), 0);
	rpma__info_delete(&info);

	mock_fail("rdma_create_id", ENOMEM);
	info = NULL;
	id = NULL;
	assert_int_equal(rpma__info_new_id("10.0.0.6", "7", RPMA_INFO_ACTIVE, &info, &id),
			 RPMA_E_PROVIDER);
	assert_null(info);
	assert_null(id);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 2);
	assert_non_null(strstr(rpma_errormsg(), "rdma_create_id()"));
	assert_int_equal(mock_objects_live(), 0);
	assert_int_equal(mock_alloc_live(), 0);
}

/* info_delete_null -- deleting nothing does nothing */
static void
info_delete_null(void **state)
{
	struct rdma_addrinfo *info = NULL;

	(void)state;
	rpma__info_delete(&info);
	assert_null(info);
	assert_int_equal(mock_calls("rdma_freeaddrinfo"), 0);
}

/* info_bind -- binding gives the id the source address; failure is reported */
static void
info_bind(void **state)
{
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id = NULL;

	(void)state;
	assert_int_equal(rpma__info_new("10.1.2.3", "4000", RPMA_INFO_PASSIVE, &info), 0);
	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);

	assert_int_equal(rpma__info_bind_addr(info, id), 0);
	check_sin(&id->route.addr.src_addr, "10.1.2.3", 4000);

	mock_fail("rdma_bind_addr", EADDRINUSE);
	errno = 0;
	assert_int_equal(rpma__info_bind_addr(info, id), RPMA_E_PROVIDER);
	assert_int_equal(errno, EADDRINUSE);
	assert_int_equal(mock_calls("rdma_bind_addr"), 2);

	assert_int_equal(rdma_destroy_id(id), 0);
	rpma__info_delete(&info);
}

/* info_resolve -- resolving gives the id the destination; failure is reported */
static void
info_resolve(void **state)
{
	struct rdma_addrinfo *info = NULL;
	struct rdma_cm_id *id = NULL;

	(void)state;
	assert_int_equal(rpma__info_new("10.3.2.1", "5000", RPMA_INFO_ACTIVE, &info), 0);
	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);

	assert_int_equal(rpma__info_resolve_addr(info, id, 1000), 0);
	check_sin(&id->route.addr.dst_addr, "10.3.2.1", 5000);

	mock_fail("rdma_resolve_addr", ETIMEDOUT);
	errno = 0;
	assert_int_equal(rpma__info_resolve_addr(info, id, 1000), RPMA_E_PROVIDER);
	assert_int_equal(errno, ETIMEDOUT);
	assert_non_null(strstr(rpma_errormsg(), "rdma_resolve_addr()"));

	assert_int_equal(rdma_destroy_id(id), 0);
	rpma__info_delete(&info);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(info_new_passive, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_new_active, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_new_fail, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_new_id, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_delete_null, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_bind, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(info_resolve, mock_test_setup, mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
