/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_proto.c -- libFuzzer harness of every parser of the control
 * protocol, each run on the same input bytes:
 * - the message decoder (header and body, region entries included);
 * - the session state machines of both sides, in each of their states, fed
 *   with what the decoder accepted;
 * - the key file parser.
 * Properties:
 * - an accepted message re-encodes to exactly the input bytes (canonical
 *   encoding), a REGION_LIST also when rebuilt entry by entry with the page
 *   builder, and every pointer of the decoded message lies within the input;
 * - the header decoder alone agrees with the whole decoder;
 * - a rejected message returns one of the decoder's codes with a non-empty
 *   message (AddressSanitizer checks that nothing is read out of bounds);
 * - decoding and encoding never allocate (malloc, calloc and realloc calls
 *   of this thread are counted at link time, tests/support/count_alloc.c);
 * - a session either accepts a message and stays open, or refuses it with
 *   one of its documented codes and closes;
 * - an accepted key is 32 to 64 bytes whose hex form is the input (case
 *   aside, one final newline aside); a rejected one is a length or format
 *   error and leaves the key wiped.
 */

#include <ctype.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "count_alloc.h"
#include "fuzz_assert.h"
#include "list.h"
#include "msg.h"
#include "session.h"

static uint8_t Out[RPMAF__PROTO_MSG_MAX];

/* within -- len bytes at p lie within the input */
static int
within(const void *p, size_t len, const uint8_t *data, size_t size)
{
	const uint8_t *q = p;

	return len == 0 || (q != NULL && q >= data && q + len <= data + size);
}

/* check_region_ptrs -- an entry's name and descriptor lie within the input */
static void
check_region_ptrs(const struct rpmaf__proto_region *r, const uint8_t *data, size_t size)
{
	fuzz_assert(within(r->name, r->name_len, data, size));
	fuzz_assert(within(r->desc, r->desc_len, data, size));
}

/* check_ptrs -- every pointer of the decoded message lies within the input */
static void
check_ptrs(const struct rpmaf__proto_msg *m, const uint8_t *data, size_t size)
{
	const struct rpmaf__proto_lookup_reply *lr = &m->body.lookup_reply;

	switch (m->hdr.type) {
	case RPMAF__PROTO_T_AUTH:
		fuzz_assert(within(m->body.auth.name, m->body.auth.name_len, data, size));
		break;
	case RPMAF__PROTO_T_REGION_LIST:
		fuzz_assert(within(m->body.list.entries, m->body.list.entries_len, data, size));
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REQ:
		fuzz_assert(
		    within(m->body.lookup_req.name, m->body.lookup_req.name_len, data, size));
		break;
	case RPMAF__PROTO_T_REGION_LOOKUP_REPLY:
		if (lr->status == RPMAF__PROTO_S_OK)
			check_region_ptrs(&lr->region, data, size);
		break;
	case RPMAF__PROTO_T_ANNOUNCE:
		check_region_ptrs(&m->body.announce.region, data, size);
		break;
	case RPMAF__PROTO_T_PERSIST_REQ:
		fuzz_assert(
		    within(m->body.persist_req.name, m->body.persist_req.name_len, data, size));
		break;
	case RPMAF__PROTO_T_APP_REQ:
		fuzz_assert(
		    within(m->body.app_req.payload, m->body.app_req.payload_len, data, size));
		break;
	case RPMAF__PROTO_T_APP_REPLY:
		fuzz_assert(
		    within(m->body.app_reply.payload, m->body.app_reply.payload_len, data, size));
		break;
	case RPMAF__PROTO_T_ERROR:
		fuzz_assert(within(m->body.error.reason, m->body.error.reason_len, data, size));
		break;
	}
}

/* check_list_rebuilt -- a REGION_LIST rebuilt entry by entry is the same bytes */
static void
check_list_rebuilt(const struct rpmaf__proto_msg *m, const uint8_t *data, size_t size)
{
	const struct rpmaf__proto_region_list *l = &m->body.list;
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_region reg;
	uint32_t n = 0;
	int ret;

	fuzz_assert(rpmaf__proto_list_begin(&b, Out, sizeof(Out), &m->hdr, l->table_generation,
					    l->total, l->start, 0, NULL) == 0);
	rpmaf__proto_list_iter_init(&it, l);
	while ((ret = rpmaf__proto_list_next(&it, &reg)) == 1) {
		check_region_ptrs(&reg, data, size);
		fuzz_assert(rpmaf__proto_list_add(&b, &reg, NULL) == 0);
		n++;
	}
	fuzz_assert(ret == 0 && n == l->count);
	fuzz_assert(rpmaf__proto_list_end(&b, NULL) == (int)size);
	fuzz_assert(memcmp(Out, data, size) == 0);
}

/* decode_code_ok -- ret is a code the decoder documents */
static int
decode_code_ok(int ret)
{
	return ret == RPMAF__PROTO_E_TRUNCATED || ret == RPMAF__PROTO_E_TRAILING ||
	       ret == RPMAF__PROTO_E_MAGIC || ret == RPMAF__PROTO_E_VERSION ||
	       ret == RPMAF__PROTO_E_TYPE || ret == RPMAF__PROTO_E_TOO_BIG ||
	       ret == RPMAF__PROTO_E_RANGE || ret == RPMAF__PROTO_E_STRING;
}

static struct rpmaf__proto_key Key;
static struct rpmaf__proto_server Servers[3];
static struct rpmaf__proto_client Clients[3];

/* sessions_init -- a server and a client session in each state that takes messages */
static void
sessions_init(void)
{
	static const uint8_t nonce[RPMAF__PROTO_NONCE_SIZE] = {1};
	struct rpmaf__proto_params params = {4096, 16, 1000, 3};
	struct rpmaf__proto_msg m;

	Key.len = 32;
	memset(Key.bytes, 0x42, Key.len);
	rpmaf__proto_server_init(&Servers[0], &Key, nonce);
	Servers[1] = Servers[0];
	Servers[1].state = RPMAF__PROTO_SRV_WAIT_AUTH;
	Servers[1].version = 1;
	Servers[2] = Servers[1];
	Servers[2].state = RPMAF__PROTO_SRV_READY;
	fuzz_assert(rpmaf__proto_client_init(&Clients[0], &Key, "fuzz", nonce, NULL) == 0);
	fuzz_assert(rpmaf__proto_client_hello(&Clients[0], &params, 1, &m) == 0);
	Clients[1] = Clients[0];
	Clients[1].state = RPMAF__PROTO_CLI_WAIT_AUTH_REPLY;
	Clients[1].version = 1;
	Clients[2] = Clients[1];
	Clients[2].state = RPMAF__PROTO_CLI_READY;
}

/* check_sessions -- every session state either takes m and stays open, or closes */
static void
check_sessions(const struct rpmaf__proto_msg *m)
{
	for (int i = 0; i < 3; i++) {
		struct rpmaf__proto_server s = Servers[i];
		struct rpmaf__proto_client c = Clients[i];
		int ret = rpmaf__proto_server_recv(&s, m, NULL);

		fuzz_assert(ret == 0 ? s.state != RPMAF__PROTO_SRV_CLOSED
				     : s.state == RPMAF__PROTO_SRV_CLOSED);
		fuzz_assert(ret == 0 || ret == RPMAF__PROTO_E_STATE ||
			    ret == RPMAF__PROTO_E_VERSION || ret == RPMAF__PROTO_E_AUTH ||
			    ret == RPMAF__PROTO_E_PEER);
		fuzz_assert(ret || i != 0 || m->hdr.type == RPMAF__PROTO_T_HELLO);
		ret = rpmaf__proto_client_recv(&c, m, NULL);
		fuzz_assert(ret == 0 ? c.state != RPMAF__PROTO_CLI_CLOSED
				     : c.state == RPMAF__PROTO_CLI_CLOSED);
		fuzz_assert(ret == 0 || ret == RPMAF__PROTO_E_STATE ||
			    ret == RPMAF__PROTO_E_VERSION || ret == RPMAF__PROTO_E_AUTH ||
			    ret == RPMAF__PROTO_E_AUTH_MODE || ret == RPMAF__PROTO_E_PEER);
	}
}

/* fuzz_message -- the message decoder and what follows from its answer */
static void
fuzz_message(const uint8_t *data, size_t size)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_msg m;
	struct rpmaf__proto_hdr h;
	long before = count_alloc();
	int hret = rpmaf__proto_hdr_decode(data, size, &h, NULL);
	int ret = rpmaf__proto_msg_decode(data, size, &m, &err);

	fuzz_assert(hret == 0 || hret == ret);
	if (ret) {
		fuzz_assert(decode_code_ok(ret) || (data == NULL && ret == RPMAF__PROTO_E_INVAL));
		fuzz_assert(err.code == ret && err.msg[0] != '\0');
		fuzz_assert(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		fuzz_assert(count_alloc() == before);
		return;
	}
	fuzz_assert(m.hdr.body_len == size - RPMAF__PROTO_HDR_SIZE);
	check_ptrs(&m, data, size);
	fuzz_assert(rpmaf__proto_msg_encode(Out, sizeof(Out), &m, NULL) == (int)size);
	fuzz_assert(memcmp(Out, data, size) == 0);
	fuzz_assert(count_alloc() == before);
	if (m.hdr.type == RPMAF__PROTO_T_REGION_LIST)
		check_list_rebuilt(&m, data, size);
	check_sessions(&m);
}

/* fuzz_key -- the key file parser */
static void
fuzz_key(const uint8_t *data, size_t size)
{
	struct rpmaf__proto_key key;
	char hex[2 * RPMAF__PROTO_KEY_MAX + 1];
	size_t digits = size;
	int ret = rpmaf__proto_key_parse("fuzz", (const char *)data, size, &key, NULL);

	if (ret) {
		fuzz_assert(ret == RPMAF__PROTO_E_KEY_LENGTH || ret == RPMAF__PROTO_E_KEY_FORMAT ||
			    (data == NULL && ret == RPMAF__PROTO_E_INVAL));
		fuzz_assert(key.len == 0);
		return;
	}
	fuzz_assert(key.len >= RPMAF__PROTO_KEY_MIN && key.len <= RPMAF__PROTO_KEY_MAX);
	if (data[size - 1] == '\n')
		digits--;
	fuzz_assert(digits == 2 * key.len);
	sodium_bin2hex(hex, sizeof(hex), key.bytes, key.len);
	for (size_t i = 0; i < digits; i++)
		fuzz_assert(hex[i] == tolower(data[i]));
}

/* LLVMFuzzerTestOneInput -- one input for every parser */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		fuzz_assert(sodium_init() >= 0);
		sessions_init();
		ready = 1;
	}
	fuzz_message(data, size);
	fuzz_key(data, size);
	return 0;
}
