/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * private_data.c -- unit tests of librpma/src/private_data.c: storing,
 * validating, deleting and moving connection private data
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "librpma.h"
#include "mocks.h"
#include "private_data.h"

#define SENTINEL_PTR ((void *)0x5a5a)
#define SENTINEL_LEN 0xa5

/* event_with -- a CM event carrying data/len */
static void
event_with(struct rdma_cm_event *ev, const void *data, uint8_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = RDMA_CM_EVENT_CONNECT_REQUEST;
	ev->param.conn.private_data = data;
	ev->param.conn.private_data_len = len;
}

/* store_copies -- the bytes are copied exactly, for every length up to 255 */
static void
store_copies(void **state)
{
	static const uint8_t lens[] = {1, RPMA_PRIVATE_DATA_CONNECT_MAX,
				       RPMA_PRIVATE_DATA_ACCEPT_MAX, 255};
	uint8_t src[255];
	struct rdma_cm_event ev;

	(void)state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 3);

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct rpma_conn_private_data pdata = {NULL, 0};

		event_with(&ev, src, lens[i]);
		assert_int_equal(rpma__private_data_store(&ev, &pdata), 0);
		assert_non_null(pdata.ptr);
		assert_ptr_not_equal(pdata.ptr, src);
		assert_int_equal(pdata.len, lens[i]);
		assert_memory_equal(pdata.ptr, src, lens[i]);
		assert_int_equal(mock_alloc_live(), 1);

		rpma__private_data_delete(&pdata);
		assert_null(pdata.ptr);
		assert_int_equal(pdata.len, 0);
		assert_int_equal(mock_alloc_live(), 0);
	}
}

/* store_none -- no data (NULL/0, or a pointer with length 0): empty, no allocation */
static void
store_none(void **state)
{
	struct rpma_conn_private_data pdata = {SENTINEL_PTR, SENTINEL_LEN};
	struct rdma_cm_event ev;
	uint8_t byte = 1;

	(void)state;
	event_with(&ev, NULL, 0);
	assert_int_equal(rpma__private_data_store(&ev, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);

	pdata.ptr = SENTINEL_PTR;
	pdata.len = SENTINEL_LEN;
	event_with(&ev, &byte, 0);
	assert_int_equal(rpma__private_data_store(&ev, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
	assert_int_equal(mock_alloc_live(), 0);
}

/* store_invalid -- no event, or NULL data with a length: RPMA_E_INVAL, untouched */
static void
store_invalid(void **state)
{
	struct rpma_conn_private_data pdata = {SENTINEL_PTR, SENTINEL_LEN};
	struct rdma_cm_event ev;

	(void)state;
	assert_int_equal(rpma__private_data_store(NULL, &pdata), RPMA_E_INVAL);
	assert_ptr_equal(pdata.ptr, SENTINEL_PTR);
	assert_int_equal(pdata.len, SENTINEL_LEN);

	event_with(&ev, NULL, 8);
	assert_int_equal(rpma__private_data_store(&ev, &pdata), RPMA_E_INVAL);
	assert_ptr_equal(pdata.ptr, SENTINEL_PTR);
	assert_int_equal(pdata.len, SENTINEL_LEN);
	assert_non_null(strstr(rpma_errormsg(), "a length of 8"));
}

/* store_nomem -- allocation failure: RPMA_E_NOMEM, nothing allocated, untouched */
static void
store_nomem(void **state)
{
	struct rpma_conn_private_data pdata = {SENTINEL_PTR, SENTINEL_LEN};
	struct rdma_cm_event ev;
	uint8_t src[16] = {1, 2, 3};

	(void)state;
	event_with(&ev, src, sizeof(src));
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma__private_data_store(&ev, &pdata), RPMA_E_NOMEM);
	assert_ptr_equal(pdata.ptr, SENTINEL_PTR);
	assert_int_equal(pdata.len, SENTINEL_LEN);
	assert_int_equal(mock_alloc_live(), 0);
}

/* validate_ok -- none (NULL), or data with a length from 1 up: fine */
static void
validate_ok(void **state)
{
	uint8_t buf[255] = {0};
	struct rpma_conn_private_data pdata = {buf, 1};

	(void)state;
	assert_int_equal(rpma__private_data_validate(NULL), 0);
	assert_int_equal(rpma__private_data_validate(&pdata), 0);
	pdata.len = 255;
	assert_int_equal(rpma__private_data_validate(&pdata), 0);
}

/* fits_limits -- up to 56 (connect) or 196 (accept) bytes fit, one more does not */
static void
fits_limits(void **state)
{
	uint8_t buf[255] = {0};
	struct rpma_conn_private_data pdata = {buf, 0};

	(void)state;
	assert_int_equal(RPMA_PRIVATE_DATA_CONNECT_MAX, 56);
	assert_int_equal(RPMA_PRIVATE_DATA_ACCEPT_MAX, 196);
	assert_int_equal(rpma__private_data_fits(NULL, 0), 0);

	pdata.len = RPMA_PRIVATE_DATA_CONNECT_MAX;
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_CONNECT_MAX), 0);
	pdata.len = 57;
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_CONNECT_MAX),
			 RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "57 bytes exceeds the transport's limit of 56"));
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_ACCEPT_MAX), 0);
	pdata.len = RPMA_PRIVATE_DATA_ACCEPT_MAX;
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_ACCEPT_MAX), 0);
	pdata.len = 197;
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_ACCEPT_MAX),
			 RPMA_E_INVAL);
	pdata.len = 255;
	assert_int_equal(rpma__private_data_fits(&pdata, RPMA_PRIVATE_DATA_ACCEPT_MAX),
			 RPMA_E_INVAL);
	assert_int_equal(rpma__private_data_fits(&pdata, 255), 0);
	pdata.len = 1;
	assert_int_equal(rpma__private_data_fits(&pdata, 0), RPMA_E_INVAL);
}

/*
 * validate_empty -- as in librpma 1.3, given private data must have bytes
 * and a length: NULL data or length 0 is RPMA_E_INVAL
 */
static void
validate_empty(void **state)
{
	uint8_t buf[4] = {0};
	struct rpma_conn_private_data pdata = {NULL, 4};

	(void)state;
	assert_int_equal(rpma__private_data_validate(&pdata), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "of length 4: give both or pass pdata NULL"));
	pdata.len = 0;
	assert_int_equal(rpma__private_data_validate(&pdata), RPMA_E_INVAL);
	pdata.ptr = buf;
	assert_int_equal(rpma__private_data_validate(&pdata), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "of length 0"));
}

/* move -- the data passes to dst, src becomes empty, one free releases it */
static void
move(void **state)
{
	uint8_t src_bytes[5] = {9, 8, 7, 6, 5};
	struct rpma_conn_private_data src = {NULL, 0};
	struct rpma_conn_private_data dst = {SENTINEL_PTR, SENTINEL_LEN};
	struct rdma_cm_event ev;

	(void)state;
	event_with(&ev, src_bytes, sizeof(src_bytes));
	assert_int_equal(rpma__private_data_store(&ev, &src), 0);
	void *stored = src.ptr;

	rpma__private_data_move(&dst, &src);
	assert_ptr_equal(dst.ptr, stored);
	assert_int_equal(dst.len, 5);
	assert_memory_equal(dst.ptr, src_bytes, 5);
	assert_null(src.ptr);
	assert_int_equal(src.len, 0);

	/* deleting the emptied source frees nothing */
	rpma__private_data_delete(&src);
	assert_int_equal(mock_alloc_live(), 1);
	rpma__private_data_delete(&dst);
	assert_null(dst.ptr);
	assert_int_equal(dst.len, 0);
	assert_int_equal(mock_alloc_live(), 0);
}

/* move_empty -- moving empty data leaves both empty */
static void
move_empty(void **state)
{
	struct rpma_conn_private_data src = {NULL, 0};
	struct rpma_conn_private_data dst = {SENTINEL_PTR, SENTINEL_LEN};

	(void)state;
	rpma__private_data_move(&dst, &src);
	assert_null(dst.ptr);
	assert_int_equal(dst.len, 0);
	assert_null(src.ptr);
	assert_int_equal(src.len, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(store_copies, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(store_none, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(store_invalid, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(store_nomem, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(validate_ok, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(fits_limits, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(validate_empty, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(move, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(move_empty, mock_test_setup, mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
