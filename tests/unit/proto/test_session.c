/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_session.c -- the server's and the client's state machines: the
 * handshake with and without a key, every message refused out of order,
 * wrong keys and replayed proofs on both sides, version negotiation, the
 * mismatch of one side with a key and the other without, and the ERROR
 * sent when a session closes.
 */

#include "proto_test.h"

#include <string.h>

#include "session.h"

static struct rpmaf__proto_key Key_a, Key_b;
static uint8_t Snonce[RPMAF__PROTO_NONCE_SIZE], Cnonce[RPMAF__PROTO_NONCE_SIZE];
static const struct rpmaf__proto_params Srv_params = {65536, 64, 1000, 3};
static const struct rpmaf__proto_params Cli_params = {4096, 16, 0, 0};

/* keys_setup -- two different keys and two nonces */
static int
keys_setup(void **state)
{
	(void)state;
	Key_a.len = Key_b.len = 32;
	for (int i = 0; i < 32; i++) {
		Key_a.bytes[i] = (uint8_t)i;
		Key_b.bytes[i] = (uint8_t)(i + 1);
	}
	memset(Snonce, 0x5e, sizeof(Snonce));
	memset(Cnonce, 0xc1, sizeof(Cnonce));
	return 0;
}

/* wire -- m as the peer sees it: encoded, then decoded into *out (valid until 4 more calls) */
static void
wire(const struct rpmaf__proto_msg *m, struct rpmaf__proto_msg *out)
{
	static uint8_t bufs[4][4096];
	static unsigned next;
	uint8_t *buf = bufs[next++ % 4];
	size_t len = encode_ok(m, buf, sizeof(bufs[0]));

	assert_int_equal(rpmaf__proto_msg_decode(buf, len, out, NULL), 0);
}

/* expect_srv_err -- the server refuses m with code, exactly msg, and closes with status */
static void
expect_srv_err(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m, int code,
	       const char *msg, uint32_t status)
{
	struct rpmaf__proto_err err = {0};

	assert_int_equal(rpmaf__proto_server_recv(s, m, &err), code);
	assert_string_equal(err.msg, msg);
	assert_int_equal(s->state, RPMAF__PROTO_SRV_CLOSED);
	assert_int_equal(s->status, status);
}

/* expect_cli_err -- the client refuses m with code and exactly msg, and closes */
static void
expect_cli_err(struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m, int code,
	       const char *msg)
{
	struct rpmaf__proto_err err = {0};

	assert_int_equal(rpmaf__proto_client_recv(c, m, &err), code);
	assert_string_equal(err.msg, msg);
	assert_int_equal(c->state, RPMAF__PROTO_CLI_CLOSED);
}

/* client_new -- a client named client-1 with key (may be NULL) */
static void
client_new(struct rpmaf__proto_client *c, const struct rpmaf__proto_key *key)
{
	assert_int_equal(rpmaf__proto_client_init(c, key, "client-1", Cnonce, NULL), 0);
}

/* hello_exchange -- client's HELLO to the server and the HELLO_REPLY back; *out is the reply */
static void
hello_exchange(struct rpmaf__proto_client *c, struct rpmaf__proto_server *s,
	       struct rpmaf__proto_msg *out)
{
	struct rpmaf__proto_msg m, d;

	assert_int_equal(rpmaf__proto_client_hello(c, &Cli_params, 1, &m), 0);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(s, &d, NULL), 0);
	assert_int_equal(s->version, RPMAF__PROTO_VERSION_MAX);
	assert_int_equal(s->peer.credits, 16);
	assert_int_equal(rpmaf__proto_server_hello_reply(s, &Srv_params, &m), 0);
	wire(&m, out);
}

/* handshake_with_key -- HELLO, HELLO_REPLY, AUTH, AUTH_REPLY, then requests and replies */
static void
handshake_with_key(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, d;

	(void)state;
	client_new(&c, &Key_a);
	rpmaf__proto_server_init(&s, &Key_a, Snonce);
	hello_exchange(&c, &s, &d);
	assert_int_equal(s.state, RPMAF__PROTO_SRV_WAIT_AUTH);
	assert_int_equal(d.hdr.req_id, 1);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(c.state, RPMAF__PROTO_CLI_NEED_AUTH);
	assert_int_equal(c.peer.credits, 64);
	assert_int_equal(c.peer.hb_interval_ms, 1000);
	assert_int_equal(c.peer.hb_misses, 3);

	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), 0);
	assert_int_equal(c.state, RPMAF__PROTO_CLI_WAIT_AUTH_REPLY);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(&s, &d, NULL), 0);
	assert_int_equal(s.state, RPMAF__PROTO_SRV_READY);
	assert_string_equal(s.name, "client-1");
	assert_int_equal(rpmaf__proto_server_auth_reply(&s, &m), 0);
	wire(&m, &d);
	assert_int_equal(d.hdr.req_id, 2);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(c.state, RPMAF__PROTO_CLI_READY);

	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REQ, &m);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(&s, &d, NULL), 0);
	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REPLY, &m);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
}

/* handshake_without_key -- HELLO and HELLO_REPLY lead both sides to READY */
static void
handshake_without_key(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, d;

	(void)state;
	client_new(&c, NULL);
	rpmaf__proto_server_init(&s, NULL, Snonce);
	hello_exchange(&c, &s, &d);
	assert_int_equal(s.state, RPMAF__PROTO_SRV_READY);
	assert_int_equal(d.body.hello_reply.flags, 0);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(c.state, RPMAF__PROTO_CLI_READY);
	assert_int_equal(rpmaf__proto_server_auth_reply(&s, &m), RPMAF__PROTO_E_STATE);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), RPMAF__PROTO_E_STATE);
	sample_msg(RPMAF__PROTO_T_PERSIST_REQ, &m);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(&s, &d, NULL), 0);
}

/* wrong_key_on_the_client -- the server refuses the AUTH; the client learns it from ERROR */
static void
wrong_key_on_the_client(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, d;

	(void)state;
	client_new(&c, &Key_b);
	rpmaf__proto_server_init(&s, &Key_a, Snonce);
	hello_exchange(&c, &s, &d);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), 0);
	wire(&m, &d);
	expect_srv_err(&s, &d, RPMAF__PROTO_E_AUTH,
		       "AUTH.proof: does not verify (another key, or a proof made for other "
		       "nonces)",
		       RPMAF__PROTO_S_AUTH_FAILED);
	assert_int_equal(rpmaf__proto_server_auth_reply(&s, &m), RPMAF__PROTO_E_STATE);
	assert_int_equal(rpmaf__proto_server_hello_reply(&s, &Srv_params, &m),
			 RPMAF__PROTO_E_STATE);
	rpmaf__proto_session_error(&m, s.version, d.hdr.req_id, s.status);
	wire(&m, &d);
	assert_int_equal(d.body.error.status, RPMAF__PROTO_S_AUTH_FAILED);
	assert_int_equal(d.body.error.reason_len, strlen("authentication failed"));
	expect_cli_err(&c, &d, RPMAF__PROTO_E_PEER,
		       "the server refuses the session: ERROR AUTH_FAILED");
}

/* wrong_key_on_the_server -- a server that cannot prove the key is not trusted */
static void
wrong_key_on_the_server(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, d;

	(void)state;
	client_new(&c, &Key_a);
	rpmaf__proto_server_init(&s, &Key_b, Snonce);
	hello_exchange(&c, &s, &d);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), 0);
	/* an impostor answers without checking, with its own key's proof */
	wire(&m, &d);
	memcpy(s.client_nonce, d.body.auth.client_nonce, RPMAF__PROTO_NONCE_SIZE);
	memcpy(s.name, "client-1", 9);
	s.name_len = 8;
	s.req_id = 2;
	s.state = RPMAF__PROTO_SRV_READY;
	assert_int_equal(rpmaf__proto_server_auth_reply(&s, &m), 0);
	wire(&m, &d);
	expect_cli_err(&c, &d, RPMAF__PROTO_E_AUTH,
		       "AUTH_REPLY.proof: does not verify (another key, or a proof made for "
		       "other nonces)");
}

/* replayed_auth -- an AUTH recorded on one connection fails on the next (another nonce) */
static void
replayed_auth(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s1, s2;
	struct rpmaf__proto_msg m, d, recorded;
	uint8_t nonce2[RPMAF__PROTO_NONCE_SIZE];

	(void)state;
	client_new(&c, &Key_a);
	rpmaf__proto_server_init(&s1, &Key_a, Snonce);
	hello_exchange(&c, &s1, &d);
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &recorded), 0);
	wire(&recorded, &d);
	assert_int_equal(rpmaf__proto_server_recv(&s1, &d, NULL), 0);

	assert_int_equal(rpmaf__proto_auth_nonce(nonce2), 0);
	rpmaf__proto_server_init(&s2, &Key_a, nonce2);
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	m.body.hello.max_version = RPMAF__PROTO_VERSION_MAX;
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(&s2, &d, NULL), 0);
	wire(&recorded, &d);
	expect_srv_err(&s2, &d, RPMAF__PROTO_E_AUTH,
		       "AUTH.proof: does not verify (another key, or a proof made for other "
		       "nonces)",
		       RPMAF__PROTO_S_AUTH_FAILED);
}

/* server_at -- a server session brought to state st (with a key) */
static void
server_at(struct rpmaf__proto_server *s, enum rpmaf__proto_server_state st)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_msg m, d;

	client_new(&c, &Key_a);
	rpmaf__proto_server_init(s, &Key_a, Snonce);
	if (st == RPMAF__PROTO_SRV_WAIT_HELLO)
		return;
	hello_exchange(&c, s, &d);
	if (st == RPMAF__PROTO_SRV_WAIT_AUTH)
		return;
	assert_int_equal(rpmaf__proto_client_recv(&c, &d, NULL), 0);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), 0);
	wire(&m, &d);
	assert_int_equal(rpmaf__proto_server_recv(s, &d, NULL), 0);
	assert_int_equal(s->state, RPMAF__PROTO_SRV_READY);
}

/* server_out_of_order -- each state takes only its messages, whatever comes first */
static void
server_out_of_order(void **state)
{
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m;

	(void)state;
	server_at(&s, RPMAF__PROTO_SRV_WAIT_HELLO);
	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REQ, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE,
		       "REGION_LOOKUP_REQ from the client while waiting for HELLO",
		       RPMAF__PROTO_S_UNEXPECTED);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE, "REGION_LOOKUP_REQ: the session is closed",
		       RPMAF__PROTO_S_UNEXPECTED);
	server_at(&s, RPMAF__PROTO_SRV_WAIT_HELLO);
	sample_msg(RPMAF__PROTO_T_AUTH, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE, "AUTH from the client while waiting for HELLO",
		       RPMAF__PROTO_S_UNEXPECTED);

	server_at(&s, RPMAF__PROTO_SRV_WAIT_AUTH);
	sample_msg(RPMAF__PROTO_T_REGION_LIST_REQ, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE,
		       "REGION_LIST_REQ from the client while waiting for AUTH",
		       RPMAF__PROTO_S_AUTH_REQUIRED);
	server_at(&s, RPMAF__PROTO_SRV_WAIT_AUTH);
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE, "HELLO from the client while waiting for AUTH",
		       RPMAF__PROTO_S_AUTH_REQUIRED);
	server_at(&s, RPMAF__PROTO_SRV_WAIT_AUTH);
	sample_msg(RPMAF__PROTO_T_HEARTBEAT, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE,
		       "HEARTBEAT from the client while waiting for AUTH",
		       RPMAF__PROTO_S_AUTH_REQUIRED);
	server_at(&s, RPMAF__PROTO_SRV_WAIT_AUTH);
	sample_msg(RPMAF__PROTO_T_AUTH, &m);
	m.hdr.version = 1;
	expect_srv_err(&s, &m, RPMAF__PROTO_E_VERSION, "AUTH: header.version 1, the session's is 2",
		       RPMAF__PROTO_S_VERSION);
}

/* server_ready_set -- a ready server takes exactly the client's requests */
static void
server_ready_set(void **state)
{
	const uint32_t takes =
	    1u << RPMAF__PROTO_T_REGION_LIST_REQ | 1u << RPMAF__PROTO_T_REGION_LOOKUP_REQ |
	    1u << RPMAF__PROTO_T_PERSIST_REQ | 1u << RPMAF__PROTO_T_APP_REQ |
	    1u << RPMAF__PROTO_T_HEARTBEAT | 1u << RPMAF__PROTO_T_HEARTBEAT_REPLY |
	    1u << RPMAF__PROTO_T_CREDIT | 1u << RPMAF__PROTO_T_HANDLER_LIST_REQ;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_err err;
	struct rpmaf__proto_msg m;
	unsigned taken = 0;

	(void)state;
	for (unsigned t = 1; t <= RPMAF__PROTO_T_MAX; t++) {
		server_at(&s, RPMAF__PROTO_SRV_READY);
		sample_msg(t, &m);
		m.hdr.version = s.version; /* the set of types, whatever the version they need */
		int ret = rpmaf__proto_server_recv(&s, &m, &err);

		if (takes & (1u << t)) {
			assert_int_equal(ret, 0);
			assert_int_equal(s.state, RPMAF__PROTO_SRV_READY);
			taken++;
		} else if (t == RPMAF__PROTO_T_ERROR) {
			assert_int_equal(ret, RPMAF__PROTO_E_PEER);
			assert_string_equal(err.msg,
					    "the client closes the session: ERROR NOT_FOUND");
			assert_int_equal(s.status, RPMAF__PROTO_S_OK);
		} else {
			assert_int_equal(ret, RPMAF__PROTO_E_STATE);
			assert_int_equal(s.state, RPMAF__PROTO_SRV_CLOSED);
			assert_int_equal(s.status, RPMAF__PROTO_S_UNEXPECTED);
		}
	}
	assert_int_equal(taken, 8);
	server_at(&s, RPMAF__PROTO_SRV_READY);
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	m.hdr.version = s.version;
	expect_srv_err(&s, &m, RPMAF__PROTO_E_STATE,
		       "HELLO from the client: not a request a server serves",
		       RPMAF__PROTO_S_UNEXPECTED);
	server_at(&s, RPMAF__PROTO_SRV_READY);
	sample_msg(RPMAF__PROTO_T_APP_REQ, &m);
	m.hdr.version = 1;
	expect_srv_err(&s, &m, RPMAF__PROTO_E_VERSION,
		       "APP_REQ: header.version 1, the session's is 2", RPMAF__PROTO_S_VERSION);
}

/* version_negotiation -- the highest version both speak; none in common is refused */
static void
version_negotiation(void **state)
{
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m;

	(void)state;
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	m.body.hello.min_version = 1;
	m.body.hello.max_version = 9;
	rpmaf__proto_server_init(&s, NULL, Snonce);
	assert_int_equal(rpmaf__proto_server_recv(&s, &m, NULL), 0);
	assert_int_equal(s.version, 2);
	/* a client of version 1 gets version 1, and no handler list in it */
	m.body.hello.max_version = 1;
	rpmaf__proto_server_init(&s, NULL, Snonce);
	assert_int_equal(rpmaf__proto_server_recv(&s, &m, NULL), 0);
	assert_int_equal(s.version, 1);
	sample_msg(RPMAF__PROTO_T_HANDLER_LIST_REQ, &m);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_VERSION,
		       "HANDLER_LIST_REQ: header.version 2, the session's is 1",
		       RPMAF__PROTO_S_VERSION);
	sample_msg(RPMAF__PROTO_T_HELLO, &m);
	m.body.hello.min_version = 3;
	m.body.hello.max_version = 9;
	rpmaf__proto_server_init(&s, NULL, Snonce);
	expect_srv_err(&s, &m, RPMAF__PROTO_E_VERSION,
		       "HELLO: versions 3 to 9, this server speaks 1 to 2", RPMAF__PROTO_S_VERSION);
	assert_int_equal(rpmaf__proto_server_hello_reply(&s, &Srv_params, &m),
			 RPMAF__PROTO_E_STATE);
}

/* version_one_server -- a client meets a server that chose version 1: the session runs in it */
static void
version_one_server(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_msg m;

	(void)state;
	client_new(&c, NULL);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &m), 0);
	assert_int_equal(m.body.hello.min_version, 1);
	assert_int_equal(m.body.hello.max_version, RPMAF__PROTO_VERSION_MAX);
	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &m);
	m.hdr.req_id = 1;
	m.body.hello_reply.version = 1;
	m.body.hello_reply.flags = 0;
	assert_int_equal(rpmaf__proto_client_recv(&c, &m, NULL), 0);
	assert_int_equal(c.version, 1);
	assert_int_equal(c.state, RPMAF__PROTO_CLI_READY);
	sample_msg(RPMAF__PROTO_T_APP_REPLY, &m);
	m.hdr.version = 1;
	assert_int_equal(rpmaf__proto_client_recv(&c, &m, NULL), 0);
	sample_msg(RPMAF__PROTO_T_HANDLER_LIST, &m);
	expect_cli_err(&c, &m, RPMAF__PROTO_E_VERSION,
		       "HANDLER_LIST: header.version 2, the session's is 1");
}

/* client_out_of_order -- the client takes only the reply it waits for, then server messages */
static void
client_out_of_order(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, reply;

	(void)state;
	client_new(&c, &Key_a);
	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &m);
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "HELLO_REPLY from the server: the client has not sent its request yet");
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "HELLO_REPLY from the server: the client session is closed");

	client_new(&c, &Key_a);
	rpmaf__proto_server_init(&s, &Key_a, Snonce);
	hello_exchange(&c, &s, &reply);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &m), RPMAF__PROTO_E_STATE);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), RPMAF__PROTO_E_STATE);
	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REPLY, &m);
	m.hdr.version = RPMAF__PROTO_VERSION_HELLO;
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "REGION_LOOKUP_REPLY from the server while waiting for HELLO_REPLY");

	client_new(&c, &Key_a);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &m), 0);
	m = reply;
	m.hdr.req_id = 9;
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "HELLO_REPLY: header.req_id 9 does not answer request 1");

	client_new(&c, &Key_a);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &m), 0);
	assert_int_equal(rpmaf__proto_client_recv(&c, &reply, NULL), 0);
	sample_msg(RPMAF__PROTO_T_HEARTBEAT, &m);
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "HEARTBEAT from the server: the client has not sent its request yet");

	client_new(&c, &Key_a);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &m), 0);
	assert_int_equal(rpmaf__proto_client_recv(&c, &reply, NULL), 0);
	assert_int_equal(rpmaf__proto_client_auth(&c, 2, &m), 0);
	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "ANNOUNCE from the server while waiting for AUTH_REPLY");
}

/* client_ready_set -- a ready client takes exactly the server's messages */
static void
client_ready_set(void **state)
{
	const uint32_t refuses = 1u << RPMAF__PROTO_T_HELLO | 1u << RPMAF__PROTO_T_HELLO_REPLY |
				 1u << RPMAF__PROTO_T_AUTH | 1u << RPMAF__PROTO_T_AUTH_REPLY |
				 1u << RPMAF__PROTO_T_REGION_LIST_REQ |
				 1u << RPMAF__PROTO_T_REGION_LOOKUP_REQ |
				 1u << RPMAF__PROTO_T_PERSIST_REQ | 1u << RPMAF__PROTO_T_APP_REQ |
				 1u << RPMAF__PROTO_T_HANDLER_LIST_REQ;
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg m, reply;
	unsigned taken = 0;

	(void)state;
	for (unsigned t = 1; t <= RPMAF__PROTO_T_MAX; t++) {
		client_new(&c, NULL);
		rpmaf__proto_server_init(&s, NULL, Snonce);
		hello_exchange(&c, &s, &reply);
		assert_int_equal(rpmaf__proto_client_recv(&c, &reply, NULL), 0);
		sample_msg(t, &m);
		m.hdr.version = c.version; /* the set of types, whatever the version they need */
		int ret = rpmaf__proto_client_recv(&c, &m, NULL);

		if (refuses & (1u << t)) {
			assert_int_equal(ret, RPMAF__PROTO_E_STATE);
			assert_int_equal(c.state, RPMAF__PROTO_CLI_CLOSED);
		} else {
			assert_int_equal(ret, 0);
			assert_int_equal(c.state, RPMAF__PROTO_CLI_READY);
			taken++;
		}
	}
	assert_int_equal(taken, 10);
	sample_msg(RPMAF__PROTO_T_PERSIST_REQ, &m);
	client_new(&c, NULL);
	c.state = RPMAF__PROTO_CLI_READY;
	c.version = 2;
	expect_cli_err(&c, &m, RPMAF__PROTO_E_STATE,
		       "PERSIST_REQ from the server: not a message a client takes");
	client_new(&c, NULL);
	c.state = RPMAF__PROTO_CLI_READY;
	c.version = 2;
	sample_msg(RPMAF__PROTO_T_APP_REPLY, &m);
	m.hdr.version = 1;
	expect_cli_err(&c, &m, RPMAF__PROTO_E_VERSION,
		       "APP_REPLY: header.version 1, the session's is 2");
}

/* key_mismatch -- a client without a key and a server that requires one, and the reverse */
static void
key_mismatch(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_server s;
	struct rpmaf__proto_msg reply;

	(void)state;
	client_new(&c, NULL);
	rpmaf__proto_server_init(&s, &Key_a, Snonce);
	hello_exchange(&c, &s, &reply);
	expect_cli_err(&c, &reply, RPMAF__PROTO_E_AUTH_MODE,
		       "HELLO_REPLY.flags: the server requires authentication and this client "
		       "has no key");
	client_new(&c, &Key_a);
	rpmaf__proto_server_init(&s, NULL, Snonce);
	hello_exchange(&c, &s, &reply);
	expect_cli_err(&c, &reply, RPMAF__PROTO_E_AUTH_MODE,
		       "HELLO_REPLY.flags: the server does not authenticate but this client "
		       "has a key: the server cannot prove who it is");
	client_new(&c, NULL);
	assert_int_equal(rpmaf__proto_client_hello(&c, &Cli_params, 1, &reply), 0);
	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &reply);
	reply.hdr.req_id = 1;
	reply.body.hello_reply.version = 7;
	expect_cli_err(&c, &reply, RPMAF__PROTO_E_VERSION,
		       "HELLO_REPLY.version: 7, this client speaks 1 to 2");
}

/* client_names -- the client's name follows the rules of a name */
static void
client_names(void **state)
{
	struct rpmaf__proto_client c;
	struct rpmaf__proto_err err = {0};
	char long_name[80];

	(void)state;
	assert_int_equal(rpmaf__proto_client_init(&c, NULL, "a b", Cnonce, &err),
			 RPMAF__PROTO_E_STRING);
	assert_string_equal(err.msg, "client name: byte 1 is 0x20 (a name is letters, digits, "
				     "'_', '-' and '.')");
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(rpmaf__proto_client_init(&c, NULL, long_name, Cnonce, &err),
			 RPMAF__PROTO_E_TOO_BIG);
	assert_string_equal(err.msg, "client name: 64 bytes long (a name of 1 to 63 bytes)");
	long_name[63] = '\0';
	assert_int_equal(rpmaf__proto_client_init(&c, NULL, long_name, Cnonce, &err), 0);
	assert_int_equal(c.name_len, 63);
	assert_int_equal(rpmaf__proto_client_init(&c, NULL, NULL, Cnonce, &err),
			 RPMAF__PROTO_E_INVAL);
}

/* session_errors -- the status each local failure maps to, and the ERROR that carries it */
static void
session_errors(void **state)
{
	static const struct {
		int code;
		uint32_t status;
	} map[] = {
	    {RPMAF__PROTO_E_TRUNCATED, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_TRAILING, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_MAGIC, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_TYPE, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_TOO_BIG, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_RANGE, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_STRING, RPMAF__PROTO_S_BAD_MESSAGE},
	    {RPMAF__PROTO_E_VERSION, RPMAF__PROTO_S_VERSION},
	    {RPMAF__PROTO_E_STATE, RPMAF__PROTO_S_UNEXPECTED},
	    {RPMAF__PROTO_E_AUTH, RPMAF__PROTO_S_AUTH_FAILED},
	    {RPMAF__PROTO_E_AUTH_MODE, RPMAF__PROTO_S_AUTH_REQUIRED},
	    {RPMAF__PROTO_E_CREDITS, RPMAF__PROTO_S_INTERNAL},
	    {RPMAF__PROTO_E_NOSPC, RPMAF__PROTO_S_INTERNAL},
	};
	struct rpmaf__proto_msg m, d;

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint32_t status = rpmaf__proto_status_of(map[i].code);

		assert_int_equal(status, map[i].status);
		rpmaf__proto_session_error(&m, 0, 5, status);
		wire(&m, &d);
		assert_int_equal(d.hdr.version, RPMAF__PROTO_VERSION_HELLO);
		assert_int_equal(d.hdr.req_id, 5);
		assert_int_equal(d.body.error.status, status);
		assert_true(d.body.error.reason_len > 0);
	}
	rpmaf__proto_session_error(&m, 1, 0, RPMAF__PROTO_S_OK);
	wire(&m, &d);
	assert_int_equal(d.body.error.status, RPMAF__PROTO_S_INTERNAL);
	assert_memory_equal(d.body.error.reason, "closing the session", 19);
	rpmaf__proto_session_error(&m, 1, 0, RPMAF__PROTO_S_UNEXPECTED);
	assert_string_equal(m.body.error.reason, "message out of order");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(handshake_with_key),
	    cmocka_unit_test(handshake_without_key),
	    cmocka_unit_test(wrong_key_on_the_client),
	    cmocka_unit_test(wrong_key_on_the_server),
	    cmocka_unit_test(replayed_auth),
	    cmocka_unit_test(server_out_of_order),
	    cmocka_unit_test(server_ready_set),
	    cmocka_unit_test(version_negotiation),
	    cmocka_unit_test(version_one_server),
	    cmocka_unit_test(client_out_of_order),
	    cmocka_unit_test(client_ready_set),
	    cmocka_unit_test(key_mismatch),
	    cmocka_unit_test(client_names),
	    cmocka_unit_test(session_errors),
	};

	Sample_version = RPMAF__PROTO_VERSION_MAX; /* the sessions agree on the newest */
	return cmocka_run_group_tests(tests, keys_setup, NULL);
}
