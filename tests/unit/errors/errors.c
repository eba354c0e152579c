/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errors.c -- unit tests of librpma/src/errors.c: rpma_err_2str() and
 * rpma_check_version()
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "librpma.h"
#include "mocks.h"

static const int Codes[] = {
    0,
    RPMA_W_WAIT_FOR_COMPLETION,
    RPMA_E_UNKNOWN,
    RPMA_E_NOSUPP,
    RPMA_E_PROVIDER,
    RPMA_E_NOMEM,
    RPMA_E_INVAL,
    RPMA_E_NO_COMPLETION,
    RPMA_E_NO_EVENT,
    RPMA_E_AGAIN,
    RPMA_E_SHARED_CHANNEL,
    RPMA_E_NOT_SHARED_CHNL,
};
#define NCODES (sizeof(Codes) / sizeof(Codes[0]))

/* err_2str_distinct -- every code has its own non-empty text */
static void
err_2str_distinct(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCODES; i++) {
		const char *a = rpma_err_2str(Codes[i]);

		assert_non_null(a);
		assert_true(strlen(a) > 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(a, rpma_err_2str(Codes[j]));
	}
}

/* err_2str_texts -- a few texts say what the code means */
static void
err_2str_texts(void **state)
{
	(void)state;
	assert_string_equal(rpma_err_2str(0), "Success");
	assert_string_equal(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
	assert_string_equal(rpma_err_2str(RPMA_E_NOMEM), "Out of memory");
	assert_string_equal(rpma_err_2str(RPMA_E_PROVIDER), "Provider error occurred");
	assert_string_equal(rpma_err_2str(RPMA_E_UNKNOWN), "Unknown error");
}

/* err_2str_unknown -- a value that is no code maps to the unknown-error text */
static void
err_2str_unknown(void **state)
{
	static const int others[] = {
	    -1, 2, 12345, RPMA_E_NOT_SHARED_CHNL - 1, RPMA_E_UNKNOWN + 1, -2147483647 - 1};

	(void)state;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_string_equal(rpma_err_2str(others[i]), rpma_err_2str(RPMA_E_UNKNOWN));
}

/* version_equal -- the library's own version is supported */
static void
version_equal(void **state)
{
	(void)state;
	assert_int_equal(RPMA_MAJOR_VERSION, 1);
	assert_int_equal(RPMA_MINOR_VERSION, 3);
	assert_null(rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION));
}

/* version_older_minor -- any older minor of the same major is supported */
static void
version_older_minor(void **state)
{
	(void)state;
	for (unsigned minor = 0; minor < RPMA_MINOR_VERSION; minor++)
		assert_null(rpma_check_version(RPMA_MAJOR_VERSION, minor));
}

/* version_newer_minor -- a newer minor is refused, with a reason and errormsg */
static void
version_newer_minor(void **state)
{
	const char *r;

	(void)state;
	r = rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION + 1);
	assert_non_null(r);
	assert_string_equal(r, "librpma minor version too old");
	assert_string_equal(rpma_errormsg(), "librpma version 1.4 required, this is 1.3");
	assert_non_null(rpma_check_version(RPMA_MAJOR_VERSION, 4000000000u));
}

/* version_major_mismatch -- any other major is refused, older or newer */
static void
version_major_mismatch(void **state)
{
	const char *r;

	(void)state;
	r = rpma_check_version(RPMA_MAJOR_VERSION + 1, 0);
	assert_non_null(r);
	assert_string_equal(r, "librpma major version mismatch");
	assert_string_equal(rpma_errormsg(), "librpma major version 2 required, this is 1.3");
	/* an older major, even with a supported minor */
	r = rpma_check_version(RPMA_MAJOR_VERSION - 1, RPMA_MINOR_VERSION);
	assert_string_equal(r, "librpma major version mismatch");
	r = rpma_check_version(RPMA_MAJOR_VERSION - 1, 0);
	assert_string_equal(r, "librpma major version mismatch");
	assert_string_not_equal(r, rpma_check_version(RPMA_MAJOR_VERSION, 99));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(err_2str_distinct, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(err_2str_texts, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(err_2str_unknown, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(version_equal, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(version_older_minor, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(version_newer_minor, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(version_major_mismatch, mock_test_setup,
					    mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
