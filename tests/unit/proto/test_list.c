/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_list.c -- REGION_LIST pages: the builder fills a message until the
 * next entry does not fit, the pages cover the table in order, the iterator
 * walks a decoded page, and wrong uses are refused.
 */

#include "proto_test.h"

#include <stdio.h>
#include <string.h>

#include "list.h"

#define NREGIONS 10

static char Names[NREGIONS][16];
static struct rpmaf__proto_region Regions[NREGIONS];
static uint8_t Buf[4096];
static uint8_t Again[4096];

/* regions_setup -- a table of NREGIONS regions "region-00".. with 21-byte descriptors */
static int
regions_setup(void **state)
{
	(void)state;
	for (int i = 0; i < NREGIONS; i++) {
		snprintf(Names[i], sizeof(Names[i]), "region-%02d", i);
		Regions[i] = sample_region(Names[i]);
		Regions[i].generation = 100 + (uint64_t)i;
	}
	return 0;
}

/* hdr_v1 -- a header for a reply to request 77 returning 3 credits */
static struct rpmaf__proto_hdr
hdr_v1(void)
{
	return (struct rpmaf__proto_hdr){.version = 1, .credits = 3, .req_id = 77};
}

/* build_page -- the page from start in a size-byte buffer; returns its length, *count entries */
static size_t
build_page(uint32_t start, size_t size, uint32_t max_entries, uint32_t *count)
{
	struct rpmaf__proto_hdr h = hdr_v1();
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_err err = {0};
	uint32_t i = start;
	int ret;

	assert_int_equal(
	    rpmaf__proto_list_begin(&b, Buf, size, &h, 5, NREGIONS, start, max_entries, &err), 0);
	while ((ret = rpmaf__proto_list_add(&b, i < NREGIONS ? &Regions[i] : &Regions[0], &err)) ==
	       0)
		i++;
	assert_int_equal(ret, RPMAF__PROTO_E_NOSPC);
	*count = i - start;
	ret = rpmaf__proto_list_end(&b, &err);
	assert_true(ret > 0);
	return (size_t)ret;
}

/* check_page -- the page in Buf decodes, re-encodes identically and holds entries start.. */
static void
check_page(size_t len, uint32_t start, uint32_t count)
{
	struct rpmaf__proto_region reg;
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_msg d;
	uint32_t n = 0;
	int ret;

	assert_int_equal(rpmaf__proto_msg_decode(Buf, len, &d, NULL), 0);
	assert_int_equal(d.hdr.type, RPMAF__PROTO_T_REGION_LIST);
	assert_int_equal(d.hdr.req_id, 77);
	assert_int_equal(d.hdr.credits, 3);
	assert_int_equal(d.body.list.table_generation, 5);
	assert_int_equal(d.body.list.total, NREGIONS);
	assert_int_equal(d.body.list.start, start);
	assert_int_equal(d.body.list.count, count);
	assert_int_equal(rpmaf__proto_msg_encode(Again, sizeof(Again), &d, NULL), (int)len);
	assert_memory_equal(Buf, Again, len);
	rpmaf__proto_list_iter_init(&it, &d.body.list);
	while ((ret = rpmaf__proto_list_next(&it, &reg)) == 1) {
		assert_int_equal(reg.name_len, 9);
		assert_memory_equal(reg.name, Names[start + n], 9);
		assert_int_equal(reg.generation, 100 + start + n);
		assert_int_equal(reg.desc_len, 21);
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, count);
}

/* pages_cover_the_table -- 256-byte messages hold 4 entries of 50 bytes: pages of 4, 4, 2 */
static void
pages_cover_the_table(void **state)
{
	uint32_t start = 0, count, pages = 0;
	long before = count_alloc();

	(void)state;
	while (start < NREGIONS) {
		size_t len = build_page(start, 256, 0, &count);

		assert_true(len <= 256);
		assert_int_equal(count, start < 8 ? 4 : 2);
		check_page(len, start, count);
		start += count;
		pages++;
	}
	assert_int_equal(pages, 3);
	assert_int_equal(count_alloc(), before);
}

/* page_limits -- max_entries stops a page; a big buffer takes the whole table */
static void
page_limits(void **state)
{
	struct rpmaf__proto_hdr h = hdr_v1();
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_err err = {0};
	uint32_t count;
	size_t len;

	(void)state;
	len = build_page(2, sizeof(Buf), 3, &count);
	assert_int_equal(count, 3);
	check_page(len, 2, 3);
	len = build_page(0, sizeof(Buf), 0, &count);
	assert_int_equal(count, NREGIONS);
	assert_int_equal(len, 24 + 20 + NREGIONS * 50);
	check_page(len, 0, NREGIONS);

	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 5, NREGIONS, 0, 1, &err),
			 0);
	assert_int_equal(rpmaf__proto_list_add(&b, &Regions[0], &err), 0);
	assert_int_equal(rpmaf__proto_list_add(&b, &Regions[1], &err), RPMAF__PROTO_E_NOSPC);
	assert_string_equal(err.msg, "REGION_LIST: the page is full with 1 entries");
}

/* empty_pages -- an empty table has one empty page; an empty page with entries left is wrong */
static void
empty_pages(void **state)
{
	struct rpmaf__proto_hdr h = hdr_v1();
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_region reg;
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_msg d;
	int len;

	(void)state;
	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 1, 0, 0, 0, &err), 0);
	assert_int_equal(rpmaf__proto_list_add(&b, &Regions[0], &err), RPMAF__PROTO_E_NOSPC);
	len = rpmaf__proto_list_end(&b, &err);
	assert_int_equal(len, 24 + 20);
	assert_int_equal(rpmaf__proto_msg_decode(Buf, (size_t)len, &d, NULL), 0);
	rpmaf__proto_list_iter_init(&it, &d.body.list);
	assert_int_equal(rpmaf__proto_list_next(&it, &reg), 0);

	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 1, NREGIONS, 0, 0, &err),
			 0);
	assert_int_equal(rpmaf__proto_list_end(&b, &err), RPMAF__PROTO_E_RANGE);
	assert_string_equal(err.msg, "REGION_LIST.count: 0 while entries 0 to 9 are left");
}

/* builder_refusals -- wrong arguments, a small buffer, a bad header, a bad entry */
static void
builder_refusals(void **state)
{
	struct rpmaf__proto_hdr h = hdr_v1();
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_region bad = Regions[3];
	uint32_t count;

	(void)state;
	assert_int_equal(rpmaf__proto_list_begin(NULL, Buf, sizeof(Buf), &h, 1, 1, 0, 0, &err),
			 RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "REGION_LIST: NULL argument");
	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 1, 10, 11, 0, &err),
			 RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "REGION_LIST: start 11, total 10 (start <= total <= 65536)");
	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 1, 65537, 0, 0, &err),
			 RPMAF__PROTO_E_INVAL);
	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, 255, &h, 1, 10, 0, 0, &err),
			 RPMAF__PROTO_E_NOSPC);
	assert_string_equal(err.msg, "REGION_LIST: a 255-byte buffer (at least 256)");
	h.version = 3;
	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 1, 10, 0, 0, &err),
			 RPMAF__PROTO_E_VERSION);
	h.version = 1;

	assert_int_equal(rpmaf__proto_list_begin(&b, Buf, sizeof(Buf), &h, 5, NREGIONS, 3, 0, &err),
			 0);
	assert_int_equal(rpmaf__proto_list_add(&b, NULL, &err), RPMAF__PROTO_E_INVAL);
	bad.name = "re!";
	bad.name_len = 3;
	assert_int_equal(rpmaf__proto_list_add(&b, &bad, &err), RPMAF__PROTO_E_STRING);
	assert_string_equal(err.msg, "REGION_LIST.entries[0].name: byte 2 is 0x21 (a name is "
				     "letters, digits, '_', '-' and '.')");
	bad = Regions[3];
	bad.usage = 0;
	assert_int_equal(rpmaf__proto_list_add(&b, &bad, &err), RPMAF__PROTO_E_RANGE);
	/* a refused entry left nothing behind: the page built after it is sound */
	for (uint32_t i = 3; i < NREGIONS; i++)
		assert_int_equal(rpmaf__proto_list_add(&b, &Regions[i], &err), 0);
	count = NREGIONS - 3;
	int len = rpmaf__proto_list_end(&b, &err);

	assert_true(len > 0);
	check_page((size_t)len, 3, count);
}

/* iterator_on_bad_bytes -- a list that did not come from the decoder is still walked safely */
static void
iterator_on_bad_bytes(void **state)
{
	static const uint8_t junk[10] = {1, 2, 3};
	struct rpmaf__proto_region_list l = {1, 5, 0, 2, junk, sizeof(junk)};
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_region reg;

	(void)state;
	rpmaf__proto_list_iter_init(&it, &l);
	assert_int_equal(rpmaf__proto_list_next(&it, &reg), RPMAF__PROTO_E_TRUNCATED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pages_cover_the_table), cmocka_unit_test(page_limits),
	    cmocka_unit_test(empty_pages),	     cmocka_unit_test(builder_refusals),
	    cmocka_unit_test(iterator_on_bad_bytes),
	};

	return cmocka_run_group_tests(tests, regions_setup, NULL);
}
