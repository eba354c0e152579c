/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * proto_test.c -- shared helpers of the proto/ tests.
 */

#include "proto_test.h"

#include <stdio.h>
#include <string.h>

/* a librpma-like descriptor: 21 opaque bytes */
static const uint8_t Desc[21] = {1,  2,	 3,  4,	 5,  6,	 7,  8,	 9,  10, 11,
				 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
static const uint8_t Payload[5] = {'p', 'i', 'n', 'g', 0};

/* see proto_test.h */
struct rpmaf__proto_region
sample_region(const char *name)
{
	return (struct rpmaf__proto_region){
	    .size = 1u << 20,
	    .generation = 7,
	    .persist = RPMAF__PROTO_PERSIST_GPSPM,
	    .usage = RPMAF__PROTO_USAGE_READ | RPMAF__PROTO_USAGE_WRITE,
	    .name = name,
	    .name_len = (uint8_t)strlen(name),
	    .desc = Desc,
	    .desc_len = sizeof(Desc),
	};
}

/* sample_handshake -- the bodies of the hello and authentication messages */
static void
sample_handshake(unsigned type, struct rpmaf__proto_msg *m)
{
	switch (type) {
	case RPMAF__PROTO_T_HELLO:
		m->hdr.version = RPMAF__PROTO_VERSION_HELLO;
		m->body.hello = (struct rpmaf__proto_hello){1, 1, 4096, 16};
		break;
	case RPMAF__PROTO_T_HELLO_REPLY:
		m->hdr.version = RPMAF__PROTO_VERSION_HELLO;
		m->body.hello_reply = (struct rpmaf__proto_hello_reply){
		    1, RPMAF__PROTO_HELLO_AUTH, 8192, 32, 1000, 3, {0}};
		memset(m->body.hello_reply.server_nonce, 0xa5, RPMAF__PROTO_NONCE_SIZE);
		break;
	case RPMAF__PROTO_T_AUTH:
		memset(m->body.auth.client_nonce, 0x5a, RPMAF__PROTO_NONCE_SIZE);
		memset(m->body.auth.proof, 0x3c, RPMAF__PROTO_PROOF_SIZE);
		m->body.auth.name = "client-1";
		m->body.auth.name_len = 8;
		break;
	case RPMAF__PROTO_T_AUTH_REPLY:
		memset(m->body.auth_reply.proof, 0xc3, RPMAF__PROTO_PROOF_SIZE);
		break;
	}
}

/* sample_regions -- the bodies of the region messages (REGION_LIST has one entry) */
static void
sample_regions(unsigned type, struct rpmaf__proto_msg *m)
{
	static uint8_t entry[RPMAF__PROTO_REGION_FIXED + 64 + 64];
	struct rpmaf__proto_region reg = sample_region("r0");
	struct rpmaf__proto_wr w = {.p = entry, .size = sizeof(entry)};

	switch (type) {
	case RPMAF__PROTO_T_REGION_LIST_REQ:
		m->body.list_req = (struct rpmaf__proto_list_req){3, 10};
		break;
	case RPMAF__PROTO_T_REGION_LIST:
		assert_int_equal(rpmaf__proto_region_write(&w, &reg), 0);
		m->body.list = (struct rpmaf__proto_region_list){99, 5, 4, 1, entry, w.off};
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REQ:
		m->body.lookup_req.name = "r0";
		m->body.lookup_req.name_len = 2;
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REPLY:
		m->body.lookup_reply.status = RPMAF__PROTO_S_OK;
		m->body.lookup_reply.region = reg;
		break;
	case RPMAF__PROTO_T_ANNOUNCE:
		m->body.announce.table_generation = 12;
		m->body.announce.event = RPMAF__PROTO_EV_CHANGED;
		m->body.announce.region = reg;
		break;
	}
}

/* sample_requests -- the bodies of the other messages */
static void
sample_requests(unsigned type, struct rpmaf__proto_msg *m)
{
	switch (type) {
	case RPMAF__PROTO_T_PERSIST_REQ:
		m->body.persist_req = (struct rpmaf__proto_persist_req){4096, 512, 7, "r0", 2};
		break;
	case RPMAF__PROTO_T_PERSIST_REPLY:
		m->body.persist_reply.status = RPMAF__PROTO_S_OK;
		break;
	case RPMAF__PROTO_T_APP_REQ:
		m->body.app_req = (struct rpmaf__proto_app_req){42, Payload, sizeof(Payload)};
		break;
	case RPMAF__PROTO_T_APP_REPLY:
		m->body.app_reply =
		    (struct rpmaf__proto_app_reply){RPMAF__PROTO_S_OK, 42, Payload, 4};
		break;
	case RPMAF__PROTO_T_HEARTBEAT:
	case RPMAF__PROTO_T_HEARTBEAT_REPLY:
		m->body.heartbeat.echo = 0x0102030405060708ull;
		break;
	case RPMAF__PROTO_T_ERROR:
		m->body.error = (struct rpmaf__proto_error){RPMAF__PROTO_S_NOT_FOUND, "no such", 7};
		break;
	case RPMAF__PROTO_T_CREDIT:
		m->hdr.req_id = 0;
		m->hdr.credits = 5;
		break;
	}
}

/* sample_handlers -- the bodies of the handler list (version 2): two entries of five */
static void
sample_handlers(unsigned type, struct rpmaf__proto_msg *m)
{
	static uint8_t entries[2 * RPMAF__PROTO_HANDLER_ENTRY];

	switch (type) {
	case RPMAF__PROTO_T_HANDLER_LIST_REQ:
		if (m->hdr.version < RPMAF__PROTO_VERSION_HANDLERS)
			m->hdr.version = RPMAF__PROTO_VERSION_HANDLERS;
		m->body.handler_list_req.start = 3;
		break;
	case RPMAF__PROTO_T_HANDLER_LIST:
		if (m->hdr.version < RPMAF__PROTO_VERSION_HANDLERS)
			m->hdr.version = RPMAF__PROTO_VERSION_HANDLERS;
		rpmaf__proto_handler_entry_put(entries, 7, RPMAF__PROTO_HANDLER_IDEMPOTENT);
		rpmaf__proto_handler_entry_put(entries + RPMAF__PROTO_HANDLER_ENTRY, 0x01020304,
					       RPMAF__PROTO_HANDLER_IDEMPOTENT);
		m->body.handler_list =
		    (struct rpmaf__proto_handler_list){5, 3, 2, entries, sizeof(entries)};
		break;
	}
}

/* see proto_test.h */
uint16_t Sample_version = 1;

/* see proto_test.h */
void
sample_msg(unsigned type, struct rpmaf__proto_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->hdr.version = Sample_version;
	m->hdr.type = (uint8_t)type;
	m->hdr.credits = 2;
	m->hdr.req_id = type == RPMAF__PROTO_T_ANNOUNCE ? 0 : 0x1122334455667788ull;
	sample_handshake(type, m);
	sample_regions(type, m);
	sample_requests(type, m);
	sample_handlers(type, m);
}

/* see proto_test.h */
size_t
encode_ok(const struct rpmaf__proto_msg *m, uint8_t *buf, size_t size)
{
	struct rpmaf__proto_err err = {0};
	int len = rpmaf__proto_msg_encode(buf, size, m, &err);

	if (len < 0)
		fail_msg("encode %s: %d %s", rpmaf__proto_type_str(m->hdr.type), len, err.msg);
	return (size_t)len;
}

/* see proto_test.h */
void
expect_decode_err(const uint8_t *buf, size_t len, int code, const char *msg)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_msg m;
	long before = count_alloc();
	int ret = rpmaf__proto_msg_decode(buf, len, &m, &err);

	if (ret != code || strcmp(err.msg, msg) != 0)
		fail_msg("decode: got %d \"%s\"\n\t\texpected %d \"%s\"", ret, err.msg, code, msg);
	assert_int_equal(err.code, code);
	assert_int_equal(count_alloc(), before);
}

/* see proto_test.h */
void
expect_encode_err(const struct rpmaf__proto_msg *m, int code, const char *msg)
{
	static uint8_t buf[4096];
	struct rpmaf__proto_err err = {0};
	int ret = rpmaf__proto_msg_encode(buf, sizeof(buf), m, &err);

	if (ret != code || strcmp(err.msg, msg) != 0)
		fail_msg("encode: got %d \"%s\"\n\t\texpected %d \"%s\"", ret, err.msg, code, msg);
}

/* see proto_test.h */
void
put_le(uint8_t *p, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}
