/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer_cfg.c -- unit tests of librpma/src/peer_cfg.c: the peer configuration
 * and its descriptor
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "librpma.h"
#include "mocks.h"
#include "peer_cfg.h"

#define BAD_CFG ((struct rpma_peer_cfg *)0x5a5a)

/* new_delete -- a new configuration does not support direct write; delete NULLs it */
static void
new_delete(void **state)
{
	struct rpma_peer_cfg *cfg = NULL;
	bool supported = true;

	(void)state;
	assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	assert_int_equal(mock_alloc_live(), 1);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_false(supported);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
	assert_null(cfg);
	/* deleting an already deleted (NULL) configuration is fine */
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
	assert_null(cfg);
}

/* new_delete_invalid -- NULL pointers: RPMA_E_INVAL */
static void
new_delete_invalid(void **state)
{
	(void)state;
	assert_int_equal(rpma_peer_cfg_new(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_delete(NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "pcfg_ptr is NULL");
}

/* new_nomem -- allocation failure: RPMA_E_NOMEM, output untouched */
static void
new_nomem(void **state)
{
	struct rpma_peer_cfg *cfg = BAD_CFG;

	(void)state;
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_peer_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, BAD_CFG);
}

/* direct_write_set_get -- the value set is the value read */
static void
direct_write_set_get(void **state)
{
	struct rpma_peer_cfg *cfg = NULL;
	bool supported;

	(void)state;
	assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(cfg, true), 0);
	supported = false;
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(cfg, false), 0);
	supported = true;
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_false(supported);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
}

/* direct_write_invalid -- NULL arguments: RPMA_E_INVAL, nothing written */
static void
direct_write_invalid(void **state)
{
	struct rpma_peer_cfg *cfg = NULL;
	bool supported = true;

	(void)state;
	assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, NULL), RPMA_E_INVAL);
	/* the failed setter did not reach the object */
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_false(supported);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
}

/* descriptor_size -- the descriptor is one byte */
static void
descriptor_size(void **state)
{
	struct rpma_peer_cfg *cfg = NULL;
	size_t size = 0;

	(void)state;
	assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(cfg, &size), 0);
	assert_int_equal(size, 1);
	assert_int_equal(size, RPMA_PEER_CFG_DESCRIPTOR_SIZE);

	size = 77;
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(size, 77);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
}

/* descriptor_get -- the byte is 1 when direct write is supported, else 0 */
static void
descriptor_get(void **state)
{
	struct rpma_peer_cfg *cfg = NULL;
	uint8_t desc[2] = {0xaa, 0xbb};

	(void)state;
	assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor(cfg, desc), 0);
	assert_int_equal(desc[0], 0);
	assert_int_equal(desc[1], 0xbb); /* only one byte is written */

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(cfg, true), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor(cfg, desc), 0);
	assert_int_equal(desc[0], 1);
	assert_int_equal(desc[1], 0xbb);

	desc[0] = 0xcc;
	assert_int_equal(rpma_peer_cfg_get_descriptor(NULL, desc), RPMA_E_INVAL);
	assert_int_equal(desc[0], 0xcc);
	assert_int_equal(rpma_peer_cfg_get_descriptor(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
}

/* descriptor_round_trip -- get_descriptor then from_descriptor keeps the value */
static void
descriptor_round_trip(void **state)
{
	(void)state;
	for (int v = 0; v <= 1; v++) {
		struct rpma_peer_cfg *cfg = NULL, *copy = NULL;
		uint8_t desc[RPMA_PEER_CFG_DESCRIPTOR_SIZE];
		size_t size;
		bool supported = !v;

		assert_int_equal(rpma_peer_cfg_new(&cfg), 0);
		assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(cfg, v), 0);
		assert_int_equal(rpma_peer_cfg_get_descriptor_size(cfg, &size), 0);
		assert_int_equal(rpma_peer_cfg_get_descriptor(cfg, desc), 0);
		assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &copy), 0);
		assert_non_null(copy);
		assert_ptr_not_equal(copy, cfg);
		assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(copy, &supported), 0);
		assert_int_equal(supported, v);
		assert_int_equal(rpma_peer_cfg_delete(&copy), 0);
		assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
	}
}

/* from_descriptor_values -- 0 and 1 are accepted (also in a longer buffer) */
static void
from_descriptor_values(void **state)
{
	uint8_t desc[4] = {1, 0xff, 0xff, 0xff};
	struct rpma_peer_cfg *cfg = NULL;
	bool supported = false;

	(void)state;
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, sizeof(desc), &cfg), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);

	desc[0] = 0;
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, 1, &cfg), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(cfg, &supported), 0);
	assert_false(supported);
	assert_int_equal(rpma_peer_cfg_delete(&cfg), 0);
}

/* from_descriptor_bad_value -- every byte value 2..255: RPMA_E_INVAL, no object */
static void
from_descriptor_bad_value(void **state)
{
	struct rpma_peer_cfg *cfg = BAD_CFG;

	(void)state;
	for (int v = 2; v <= 255; v++) {
		uint8_t desc = (uint8_t)v;

		assert_int_equal(rpma_peer_cfg_from_descriptor(&desc, 1, &cfg), RPMA_E_INVAL);
		assert_ptr_equal(cfg, BAD_CFG);
		assert_int_equal(mock_alloc_live(), 0);
	}
	assert_non_null(strstr(rpma_errormsg(), "descriptor: 255"));
}

/* from_descriptor_invalid -- NULL arguments or size 0: RPMA_E_INVAL */
static void
from_descriptor_invalid(void **state)
{
	struct rpma_peer_cfg *cfg = BAD_CFG;
	uint8_t desc = 1;

	(void)state;
	assert_int_equal(rpma_peer_cfg_from_descriptor(NULL, 1, &cfg), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_from_descriptor(&desc, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_from_descriptor(&desc, 0, &cfg), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "descriptor of 0 bytes"));
	assert_ptr_equal(cfg, BAD_CFG);
}

/* from_descriptor_nomem -- allocation failure: RPMA_E_NOMEM, output untouched */
static void
from_descriptor_nomem(void **state)
{
	struct rpma_peer_cfg *cfg = BAD_CFG;
	uint8_t desc = 1;

	(void)state;
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_peer_cfg_from_descriptor(&desc, 1, &cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, BAD_CFG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(new_delete, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_delete_invalid, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_nomem, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(direct_write_set_get, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(direct_write_invalid, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(descriptor_size, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(descriptor_get, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(descriptor_round_trip, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(from_descriptor_values, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(from_descriptor_bad_value, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(from_descriptor_invalid, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(from_descriptor_nomem, mock_test_setup,
					    mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
