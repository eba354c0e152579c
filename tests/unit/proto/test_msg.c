/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_msg.c -- the message codec: every type round-trips to the same
 * bytes, the bytes are those doc/PROTOCOL.md describes, every malformed
 * header and body is refused with its own code and a message naming the
 * field, the encoder refuses what the decoder would, and neither allocates.
 */

#include "proto_test.h"

#include <string.h>

static uint8_t Buf[T_BUF_SIZE + 64];
static uint8_t Again[T_BUF_SIZE + 64];

/* in_buf -- len bytes at p lie within the n bytes at buf */
static int
in_buf(const void *p, size_t len, const uint8_t *buf, size_t n)
{
	const uint8_t *q = p;

	if (len == 0)
		return 1;
	return q >= buf && q + len <= buf + n;
}

/* assert_region_eq -- two entries hold the same values */
static void
assert_region_eq(const struct rpmaf__proto_region *a, const struct rpmaf__proto_region *b)
{
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->generation, b->generation);
	assert_int_equal(a->persist, b->persist);
	assert_int_equal(a->usage, b->usage);
	assert_int_equal(a->name_len, b->name_len);
	assert_memory_equal(a->name, b->name, a->name_len);
	assert_int_equal(a->desc_len, b->desc_len);
	if (a->desc_len)
		assert_memory_equal(a->desc, b->desc, a->desc_len);
}

/* assert_handshake_eq -- the hello and auth bodies of a and b are equal */
static void
assert_handshake_eq(const struct rpmaf__proto_msg *a, const struct rpmaf__proto_msg *b)
{
	switch (a->hdr.type) {
	case RPMAF__PROTO_T_HELLO:
		assert_memory_equal(&a->body.hello, &b->body.hello, sizeof(a->body.hello));
		break;
	case RPMAF__PROTO_T_HELLO_REPLY:
		assert_memory_equal(&a->body.hello_reply, &b->body.hello_reply,
				    sizeof(a->body.hello_reply));
		break;
	case RPMAF__PROTO_T_AUTH:
		assert_memory_equal(a->body.auth.client_nonce, b->body.auth.client_nonce,
				    RPMAF__PROTO_NONCE_SIZE);
		assert_memory_equal(a->body.auth.proof, b->body.auth.proof,
				    RPMAF__PROTO_PROOF_SIZE);
		assert_int_equal(a->body.auth.name_len, b->body.auth.name_len);
		assert_memory_equal(a->body.auth.name, b->body.auth.name, a->body.auth.name_len);
		break;
	case RPMAF__PROTO_T_AUTH_REPLY:
		assert_memory_equal(a->body.auth_reply.proof, b->body.auth_reply.proof,
				    RPMAF__PROTO_PROOF_SIZE);
		break;
	}
}

/* assert_regions_eq -- the region bodies of a and b are equal */
static void
assert_regions_eq(const struct rpmaf__proto_msg *a, const struct rpmaf__proto_msg *b)
{
	switch (a->hdr.type) {
	case RPMAF__PROTO_T_REGION_LIST_REQ:
		assert_int_equal(a->body.list_req.start, b->body.list_req.start);
		assert_int_equal(a->body.list_req.max_entries, b->body.list_req.max_entries);
		break;
	case RPMAF__PROTO_T_REGION_LIST:
		assert_int_equal(a->body.list.table_generation, b->body.list.table_generation);
		assert_int_equal(a->body.list.total, b->body.list.total);
		assert_int_equal(a->body.list.start, b->body.list.start);
		assert_int_equal(a->body.list.count, b->body.list.count);
		assert_int_equal(a->body.list.entries_len, b->body.list.entries_len);
		assert_memory_equal(a->body.list.entries, b->body.list.entries,
				    a->body.list.entries_len);
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REQ:
		assert_int_equal(a->body.lookup_req.name_len, b->body.lookup_req.name_len);
		assert_memory_equal(a->body.lookup_req.name, b->body.lookup_req.name,
				    a->body.lookup_req.name_len);
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REPLY:
		assert_int_equal(a->body.lookup_reply.status, b->body.lookup_reply.status);
		if (a->body.lookup_reply.status == RPMAF__PROTO_S_OK)
			assert_region_eq(&a->body.lookup_reply.region,
					 &b->body.lookup_reply.region);
		break;
	case RPMAF__PROTO_T_ANNOUNCE:
		assert_int_equal(a->body.announce.table_generation,
				 b->body.announce.table_generation);
		assert_int_equal(a->body.announce.event, b->body.announce.event);
		assert_region_eq(&a->body.announce.region, &b->body.announce.region);
		break;
	}
}

/* assert_requests_eq -- the other bodies of a and b are equal */
static void
assert_requests_eq(const struct rpmaf__proto_msg *a, const struct rpmaf__proto_msg *b)
{
	switch (a->hdr.type) {
	case RPMAF__PROTO_T_PERSIST_REQ:
		assert_int_equal(a->body.persist_req.offset, b->body.persist_req.offset);
		assert_int_equal(a->body.persist_req.length, b->body.persist_req.length);
		assert_int_equal(a->body.persist_req.generation, b->body.persist_req.generation);
		assert_int_equal(a->body.persist_req.name_len, b->body.persist_req.name_len);
		assert_memory_equal(a->body.persist_req.name, b->body.persist_req.name,
				    a->body.persist_req.name_len);
		break;
	case RPMAF__PROTO_T_PERSIST_REPLY:
		assert_int_equal(a->body.persist_reply.status, b->body.persist_reply.status);
		break;
	case RPMAF__PROTO_T_APP_REQ:
		assert_int_equal(a->body.app_req.handler_id, b->body.app_req.handler_id);
		assert_int_equal(a->body.app_req.payload_len, b->body.app_req.payload_len);
		assert_memory_equal(a->body.app_req.payload, b->body.app_req.payload,
				    a->body.app_req.payload_len);
		break;
	case RPMAF__PROTO_T_APP_REPLY:
		assert_int_equal(a->body.app_reply.status, b->body.app_reply.status);
		assert_int_equal(a->body.app_reply.handler_id, b->body.app_reply.handler_id);
		assert_int_equal(a->body.app_reply.payload_len, b->body.app_reply.payload_len);
		assert_memory_equal(a->body.app_reply.payload, b->body.app_reply.payload,
				    a->body.app_reply.payload_len);
		break;
	case RPMAF__PROTO_T_HEARTBEAT:
	case RPMAF__PROTO_T_HEARTBEAT_REPLY:
		assert_int_equal(a->body.heartbeat.echo, b->body.heartbeat.echo);
		break;
	case RPMAF__PROTO_T_ERROR:
		assert_int_equal(a->body.error.status, b->body.error.status);
		assert_int_equal(a->body.error.reason_len, b->body.error.reason_len);
		assert_memory_equal(a->body.error.reason, b->body.error.reason,
				    a->body.error.reason_len);
		break;
	case RPMAF__PROTO_T_HANDLER_LIST_REQ:
		assert_int_equal(a->body.handler_list_req.start, b->body.handler_list_req.start);
		break;
	case RPMAF__PROTO_T_HANDLER_LIST:
		assert_int_equal(a->body.handler_list.total, b->body.handler_list.total);
		assert_int_equal(a->body.handler_list.start, b->body.handler_list.start);
		assert_int_equal(a->body.handler_list.count, b->body.handler_list.count);
		assert_int_equal(a->body.handler_list.entries_len,
				 b->body.handler_list.entries_len);
		assert_memory_equal(a->body.handler_list.entries, b->body.handler_list.entries,
				    a->body.handler_list.entries_len);
		break;
	}
}

/* roundtrip -- m encodes, decodes to the same values pointing into the buffer, and re-encodes
 * to the same bytes, allocating nothing; returns the length */
static size_t
roundtrip(const struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_msg d;
	long before = count_alloc();
	size_t len = encode_ok(m, Buf, sizeof(Buf));
	int ret = rpmaf__proto_msg_decode(Buf, len, &d, &err);

	if (ret)
		fail_msg("decode %s: %d %s", rpmaf__proto_type_str(m->hdr.type), ret, err.msg);
	assert_int_equal(d.hdr.version, m->hdr.version);
	assert_int_equal(d.hdr.type, m->hdr.type);
	assert_int_equal(d.hdr.flags, 0);
	assert_int_equal(d.hdr.body_len, len - RPMAF__PROTO_HDR_SIZE);
	assert_int_equal(d.hdr.credits, m->hdr.credits);
	assert_int_equal(d.hdr.req_id, m->hdr.req_id);
	assert_handshake_eq(m, &d);
	assert_regions_eq(m, &d);
	assert_requests_eq(m, &d);
	assert_int_equal(encode_ok(&d, Again, sizeof(Again)), len);
	assert_memory_equal(Buf, Again, len);
	assert_int_equal(count_alloc(), before);
	return len;
}

/* roundtrip_every_type -- a valid message of each of the 19 types */
static void
roundtrip_every_type(void **state)
{
	struct rpmaf__proto_msg m;
	unsigned n = 0;

	(void)state;
	for (unsigned t = 1; t <= RPMAF__PROTO_T_MAX; t++, n++) {
		sample_msg(t, &m);
		roundtrip(&m);
	}
	assert_int_equal(n, 19);
}

/* roundtrip_variants -- the optional parts: no entry, no descriptor, no payload, no reason */
static void
roundtrip_variants(void **state)
{
	struct rpmaf__proto_msg m;

	(void)state;
	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REPLY, &m);
	m.body.lookup_reply.status = RPMAF__PROTO_S_NOT_FOUND;
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 4);

	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	m.body.announce.event = RPMAF__PROTO_EV_REMOVED;
	m.body.announce.region.desc = NULL;
	m.body.announce.region.desc_len = 0;
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 12 + 20 + 2);

	sample_msg(RPMAF__PROTO_T_APP_REQ, &m);
	m.body.app_req.payload = NULL;
	m.body.app_req.payload_len = 0;
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 4);

	sample_msg(RPMAF__PROTO_T_ERROR, &m);
	m.body.error.reason = NULL;
	m.body.error.reason_len = 0;
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 5);

	sample_msg(RPMAF__PROTO_T_REGION_LIST, &m);
	m.body.list = (struct rpmaf__proto_region_list){1, 0, 0, 0, NULL, 0};
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 20);

	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &m);
	m.body.hello_reply.flags = 0;
	m.body.hello_reply.hb_interval_ms = 0;
	roundtrip(&m);
}

/* pointers_into_buffer -- what a decoded message points to lies in the decoded bytes */
static void
pointers_into_buffer(void **state)
{
	static const unsigned types[] = {RPMAF__PROTO_T_AUTH,
					 RPMAF__PROTO_T_REGION_LIST,
					 RPMAF__PROTO_T_REGION_LOOKUP_REQ,
					 RPMAF__PROTO_T_REGION_LOOKUP_REPLY,
					 RPMAF__PROTO_T_ANNOUNCE,
					 RPMAF__PROTO_T_PERSIST_REQ,
					 RPMAF__PROTO_T_APP_REQ,
					 RPMAF__PROTO_T_APP_REPLY,
					 RPMAF__PROTO_T_ERROR};
	struct rpmaf__proto_msg m, d;

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		sample_msg(types[i], &m);
		size_t len = encode_ok(&m, Buf, sizeof(Buf));

		assert_int_equal(rpmaf__proto_msg_decode(Buf, len, &d, NULL), 0);
		const void *p = NULL;
		size_t n = 0;

		switch (types[i]) {
		case RPMAF__PROTO_T_AUTH:
			p = d.body.auth.name, n = d.body.auth.name_len;
			break;
		case RPMAF__PROTO_T_REGION_LIST:
			p = d.body.list.entries, n = d.body.list.entries_len;
			break;
		case RPMAF__PROTO_T_REGION_LOOKUP_REQ:
			p = d.body.lookup_req.name, n = d.body.lookup_req.name_len;
			break;
		case RPMAF__PROTO_T_REGION_LOOKUP_REPLY:
			p = d.body.lookup_reply.region.desc,
			n = d.body.lookup_reply.region.desc_len;
			assert_true(in_buf(d.body.lookup_reply.region.name,
					   d.body.lookup_reply.region.name_len, Buf, len));
			break;
		case RPMAF__PROTO_T_ANNOUNCE:
			p = d.body.announce.region.name, n = d.body.announce.region.name_len;
			break;
		case RPMAF__PROTO_T_PERSIST_REQ:
			p = d.body.persist_req.name, n = d.body.persist_req.name_len;
			break;
		case RPMAF__PROTO_T_APP_REQ:
			p = d.body.app_req.payload, n = d.body.app_req.payload_len;
			break;
		case RPMAF__PROTO_T_APP_REPLY:
			p = d.body.app_reply.payload, n = d.body.app_reply.payload_len;
			break;
		case RPMAF__PROTO_T_ERROR:
			p = d.body.error.reason, n = d.body.error.reason_len;
			break;
		}
		assert_true(n > 0);
		assert_true(in_buf(p, n, Buf, len));
	}
}

/* golden_bytes -- the layout doc/PROTOCOL.md gives, byte for byte */
static void
golden_bytes(void **state)
{
	static const uint8_t hello[] = {'R',  'P',  'F',  'C',	1,    0,    RPMAF__PROTO_T_HELLO,
					0,    12,   0,	  0,	0,    2,    0,
					0,    0,    0x88, 0x77, 0x66, 0x55, 0x44,
					0x33, 0x22, 0x11, 1,	0,    1,    0,
					0,    0x10, 0,	  0,	16,   0,    0,
					0};
	static const uint8_t persist[] = {
	    'R',  'P',	'F',  'C',  1,	  0,	RPMAF__PROTO_T_PERSIST_REQ,
	    0,	  27,	0,    0,    0,	  2,	0,
	    0,	  0,	0x88, 0x77, 0x66, 0x55, 0x44,
	    0x33, 0x22, 0x11, 0,    0x10, 0,	0,
	    0,	  0,	0,    0, /* offset 4096 */
	    0,	  2,	0,    0,    0,	  0,	0,
	    0, /* length 512 */
	    7,	  0,	0,    0,    0,	  0,	0,
	    0, /* generation 7 */
	    2,	  'r',	'0'};
	/* version 2; total 5, start 3, count 2; handlers 7 and 0x01020304, idempotent */
	static const uint8_t handlers[] = {
	    'R',  'P',	'F',  'C',  2,	  0,	RPMAF__PROTO_T_HANDLER_LIST,
	    0,	  28,	0,    0,    0,	  2,	0,
	    0,	  0,	0x88, 0x77, 0x66, 0x55, 0x44,
	    0x33, 0x22, 0x11, 5,    0,	  0,	0,
	    3,	  0,	0,    0,    2,	  0,	0,
	    0,	  7,	0,    0,    0,	  1,	0,
	    0,	  0,	4,    3,    2,	  1,	1,
	    0,	  0,	0};
	struct rpmaf__proto_msg m;

	(void)state;
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	assert_int_equal(encode_ok(&m, Buf, sizeof(Buf)), sizeof(hello));
	assert_memory_equal(Buf, hello, sizeof(hello));
	sample_msg(RPMAF__PROTO_T_PERSIST_REQ, &m);
	assert_int_equal(encode_ok(&m, Buf, sizeof(Buf)), sizeof(persist));
	assert_memory_equal(Buf, persist, sizeof(persist));
	sample_msg(RPMAF__PROTO_T_HANDLER_LIST, &m);
	assert_int_equal(encode_ok(&m, Buf, sizeof(Buf)), sizeof(handlers));
	assert_memory_equal(Buf, handlers, sizeof(handlers));
}

/* sample_bytes -- the encoded sample of type in Buf; returns its length */
static size_t
sample_bytes(unsigned type)
{
	struct rpmaf__proto_msg m;

	sample_msg(type, &m);
	return encode_ok(&m, Buf, sizeof(Buf));
}

/* set_body_len -- change the header's body length (and so what the decoder reads) */
static void
set_body_len(uint32_t body_len)
{
	put_le(Buf + 8, 4, body_len);
}

/* header_rejected -- every rule of the header, each with its code */
static void
header_rejected(void **state)
{
	struct rpmaf__proto_msg m;
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_HELLO);
	expect_decode_err(Buf, 10, RPMAF__PROTO_E_TRUNCATED,
			  "header: truncated: 10 bytes (a header is 24)");
	expect_decode_err(Buf, 0, RPMAF__PROTO_E_TRUNCATED,
			  "header: truncated: 0 bytes (a header is 24)");
	expect_decode_err(NULL, len, RPMAF__PROTO_E_INVAL, "message: NULL buffer");
	assert_int_equal(rpmaf__proto_msg_decode(Buf, len, NULL, NULL), RPMAF__PROTO_E_INVAL);
	Buf[3] = 'D';
	expect_decode_err(Buf, len, RPMAF__PROTO_E_MAGIC,
			  "header.magic: 0x44465052 (0x43465052, \"RPFC\")");
	Buf[3] = 'C';
	put_le(Buf + 4, 2, 3);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_VERSION,
			  "header.version: 3 (this side speaks 1 to 2)");
	put_le(Buf + 4, 2, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_VERSION,
			  "header.version: 0 (this side speaks 1 to 2)");
	put_le(Buf + 4, 2, 1);
	Buf[6] = 0;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TYPE, "header.type: 0 (1 to 19)");
	Buf[6] = 20;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TYPE, "header.type: 20 (1 to 19)");
	/* the handler list is not a message of version 1 */
	Buf[6] = 18;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TYPE, "header.type: 18 (1 to 17 in version 1)");
	Buf[6] = 19;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TYPE, "header.type: 19 (1 to 17 in version 1)");
	Buf[6] = RPMAF__PROTO_T_HELLO;
	Buf[7] = 0x80;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "header.flags: 0x80 (none defined: 0)");
	Buf[7] = 0;
	set_body_len(UINT32_MAX);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TOO_BIG,
			  "header.body_len: 4294967295 (a message is at most 1048576 bytes)");
	set_body_len(RPMAF__PROTO_MSG_MAX - RPMAF__PROTO_HDR_SIZE + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TOO_BIG,
			  "header.body_len: 1048553 (a message is at most 1048576 bytes)");
	set_body_len(12);
	expect_decode_err(Buf, len - 1, RPMAF__PROTO_E_TRUNCATED,
			  "header.body_len: 12 but 11 bytes follow the header");
	expect_decode_err(Buf, len + 3, RPMAF__PROTO_E_TRAILING,
			  "HELLO: 3 trailing bytes after the 12-byte body");
	expect_decode_err(Buf, RPMAF__PROTO_MSG_MAX + 1, RPMAF__PROTO_E_TRAILING,
			  "HELLO: 1048541 trailing bytes after the 12-byte body");

	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	m.hdr.req_id = 5;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE,
			  "ANNOUNCE: header.req_id 5 (0 in an unsolicited message)");
	len = sample_bytes(RPMAF__PROTO_T_ANNOUNCE);
	put_le(Buf + 16, 8, 5);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "ANNOUNCE: header.req_id 5 (0 in an unsolicited message)");
	len = sample_bytes(RPMAF__PROTO_T_CREDIT);
	put_le(Buf + 12, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "CREDIT: header.credits 0 (a CREDIT returns at least 1)");
	put_le(Buf + 12, 4, 1);
	put_le(Buf + 16, 8, 9);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "CREDIT: header.req_id 9 (0 in an unsolicited message)");
}

/* hello_rejected -- HELLO and HELLO_REPLY bodies */
static void
hello_rejected(void **state)
{
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_HELLO);
	set_body_len(11);
	expect_decode_err(Buf, len - 1, RPMAF__PROTO_E_TRUNCATED,
			  "HELLO.credits: truncated: 4 bytes needed at byte 8, 3 left");
	set_body_len(13);
	expect_decode_err(Buf, len + 1, RPMAF__PROTO_E_TRAILING,
			  "HELLO: 1 trailing bytes after the last field (at byte 12)");
	set_body_len(12);
	put_le(Buf + 24, 2, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HELLO.min_version: 0 (1 to 65535)");
	put_le(Buf + 24, 2, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO.max_version: 1 is below min_version 2");
	put_le(Buf + 24, 2, 1);
	put_le(Buf + 28, 4, 255);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO.max_msg_size: 255 (256 to 1048576)");
	put_le(Buf + 28, 4, RPMAF__PROTO_MSG_MAX + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO.max_msg_size: 1048577 (256 to 1048576)");
	put_le(Buf + 28, 4, 4096);
	put_le(Buf + 32, 4, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HELLO.credits: 2 (3 to 65536)");

	len = sample_bytes(RPMAF__PROTO_T_HELLO_REPLY);
	put_le(Buf + 24, 2, 3);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_VERSION,
			  "HELLO_REPLY.version: 3 (this side speaks 1 to 2)");
	put_le(Buf + 24, 2, 1);
	put_le(Buf + 26, 2, 3);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO_REPLY.flags: 0x0003 (only 0x0001 auth is defined)");
	put_le(Buf + 26, 2, 1);
	put_le(Buf + 32, 4, 100000);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO_REPLY.credits: 100000 (3 to 65536)");
	put_le(Buf + 32, 4, 32);
	put_le(Buf + 36, 4, 3600001);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HELLO_REPLY.hb_interval_ms: 3600001 (0 to 3600000)");
	put_le(Buf + 36, 4, 1000);
	put_le(Buf + 40, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HELLO_REPLY.hb_misses: 0 (1 to 1000)");
	put_le(Buf + 40, 4, 3);
	set_body_len(51);
	expect_decode_err(
	    Buf, len - 1, RPMAF__PROTO_E_TRUNCATED,
	    "HELLO_REPLY.server_nonce: truncated: 32 bytes needed at byte 20, 31 left");
}

/* auth_rejected -- AUTH's name, and truncated nonces and proofs */
static void
auth_rejected(void **state)
{
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_AUTH);
	Buf[24 + 65 + 3] = ' ';
	expect_decode_err(
	    Buf, len, RPMAF__PROTO_E_STRING,
	    "AUTH.name: byte 3 is 0x20 (a name is letters, digits, '_', '-' and '.')");
	Buf[24 + 64] = 0;
	set_body_len(65);
	expect_decode_err(Buf, 24 + 65, RPMAF__PROTO_E_STRING,
			  "AUTH.name: empty (a name of 1 to 63 bytes)");
	Buf[24 + 64] = 64;
	expect_decode_err(Buf, 24 + 65, RPMAF__PROTO_E_TOO_BIG,
			  "AUTH.name: 64 bytes long (a name of 1 to 63 bytes)");
	Buf[24 + 64] = 8;
	set_body_len(72);
	expect_decode_err(Buf, 24 + 72, RPMAF__PROTO_E_TRUNCATED,
			  "AUTH.name: truncated: 8 bytes needed at byte 65, 7 left");
	set_body_len(40);
	expect_decode_err(Buf, 24 + 40, RPMAF__PROTO_E_TRUNCATED,
			  "AUTH.proof: truncated: 32 bytes needed at byte 32, 8 left");
	set_body_len(31);
	expect_decode_err(Buf, 24 + 31, RPMAF__PROTO_E_TRUNCATED,
			  "AUTH.client_nonce: truncated: 32 bytes needed at byte 0, 31 left");
	len = sample_bytes(RPMAF__PROTO_T_AUTH_REPLY);
	set_body_len(33);
	expect_decode_err(Buf, len + 1, RPMAF__PROTO_E_TRAILING,
			  "AUTH_REPLY: 1 trailing bytes after the last field (at byte 32)");
}

/* region_rejected -- every rule of a region entry, through REGION_LOOKUP_REPLY */
static void
region_rejected(void **state)
{
	const size_t e = 24 + 4; /* the entry */
	uint8_t gen[8];
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_REGION_LOOKUP_REPLY);
	assert_int_equal(len, e + 20 + 2 + 21);
	put_le(Buf + e, 8, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.size: 0 (at least 1)");
	put_le(Buf + e, 8, 4096);
	memcpy(gen, Buf + e + 8, sizeof(gen));
	put_le(Buf + e + 8, 8, UINT64_MAX);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.generation: 18446744073709551615 (at most "
			  "18446744073709551614: a removal must follow)");
	memcpy(Buf + e + 8, gen, sizeof(gen));
	Buf[e + 16] = 3;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.persist: 3 (0 none, 1 APM, 2 GPSPM)");
	Buf[e + 16] = 1;
	Buf[e + 17] = 0;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.usage: 0x00 (bits 0x1 read, 0x2 write, "
			  "0x4 flush; at least one)");
	Buf[e + 17] = 0x9;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.usage: 0x09 (bits 0x1 read, 0x2 write, "
			  "0x4 flush; at least one)");
	Buf[e + 17] = 0x7;
	Buf[e + 20] = '/';
	expect_decode_err(Buf, len, RPMAF__PROTO_E_STRING,
			  "REGION_LOOKUP_REPLY.region.name: byte 0 is 0x2f (a name is letters, "
			  "digits, '_', '-' and '.')");
	Buf[e + 20] = 'r';
	Buf[e + 18] = 0;
	expect_decode_err(
	    Buf, len, RPMAF__PROTO_E_STRING,
	    "REGION_LOOKUP_REPLY.region.name: 0 bytes long (a name of 1 to 63 bytes)");
	Buf[e + 18] = 64;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TOO_BIG,
			  "REGION_LOOKUP_REPLY.region.name: 64 bytes long (a name of 1 to 63 "
			  "bytes)");
	Buf[e + 18] = 2;
	Buf[e + 19] = 65;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TOO_BIG,
			  "REGION_LOOKUP_REPLY.region.desc: 65 bytes long (at most 64)");
	Buf[e + 19] = 0;
	expect_decode_err(Buf, len - 21, RPMAF__PROTO_E_TRUNCATED,
			  "header.body_len: 47 but 26 bytes follow the header");
	set_body_len(26);
	expect_decode_err(Buf, len - 21, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.region.desc: empty (1 to 64 bytes)");
	Buf[e + 19] = 21;
	expect_decode_err(Buf, len - 21, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LOOKUP_REPLY.region.desc: truncated: 21 bytes needed at byte "
			  "26, 0 left");
	set_body_len(12);
	expect_decode_err(Buf, 24 + 12, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LOOKUP_REPLY.region.generation: truncated: 8 bytes needed at "
			  "byte 12, 0 left");
}

/* lookup_rejected -- REGION_LOOKUP_REQ and the status of REGION_LOOKUP_REPLY */
static void
lookup_rejected(void **state)
{
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_REGION_LOOKUP_REQ);
	Buf[25] = 0x7f;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_STRING,
			  "REGION_LOOKUP_REQ.name: byte 0 is 0x7f (a name is letters, digits, "
			  "'_', '-' and '.')");
	Buf[24] = 3;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LOOKUP_REQ.name: truncated: 3 bytes needed at byte 1, 2 left");
	set_body_len(0);
	expect_decode_err(
	    Buf, 24, RPMAF__PROTO_E_TRUNCATED,
	    "REGION_LOOKUP_REQ.name_len: truncated: 1 bytes needed at byte 0, 0 left");

	len = sample_bytes(RPMAF__PROTO_T_REGION_LOOKUP_REPLY);
	put_le(Buf + 24, 4, 15);
	expect_decode_err(Buf, 28, RPMAF__PROTO_E_TRUNCATED,
			  "header.body_len: 47 but 4 bytes follow the header");
	set_body_len(4);
	expect_decode_err(Buf, 28, RPMAF__PROTO_E_RANGE,
			  "REGION_LOOKUP_REPLY.status: 15 (0 to 14)");
	put_le(Buf + 24, 4, RPMAF__PROTO_S_NOT_FOUND);
	set_body_len((uint32_t)(len - 24));
	expect_decode_err(
	    Buf, len, RPMAF__PROTO_E_TRAILING,
	    "REGION_LOOKUP_REPLY: 43 trailing bytes after the last field (at byte 4)");
}

/* list_rejected -- REGION_LIST_REQ and REGION_LIST's page and entries */
static void
list_rejected(void **state)
{
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_REGION_LIST_REQ);
	put_le(Buf + 24, 4, RPMAF__PROTO_REGIONS_MAX + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LIST_REQ.start: 65537 (0 to 65536)");
	put_le(Buf + 24, 4, 0);
	put_le(Buf + 28, 4, UINT32_MAX);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LIST_REQ.max_entries: 4294967295 (0 to 65536)");

	/* the sample: generation 99, total 5, start 4, count 1, one 43-byte entry */
	len = sample_bytes(RPMAF__PROTO_T_REGION_LIST);
	assert_int_equal(len, 24 + 20 + 43);
	put_le(Buf + 32, 4, RPMAF__PROTO_REGIONS_MAX + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "REGION_LIST.total: 65537 (0 to 65536)");
	put_le(Buf + 32, 4, 3);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "REGION_LIST.start: 4 (0 to 3)");
	put_le(Buf + 32, 4, 5);
	put_le(Buf + 40, 4, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "REGION_LIST.count: 2 (0 to 1)");
	put_le(Buf + 40, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LIST.count: 0 while entries 4 to 4 are left");
	put_le(Buf + 36, 4, 3);
	put_le(Buf + 40, 4, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LIST.entries[1].size: truncated: 8 bytes needed at byte 43, "
			  "0 left");
	put_le(Buf + 40, 4, 1);
	set_body_len(20 + 44);
	expect_decode_err(
	    Buf, len + 1, RPMAF__PROTO_E_TRAILING,
	    "REGION_LIST.entries: 1 trailing bytes after the last field (at byte 43)");
	set_body_len(20 + 43);
	Buf[44 + 16] = 7;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "REGION_LIST.entries[0].persist: 7 (0 none, 1 APM, 2 GPSPM)");
	set_body_len(19);
	expect_decode_err(Buf, 24 + 19, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LIST.count: truncated: 4 bytes needed at byte 16, 3 left");
}

/* handlers_rejected -- HANDLER_LIST_REQ and HANDLER_LIST's page and entries */
static void
handlers_rejected(void **state)
{
	struct rpmaf__proto_msg m;
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_HANDLER_LIST_REQ);
	put_le(Buf + 24, 4, RPMAF__PROTO_HANDLERS_MAX + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST_REQ.start: 65537 (0 to 65536)");

	/* the sample: total 5, start 3, count 2, entries 7 and 0x01020304, idempotent */
	len = sample_bytes(RPMAF__PROTO_T_HANDLER_LIST);
	assert_int_equal(len, 24 + 12 + 16);
	put_le(Buf + 24, 4, RPMAF__PROTO_HANDLERS_MAX + 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HANDLER_LIST.total: 65537 (0 to 65536)");
	put_le(Buf + 24, 4, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HANDLER_LIST.start: 3 (0 to 2)");
	put_le(Buf + 24, 4, 4);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "HANDLER_LIST.count: 2 (0 to 1)");
	put_le(Buf + 24, 4, 5);
	put_le(Buf + 32, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST.count: 0 while entries 3 to 4 are left");
	put_le(Buf + 32, 4, 1);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST.entries: 16 bytes for 1 entries of 8");
	put_le(Buf + 32, 4, 2);
	put_le(Buf + 36 + 4, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST.entries[0].flags: 0x0 (0x1 idempotent; a handler without "
			  "flags is not listed)");
	put_le(Buf + 36 + 4, 4, 3);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST.entries[0].flags: 0x3 (0x1 idempotent; a handler without "
			  "flags is not listed)");
	put_le(Buf + 36 + 4, 4, 1);
	put_le(Buf + 36 + 8, 4, 7);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "HANDLER_LIST.entries[1].handler_id: 7 after 7 (increasing)");
	set_body_len(11);
	expect_decode_err(Buf, 24 + 11, RPMAF__PROTO_E_TRUNCATED,
			  "HANDLER_LIST.count: truncated: 4 bytes needed at byte 8, 3 left");

	/* the last page, empty; and a list with nothing */
	sample_msg(RPMAF__PROTO_T_HANDLER_LIST, &m);
	m.body.handler_list = (struct rpmaf__proto_handler_list){5, 5, 0, NULL, 0};
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 12);
	m.body.handler_list = (struct rpmaf__proto_handler_list){0, 0, 0, NULL, 0};
	assert_int_equal(roundtrip(&m), RPMAF__PROTO_HDR_SIZE + 12);
	m.body.handler_list = (struct rpmaf__proto_handler_list){1, 0, 1, NULL, 8};
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "HANDLER_LIST.entries: NULL");
}

/* announce_rejected -- the event, and a removal's descriptor */
static void
announce_rejected(void **state)
{
	struct rpmaf__proto_msg m;
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_ANNOUNCE);
	put_le(Buf + 32, 4, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "ANNOUNCE.event: 0 (1 to 3)");
	put_le(Buf + 32, 4, 4);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "ANNOUNCE.event: 4 (1 to 3)");
	put_le(Buf + 32, 4, RPMAF__PROTO_EV_REMOVED);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "ANNOUNCE.region.desc: 21 bytes in a removal (none expected)");
	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	m.body.announce.event = RPMAF__PROTO_EV_ADDED;
	m.body.announce.region.desc_len = 0;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE, "ANNOUNCE.region.desc: empty (1 to 64 bytes)");
	m.body.announce.event = 9;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE, "ANNOUNCE.event: 9 (1 to 3)");
}

/* requests_rejected -- PERSIST_*, APP_*, HEARTBEAT, ERROR and CREDIT bodies */
static void
requests_rejected(void **state)
{
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_PERSIST_REQ);
	put_le(Buf + 32, 8, 0);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "PERSIST_REQ.length: 0 (at least 1)");
	put_le(Buf + 24, 8, UINT64_MAX);
	put_le(Buf + 32, 8, 2);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE,
			  "PERSIST_REQ.length: offset 18446744073709551615 + length 2 wraps "
			  "around");
	put_le(Buf + 24, 8, 0);
	Buf[49] = 'r' | 0x80;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_STRING,
			  "PERSIST_REQ.name: byte 0 is 0xf2 (a name is letters, digits, '_', '-' "
			  "and '.')");
	len = sample_bytes(RPMAF__PROTO_T_PERSIST_REPLY);
	put_le(Buf + 24, 4, 1000);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "PERSIST_REPLY.status: 1000 (0 to 14)");

	len = sample_bytes(RPMAF__PROTO_T_APP_REQ);
	set_body_len(3);
	expect_decode_err(Buf, 27, RPMAF__PROTO_E_TRUNCATED,
			  "APP_REQ.handler_id: truncated: 4 bytes needed at byte 0, 3 left");
	len = sample_bytes(RPMAF__PROTO_T_APP_REPLY);
	put_le(Buf + 24, 4, 99);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "APP_REPLY.status: 99 (0 to 14)");
	set_body_len(7);
	expect_decode_err(Buf, 31, RPMAF__PROTO_E_TRUNCATED,
			  "APP_REPLY.handler_id: truncated: 4 bytes needed at byte 4, 3 left");

	len = sample_bytes(RPMAF__PROTO_T_HEARTBEAT_REPLY);
	set_body_len(9);
	expect_decode_err(Buf, len + 1, RPMAF__PROTO_E_TRAILING,
			  "HEARTBEAT_REPLY: 1 trailing bytes after the last field (at byte 8)");
	set_body_len(7);
	expect_decode_err(Buf, len - 1, RPMAF__PROTO_E_TRUNCATED,
			  "HEARTBEAT.echo: truncated: 8 bytes needed at byte 0, 7 left");

	len = sample_bytes(RPMAF__PROTO_T_ERROR);
	put_le(Buf + 24, 4, RPMAF__PROTO_S_OK);
	expect_decode_err(Buf, len, RPMAF__PROTO_E_RANGE, "ERROR.status: 0 (1 to 14)");
	put_le(Buf + 24, 4, RPMAF__PROTO_S_BUSY);
	Buf[30] = '\n';
	expect_decode_err(Buf, len, RPMAF__PROTO_E_STRING,
			  "ERROR.reason: byte 1 is 0x0a (printable ASCII only)");
	Buf[28] = 128;
	expect_decode_err(Buf, len, RPMAF__PROTO_E_TOO_BIG,
			  "ERROR.reason: 128 bytes long (at most 127)");

	len = sample_bytes(RPMAF__PROTO_T_CREDIT);
	set_body_len(1);
	expect_decode_err(Buf, len + 1, RPMAF__PROTO_E_TRAILING,
			  "CREDIT: 1 trailing bytes after the last field (at byte 0)");
}

/* encode_rejected -- the encoder refuses NULLs, bad headers and fields the decoder refuses */
static void
encode_rejected(void **state)
{
	struct rpmaf__proto_msg m;
	struct rpmaf__proto_err err = {0};

	(void)state;
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	assert_int_equal(rpmaf__proto_msg_encode(NULL, 10, &m, &err), RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "message: NULL buffer");
	assert_int_equal(rpmaf__proto_msg_encode(Buf, 10, NULL, &err), RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "message: NULL message");
	m.hdr.type = 0;
	expect_encode_err(&m, RPMAF__PROTO_E_TYPE, "header.type: 0 (1 to 19)");
	m.hdr.type = RPMAF__PROTO_T_HANDLER_LIST_REQ;
	expect_encode_err(&m, RPMAF__PROTO_E_TYPE, "header.type: 18 (1 to 17 in version 1)");
	m.hdr.type = RPMAF__PROTO_T_HELLO;
	m.hdr.version = 3;
	expect_encode_err(&m, RPMAF__PROTO_E_VERSION,
			  "header.version: 3 (this side speaks 1 to 2)");
	m.hdr.version = 1;
	m.hdr.flags = 1;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE, "header.flags: 0x01 (none defined: 0)");
	m.hdr.flags = 0;
	m.body.hello.credits = 0;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE, "HELLO.credits: 0 (3 to 65536)");

	sample_msg(RPMAF__PROTO_T_AUTH, &m);
	m.body.auth.name = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "AUTH.name: NULL");
	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REPLY, &m);
	m.body.lookup_reply.region.name = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "REGION_LOOKUP_REPLY.region: name is NULL");
	m.body.lookup_reply.region.name = "r0";
	m.body.lookup_reply.region.desc = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "REGION_LOOKUP_REPLY.region: desc is NULL");
	sample_msg(RPMAF__PROTO_T_REGION_LIST, &m);
	m.body.list.entries = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "REGION_LIST.entries: NULL");
	sample_msg(RPMAF__PROTO_T_REGION_LIST, &m);
	m.body.list.total = 6;
	m.body.list.count = 2;
	expect_encode_err(&m, RPMAF__PROTO_E_TRUNCATED,
			  "REGION_LIST.entries[1].size: truncated: 8 bytes needed at byte 43, 0 "
			  "left");
	sample_msg(RPMAF__PROTO_T_APP_REPLY, &m);
	m.body.app_reply.payload = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "APP_REPLY.payload: NULL");
	sample_msg(RPMAF__PROTO_T_ERROR, &m);
	m.body.error.reason = NULL;
	expect_encode_err(&m, RPMAF__PROTO_E_INVAL, "ERROR.reason: NULL");
	sample_msg(RPMAF__PROTO_T_PERSIST_REQ, &m);
	m.body.persist_req.name_len = 0;
	expect_encode_err(&m, RPMAF__PROTO_E_STRING,
			  "PERSIST_REQ.name: empty (a name of 1 to 63 bytes)");
	sample_msg(RPMAF__PROTO_T_REGION_LIST_REQ, &m);
	m.body.list_req.max_entries = RPMAF__PROTO_REGIONS_MAX + 1;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE,
			  "REGION_LIST_REQ.max_entries: 65537 (0 to 65536)");
	sample_msg(RPMAF__PROTO_T_CREDIT, &m);
	m.hdr.credits = 0;
	expect_encode_err(&m, RPMAF__PROTO_E_RANGE,
			  "CREDIT: header.credits 0 (a CREDIT returns at least 1)");
}

/* encode_nospc -- every buffer shorter than the message is refused, never overrun */
static void
encode_nospc(void **state)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_msg m;

	(void)state;
	for (unsigned t = 1; t <= RPMAF__PROTO_T_MAX; t++) {
		sample_msg(t, &m);
		size_t len = encode_ok(&m, Buf, sizeof(Buf));

		for (size_t size = 0; size < len; size++) {
			memset(Again, 0xee, len + 1);
			assert_int_equal(rpmaf__proto_msg_encode(Again, size, &m, NULL),
					 RPMAF__PROTO_E_NOSPC);
			assert_int_equal(Again[size], 0xee);
		}
		assert_int_equal(rpmaf__proto_msg_encode(Again, len, &m, NULL), (int)len);
	}
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	assert_int_equal(rpmaf__proto_msg_encode(Again, 10, &m, &err), RPMAF__PROTO_E_NOSPC);
	assert_string_equal(err.msg,
			    "message does not fit: 4 bytes needed at byte 8 of a 10-byte buffer");
}

/* encode_too_big -- a payload beyond the largest message */
static void
encode_too_big(void **state)
{
	static uint8_t big[RPMAF__PROTO_MSG_MAX + 8];
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_msg m;

	(void)state;
	sample_msg(RPMAF__PROTO_T_APP_REQ, &m);
	m.body.app_req.payload = big;
	m.body.app_req.payload_len = RPMAF__PROTO_MSG_MAX + 1;
	expect_encode_err(&m, RPMAF__PROTO_E_TOO_BIG,
			  "APP_REQ.payload: 1048577 bytes (at most 1048576)");
	m.body.app_req.payload_len = RPMAF__PROTO_MSG_MAX - RPMAF__PROTO_APP_REQ_PAYLOAD_OFF + 1;
	assert_int_equal(rpmaf__proto_msg_encode(Buf, sizeof(Buf), &m, &err),
			 RPMAF__PROTO_E_TOO_BIG);
	assert_string_equal(err.msg, "message: 1048577 bytes (at most 1048576)");
	m.body.app_req.payload_len--;
	assert_int_equal(encode_ok(&m, Buf, sizeof(Buf)), RPMAF__PROTO_MSG_MAX);
	struct rpmaf__proto_msg d;

	assert_int_equal(rpmaf__proto_msg_decode(Buf, RPMAF__PROTO_MSG_MAX, &d, NULL), 0);
	assert_int_equal(d.body.app_req.payload_len,
			 RPMAF__PROTO_MSG_MAX - RPMAF__PROTO_APP_REQ_PAYLOAD_OFF);
}

/* app_payload_in_place -- a payload built at its offset in the send buffer stays there */
static void
app_payload_in_place(void **state)
{
	struct rpmaf__proto_msg m, d;
	uint8_t *p = Buf + RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF;

	(void)state;
	memset(Buf, 0, 64);
	memcpy(p, "in place", 8);
	sample_msg(RPMAF__PROTO_T_APP_REPLY, &m);
	m.body.app_reply.payload = p;
	m.body.app_reply.payload_len = 8;
	assert_int_equal(encode_ok(&m, Buf, sizeof(Buf)), RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF + 8);
	assert_int_equal(
	    rpmaf__proto_msg_decode(Buf, RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF + 8, &d, NULL), 0);
	assert_ptr_equal(d.body.app_reply.payload, p);
	assert_memory_equal(d.body.app_reply.payload, "in place", 8);
}

/* hdr_decode_alone -- the header can be read before the body is looked at */
static void
hdr_decode_alone(void **state)
{
	struct rpmaf__proto_hdr h;
	size_t len;

	(void)state;
	len = sample_bytes(RPMAF__PROTO_T_PERSIST_REQ);
	assert_int_equal(rpmaf__proto_hdr_decode(Buf, len, &h, NULL), 0);
	assert_int_equal(h.type, RPMAF__PROTO_T_PERSIST_REQ);
	assert_int_equal(h.body_len, len - 24);
	assert_int_equal(h.credits, 2);
	assert_int_equal(h.req_id, 0x1122334455667788ull);
	assert_int_equal(rpmaf__proto_hdr_decode(Buf, len, NULL, NULL), RPMAF__PROTO_E_INVAL);
}

/* names_of_things -- the names of types, statuses and local codes */
static void
names_of_things(void **state)
{
	(void)state;
	assert_string_equal(rpmaf__proto_type_str(RPMAF__PROTO_T_HELLO), "HELLO");
	assert_string_equal(rpmaf__proto_type_str(RPMAF__PROTO_T_CREDIT), "CREDIT");
	assert_string_equal(rpmaf__proto_type_str(0), "?");
	assert_string_equal(rpmaf__proto_type_str(RPMAF__PROTO_T_HANDLER_LIST), "HANDLER_LIST");
	assert_string_equal(rpmaf__proto_type_str(20), "?");
	assert_string_equal(rpmaf__proto_status_str(RPMAF__PROTO_S_OK), "OK");
	assert_string_equal(rpmaf__proto_status_str(RPMAF__PROTO_S_APP_FAILED), "APP_FAILED");
	assert_string_equal(rpmaf__proto_status_str(RPMAF__PROTO_S_MAX + 1), "?");
	assert_string_equal(rpmaf__proto_err_str(RPMAF__PROTO_E_INVAL), "invalid argument");
	assert_string_equal(rpmaf__proto_err_str(RPMAF__PROTO_E_CREDITS), "no credit");
	assert_string_equal(rpmaf__proto_err_str(RPMAF__PROTO_E_TRAILING),
			    "trailing bytes after the last field");
	assert_string_equal(rpmaf__proto_err_str(-99), "unknown error");
	assert_string_equal(rpmaf__proto_err_str(RPMAF__PROTO_E_CREDITS - 1), "unknown error");
	assert_string_equal(rpmaf__proto_err_str(0), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(roundtrip_every_type), cmocka_unit_test(roundtrip_variants),
	    cmocka_unit_test(pointers_into_buffer), cmocka_unit_test(golden_bytes),
	    cmocka_unit_test(header_rejected),	    cmocka_unit_test(hello_rejected),
	    cmocka_unit_test(auth_rejected),	    cmocka_unit_test(region_rejected),
	    cmocka_unit_test(lookup_rejected),	    cmocka_unit_test(list_rejected),
	    cmocka_unit_test(announce_rejected),    cmocka_unit_test(requests_rejected),
	    cmocka_unit_test(encode_rejected),	    cmocka_unit_test(encode_nospc),
	    cmocka_unit_test(encode_too_big),	    cmocka_unit_test(app_payload_in_place),
	    cmocka_unit_test(hdr_decode_alone),	    cmocka_unit_test(names_of_things),
	    cmocka_unit_test(handlers_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
