/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_internal.c -- the loader's internal pieces on their own: suggestions,
 * scalar syntax, key paths, quoting, UTF-8 decoding, text positions, sizes.
 */

#include "config_test.h"

#include <string.h>

#include "diag.h"
#include "doc.h"
#include "path.h"
#include "scalar.h"
#include "schema.h"
#include "text.h"

/* suggest -- close misspellings only */
static void
suggest(void **state)
{
	static const char *const keys[] = {"count", "cpus", "polling", "spin_us", "batch", NULL};
	char long_word[80];

	(void)state;
	assert_string_equal(rpmaf__cfg_suggest("cont", 4, keys), "count");
	assert_string_equal(rpmaf__cfg_suggest("cuont", 5, keys), "count");  /* a swap */
	assert_string_equal(rpmaf__cfg_suggest("countt", 6, keys), "count"); /* an insertion */
	assert_string_equal(rpmaf__cfg_suggest("cpu", 3, keys), "cpus");
	assert_string_equal(rpmaf__cfg_suggest("spinus", 6, keys), "spin_us");
	assert_null(rpmaf__cfg_suggest("c", 1, keys));
	assert_null(rpmaf__cfg_suggest("workers", 7, keys));
	assert_null(rpmaf__cfg_suggest("", 0, keys));
	memset(long_word, 'c', sizeof(long_word));
	assert_null(rpmaf__cfg_suggest(long_word, sizeof(long_word), keys));
}

/* scalar_numbers -- integers, sizes and numbers at their edges */
static void
scalar_numbers(void **state)
{
	uint64_t v = 0;
	double d = 0;

	(void)state;
	assert_int_equal(rpmaf__cfg_scalar_uint("0", 1, &v), RPMAF__CFG_SCALAR_OK);
	assert_int_equal(v, 0);
	assert_int_equal(rpmaf__cfg_scalar_uint("18446744073709551615", 20, &v),
			 RPMAF__CFG_SCALAR_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rpmaf__cfg_scalar_uint("18446744073709551616", 20, &v),
			 RPMAF__CFG_SCALAR_RANGE);
	assert_int_equal(rpmaf__cfg_scalar_uint("-0", 2, &v), RPMAF__CFG_SCALAR_RANGE);
	assert_int_equal(rpmaf__cfg_scalar_uint("-", 1, &v), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_uint("--1", 3, &v), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_uint("", 0, &v), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_uint("12", 1, &v), RPMAF__CFG_SCALAR_OK);
	assert_int_equal(v, 1);
	assert_int_equal(rpmaf__cfg_scalar_size("16777215T", 9, &v), RPMAF__CFG_SCALAR_OK);
	assert_true(v == 16777215ull << 40);
	assert_int_equal(rpmaf__cfg_scalar_size("16777216T", 9, &v), RPMAF__CFG_SCALAR_RANGE);
	assert_int_equal(rpmaf__cfg_scalar_size("1EiB", 4, &v), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_size("-1K", 3, &v), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_float("1e400", 5, &d), RPMAF__CFG_SCALAR_RANGE);
	assert_int_equal(rpmaf__cfg_scalar_float("2.5E+1", 6, &d), RPMAF__CFG_SCALAR_OK);
	assert_true(d == 25.0);
	assert_int_equal(rpmaf__cfg_scalar_float("1e+", 3, &d), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_float("inf", 3, &d), RPMAF__CFG_SCALAR_SYNTAX);
	assert_int_equal(rpmaf__cfg_scalar_float("1.5x", 3, &d), RPMAF__CFG_SCALAR_OK);
	assert_true(d == 1.5);
}

/* scalar_strings -- names, host names, paths */
static void
scalar_strings(void **state)
{
	static const char *const hosts_ok[] = {"a",	"a-b.c", "1.2.3.4",   "::1", "fe80::1",
					       "host1", "x.y1",	 "localhost", "A.B"};
	static const char *const hosts_bad[] = {
	    "-a", "a-", "a..b", ".a", "a.", "1.2.3", "a.123", "a_b", "a b", "1.2.3.4.5", "[::1]"};
	char label[70];

	(void)state;
	for (size_t i = 0; i < sizeof(hosts_ok) / sizeof(hosts_ok[0]); i++)
		assert_true(rpmaf__cfg_scalar_host_ok(hosts_ok[i], strlen(hosts_ok[i])));
	for (size_t i = 0; i < sizeof(hosts_bad) / sizeof(hosts_bad[0]); i++)
		if (rpmaf__cfg_scalar_host_ok(hosts_bad[i], strlen(hosts_bad[i])))
			fail_msg("host %s accepted", hosts_bad[i]);
	memset(label, 'a', sizeof(label));
	assert_true(rpmaf__cfg_scalar_host_ok(label, 63));
	assert_false(rpmaf__cfg_scalar_host_ok(label, 64));
	assert_false(rpmaf__cfg_scalar_host_ok("a\0b", 3));
	assert_true(rpmaf__cfg_scalar_name_ok("a-b_c.D9", 8));
	assert_false(rpmaf__cfg_scalar_name_ok("a/b", 3));
	assert_false(rpmaf__cfg_scalar_name_ok("a b", 3));
	assert_true(rpmaf__cfg_scalar_path_ok("/x y/\xc3\xa9", 7));
	assert_false(rpmaf__cfg_scalar_path_ok("a\x1f", 2));
	assert_false(rpmaf__cfg_scalar_path_ok("a\x7f", 2));
	assert_false(rpmaf__cfg_scalar_path_ok("a\0", 2));
}

/* paths -- key path syntax */
static void
paths(void **state)
{
	static const char *const bad[] = {"",	 "a.",	 ".a",	  "a[",	  "a[]", "a]",
					  "a[1", "a[x]", "a[0]b", "a..b", "a b", "a[999999999999]"};
	struct rpmaf__cfg_seg segs[RPMAF__CFG_PATH_SEGS];

	(void)state;
	assert_int_equal(rpmaf__cfg_path_parse("a.b[2].c", 8, segs), 4);
	assert_memory_equal(segs[0].key, "a", 1);
	assert_int_equal(segs[1].len, 1);
	assert_null(segs[2].key);
	assert_int_equal(segs[2].index, 2);
	assert_int_equal(segs[2].end, 6);
	assert_int_equal(segs[3].end, 8);
	assert_int_equal(rpmaf__cfg_path_parse("a[0][1]", 7, segs), 3);
	assert_int_equal(segs[2].index, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rpmaf__cfg_path_parse(bad[i], strlen(bad[i]), segs) != -1)
			fail_msg("path %s accepted", bad[i]);
}

/* path_find -- a node by its path, and the nearest place when absent */
static void
path_find(void **state)
{
	static const char yaml[] = "a:\n  b: [x, {c: 1}]\n";
	struct rpmaf__cfg_diag d;
	struct rpmaf__cfg_node *root = NULL;
	const struct rpmaf__cfg_node *near, *n;

	(void)state;
	rpmaf__cfg_diag_init(&d, T_NAME, NULL, NULL);
	assert_int_equal(rpmaf__cfg_doc_parse(&d, yaml, strlen(yaml), -1, &root), 0);
	n = rpmaf__cfg_path_find(root, "a.b[1].c", &near);
	assert_non_null(n);
	assert_string_equal(n->value, "1");
	assert_string_equal(near->value, "c"); /* the key of the value found */
	assert_null(rpmaf__cfg_path_find(root, "a.b[1].d", &near));
	assert_int_equal(near->kind, RPMAF__CFG_MAP); /* b[1], where d would be */
	assert_null(rpmaf__cfg_path_find(root, "a.z.y", &near));
	assert_string_equal(near->value, "a");
	assert_int_equal(near->pos.line, 1);
	assert_null(rpmaf__cfg_path_find(root, "q", &near));
	assert_ptr_equal(near, root);
	assert_null(rpmaf__cfg_path_find(root, "a.b[9]", NULL));
	assert_null(rpmaf__cfg_path_find(root, "a..b", NULL));
	rpmaf__cfg_node_delete(root);
}

/* quoting -- printable, escaped, cut */
static void
quoting(void **state)
{
	char buf[16];
	char big[256];

	(void)state;
	assert_string_equal(rpmaf__cfg_quote(big, sizeof(big), "abc", 3), "\"abc\"");
	assert_string_equal(rpmaf__cfg_quote(big, sizeof(big), "a\"\\\n\xc3", 5),
			    "\"a\\x22\\x5c\\x0a\\xc3\"");
	assert_string_equal(rpmaf__cfg_quote(buf, sizeof(buf), "0123456789abcdef", 16),
			    "\"012345678...\"");
	assert_true(strlen(buf) < sizeof(buf));
	assert_string_equal(rpmaf__cfg_quote(buf, sizeof(buf), "01234567\n", 9), "\"01234567...\"");
}

/* utf8 -- decoding and its refusals */
static void
utf8(void **state)
{
	size_t n;

	(void)state;
	assert_int_equal(rpmaf__cfg_utf8_decode("A", 1, &n), 'A');
	assert_int_equal(n, 1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xc3\xa9", 2, &n), 0xe9);
	assert_int_equal(n, 2);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xe2\x80\xa8", 3, &n), 0x2028);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xf0\x9f\x98\x80", 4, &n), 0x1f600);
	assert_int_equal(n, 4);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xf0\x9f\x98", 3, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xc3\xa9", 1, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\x80", 1, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xc1\xbf", 2, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xe0\x9f\xbf", 3, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xed\xbf\xbf", 3, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xf4\x90\x80\x80", 4, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xf5\x80\x80\x80", 4, &n), -1);
	assert_int_equal(rpmaf__cfg_utf8_decode("\xef\xbf\xbf", 3, &n), 0xffff);
}

/* text_offsets -- from the parser's line and column to a byte offset */
static void
text_offsets(void **state)
{
	static const char text[] = "a\xc3\xa9z\r\nb\rcd\n";
	size_t len = sizeof(text) - 1;

	(void)state;
	assert_int_equal(rpmaf__cfg_text_offset(text, len, 1, 1), 0);
	assert_int_equal(rpmaf__cfg_text_offset(text, len, 1, 3), 3); /* after the 2-byte é */
	assert_int_equal(rpmaf__cfg_text_offset(text, len, 2, 1), 6); /* after CR LF */
	assert_int_equal(rpmaf__cfg_text_offset(text, len, 3, 2), 9); /* after a lone CR */
	assert_int_equal(rpmaf__cfg_text_offset(text, len, 9, 1), len);
}

/* sizes_shown -- sizes in messages and dumps */
static void
sizes_shown(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(rpmaf__cfg_size_str(0, buf, sizeof(buf)), "0");
	assert_string_equal(rpmaf__cfg_size_str(1023, buf, sizeof(buf)), "1023");
	assert_string_equal(rpmaf__cfg_size_str(1024, buf, sizeof(buf)), "1K");
	assert_string_equal(rpmaf__cfg_size_str(1536, buf, sizeof(buf)), "1536");
	assert_string_equal(rpmaf__cfg_size_str(3ull << 30, buf, sizeof(buf)), "3G");
	assert_string_equal(rpmaf__cfg_size_str(1ull << 50, buf, sizeof(buf)), "1024T");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(suggest),	      cmocka_unit_test(scalar_numbers),
	    cmocka_unit_test(scalar_strings), cmocka_unit_test(paths),
	    cmocka_unit_test(path_find),      cmocka_unit_test(quoting),
	    cmocka_unit_test(utf8),	      cmocka_unit_test(text_offsets),
	    cmocka_unit_test(sizes_shown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
