/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_poolset.c -- rpmemd's remote pool set file: sets of each shape,
 * comments and line endings, relative parts, every unit of size, the size
 * of the remote pool, the limits, and every error with its exact message.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fail_alloc.h"
#include "poolset.h"

#define T_NAME "t.set"
#define MIB    ((size_t)1 << 20)

/* parse_ok_as -- parse text read from set_path, assert success; the caller deletes the set */
static struct poolset *
parse_ok_as(const char *text, size_t len, const char *set_path)
{
	char err[POOLSET_ERR_MAX];
	struct poolset *set = NULL;
	int ret = poolset_parse(text, len, set_path, &set, err, sizeof(err));

	if (ret)
		fail_msg("unexpected error %d: %s", ret, err);
	assert_non_null(set);
	assert_string_equal(err, "");
	return set;
}

/* parse_ok -- parse the string text as T_NAME and assert success */
static struct poolset *
parse_ok(const char *text)
{
	return parse_ok_as(text, strlen(text), T_NAME);
}

/* expect_err_len -- parsing len bytes fails with code and exactly msg, *set_ptr untouched */
static void
expect_err_len(const char *text, size_t len, const char *set_path, int code, const char *msg)
{
	char err[POOLSET_ERR_MAX];
	struct poolset *untouched = (struct poolset *)&err, *set = untouched;
	int ret = poolset_parse(text, len, set_path, &set, err, sizeof(err));

	if (ret != code)
		fail_msg("expected %d, got %d (%s)", code, ret, ret ? err : "accepted");
	assert_ptr_equal(set, untouched);
	assert_string_equal(err, msg);
}

/* expect_err -- parsing the string text as T_NAME fails with code and exactly msg */
static void
expect_err(const char *text, int code, const char *msg)
{
	expect_err_len(text, strlen(text), T_NAME, code, msg);
}

/* expect_err_as -- parsing the string text read from set_path fails with code and exactly msg */
static void
expect_err_as(const char *text, const char *set_path, int code, const char *msg)
{
	expect_err_len(text, strlen(text), set_path, code, msg);
}

/* pool_size -- the remote pool size of a set, asserted computable */
static size_t
pool_size(const struct poolset *set)
{
	size_t size = 0;

	assert_int_equal(poolset_pool_size(set, &size), 0);
	return size;
}

/* a set with a header in every part: two parts, the pool is their sum less two headers */
static void
test_each_hdr(void **state)
{
	(void)state;
	struct poolset *set = parse_ok("PMEMPOOLSET\n2M /mnt/pmem0/a.part\n1G /mnt/pmem1/b.part\n");

	assert_int_equal(set->options, 0);
	assert_int_equal(set->nparts, 2);
	assert_string_equal(set->parts[0].path, "/mnt/pmem0/a.part");
	assert_int_equal(set->parts[0].size, 2 * MIB);
	assert_int_equal(set->parts[0].line, 2);
	assert_string_equal(set->parts[1].path, "/mnt/pmem1/b.part");
	assert_int_equal(set->parts[1].size, 1024 * MIB);
	assert_int_equal(set->parts[1].line, 3);
	assert_int_equal(poolset_nhdrs(set), 2);
	assert_int_equal(pool_size(set), 2 * MIB + 1024 * MIB - 2 * 4096);
	poolset_delete(&set);
	assert_null(set);
}

/* SINGLEHDR: one header, in the first part */
static void
test_singlehdr(void **state)
{
	(void)state;
	struct poolset *set = parse_ok("PMEMPOOLSET\nOPTION SINGLEHDR\n2M /a\n2M /b\n4M /c\n");

	assert_int_equal(set->options, POOLSET_OPT_SINGLEHDR);
	assert_int_equal(set->nparts, 3);
	assert_int_equal(poolset_nhdrs(set), 1);
	assert_int_equal(pool_size(set), 8 * MIB - 4096);
	poolset_delete(&set);
}

/* NOHDRS: no header, the pool is the sum of the parts */
static void
test_nohdrs(void **state)
{
	(void)state;
	struct poolset *set = parse_ok("PMEMPOOLSET\n2M /a\nOPTION NOHDRS\n2M /b\n");

	assert_int_equal(set->options, POOLSET_OPT_NOHDRS);
	assert_int_equal(poolset_nhdrs(set), 0);
	assert_int_equal(pool_size(set), 4 * MIB);
	poolset_delete(&set);
}

/* comments anywhere, blank and blank-only lines, tabs, CRLF, no final line feed */
static void
test_layout(void **state)
{
	(void)state;
	struct poolset *set = parse_ok("PMEMPOOLSET\r\n"
				       "# a comment\r\n"
				       "\n"
				       "   \t \n"
				       "\t2M\t\t/a  # a trailing comment\n"
				       "OPTION SINGLEHDR SINGLEHDR #twice is once\n"
				       "#2M /commented-out\n"
				       "OPTION\tSINGLEHDR\n"
				       "  3M /b");

	assert_int_equal(set->options, POOLSET_OPT_SINGLEHDR);
	assert_int_equal(set->nparts, 2);
	assert_string_equal(set->parts[0].path, "/a");
	assert_int_equal(set->parts[0].line, 5);
	assert_string_equal(set->parts[1].path, "/b");
	assert_int_equal(set->parts[1].size, 3 * MIB);
	assert_int_equal(set->parts[1].line, 9);
	poolset_delete(&set);
}

/* expect_path -- the part "2M word" of a set read from set_path is at path */
static void
expect_path(const char *set_path, const char *word, const char *path)
{
	char text[256];
	struct poolset *set;

	snprintf(text, sizeof(text), "PMEMPOOLSET\n2M %s\n", word);
	set = parse_ok_as(text, strlen(text), set_path);
	assert_string_equal(set->parts[0].path, path);
	poolset_delete(&set);
}

/* a relative part is in the set file's directory; an absolute one stays */
static void
test_relative(void **state)
{
	(void)state;
	expect_path("/etc/rpmemd/pools/a.set", "a.part", "/etc/rpmemd/pools/a.part");
	expect_path("/etc/rpmemd/pools/a.set", "sub/a.part", "/etc/rpmemd/pools/sub/a.part");
	expect_path("/etc/rpmemd/pools/a.set", "../x/a.part", "/etc/rpmemd/pools/../x/a.part");
	expect_path("/etc/rpmemd/pools/a.set", "/mnt/a.part", "/mnt/a.part");
	expect_path("/a.set", "a.part", "/a.part");
	expect_path("dir/a.set", "a.part", "dir/a.part");
	expect_path("a.set", "a.part", "a.part");
	expect_path("a.set", "./a.part", "./a.part");
}

/* expect_size -- a part written with size word has size bytes */
static void
expect_size(const char *word, size_t size)
{
	char text[128];
	struct poolset *set;

	snprintf(text, sizeof(text), "PMEMPOOLSET\n%s /a\n", word);
	set = parse_ok(text);
	assert_int_equal(set->parts[0].size, size);
	poolset_delete(&set);
}

/* every unit of poolset(5): none, B, the powers of 1024 and of 1000 */
static void
test_units(void **state)
{
	(void)state;
	const size_t k = 1024, d = 1000;

	expect_size("2097152", 2 * MIB);
	expect_size("2097152B", 2 * MIB);
	expect_size("2048K", 2 * MIB);
	expect_size("2048KiB", 2 * MIB);
	expect_size("2M", 2 * MIB);
	expect_size("2MiB", 2 * MIB);
	expect_size("3G", 3 * k * k * k);
	expect_size("3GiB", 3 * k * k * k);
	expect_size("5T", 5 * k * k * k * k);
	expect_size("5TiB", 5 * k * k * k * k);
	expect_size("7P", 7 * k * k * k * k * k);
	expect_size("7PiB", 7 * k * k * k * k * k);
	expect_size("2098kB", 2098 * d);
	expect_size("3MB", 3 * d * d);
	expect_size("3GB", 3 * d * d * d);
	expect_size("5TB", 5 * d * d * d * d);
	expect_size("7PB", 7 * d * d * d * d * d);
	expect_size("0002M", 2 * MIB);
	expect_size("16383P", (size_t)16383 << 50);
	expect_size("18446744073709551615", SIZE_MAX);
	expect_size("18446744073709551615B", SIZE_MAX);
}

/* a part counts its size rounded down to 4096 bytes; 2 MiB is the least part */
static void
test_pool_size_rounding(void **state)
{
	(void)state;
	struct poolset *set = parse_ok("PMEMPOOLSET\n3MB /a\n2097153 /b\n");

	assert_int_equal(pool_size(set), (3000000 & ~(size_t)4095) + 2 * MIB - 2 * 4096);
	poolset_delete(&set);

	set = parse_ok("PMEMPOOLSET\n18446744073709551615 /a\n");
	assert_int_equal(pool_size(set), (SIZE_MAX & ~(size_t)4095) - 4096);
	poolset_delete(&set);
}

/* the size's arithmetic on sets not made by the parser: overflow, no room, NULL */
static void
test_pool_size_errors(void **state)
{
	(void)state;
	struct poolset_part parts[2] = {{"/a", SIZE_MAX, 2}, {"/b", 8192, 3}};
	struct poolset set = {0, 2, parts};
	size_t size = 7;

	assert_int_equal(poolset_pool_size(&set, &size), -EOVERFLOW);
	assert_int_equal(size, 7);
	parts[0].size = 4095;
	set.nparts = 1;
	assert_int_equal(poolset_pool_size(&set, &size), -EINVAL);
	set.options = POOLSET_OPT_NOHDRS;
	assert_int_equal(poolset_pool_size(&set, &size), 0);
	assert_int_equal(size, 0);
	assert_int_equal(poolset_pool_size(NULL, &size), -EINVAL);
	assert_int_equal(poolset_pool_size(&set, NULL), -EINVAL);
}

/* the first line is PMEMPOOLSET, exactly */
static void
test_err_signature(void **state)
{
	(void)state;
	const char *msg = "t.set:1:1: the first line must be exactly 'PMEMPOOLSET'";

	expect_err("", -EINVAL, msg);
	expect_err("\n", -EINVAL, msg);
	expect_err("PMEMPOOLSET \n2M /a\n", -EINVAL, msg);
	expect_err(" PMEMPOOLSET\n2M /a\n", -EINVAL, msg);
	expect_err("pmempoolset\n2M /a\n", -EINVAL, msg);
	expect_err("PMEMPOOLSET # comment\n2M /a\n", -EINVAL, msg);
	expect_err("# comment\nPMEMPOOLSET\n2M /a\n", -EINVAL, msg);
	expect_err_len(NULL, 0, T_NAME, -EINVAL, msg);
}

/* a set without parts: the message points at the end of the file */
static void
test_err_no_parts(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\n", -EINVAL,
		   "t.set:2:1: no parts: at least one line 'SIZE PATH' expected");
	expect_err("PMEMPOOLSET", -EINVAL,
		   "t.set:1:12: no parts: at least one line 'SIZE PATH' expected");
	expect_err("PMEMPOOLSET\nOPTION NOHDRS", -EINVAL,
		   "t.set:2:14: no parts: at least one line 'SIZE PATH' expected");
	expect_err("PMEMPOOLSET\n# none\n\n", -EINVAL,
		   "t.set:4:1: no parts: at least one line 'SIZE PATH' expected");
}

/* a remote pool set has no replicas */
static void
test_err_replica(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\n2M /a\nREPLICA\n2M /b\n", -EINVAL,
		   "t.set:3:1: REPLICA is not allowed in a remote pool set (it has no replicas)");
	expect_err("PMEMPOOLSET\n2M /a\n  REPLICA host remote.set\n", -EINVAL,
		   "t.set:3:3: REPLICA is not allowed in a remote pool set (it has no replicas)");
}

/* OPTION lines: names known, present, and not both */
static void
test_err_options(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\nOPTION FOO\n2M /a\n", -EINVAL,
		   "t.set:2:8: unknown option 'FOO' (SINGLEHDR or NOHDRS expected)");
	expect_err("PMEMPOOLSET\nOPTION singlehdr\n2M /a\n", -EINVAL,
		   "t.set:2:8: unknown option 'singlehdr' (SINGLEHDR or NOHDRS expected)");
	expect_err("PMEMPOOLSET\n  OPTION # none\n2M /a\n", -EINVAL,
		   "t.set:2:3: OPTION without a name (SINGLEHDR or NOHDRS expected)");
	expect_err("PMEMPOOLSET\nOPTION SINGLEHDR NOHDRS\n2M /a\n", -EINVAL,
		   "t.set:2:18: options SINGLEHDR and NOHDRS exclude each other");
	expect_err("PMEMPOOLSET\nOPTION NOHDRS\n2M /a\nOPTION SINGLEHDR\n", -EINVAL,
		   "t.set:4:8: options SINGLEHDR and NOHDRS exclude each other");
}

/* a part line is SIZE PATH and nothing more */
static void
test_err_part_words(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\n2M\n", -EINVAL,
		   "t.set:2:1: a part is 'SIZE PATH': the path is missing");
	expect_err("PMEMPOOLSET\n  2M # /a\n", -EINVAL,
		   "t.set:2:3: a part is 'SIZE PATH': the path is missing");
	expect_err("PMEMPOOLSET\n2M /a x\n", -EINVAL,
		   "t.set:2:7: unexpected 'x' after the part's path");
	expect_err("PMEMPOOLSET\n2 M /a\n", -EINVAL,
		   "t.set:2:5: unexpected '/a' after the part's path");
}

/* sizes: digits, a known unit, not AUTO */
static void
test_err_size(void **state)
{
	(void)state;
	const char *units = "(B; K, M, G, T, P; KiB, MiB, GiB, TiB, PiB; kB, MB, GB, TB, PB)";
	char msg[256];

	expect_err("PMEMPOOLSET\nx2M /a\n", -EINVAL,
		   "t.set:2:1: invalid size 'x2M': decimal digits expected, then an optional unit");
	expect_err("PMEMPOOLSET\n-2M /a\n", -EINVAL,
		   "t.set:2:1: invalid size '-2M': decimal digits expected, then an optional unit");
	expect_err("PMEMPOOLSET\n+2M /a\n", -EINVAL,
		   "t.set:2:1: invalid size '+2M': decimal digits expected, then an optional unit");
	snprintf(msg, sizeof(msg), "t.set:2:2: unknown unit in size '2Q' %s", units);
	expect_err("PMEMPOOLSET\n2Q /a\n", -EINVAL, msg);
	snprintf(msg, sizeof(msg), "t.set:2:2: unknown unit in size '2mb' %s", units);
	expect_err("PMEMPOOLSET\n2mb /a\n", -EINVAL, msg);
	snprintf(msg, sizeof(msg), "t.set:2:5: unknown unit in size '2048k' %s", units);
	expect_err("PMEMPOOLSET\n2048k /a\n", -EINVAL, msg);
	snprintf(msg, sizeof(msg), "t.set:2:2: unknown unit in size '2M2' %s", units);
	expect_err("PMEMPOOLSET\n2M2 /a\n", -EINVAL, msg);
	expect_err(
	    "PMEMPOOLSET\nAUTO /dev/dax0.0\n", -EINVAL,
	    "t.set:2:1: size AUTO (a whole Device DAX) is not supported in a remote pool set");
}

/* sizes that do not fit in 64 bits, alone or added up */
static void
test_err_overflow(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\n18446744073709551616 /a\n", -EOVERFLOW,
		   "t.set:2:1: size '18446744073709551616' is too large");
	expect_err("PMEMPOOLSET\n99999999999999999999999999999 /a\n", -EOVERFLOW,
		   "t.set:2:1: size '99999999999999999999999999999' is too large");
	expect_err("PMEMPOOLSET\n16384P /a\n", -EOVERFLOW, "t.set:2:1: size '16384P' is too large");
	expect_err("PMEMPOOLSET\n18446744073709551615B /a\n\t1B /b\n", -EINVAL,
		   "t.set:3:2: part size 1 is below the minimum, 2097152 (2 MiB)");
	expect_err("PMEMPOOLSET\n16383P /a\n16383P /b\n", -EOVERFLOW,
		   "t.set:3:1: the sizes of the parts add up to more than 18446744073709551615");
	expect_err("PMEMPOOLSET\n18446744073709551615 /a\n2M /b\n", -EOVERFLOW,
		   "t.set:3:1: the sizes of the parts add up to more than 18446744073709551615");
}

/* a part has 2 MiB at least */
static void
test_err_min_part(void **state)
{
	(void)state;
	expect_err("PMEMPOOLSET\n2097151 /a\n", -EINVAL,
		   "t.set:2:1: part size 2097151 is below the minimum, 2097152 (2 MiB)");
	expect_err("PMEMPOOLSET\n0 /a\n", -EINVAL,
		   "t.set:2:1: part size 0 is below the minimum, 2097152 (2 MiB)");
	expect_err("PMEMPOOLSET\n2M /a\n1M /b\n", -EINVAL,
		   "t.set:3:1: part size 1048576 is below the minimum, 2097152 (2 MiB)");
}

/* paths: no directory, no two parts in one file, shorter than PATH_MAX */
static void
test_err_paths(void **state)
{
	(void)state;
	char text[PATH_MAX + 64];
	char msg[256];
	size_t n;

	expect_err("PMEMPOOLSET\n2M /mnt/pool/\n", -EINVAL,
		   "t.set:2:4: '/mnt/pool/' ends in '/': directory parts are not supported");
	expect_err("PMEMPOOLSET\n2M /a\n4M /b\n2M /a\n", -EINVAL,
		   "t.set:4:4: '/a' is already the part of line 2");
	expect_err_as("PMEMPOOLSET\n2M x\n2M /d/x\n", "/d/t.set", -EINVAL,
		      "/d/t.set:3:4: '/d/x' is already the part of line 2");

	n = (size_t)snprintf(text, sizeof(text), "PMEMPOOLSET\n2M /");
	memset(text + n, 'p', PATH_MAX - 1);
	text[n + PATH_MAX - 1] = '\0';
	snprintf(msg, sizeof(msg), "t.set:2:4: the part's path is %d bytes long, the limit is %d",
		 PATH_MAX, PATH_MAX - 1);
	expect_err(text, -ENAMETOOLONG, msg);
}

/* the longest path is accepted, alone and joined to the set file's directory */
static void
test_long_paths(void **state)
{
	(void)state;
	char text[PATH_MAX + 64];
	char msg[256];
	struct poolset *set;
	size_t n = (size_t)snprintf(text, sizeof(text), "PMEMPOOLSET\n2M /");

	memset(text + n, 'p', PATH_MAX - 2);
	text[n + PATH_MAX - 2] = '\0';
	set = parse_ok(text);
	assert_int_equal(strlen(set->parts[0].path), PATH_MAX - 1);
	poolset_delete(&set);

	n = (size_t)snprintf(text, sizeof(text), "PMEMPOOLSET\n2M ");
	memset(text + n, 'p', PATH_MAX - 4);
	text[n + PATH_MAX - 4] = '\0';
	set = parse_ok_as(text, strlen(text), "/d/t.set");
	assert_int_equal(strlen(set->parts[0].path), PATH_MAX - 1);
	poolset_delete(&set);
	text[n + PATH_MAX - 4] = 'p';
	text[n + PATH_MAX - 3] = '\0';
	snprintf(msg, sizeof(msg),
		 "/d/t.set:2:4: the part's path is %d bytes long, the limit is %d", PATH_MAX,
		 PATH_MAX - 1);
	expect_err_as(text, "/d/t.set", -ENAMETOOLONG, msg);
}

/* bytes that are not text: NUL, control characters, a CR inside a line */
static void
test_err_bytes(void **state)
{
	(void)state;
	expect_err_len("PMEMPOOLSET\n2M /a\0b\n", 20, T_NAME, -EINVAL,
		       "t.set:2:6: NUL byte in the text");
	expect_err_len("PMEMPOOLSET\n# \0\n2M /a\n", 22, T_NAME, -EINVAL,
		       "t.set:2:3: NUL byte in the text");
	expect_err("PMEMPOOLSET\n2M /a\x01\n", -EINVAL,
		   "t.set:2:6: control character 0x01 in the text");
	expect_err("PMEMPOOLSET\n2M /a\x7f\n", -EINVAL,
		   "t.set:2:6: control character 0x7f in the text");
	expect_err("PMEMPOOLSET\n2M\r/a\n", -EINVAL,
		   "t.set:2:3: control character 0x0d in the text");
	expect_err("PMEMPOOLSET\n2M /a\r\r\n", -EINVAL,
		   "t.set:2:6: control character 0x0d in the text");
}

/* words in messages: non-ASCII bytes escaped, long words cut */
static void
test_err_quoting(void **state)
{
	(void)state;
	char text[256];

	expect_err("PMEMPOOLSET\n\xc3\xa9 /a\n", -EINVAL,
		   "t.set:2:1: invalid size '\\xc3\\xa9': decimal digits expected, then an "
		   "optional unit");
	snprintf(text, sizeof(text), "PMEMPOOLSET\n%s /a\n",
		 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
	expect_err(text, -EINVAL,
		   "t.set:2:1: invalid size 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv...': "
		   "decimal digits expected, then an optional unit");
}

/* the limits: bytes of a file, of a line, parts of a set */
static void
test_limits(void **state)
{
	(void)state;
	size_t big = POOLSET_MAX_FILE + 1;
	char *text = malloc(big + 1);
	struct poolset *set;
	char msg[128];
	size_t n;

	assert_non_null(text);
	n = (size_t)sprintf(text, "PMEMPOOLSET\n2M /a\n# ");
	memset(text + n, 'c', POOLSET_MAX_LINE - 2);
	strcpy(text + n + POOLSET_MAX_LINE - 2, "\n");
	set = parse_ok(text);
	poolset_delete(&set);
	strcpy(text + n + POOLSET_MAX_LINE - 2, "c\n");
	snprintf(msg, sizeof(msg), "t.set:3:%u: line longer than %u bytes", POOLSET_MAX_LINE + 1,
		 POOLSET_MAX_LINE);
	expect_err(text, -E2BIG, msg);

	memset(text, '#', big);
	snprintf(msg, sizeof(msg), "t.set:1:1: the file is %zu bytes long, the limit is %zu", big,
		 POOLSET_MAX_FILE);
	expect_err_len(text, big, T_NAME, -E2BIG, msg);
	free(text);
}

/* set_text -- a set of nparts parts of 2M, /p0 to /pN; free() it */
static char *
set_text(unsigned nparts)
{
	char *text = malloc(16 + (size_t)nparts * 16);
	size_t n;

	assert_non_null(text);
	n = (size_t)sprintf(text, "PMEMPOOLSET\n");
	for (unsigned i = 0; i < nparts; i++)
		n += (size_t)sprintf(text + n, "2M /p%u\n", i);
	return text;
}

/* POOLSET_MAX_PARTS parts are accepted, one more is not */
static void
test_max_parts(void **state)
{
	(void)state;
	char *text = set_text(POOLSET_MAX_PARTS);
	struct poolset *set = parse_ok(text);
	char msg[64];

	assert_int_equal(set->nparts, POOLSET_MAX_PARTS);
	assert_string_equal(set->parts[POOLSET_MAX_PARTS - 1].path, "/p1023");
	assert_int_equal(pool_size(set), POOLSET_MAX_PARTS * (2 * MIB - 4096));
	poolset_delete(&set);
	free(text);

	text = set_text(POOLSET_MAX_PARTS + 1);
	snprintf(msg, sizeof(msg), "t.set:%u:1: more than %u parts", POOLSET_MAX_PARTS + 2,
		 POOLSET_MAX_PARTS);
	expect_err(text, -E2BIG, msg);
	free(text);
}

/* invalid arguments, no message buffer, a buffer too small for the message */
static void
test_args(void **state)
{
	(void)state;
	const char *text = "PMEMPOOLSET\n2M /a\n";
	struct poolset *set = NULL;
	char err[12];

	expect_err_len(text, strlen(text), NULL, -EINVAL, "poolset_parse: invalid argument");
	expect_err_len(NULL, 1, T_NAME, -EINVAL, "poolset_parse: invalid argument");
	assert_int_equal(poolset_parse(text, strlen(text), T_NAME, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "poolset_par");
	assert_int_equal(poolset_parse("x", 1, T_NAME, &set, NULL, 0), -EINVAL);
	assert_int_equal(poolset_parse("x", 1, T_NAME, &set, err, 0), -EINVAL);
	assert_int_equal(poolset_parse("x", 1, T_NAME, &set, err, 3), -EINVAL);
	assert_string_equal(err, "t.");
	assert_int_equal(poolset_parse("x", 1, "a-very-long-name.set", &set, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "a-very-long");
	assert_null(set);
	poolset_delete(NULL);
	poolset_delete(&set);
}

/* every allocation may fail: -ENOMEM, its message, nothing leaked, until all succeed */
static void
test_nomem(void **state)
{
	(void)state;
	const char *text = "PMEMPOOLSET\n2M a\n2M b\n2M c\n2M d\n2M e\n2M f\n";
	char err[POOLSET_ERR_MAX];
	struct poolset *set = NULL;
	long n = 0;
	int ret;

	do {
		fail_alloc_after(n++);
		ret = poolset_parse(text, strlen(text), "/d/t.set", &set, err, sizeof(err));
		fail_alloc_after(-1);
		if (ret) {
			assert_int_equal(ret, -ENOMEM);
			assert_null(set);
			assert_non_null(strstr(err, ": out of memory"));
			assert_int_equal(strncmp(err, "/d/t.set:", 9), 0);
		}
	} while (ret);
	assert_true(n > 8);
	assert_int_equal(set->nparts, 6);
	assert_string_equal(set->parts[5].path, "/d/f");
	poolset_delete(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_hdr),
	    cmocka_unit_test(test_singlehdr),
	    cmocka_unit_test(test_nohdrs),
	    cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_relative),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_pool_size_rounding),
	    cmocka_unit_test(test_pool_size_errors),
	    cmocka_unit_test(test_err_signature),
	    cmocka_unit_test(test_err_no_parts),
	    cmocka_unit_test(test_err_replica),
	    cmocka_unit_test(test_err_options),
	    cmocka_unit_test(test_err_part_words),
	    cmocka_unit_test(test_err_size),
	    cmocka_unit_test(test_err_overflow),
	    cmocka_unit_test(test_err_min_part),
	    cmocka_unit_test(test_err_paths),
	    cmocka_unit_test(test_long_paths),
	    cmocka_unit_test(test_err_bytes),
	    cmocka_unit_test(test_err_quoting),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_max_parts),
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_nomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
