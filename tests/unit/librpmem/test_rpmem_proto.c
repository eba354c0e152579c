/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_rpmem_proto.c -- the payloads of librpmem's requests and rpmemd's
 * answers (librpmem/rpmem_proto.h): each kind against bytes laid out here
 * by hand from doc/RPMEM-PROTOCOL.md, every bound of every field refused by
 * the decoder and the encoder with the same message, truncation at every
 * byte, trailing bytes, the header, the helpers, and the seed corpus of
 * fuzz/fuzz_rpmem_proto.c (with RPMEM_PROTO_WRITE_SEEDS=DIR in the
 * environment the test writes the seeds into DIR instead of comparing).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rpmem_proto.h"

#define CORPUS RPMEM_PROTO_TOP_DIR "/fuzz/corpus/fuzz_rpmem_proto"
#define BUF    512

/* a payload laid out by hand, independently of the encoder */
struct bytes {
	uint8_t b[BUF];
	size_t len;
};

/* put -- the n-byte little-endian form of v */
static void
put(struct bytes *w, uint64_t v, size_t n)
{
	assert_true(w->len + n <= BUF);
	for (size_t i = 0; i < n; i++)
		w->b[w->len++] = (uint8_t)(v >> (8 * i));
}

/* put_raw -- n bytes as they are */
static void
put_raw(struct bytes *w, const void *p, size_t n)
{
	assert_true(w->len + n <= BUF);
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

/* put_hdr -- a common header, from an empty payload */
static void
put_hdr(struct bytes *w, uint32_t magic, uint16_t version, uint16_t kind)
{
	w->len = 0;
	put(w, magic, 4);
	put(w, version, 2);
	put(w, kind, 2);
}

/* req_bytes -- q laid out as the table "Requests" says, whatever its values */
static void
req_bytes(const struct rpmem_proto_req *q, struct bytes *w)
{
	put_hdr(w, RPMEM_PROTO_MAGIC, RPMEM_PROTO_VERSION, q->kind);
	if (q->kind == RPMEM_PROTO_CREATE || q->kind == RPMEM_PROTO_OPEN) {
		put(w, q->pool_size, 8);
		put(w, q->nlanes, 4);
	}
	if (q->kind == RPMEM_PROTO_CLOSE || q->kind == RPMEM_PROTO_SET_ATTR)
		put(w, q->pool_id, 8);
	if (q->kind != RPMEM_PROTO_SET_ATTR)
		put(w, q->flags, 4);
	if (q->kind == RPMEM_PROTO_CREATE || q->kind == RPMEM_PROTO_SET_ATTR) {
		put(w, q->attr_present, 1);
		if (q->attr_present)
			put_raw(w, q->attr, RPMEM_PROTO_ATTR_SIZE);
	}
	if (q->kind != RPMEM_PROTO_CLOSE && q->kind != RPMEM_PROTO_SET_ATTR) {
		put(w, q->name_len, 1);
		put_raw(w, q->name, q->name_len);
	}
}

/* ans_bytes -- a laid out as the tables "Answers" say, whatever its values */
static void
ans_bytes(const struct rpmem_proto_ans *a, struct bytes *w)
{
	put_hdr(w, RPMEM_PROTO_MAGIC, RPMEM_PROTO_VERSION, a->kind);
	put(w, a->status, 4);
	put(w, a->msg_len, 1);
	put_raw(w, a->msg, a->msg_len);
	if (a->status != 0 || (a->kind != RPMEM_PROTO_CREATE && a->kind != RPMEM_PROTO_OPEN))
		return;
	put(w, a->pool_id, 8);
	put(w, a->pool_size, 8);
	put(w, a->nlanes, 4);
	put(w, a->persist, 1);
	put(w, a->region_len, 1);
	put_raw(w, a->region, a->region_len);
	if (a->kind == RPMEM_PROTO_OPEN)
		put_raw(w, a->attr, RPMEM_PROTO_ATTR_SIZE);
}

/* fill_attr -- attributes whose every byte differs from its neighbours */
static void
fill_attr(uint8_t *attr, unsigned seed)
{
	for (unsigned i = 0; i < RPMEM_PROTO_ATTR_SIZE; i++)
		attr[i] = (uint8_t)(seed + 7 * i);
}

/* set_text -- a text field and its length, NUL-terminated as the decoder leaves it */
static void
set_text(char *dst, uint8_t *len, const char *text, size_t n)
{
	memcpy(dst, text, n);
	dst[n] = '\0';
	*len = (uint8_t)n;
}

/* req_sample -- a valid request of kind, with values whose bytes all differ */
static struct rpmem_proto_req
req_sample(unsigned kind)
{
	struct rpmem_proto_req q;

	memset(&q, 0, sizeof(q));
	q.kind = (uint16_t)kind;
	if (kind == RPMEM_PROTO_CREATE || kind == RPMEM_PROTO_OPEN) {
		q.pool_size = 0x0807060504032000ull;
		q.nlanes = 0x14131211u;
	}
	if (kind == RPMEM_PROTO_CLOSE || kind == RPMEM_PROTO_SET_ATTR)
		q.pool_id = 0xfedcba9876543210ull;
	if (kind == RPMEM_PROTO_CREATE || kind == RPMEM_PROTO_SET_ATTR) {
		q.attr_present = true;
		fill_attr(q.attr, kind);
	}
	if (kind == RPMEM_PROTO_REMOVE)
		q.flags = RPMEM_PROTO_REMOVE_FORCE | RPMEM_PROTO_REMOVE_POOL_SET;
	if (kind == RPMEM_PROTO_CREATE || kind == RPMEM_PROTO_OPEN || kind == RPMEM_PROTO_REMOVE)
		set_text(q.name, &q.name_len, "pools/db.set", 12);
	return q;
}

/* ans_sample -- a valid answer to kind; a CREATE or OPEN that worked carries its pool */
static struct rpmem_proto_ans
ans_sample(unsigned kind, uint32_t status)
{
	struct rpmem_proto_ans a;

	memset(&a, 0, sizeof(a));
	a.kind = (uint16_t)kind;
	a.status = status;
	if (status != 0)
		set_text(a.msg, &a.msg_len, "no such pool set: pools/x.set", 29);
	if (status != 0 || (kind != RPMEM_PROTO_CREATE && kind != RPMEM_PROTO_OPEN))
		return a;
	a.pool_id = 0x0102030405060708ull;
	a.pool_size = 0x0000001122334000ull;
	a.nlanes = 0x00000104u;
	a.persist = RPMEM_PROTO_PERSIST_GPSPM;
	set_text(a.region, &a.region_len, "rpmem.pool-7_a", 14);
	if (kind == RPMEM_PROTO_OPEN)
		fill_attr(a.attr, 0x40);
	return a;
}

/* req_equal -- two requests agree field by field, names to their NUL */
static void
req_equal(const struct rpmem_proto_req *x, const struct rpmem_proto_req *y)
{
	assert_int_equal(x->kind, y->kind);
	assert_int_equal(x->pool_size, y->pool_size);
	assert_int_equal(x->nlanes, y->nlanes);
	assert_int_equal(x->flags, y->flags);
	assert_int_equal(x->pool_id, y->pool_id);
	assert_int_equal(x->attr_present, y->attr_present);
	assert_memory_equal(x->attr, y->attr, RPMEM_PROTO_ATTR_SIZE);
	assert_int_equal(x->name_len, y->name_len);
	assert_memory_equal(x->name, y->name, x->name_len + 1u);
}

/* ans_equal -- two answers agree field by field, texts to their NUL */
static void
ans_equal(const struct rpmem_proto_ans *x, const struct rpmem_proto_ans *y)
{
	assert_int_equal(x->kind, y->kind);
	assert_int_equal(x->status, y->status);
	assert_int_equal(x->msg_len, y->msg_len);
	assert_memory_equal(x->msg, y->msg, x->msg_len + 1u);
	assert_int_equal(x->pool_id, y->pool_id);
	assert_int_equal(x->pool_size, y->pool_size);
	assert_int_equal(x->nlanes, y->nlanes);
	assert_int_equal(x->persist, y->persist);
	assert_int_equal(x->region_len, y->region_len);
	assert_memory_equal(x->region, y->region, x->region_len + 1u);
	assert_memory_equal(x->attr, y->attr, RPMEM_PROTO_ATTR_SIZE);
}

/* req_round_trip -- q encodes to exactly the bytes laid out by hand; they decode back to q */
static void
req_round_trip(const struct rpmem_proto_req *q)
{
	uint8_t buf[BUF], again[BUF];
	char err[RPMEM_PROTO_ERR_MAX] = "untouched";
	struct rpmem_proto_req d;
	struct bytes want;
	size_t len = 0, len2 = 0;

	req_bytes(q, &want);
	assert_int_equal(rpmem_proto_req_size(q), want.len);
	assert_int_equal(rpmem_proto_req_encode(q, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, want.len);
	assert_memory_equal(buf, want.b, len);
	memset(&d, 0xa5, sizeof(d));
	if (rpmem_proto_req_decode(want.b, want.len, &d, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_string_equal(err, "");
	req_equal(&d, q);
	assert_int_equal(rpmem_proto_req_encode(&d, again, sizeof(again), &len2), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(again, buf, len);
}

/* ans_round_trip -- the same for an answer */
static void
ans_round_trip(const struct rpmem_proto_ans *a)
{
	uint8_t buf[BUF], again[BUF];
	char err[RPMEM_PROTO_ERR_MAX] = "untouched";
	struct rpmem_proto_ans d;
	struct bytes want;
	size_t len = 0, len2 = 0;

	ans_bytes(a, &want);
	assert_int_equal(rpmem_proto_ans_size(a), want.len);
	assert_int_equal(rpmem_proto_ans_encode(a, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, want.len);
	assert_memory_equal(buf, want.b, len);
	memset(&d, 0xa5, sizeof(d));
	if (rpmem_proto_ans_decode(want.b, want.len, &d, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_string_equal(err, "");
	ans_equal(&d, a);
	assert_int_equal(rpmem_proto_ans_encode(&d, again, sizeof(again), &len2), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(again, buf, len);
}

/* req_bytes_refused -- the decoder refuses the bytes with exactly msg, its output untouched */
static void
req_bytes_refused(const uint8_t *b, size_t len, const char *msg)
{
	char err[RPMEM_PROTO_ERR_MAX] = "";
	struct rpmem_proto_req d, untouched;

	memset(&d, 0x5a, sizeof(d));
	untouched = d;
	assert_int_equal(rpmem_proto_req_decode(b, len, &d, err, sizeof(err)), -EPROTO);
	assert_string_equal(err, msg);
	assert_memory_equal(&d, &untouched, sizeof(d));
}

/* ans_bytes_refused -- the same for an answer */
static void
ans_bytes_refused(const uint8_t *b, size_t len, const char *msg)
{
	char err[RPMEM_PROTO_ERR_MAX] = "";
	struct rpmem_proto_ans d, untouched;

	memset(&d, 0x5a, sizeof(d));
	untouched = d;
	assert_int_equal(rpmem_proto_ans_decode(b, len, &d, err, sizeof(err)), -EPROTO);
	assert_string_equal(err, msg);
	assert_memory_equal(&d, &untouched, sizeof(d));
}

/* req_enc_refused -- the encoder refuses q, writes nothing; the checker says msg */
static void
req_enc_refused(const struct rpmem_proto_req *q, const char *msg)
{
	uint8_t buf[BUF];
	char err[RPMEM_PROTO_ERR_MAX] = "";
	size_t len = 12345;

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(rpmem_proto_req_encode(q, buf, sizeof(buf), &len), -EINVAL);
	assert_int_equal(len, 12345);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(rpmem_proto_req_check(q, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
}

/* ans_enc_refused -- the same for an answer */
static void
ans_enc_refused(const struct rpmem_proto_ans *a, const char *msg)
{
	uint8_t buf[BUF];
	char err[RPMEM_PROTO_ERR_MAX] = "";
	size_t len = 12345;

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(rpmem_proto_ans_encode(a, buf, sizeof(buf), &len), -EINVAL);
	assert_int_equal(len, 12345);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(rpmem_proto_ans_check(a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, msg);
}

/* req_refused -- q refused by the encoder, and its bytes laid out by hand by the decoder */
static void
req_refused(const struct rpmem_proto_req *q, const char *msg)
{
	struct bytes w;

	req_enc_refused(q, msg);
	req_bytes(q, &w);
	req_bytes_refused(w.b, w.len, msg);
}

/* ans_refused -- the same for an answer */
static void
ans_refused(const struct rpmem_proto_ans *a, const char *msg)
{
	struct bytes w;

	ans_enc_refused(a, msg);
	ans_bytes(a, &w);
	ans_bytes_refused(w.b, w.len, msg);
}

/* req_named -- the sample request of kind with the n bytes of name */
static struct rpmem_proto_req
req_named(unsigned kind, const char *name, size_t n)
{
	struct rpmem_proto_req q = req_sample(kind);

	set_text(q.name, &q.name_len, name, n);
	return q;
}

/* ---------------------------------------------------------------- each kind */

/* every request kind against its exact bytes, written out here field by field */
static void
test_req_golden(void **state)
{
	(void)state;
	static const uint8_t close_bytes[] = {
	    0x52, 0x52, 0x50, 0x4d, 0x01, 0x00, 0x03, 0x00, /* "RRPM", 1, CLOSE */
	    0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, /* pool_id */
	    0x00, 0x00, 0x00, 0x00,			    /* flags */
	};
	static const uint8_t open_bytes[] = {
	    0x52, 0x52, 0x50, 0x4d, 0x01, 0x00, 0x02, 0x00, /* "RRPM", 1, OPEN */
	    0x00, 0x20, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* pool_size */
	    0x11, 0x12, 0x13, 0x14,			    /* nlanes */
	    0x00, 0x00, 0x00, 0x00,			    /* flags */
	    0x0c, 'p',	'o',  'o',  'l',  's',	'/',  'd',  'b', '.', 's', 'e', 't',
	};
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);
	uint8_t buf[BUF];
	size_t len;

	assert_int_equal(rpmem_proto_req_encode(&q, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, sizeof(close_bytes));
	assert_memory_equal(buf, close_bytes, len);
	q = req_sample(RPMEM_PROTO_OPEN);
	assert_int_equal(rpmem_proto_req_encode(&q, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, sizeof(open_bytes));
	assert_memory_equal(buf, open_bytes, len);
}

/* every request kind, with and without attributes where it carries them */
static void
test_req_each_kind(void **state)
{
	(void)state;
	for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
		struct rpmem_proto_req q = req_sample(kind);

		req_round_trip(&q);
		if (q.attr_present) {
			q.attr_present = false;
			memset(q.attr, 0, sizeof(q.attr));
			req_round_trip(&q);
		}
	}
}

/* the sizes of each kind's encoding, from the table: header 8 and the body */
static void
test_req_sizes(void **state)
{
	(void)state;
	static const size_t sizes[] = {0,      8 + 17 + 104 + 13, 8 + 16 + 13,
				       8 + 12, 8 + 9 + 104,	  8 + 4 + 13};
	struct rpmem_proto_req q;

	for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
		q = req_sample(kind);
		assert_int_equal(rpmem_proto_req_size(&q), sizes[kind]);
	}
	q.kind = 0;
	assert_int_equal(rpmem_proto_req_size(&q), 0);
	q.kind = 6;
	assert_int_equal(rpmem_proto_req_size(&q), 0);
}

/* the longest request is RPMEM_PROTO_REQ_MAX bytes: CREATE, attributes, a 255-byte name */
static void
test_req_max(void **state)
{
	(void)state;
	char name[RPMEM_PROTO_NAME_MAX];
	struct rpmem_proto_req q;

	memset(name, 'n', sizeof(name));
	q = req_named(RPMEM_PROTO_CREATE, name, sizeof(name));
	assert_int_equal(rpmem_proto_req_size(&q), RPMEM_PROTO_REQ_MAX);
	req_round_trip(&q);
}

/* every answer kind, the success and a failure */
static void
test_ans_each_kind(void **state)
{
	(void)state;
	for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
		struct rpmem_proto_ans a = ans_sample(kind, 0);

		ans_round_trip(&a);
		a = ans_sample(kind, ENOENT);
		ans_round_trip(&a);
		a.msg_len = 0;
		a.msg[0] = '\0';
		ans_round_trip(&a);
	}
}

/* an OPEN answer against its exact bytes, written out here field by field */
static void
test_ans_golden(void **state)
{
	(void)state;
	static const uint8_t head[] = {
	    0x52, 0x52, 0x50, 0x4d, 0x01, 0x00, 0x02, 0x00, /* "RRPM", 1, OPEN */
	    0x00, 0x00, 0x00, 0x00, 0x00,		    /* status 0, empty message */
	    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* pool_id */
	    0x00, 0x40, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, /* pool_size */
	    0x04, 0x01, 0x00, 0x00,			    /* nlanes */
	    0x02,					    /* persist GPSPM */
	    0x0e, 'r',	'p',  'm',  'e',  'm',	'.',  'p',  'o', 'o', 'l', '-', '7', '_', 'a',
	};
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0);
	uint8_t buf[BUF];
	size_t len;

	assert_int_equal(rpmem_proto_ans_encode(&a, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, sizeof(head) + RPMEM_PROTO_ATTR_SIZE);
	assert_memory_equal(buf, head, sizeof(head));
	assert_memory_equal(buf + sizeof(head), a.attr, RPMEM_PROTO_ATTR_SIZE);
}

/* a failure carries no pool, whatever the kind; its message is the bytes after status */
static void
test_ans_failure_bytes(void **state)
{
	(void)state;
	static const uint8_t want[] = {
	    0x52, 0x52, 0x50, 0x4d, 0x01, 0x00, 0x01, 0x00, /* "RRPM", 1, CREATE */
	    0x11, 0x00, 0x00, 0x00, 0x03, 'a',	'b',  'c',  /* EEXIST, "abc" */
	};
	struct rpmem_proto_ans a;
	uint8_t buf[BUF];
	size_t len;

	memset(&a, 0, sizeof(a));
	a.kind = RPMEM_PROTO_CREATE;
	a.status = EEXIST;
	set_text(a.msg, &a.msg_len, "abc", 3);
	assert_int_equal(rpmem_proto_ans_encode(&a, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, len);
}

/* the longest answer is RPMEM_PROTO_ANS_MAX bytes: OPEN, a 63-byte region */
static void
test_ans_max(void **state)
{
	(void)state;
	char region[RPMEM_PROTO_REGION_MAX];
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0);

	memset(region, 'r', sizeof(region));
	set_text(a.region, &a.region_len, region, sizeof(region));
	ans_round_trip(&a);
	assert_int_equal(rpmem_proto_ans_size(&a), RPMEM_PROTO_ANS_MAX - RPMEM_PROTO_MSG_MAX);
	a.kind = 7;
	assert_int_equal(rpmem_proto_ans_size(&a), 0);
}

/* ---------------------------------------------------------------- pool set names */

/* names refused, each with its message, by the encoder and the decoder */
static void
test_name_refused(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		size_t len;
		const char *msg;
	} cases[] = {
	    {"", 0, "CREATE.pool_set_name: 0 bytes (1 to 255)"},
	    {"/a", 2,
	     "CREATE.pool_set_name: starts with '/' (a path relative to the pool set dir)"},
	    {"/", 1, "CREATE.pool_set_name: starts with '/' (a path relative to the pool set dir)"},
	    {"a//b", 4, "CREATE.pool_set_name: \"//\" at byte 1"},
	    {"a/", 2, "CREATE.pool_set_name: ends with '/'"},
	    {".", 1, "CREATE.pool_set_name: path element \".\" at byte 0"},
	    {"..", 2, "CREATE.pool_set_name: path element \"..\" at byte 0"},
	    {"../a", 4, "CREATE.pool_set_name: path element \"..\" at byte 0"},
	    {"a/../b", 6, "CREATE.pool_set_name: path element \"..\" at byte 2"},
	    {"a/..", 4, "CREATE.pool_set_name: path element \"..\" at byte 2"},
	    {"a/./b", 5, "CREATE.pool_set_name: path element \".\" at byte 2"},
	    {"a/.", 3, "CREATE.pool_set_name: path element \".\" at byte 2"},
	    {"a\0b", 3, "CREATE.pool_set_name: byte 1 is NUL"},
	    {"\0", 1, "CREATE.pool_set_name: byte 0 is NUL"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpmem_proto_req q =
		    req_named(RPMEM_PROTO_CREATE, cases[i].name, cases[i].len);

		req_refused(&q, cases[i].msg);
		assert_int_equal(rpmem_proto_name_check(cases[i].name, cases[i].len), -EINVAL);
	}
}

/* names accepted: dots that are not a whole element, any byte but NUL, 1 and 255 bytes */
static void
test_name_accepted(void **state)
{
	(void)state;
	static const char *const names[] = {
	    "a", "a/b", "...", ".a", "a.", "..a", "a..", "a/.b/..c", "x y\t\x01\xff", "a/b/c/d"};
	char longest[RPMEM_PROTO_NAME_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
			if (kind == RPMEM_PROTO_CLOSE || kind == RPMEM_PROTO_SET_ATTR)
				continue;
			struct rpmem_proto_req q = req_named(kind, names[i], strlen(names[i]));

			req_round_trip(&q);
		}
		assert_int_equal(rpmem_proto_name_check(names[i], strlen(names[i])), 0);
	}
	memset(longest, 'x', sizeof(longest));
	longest[100] = '/';
	struct rpmem_proto_req q = req_named(RPMEM_PROTO_OPEN, longest, sizeof(longest));

	req_round_trip(&q);
}

/* 256 bytes is one too many; the check refuses NULL */
static void
test_name_bounds(void **state)
{
	(void)state;
	char name[RPMEM_PROTO_NAME_MAX + 2];

	memset(name, 'a', sizeof(name));
	assert_int_equal(rpmem_proto_name_check(name, RPMEM_PROTO_NAME_MAX), 0);
	assert_int_equal(rpmem_proto_name_check(name, RPMEM_PROTO_NAME_MAX + 1), -EINVAL);
	assert_int_equal(rpmem_proto_name_check(name, 1), 0);
	assert_int_equal(rpmem_proto_name_check(name, 0), -EINVAL);
	assert_int_equal(rpmem_proto_name_check(NULL, 1), -EINVAL);
	assert_int_equal(rpmem_proto_name_check(NULL, 0), -EINVAL);
	name[RPMEM_PROTO_NAME_MAX + 1] = '\0';
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_REMOVE), untouched = q;

	assert_int_equal(rpmem_proto_req_set_name(&q, name), -EINVAL);
	assert_memory_equal(&q, &untouched, sizeof(q));
}

/* name_oracle -- the rule restated: "/" NAME "/" holds no "//", "/./" nor "/../" */
static bool
name_oracle(const char *name, size_t len)
{
	char framed[16];

	if (len == 0 || len > RPMEM_PROTO_NAME_MAX || memchr(name, '\0', len))
		return false;
	snprintf(framed, sizeof(framed), "/%.*s/", (int)len, name);
	return !strstr(framed, "//") && !strstr(framed, "/./") && !strstr(framed, "/../");
}

/* every name of up to 7 bytes of 'a', '.' and '/' against the rule restated */
static void
test_name_exhaustive(void **state)
{
	(void)state;
	static const char alphabet[] = "a./";
	char name[8];
	unsigned accepted = 0, total = 0;

	for (size_t len = 1; len <= 7; len++) {
		unsigned n = 1;

		for (size_t i = 0; i < len; i++)
			n *= 3;
		for (unsigned v = 0; v < n; v++, total++) {
			for (size_t i = 0, x = v; i < len; i++, x /= 3)
				name[i] = alphabet[x % 3];
			bool want = name_oracle(name, len);

			assert_int_equal(rpmem_proto_name_check(name, len) == 0, want);
			accepted += want;
		}
	}
	assert_int_equal(total, 3279);
	assert_true(accepted > 100 && accepted < total / 2);
}

/* a kind without a name carries none; a name is NUL-terminated at its length */
static void
test_name_struct(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);

	set_text(q.name, &q.name_len, "a", 1);
	req_enc_refused(&q, "CLOSE.name_len: 1 (not carried: 0)");
	q = req_sample(RPMEM_PROTO_SET_ATTR);
	q.name[0] = 'x';
	req_enc_refused(&q, "SET_ATTR.pool_set_name: no NUL after its 0 bytes");
	q = req_sample(RPMEM_PROTO_OPEN);
	q.name[q.name_len] = 'x';
	req_enc_refused(&q, "OPEN.pool_set_name: no NUL after its 12 bytes");
}

/* ---------------------------------------------------------------- request bounds */

/* flags: none for CREATE, OPEN, CLOSE and SET_ATTR; FORCE and POOL_SET for REMOVE */
static void
test_req_flags(void **state)
{
	(void)state;
	struct rpmem_proto_req q;

	q = req_sample(RPMEM_PROTO_CREATE);
	q.flags = 1;
	req_refused(&q, "CREATE.flags: 0x1 (0x0 allowed)");
	q = req_sample(RPMEM_PROTO_OPEN);
	q.flags = 0x80000000u;
	req_refused(&q, "OPEN.flags: 0x80000000 (0x0 allowed)");
	q = req_sample(RPMEM_PROTO_CLOSE);
	q.flags = RPMEM_PROTO_REMOVE_FORCE;
	req_refused(&q, "CLOSE.flags: 0x1 (0x0 allowed)");
	q = req_sample(RPMEM_PROTO_SET_ATTR);
	q.flags = 2;
	req_enc_refused(&q, "SET_ATTR.flags: 0x2 (0x0 allowed)");
	q = req_sample(RPMEM_PROTO_REMOVE);
	for (uint32_t f = 0; f <= 3; f++) {
		q.flags = f;
		req_round_trip(&q);
	}
	q.flags = 4;
	req_refused(&q, "REMOVE.flags: 0x4 (0x3 allowed)");
	q.flags = 0xffffffffu;
	req_refused(&q, "REMOVE.flags: 0xffffffff (0x3 allowed)");
}

/* pool_size from 8192, nlanes from 1, for CREATE and OPEN */
static void
test_req_size_lanes(void **state)
{
	(void)state;
	for (unsigned kind = RPMEM_PROTO_CREATE; kind <= RPMEM_PROTO_OPEN; kind++) {
		struct rpmem_proto_req q = req_sample(kind);
		const char *name = rpmem_proto_kind_name(kind);
		char msg[RPMEM_PROTO_ERR_MAX];

		q.pool_size = 8192;
		q.nlanes = 1;
		req_round_trip(&q);
		q.pool_size = UINT64_MAX;
		q.nlanes = UINT32_MAX;
		req_round_trip(&q);
		q.pool_size = 8191;
		snprintf(msg, sizeof(msg), "%s.pool_size: 8191 (at least 8192)", name);
		req_refused(&q, msg);
		q.pool_size = 0;
		snprintf(msg, sizeof(msg), "%s.pool_size: 0 (at least 8192)", name);
		req_refused(&q, msg);
		q.pool_size = 8192;
		q.nlanes = 0;
		snprintf(msg, sizeof(msg), "%s.nlanes: 0 (at least 1)", name);
		req_refused(&q, msg);
	}
}

/* pool_id is never 0, for CLOSE and SET_ATTR */
static void
test_req_pool_id(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);

	q.pool_id = 1;
	req_round_trip(&q);
	q.pool_id = UINT64_MAX;
	req_round_trip(&q);
	q.pool_id = 0;
	req_refused(&q, "CLOSE.pool_id: 0 (not 0)");
	q = req_sample(RPMEM_PROTO_SET_ATTR);
	q.pool_id = 0;
	req_refused(&q, "SET_ATTR.pool_id: 0 (not 0)");
}

/* attr_present is 0 or 1 on the wire; absent attributes are zero */
static void
test_req_attr_present(void **state)
{
	(void)state;
	static const struct {
		unsigned kind;
		size_t at; /* the offset of attr_present */
		const char *msg;
	} cases[] = {
	    {RPMEM_PROTO_CREATE, 24, "CREATE.attr_present: 2 (0 or 1)"},
	    {RPMEM_PROTO_SET_ATTR, 16, "SET_ATTR.attr_present: 2 (0 or 1)"},
	};

	for (size_t i = 0; i < 2; i++) {
		struct rpmem_proto_req q = req_sample(cases[i].kind);
		struct bytes w;

		req_bytes(&q, &w);
		assert_int_equal(w.b[cases[i].at], 1);
		w.b[cases[i].at] = 2;
		req_bytes_refused(w.b, w.len, cases[i].msg);
		w.b[cases[i].at] = 0xff;
		req_bytes_refused(w.b, w.len,
				  cases[i].msg[0] == 'C' ? "CREATE.attr_present: 255 (0 or 1)"
							 : "SET_ATTR.attr_present: 255 (0 or 1)");
		q.attr_present = false;
		req_enc_refused(&q, cases[i].msg[0] == 'C'
					? "CREATE.attr: not zero while attr_present is 0"
					: "SET_ATTR.attr: not zero while attr_present is 0");
	}
}

/* a request holds no field its kind does not carry */
static void
test_req_not_carried(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);

	q.pool_size = 8192;
	req_enc_refused(&q, "CLOSE.pool_size: 8192 (not carried: 0)");
	q = req_sample(RPMEM_PROTO_REMOVE);
	q.nlanes = 3;
	req_enc_refused(&q, "REMOVE.nlanes: 3 (not carried: 0)");
	q = req_sample(RPMEM_PROTO_CREATE);
	q.pool_id = 9;
	req_enc_refused(&q, "CREATE.pool_id: 9 (not carried: 0)");
	q = req_sample(RPMEM_PROTO_OPEN);
	q.attr_present = true;
	req_enc_refused(&q, "OPEN.attr_present: 1 (not carried: 0)");
	q = req_sample(RPMEM_PROTO_REMOVE);
	q.attr[103] = 1;
	req_enc_refused(&q, "REMOVE.attr: not zero while attr_present is 0");
}

/* ---------------------------------------------------------------- answer bounds */

/* status: 0 and the errno values of the table, nothing else */
static void
test_status_known(void **state)
{
	(void)state;
	static const uint32_t table[] = {
	    EPERM,  ENOENT, EIO,    E2BIG, ENOMEM,	 EACCES, EBUSY,	    EEXIST,  ENOTDIR,
	    EINVAL, EFBIG,  ENOSPC, EROFS, ENAMETOOLONG, EPROTO, EOVERFLOW, EUCLEAN, EDQUOT,
	};
	static const uint32_t linux_values[] = {1,  2,	5,  7,	12, 13, 16, 17,	 20,
						22, 27, 28, 30, 36, 71, 75, 117, 122};
	unsigned known = 0;

	assert_memory_equal(table, linux_values, sizeof(table));
	for (uint32_t s = 0; s < 4096; s++) {
		bool want = s == 0;

		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			want = want || table[i] == s;
		assert_int_equal(rpmem_proto_status_known(s), want);
		known += want;
	}
	assert_int_equal(known, 19);
	assert_false(rpmem_proto_status_known(UINT32_MAX));
	assert_false(rpmem_proto_status_known(0x80000001u));
}

/* every known status answers; an unknown one is refused */
static void
test_ans_status(void **state)
{
	(void)state;
	struct rpmem_proto_ans a;

	for (uint32_t s = 1; s < 200; s++) {
		if (!rpmem_proto_status_known(s))
			continue;
		a = ans_sample(RPMEM_PROTO_OPEN, s);
		ans_round_trip(&a);
	}
	a = ans_sample(RPMEM_PROTO_CREATE, 3);
	ans_refused(&a, "CREATE answer.status: 3 (not a status a daemon sends)");
	a = ans_sample(RPMEM_PROTO_REMOVE, 0xffffffffu);
	ans_refused(&a, "REMOVE answer.status: 4294967295 (not a status a daemon sends)");
}

/* message: up to 200 bytes of printable ASCII, empty on success */
static void
test_ans_message(void **state)
{
	(void)state;
	static const uint8_t bad[] = {0x00, 0x09, 0x1f, 0x7f, 0x80, 0xff};
	char text[RPMEM_PROTO_MSG_MAX + 1], msg[RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CLOSE, EIO);

	for (int c = 0x20; c < 0x7f; c++)
		text[c - 0x20] = (char)c;
	set_text(a.msg, &a.msg_len, text, 0x7f - 0x20);
	ans_round_trip(&a);
	memset(text, 'm', sizeof(text));
	set_text(a.msg, &a.msg_len, text, RPMEM_PROTO_MSG_MAX);
	ans_round_trip(&a);
	for (size_t i = 0; i < sizeof(bad); i++) {
		set_text(a.msg, &a.msg_len, "ok, then ?", 10);
		a.msg[9] = (char)bad[i];
		snprintf(msg, sizeof(msg),
			 "CLOSE answer.message: byte 9 is 0x%02x (printable ASCII only)", bad[i]);
		ans_refused(&a, msg);
	}
	a = ans_sample(RPMEM_PROTO_OPEN, 0);
	set_text(a.msg, &a.msg_len, "fine", 4);
	ans_refused(&a, "OPEN answer.message: 4 bytes with status 0 (empty)");
}

/* a message of 201 bytes: refused by both sides */
static void
test_ans_message_long(void **state)
{
	(void)state;
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_SET_ATTR, EROFS);
	uint8_t text[RPMEM_PROTO_MSG_MAX + 1];
	struct bytes w;

	a.msg_len = RPMEM_PROTO_MSG_MAX + 1;
	ans_enc_refused(&a, "SET_ATTR answer.message: 201 bytes (at most 200)");
	put_hdr(&w, RPMEM_PROTO_MAGIC, RPMEM_PROTO_VERSION, RPMEM_PROTO_SET_ATTR);
	put(&w, EROFS, 4);
	put(&w, sizeof(text), 1);
	memset(text, 'm', sizeof(text));
	put_raw(&w, text, sizeof(text));
	ans_bytes_refused(w.b, w.len, "SET_ATTR answer.message: 201 bytes (at most 200)");
	a.msg_len = 0;
	a.msg[0] = 'x';
	ans_enc_refused(&a, "SET_ATTR answer.message: no NUL after its 0 bytes");
}

/* the pool of a CREATE or OPEN that worked: pool_id, pool_size, nlanes, persist */
static void
test_ans_pool(void **state)
{
	(void)state;
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CREATE, 0);

	a.pool_size = 8192;
	a.nlanes = 1;
	a.persist = RPMEM_PROTO_PERSIST_APM;
	ans_round_trip(&a);
	a.pool_id = 0;
	ans_refused(&a, "CREATE answer.pool_id: 0 (not 0)");
	a = ans_sample(RPMEM_PROTO_OPEN, 0);
	a.pool_size = 8191;
	ans_refused(&a, "OPEN answer.pool_size: 8191 (at least 8192)");
	a = ans_sample(RPMEM_PROTO_OPEN, 0);
	a.nlanes = 0;
	ans_refused(&a, "OPEN answer.nlanes: 0 (at least 1)");
	a = ans_sample(RPMEM_PROTO_OPEN, 0);
	a.persist = 0;
	ans_refused(&a, "OPEN answer.persist: 0 (1 APM or 2 GPSPM)");
	a.persist = 3;
	ans_refused(&a, "OPEN answer.persist: 3 (1 APM or 2 GPSPM)");
}

/* the region: a framework name of 1 to 63 bytes */
static void
test_ans_region(void **state)
{
	(void)state;
	static const char bad[] = {'/', ' ', '+', '\0', (char)0x80, '~'};
	char msg[RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CREATE, 0);

	set_text(a.region, &a.region_len, "r", 1);
	ans_round_trip(&a);
	set_text(a.region, &a.region_len, "azAZ09_-.", 9);
	ans_round_trip(&a);
	set_text(a.region, &a.region_len, "", 0);
	ans_refused(&a, "CREATE answer.region: 0 bytes (1 to 63)");
	for (size_t i = 0; i < sizeof(bad); i++) {
		set_text(a.region, &a.region_len, "pool_", 5);
		a.region[4] = bad[i];
		snprintf(
		    msg, sizeof(msg),
		    "CREATE answer.region: byte 4 is 0x%02x (letters, digits, '_', '-' and '.')",
		    (unsigned char)bad[i]);
		ans_refused(&a, msg);
		assert_int_equal(rpmem_proto_region_check(a.region, 5), -EINVAL);
	}
	set_text(a.region, &a.region_len, "ok", 2);
	a.region[2] = 'x';
	ans_enc_refused(&a, "CREATE answer.region: no NUL after its 2 bytes");
}

/* a region of 64 bytes: refused by both sides */
static void
test_ans_region_long(void **state)
{
	(void)state;
	char name[RPMEM_PROTO_REGION_MAX + 2];
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0);
	struct bytes w;

	memset(name, 'r', sizeof(name));
	assert_int_equal(rpmem_proto_region_check(name, RPMEM_PROTO_REGION_MAX), 0);
	assert_int_equal(rpmem_proto_region_check(name, RPMEM_PROTO_REGION_MAX + 1), -EINVAL);
	assert_int_equal(rpmem_proto_region_check(NULL, 1), -EINVAL);
	a.region_len = RPMEM_PROTO_REGION_MAX + 1;
	ans_enc_refused(&a, "OPEN answer.region: 64 bytes (1 to 63)");
	ans_bytes(&a, &w);
	ans_bytes_refused(w.b, w.len, "OPEN answer.region: 64 bytes (at most 63)");
}

/* an answer holds nothing its kind and status do not carry */
static void
test_ans_not_carried(void **state)
{
	(void)state;
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CREATE, ENOSPC);

	a.pool_id = 5;
	ans_enc_refused(&a, "CREATE answer.pool_id: 5 (not carried: 0)");
	a = ans_sample(RPMEM_PROTO_CLOSE, 0);
	a.pool_size = 8192;
	ans_enc_refused(&a, "CLOSE answer.pool_size: 8192 (not carried: 0)");
	a = ans_sample(RPMEM_PROTO_REMOVE, 0);
	a.nlanes = 1;
	ans_enc_refused(&a, "REMOVE answer.nlanes: 1 (not carried: 0)");
	a = ans_sample(RPMEM_PROTO_SET_ATTR, 0);
	a.persist = 1;
	ans_enc_refused(&a, "SET_ATTR answer.persist: 1 (not carried: 0)");
	a = ans_sample(RPMEM_PROTO_OPEN, EACCES);
	a.region_len = 2;
	ans_enc_refused(&a, "OPEN answer.region_len: 2 (not carried: 0)");
	a = ans_sample(RPMEM_PROTO_OPEN, EACCES);
	a.region[0] = 'r';
	ans_enc_refused(&a, "OPEN answer.region: no NUL after its 0 bytes");
	a = ans_sample(RPMEM_PROTO_CREATE, 0);
	a.attr[0] = 1;
	ans_enc_refused(&a, "CREATE answer.attr: not zero (not carried)");
	a = ans_sample(RPMEM_PROTO_OPEN, EBUSY);
	a.attr[50] = 1;
	ans_enc_refused(&a, "OPEN answer.attr: not zero (not carried)");
}

/* ---------------------------------------------------------------- framing */

/* struct samples -- every sample request and answer laid out by hand, each with a name */
struct samples {
	struct bytes req[8];
	char req_name[8][32];
	size_t nreq;
	struct bytes ans[16];
	char ans_name[16][32];
	size_t nans;
};

/* samples_get -- each kind of request (attributes or none), each kind of answer (ok, failed) */
static void
samples_get(struct samples *s)
{
	s->nreq = s->nans = 0;
	for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
		struct rpmem_proto_req q = req_sample(kind);
		struct rpmem_proto_ans a = ans_sample(kind, 0);
		const char *name = rpmem_proto_kind_name(kind);

		snprintf(s->req_name[s->nreq], 32, "req-%u-%s", kind, name);
		req_bytes(&q, &s->req[s->nreq++]);
		if (q.attr_present) {
			q.attr_present = false;
			memset(q.attr, 0, sizeof(q.attr));
			snprintf(s->req_name[s->nreq], 32, "req-%u-%s-no-attr", kind, name);
			req_bytes(&q, &s->req[s->nreq++]);
		}
		snprintf(s->ans_name[s->nans], 32, "ans-%u-%s", kind, name);
		ans_bytes(&a, &s->ans[s->nans++]);
		a = ans_sample(kind, EUCLEAN);
		snprintf(s->ans_name[s->nans], 32, "ans-%u-%s-failed", kind, name);
		ans_bytes(&a, &s->ans[s->nans++]);
	}
}

/* truncated at every byte: refused, the message naming the field cut short */
static void
test_truncated(void **state)
{
	(void)state;
	static struct samples s;
	char err[RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_req q;
	struct rpmem_proto_ans a;

	samples_get(&s);
	for (size_t i = 0; i < s.nreq; i++) {
		for (size_t n = 0; n < s.req[i].len; n++) {
			assert_int_equal(
			    rpmem_proto_req_decode(s.req[i].b, n, &q, err, sizeof(err)), -EPROTO);
			assert_non_null(strstr(err, ": truncated: "));
		}
	}
	for (size_t i = 0; i < s.nans; i++) {
		for (size_t n = 0; n < s.ans[i].len; n++) {
			assert_int_equal(
			    rpmem_proto_ans_decode(s.ans[i].b, n, &a, err, sizeof(err)), -EPROTO);
			assert_non_null(strstr(err, ": truncated: "));
		}
	}
}

/* the messages of a few cuts, word for word */
static void
test_truncated_msgs(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CREATE);
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0);
	struct bytes w;

	req_bytes(&q, &w);
	req_bytes_refused(w.b, 0, "request.magic: truncated: 4 bytes needed at byte 0, 0 left");
	req_bytes_refused(NULL, 0, "request.magic: truncated: 4 bytes needed at byte 0, 0 left");
	req_bytes_refused(w.b, 5, "request.version: truncated: 2 bytes needed at byte 4, 1 left");
	req_bytes_refused(w.b, 8, "CREATE.pool_size: truncated: 8 bytes needed at byte 8, 0 left");
	req_bytes_refused(w.b, 30, "CREATE.attr: truncated: 104 bytes needed at byte 25, 5 left");
	req_bytes_refused(w.b, w.len - 1,
			  "CREATE.pool_set_name: truncated: 12 bytes needed at byte 130, 11 left");
	ans_bytes(&a, &w);
	ans_bytes_refused(w.b, 7, "answer.kind: truncated: 2 bytes needed at byte 6, 1 left");
	ans_bytes_refused(w.b, 13,
			  "OPEN answer.pool_id: truncated: 8 bytes needed at byte 13, 0 left");
	ans_bytes_refused(w.b, w.len - 104,
			  "OPEN answer.attr: truncated: 104 bytes needed at byte 49, 0 left");
}

/* one byte, or more, after the last field: refused */
static void
test_trailing(void **state)
{
	(void)state;
	static struct samples s;
	char msg[RPMEM_PROTO_ERR_MAX];

	samples_get(&s);
	for (size_t i = 0; i < s.nreq; i++) {
		size_t len = s.req[i].len;
		struct rpmem_proto_req q;

		assert_int_equal(rpmem_proto_req_decode(s.req[i].b, len, &q, NULL, 0), 0);
		snprintf(msg, sizeof(msg),
			 "%s: 1 trailing bytes after the last field (at byte %zu)",
			 rpmem_proto_kind_name(q.kind), len);
		put(&s.req[i], 0, 1);
		req_bytes_refused(s.req[i].b, s.req[i].len, msg);
	}
	for (size_t i = 0; i < s.nans; i++) {
		size_t len = s.ans[i].len;
		struct rpmem_proto_ans a;

		assert_int_equal(rpmem_proto_ans_decode(s.ans[i].b, len, &a, NULL, 0), 0);
		snprintf(msg, sizeof(msg),
			 "%s answer: 3 trailing bytes after the last field (at byte %zu)",
			 rpmem_proto_kind_name(a.kind), len);
		put(&s.ans[i], 0xabcdef, 3);
		ans_bytes_refused(s.ans[i].b, s.ans[i].len, msg);
	}
}

/* the header: magic, version, kind, each refused on its own */
static void
test_header(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CLOSE, 0);
	struct bytes w;

	req_bytes(&q, &w);
	w.b[3] = 'm';
	req_bytes_refused(w.b, w.len, "request.magic: 0x6d505252 (0x4d505252, \"RRPM\")");
	req_bytes_refused(w.b, 4, "request.magic: 0x6d505252 (0x4d505252, \"RRPM\")");
	w.b[3] = 'M';
	w.b[4] = 2;
	req_bytes_refused(w.b, w.len, "request.version: 2 (1)");
	w.b[4] = 0;
	req_bytes_refused(w.b, w.len, "request.version: 0 (1)");
	w.b[4] = 1;
	w.b[7] = 1;
	req_bytes_refused(w.b, w.len, "request.kind: 259 (1 to 5)");
	w.b[7] = 0;
	w.b[6] = 6;
	req_bytes_refused(w.b, w.len, "request.kind: 6 (1 to 5)");
	w.b[6] = 0;
	req_bytes_refused(w.b, w.len, "request.kind: 0 (1 to 5)");
	ans_bytes(&a, &w);
	w.b[0] = 0;
	ans_bytes_refused(w.b, w.len, "answer.magic: 0x4d505200 (0x4d505252, \"RRPM\")");
	w.b[0] = 'R';
	w.b[5] = 1;
	ans_bytes_refused(w.b, w.len, "answer.version: 257 (1)");
	w.b[5] = 0;
	w.b[6] = 0;
	ans_bytes_refused(w.b, w.len, "answer.kind: 0 (1 to 5)");
}

/* a kind out of range in a struct: refused by the encoder */
static void
test_kind_struct(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CLOSE, 0);

	q.kind = 0;
	req_enc_refused(&q, "request.kind: 0 (1 to 5)");
	q.kind = 6;
	req_enc_refused(&q, "request.kind: 6 (1 to 5)");
	a.kind = 0xffff;
	ans_enc_refused(&a, "answer.kind: 65535 (1 to 5)");
}

/* the same bytes as a request and as an answer: each decoder reads its own layout */
static void
test_req_is_not_ans(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_CLOSE);
	struct rpmem_proto_ans a;
	struct bytes w;

	req_bytes(&q, &w);
	assert_int_equal(rpmem_proto_ans_decode(w.b, w.len, &a, NULL, 0), -EPROTO);
}

/* ---------------------------------------------------------------- arguments and messages */

/* buffers too small, NULL arguments, no length wanted */
static void
test_encode_args(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_OPEN);
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0);
	size_t qlen = rpmem_proto_req_size(&q), alen = rpmem_proto_ans_size(&a);
	uint8_t buf[BUF];

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(rpmem_proto_req_encode(&q, buf, qlen - 1, NULL), -ENOBUFS);
	assert_int_equal(rpmem_proto_ans_encode(&a, buf, alen - 1, NULL), -ENOBUFS);
	assert_int_equal(buf[0], 0xee);
	assert_int_equal(rpmem_proto_req_encode(&q, NULL, 0, NULL), -ENOBUFS);
	assert_int_equal(rpmem_proto_ans_encode(&a, NULL, 0, NULL), -ENOBUFS);
	assert_int_equal(rpmem_proto_req_encode(&q, buf, qlen, NULL), 0);
	assert_int_equal(buf[qlen], 0xee);
	assert_int_equal(rpmem_proto_ans_encode(&a, buf, alen, NULL), 0);
	assert_int_equal(buf[alen], 0xee);
	assert_int_equal(rpmem_proto_req_encode(NULL, buf, sizeof(buf), NULL), -EINVAL);
	assert_int_equal(rpmem_proto_ans_encode(NULL, buf, sizeof(buf), NULL), -EINVAL);
	assert_int_equal(rpmem_proto_req_encode(&q, NULL, 10, NULL), -EINVAL);
	assert_int_equal(rpmem_proto_ans_encode(&a, NULL, 10, NULL), -EINVAL);
}

/* decode and check with NULL arguments: -EINVAL and a message */
static void
test_decode_args(void **state)
{
	(void)state;
	char err[RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_req q;
	struct rpmem_proto_ans a;
	uint8_t buf[8] = {0};

	assert_int_equal(rpmem_proto_req_decode(buf, 8, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "request: NULL argument");
	assert_int_equal(rpmem_proto_req_decode(NULL, 8, &q, err, sizeof(err)), -EINVAL);
	assert_int_equal(rpmem_proto_ans_decode(buf, 8, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "answer: NULL argument");
	assert_int_equal(rpmem_proto_ans_decode(NULL, 1, &a, NULL, 0), -EINVAL);
	assert_int_equal(rpmem_proto_req_check(NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "request: NULL argument");
	assert_int_equal(rpmem_proto_ans_check(NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "answer: NULL argument");
}

/* the message buffer: optional, cut to its size, emptied on success */
static void
test_err_buffer(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_REMOVE);
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_REMOVE, 0);
	char err[10] = "xxxxxxxxx";
	struct bytes w;

	req_bytes(&q, &w);
	assert_int_equal(rpmem_proto_req_decode(w.b, 3, &q, NULL, 0), -EPROTO);
	assert_int_equal(rpmem_proto_req_decode(w.b, 3, &q, err, 0), -EPROTO);
	assert_string_equal(err, "xxxxxxxxx");
	assert_int_equal(rpmem_proto_req_decode(w.b, 3, &q, err, 1), -EPROTO);
	assert_string_equal(err, "");
	assert_int_equal(rpmem_proto_req_decode(w.b, 3, &q, err, sizeof(err)), -EPROTO);
	assert_string_equal(err, "request.m");
	assert_int_equal(rpmem_proto_req_decode(w.b, w.len, &q, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	strcpy(err, "stale");
	assert_int_equal(rpmem_proto_req_check(&q, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	strcpy(err, "stale");
	assert_int_equal(rpmem_proto_ans_check(&a, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* ---------------------------------------------------------------- helpers */

/* kind names and handler ids */
static void
test_kinds(void **state)
{
	(void)state;
	static const char *const names[] = {NULL, "CREATE", "OPEN", "CLOSE", "SET_ATTR", "REMOVE"};

	for (unsigned kind = 1; kind <= RPMEM_PROTO_KIND_MAX; kind++) {
		assert_string_equal(rpmem_proto_kind_name(kind), names[kind]);
		assert_int_equal(RPMEM_PROTO_HANDLER(kind), 0x524d0000u + kind);
	}
	assert_int_equal(RPMEM_PROTO_HANDLER(RPMEM_PROTO_SET_ATTR), 0x524d0004u);
	assert_null(rpmem_proto_kind_name(0));
	assert_null(rpmem_proto_kind_name(6));
	assert_null(rpmem_proto_kind_name(0x10001));
}

/* attributes to and from their bytes, field by field */
static void
test_attr_pack(void **state)
{
	(void)state;
	struct rpmem_proto_attr attr, back;
	uint8_t bytes[RPMEM_PROTO_ATTR_SIZE], want[RPMEM_PROTO_ATTR_SIZE];

	memcpy(attr.signature, "PMEMOBJ", 8);
	attr.major = 0x01020304u;
	attr.compat_features = 0x11121314u;
	attr.incompat_features = 0x21222324u;
	attr.ro_compat_features = 0x31323334u;
	for (int i = 0; i < 16; i++) {
		attr.poolset_uuid[i] = (uint8_t)(0x40 + i);
		attr.uuid[i] = (uint8_t)(0x50 + i);
		attr.next_uuid[i] = (uint8_t)(0x60 + i);
		attr.prev_uuid[i] = (uint8_t)(0x70 + i);
		attr.user_flags[i] = (uint8_t)(0x80 + i);
	}
	memcpy(want, "PMEMOBJ", 8);
	for (int f = 0; f < 4; f++)
		for (int i = 0; i < 4; i++)
			want[8 + 4 * f + i] = (uint8_t)(0x10 * f + 4 - i);
	for (int i = 0; i < 80; i++)
		want[24 + i] = (uint8_t)(0x40 + 0x10 * (i / 16) + i % 16);
	rpmem_proto_attr_pack(&attr, bytes);
	assert_memory_equal(bytes, want, sizeof(want));
	memset(&back, 0, sizeof(back));
	rpmem_proto_attr_unpack(bytes, &back);
	assert_memory_equal(&back, &attr, sizeof(attr));
}

/* set_name: a name checked and copied with its NUL */
static void
test_set_name(void **state)
{
	(void)state;
	struct rpmem_proto_req q = req_sample(RPMEM_PROTO_OPEN), untouched;

	assert_int_equal(rpmem_proto_req_set_name(&q, "a/b.set"), 0);
	assert_int_equal(q.name_len, 7);
	assert_string_equal(q.name, "a/b.set");
	req_round_trip(&q);
	untouched = q;
	assert_int_equal(rpmem_proto_req_set_name(&q, "../b.set"), -EINVAL);
	assert_int_equal(rpmem_proto_req_set_name(&q, ""), -EINVAL);
	assert_int_equal(rpmem_proto_req_set_name(&q, NULL), -EINVAL);
	assert_int_equal(rpmem_proto_req_set_name(NULL, "a"), -EINVAL);
	assert_memory_equal(&q, &untouched, sizeof(q));
}

/* set_msg: formatted, cut to 200 bytes, every other byte than printable ASCII made '?' */
static void
test_set_msg(void **state)
{
	(void)state;
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_CREATE, EEXIST);
	char longer[300];

	rpmem_proto_ans_set_msg(&a, "%s: pool %d exists", "x\ty\n\x80z", 7);
	assert_string_equal(a.msg, "x?y??z: pool 7 exists");
	assert_int_equal(a.msg_len, 21);
	ans_round_trip(&a);
	memset(longer, 'L', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	rpmem_proto_ans_set_msg(&a, "%s", longer);
	assert_int_equal(a.msg_len, RPMEM_PROTO_MSG_MAX);
	assert_int_equal(strlen(a.msg), RPMEM_PROTO_MSG_MAX);
	ans_round_trip(&a);
	rpmem_proto_ans_set_msg(&a, "%s", "");
	assert_int_equal(a.msg_len, 0);
	assert_string_equal(a.msg, "");
	/* a wide character the "C" locale cannot convert: the formatting fails, no message */
	rpmem_proto_ans_set_msg(&a, "abc%ls", (const wchar_t[]){0x263a, 0});
	assert_int_equal(a.msg_len, 0);
	assert_string_equal(a.msg, "");
}

/* set_region: a region name checked and copied with its NUL */
static void
test_set_region(void **state)
{
	(void)state;
	struct rpmem_proto_ans a = ans_sample(RPMEM_PROTO_OPEN, 0), untouched;

	assert_int_equal(rpmem_proto_ans_set_region(&a, "rpmem-42"), 0);
	assert_int_equal(a.region_len, 8);
	assert_string_equal(a.region, "rpmem-42");
	ans_round_trip(&a);
	untouched = a;
	assert_int_equal(rpmem_proto_ans_set_region(&a, "a/b"), -EINVAL);
	assert_int_equal(rpmem_proto_ans_set_region(&a, ""), -EINVAL);
	assert_int_equal(rpmem_proto_ans_set_region(&a, NULL), -EINVAL);
	assert_int_equal(rpmem_proto_ans_set_region(NULL, "r"), -EINVAL);
	assert_memory_equal(&a, &untouched, sizeof(a));
}

/* ---------------------------------------------------------------- the seed corpus */

/* seed_emit -- the selector byte and the len bytes at b: written into DIR, or compared */
static void
seed_emit(const char *name, uint8_t selector, const uint8_t *b, size_t len)
{
	const char *dir = getenv("RPMEM_PROTO_WRITE_SEEDS");
	uint8_t file[BUF + 2];
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : CORPUS, name);
	f = fopen(path, dir ? "wb" : "rb");
	if (f == NULL)
		fail_msg("seed %s: cannot open %s (make rpmem-proto-seeds writes it)", name, path);
	if (dir) {
		assert_int_equal(fwrite(&selector, 1, 1, f), 1);
		assert_int_equal(fwrite(b, 1, len, f), len);
	} else {
		size_t n = fread(file, 1, sizeof(file), f);

		if (n != len + 1 || file[0] != selector || memcmp(file + 1, b, len) != 0)
			fail_msg("seed %s differs (make rpmem-proto-seeds writes it again)", name);
	}
	assert_int_equal(fclose(f), 0);
}

/* fuzz/corpus/fuzz_rpmem_proto/: each sample, a 0 byte before a request, a 1 before an answer */
static void
test_seeds(void **state)
{
	(void)state;
	static struct samples s;

	samples_get(&s);
	for (size_t i = 0; i < s.nreq; i++) {
		assert_int_equal(rpmem_proto_req_decode(s.req[i].b, s.req[i].len,
							&(struct rpmem_proto_req){0}, NULL, 0),
				 0);
		seed_emit(s.req_name[i], 0, s.req[i].b, s.req[i].len);
	}
	for (size_t i = 0; i < s.nans; i++) {
		assert_int_equal(rpmem_proto_ans_decode(s.ans[i].b, s.ans[i].len,
							&(struct rpmem_proto_ans){0}, NULL, 0),
				 0);
		seed_emit(s.ans_name[i], 1, s.ans[i].b, s.ans[i].len);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_req_golden),
	    cmocka_unit_test(test_req_each_kind),
	    cmocka_unit_test(test_req_sizes),
	    cmocka_unit_test(test_req_max),
	    cmocka_unit_test(test_ans_each_kind),
	    cmocka_unit_test(test_ans_golden),
	    cmocka_unit_test(test_ans_failure_bytes),
	    cmocka_unit_test(test_ans_max),
	    cmocka_unit_test(test_name_refused),
	    cmocka_unit_test(test_name_accepted),
	    cmocka_unit_test(test_name_bounds),
	    cmocka_unit_test(test_name_exhaustive),
	    cmocka_unit_test(test_name_struct),
	    cmocka_unit_test(test_req_flags),
	    cmocka_unit_test(test_req_size_lanes),
	    cmocka_unit_test(test_req_pool_id),
	    cmocka_unit_test(test_req_attr_present),
	    cmocka_unit_test(test_req_not_carried),
	    cmocka_unit_test(test_status_known),
	    cmocka_unit_test(test_ans_status),
	    cmocka_unit_test(test_ans_message),
	    cmocka_unit_test(test_ans_message_long),
	    cmocka_unit_test(test_ans_pool),
	    cmocka_unit_test(test_ans_region),
	    cmocka_unit_test(test_ans_region_long),
	    cmocka_unit_test(test_ans_not_carried),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_truncated_msgs),
	    cmocka_unit_test(test_trailing),
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_kind_struct),
	    cmocka_unit_test(test_req_is_not_ans),
	    cmocka_unit_test(test_encode_args),
	    cmocka_unit_test(test_decode_args),
	    cmocka_unit_test(test_err_buffer),
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_attr_pack),
	    cmocka_unit_test(test_set_name),
	    cmocka_unit_test(test_set_msg),
	    cmocka_unit_test(test_set_region),
	    cmocka_unit_test(test_seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
