/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_pool_seeds.c -- the seeds of fuzz_ctl_pool: sequences a server
 * and its client really exchange, the server's messages made by proto/'s
 * encoders and state machines (the hello and authentication replies by a
 * server session that took the client session's own HELLO and AUTH, with
 * the harness's fixed nonce and key), in the harness's step format (see
 * fuzz_ctl_pool.c). Usage: fuzz_ctl_pool_seeds DIR (make fuzz-ctl-pool-seeds).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/list.h"
#include "../proto/session.h"

/* the harness's sizes, and what a server announces */
#define MSG_SIZE  512
#define CREDITS	  4
#define HB_MS	  1000
#define HB_MISSES 3

/* the harness's steps */
enum { S_RECV, S_DONE, S_FAIL, S_TIMER, S_DISCONNECT, S_CALL, S_OP, S_SHUTDOWN, S_POST_FAILS };

/* an input being written */
struct seed {
	uint8_t b[16384];
	size_t len;
	struct rpmaf__proto_key key;
	struct rpmaf__proto_client cli; /* the pool's session, replayed */
	struct rpmaf__proto_server srv;
	uint16_t version; /* the highest the server speaks: the session's */
};

/* the version of the messages made: the seed's session's */
static uint16_t Version = 1;

/* die -- a seed that cannot be made is a bug of this program */
static void
die(const char *what)
{
	fprintf(stderr, "fuzz_ctl_pool_seeds: %s\n", what);
	exit(1);
}

/* put -- one byte of the input */
static void
put(struct seed *s, uint8_t byte)
{
	if (s->len == sizeof(s->b))
		die("seed too long");
	s->b[s->len++] = byte;
}

/* steps -- steps without arguments */
static void
steps(struct seed *s, int step, unsigned n)
{
	while (n--)
		put(s, (uint8_t)step);
}

/* op -- a call (S_CALL) or an operation (S_OP) with its two argument bytes */
static void
op(struct seed *s, int step, uint8_t a, uint8_t b)
{
	put(s, (uint8_t)step);
	put(s, a);
	put(s, b);
}

/* post_fails -- the (n + 1)-th post from now fails */
static void
post_fails(struct seed *s, uint8_t n)
{
	put(s, S_POST_FAILS);
	put(s, n);
}

/* recv_raw -- the receive of the len encoded bytes at buf */
static void
recv_raw(struct seed *s, const uint8_t *buf, int len)
{
	if (len < 0)
		die("a message does not encode");
	put(s, S_RECV);
	put(s, (uint8_t)(len & 0xff));
	put(s, (uint8_t)(len >> 8));
	for (int i = 0; i < len; i++)
		put(s, buf[i]);
}

/* recv -- the receive of m, encoded */
static void
recv(struct seed *s, const struct rpmaf__proto_msg *m)
{
	uint8_t buf[MSG_SIZE];

	recv_raw(s, buf, rpmaf__proto_msg_encode(buf, sizeof(buf), m, NULL));
}

/* sessions -- both sides' sessions at the start of a connection, the nonces the harness's */
static void
sessions(struct seed *s, bool key)
{
	uint8_t nonce[RPMAF__PROTO_NONCE_SIZE], snonce[RPMAF__PROTO_NONCE_SIZE];

	memset(nonce, 0x5a, sizeof(nonce));
	memset(snonce, 0xa5, sizeof(snonce));
	if (rpmaf__proto_client_init(&s->cli, key ? &s->key : NULL, "rpmaf-pool", nonce, NULL))
		die("client session");
	rpmaf__proto_server_init(&s->srv, key ? &s->key : NULL, snonce);
}

/* begin -- a new input: the set-up byte, and the sessions of both sides at their start */
static void
begin(struct seed *s, bool key)
{
	memset(s, 0, sizeof(*s));
	s->key.len = 32;
	memset(s->key.bytes, 0x4b, s->key.len);
	s->version = 1;
	Version = 1;
	put(s, key ? 1 : 0);
	sessions(s, key);
}

/* begin_v2 -- begin() with a server of version 2 */
static void
begin_v2(struct seed *s, bool key)
{
	begin(s, key);
	s->version = 2;
	Version = 2;
}

/* hello_reply -- the server's answer to the client's HELLO, and its send completing */
static void
hello_reply(struct seed *s)
{
	struct rpmaf__proto_params cp = {MSG_SIZE, CREDITS, 0, 0};
	struct rpmaf__proto_params sp = {MSG_SIZE, CREDITS, HB_MS, HB_MISSES};
	struct rpmaf__proto_msg hello, reply;

	if (rpmaf__proto_client_hello(&s->cli, &cp, 1, &hello))
		die("hello");
	hello.body.hello.max_version = s->version; /* the server takes the highest it speaks */
	if (rpmaf__proto_server_recv(&s->srv, &hello, NULL) ||
	    rpmaf__proto_server_hello_reply(&s->srv, &sp, &reply) ||
	    rpmaf__proto_client_recv(&s->cli, &reply, NULL))
		die("hello");
	reply.hdr.credits = 1;
	steps(s, S_DONE, 1);
	recv(s, &reply);
}

/* auth_reply -- the server's proof, answering the client's AUTH (req_id 2) */
static void
auth_reply(struct seed *s)
{
	struct rpmaf__proto_msg auth, reply;

	if (rpmaf__proto_client_auth(&s->cli, 2, &auth) ||
	    rpmaf__proto_server_recv(&s->srv, &auth, NULL) ||
	    rpmaf__proto_server_auth_reply(&s->srv, &reply))
		die("auth");
	reply.hdr.credits = 1;
	steps(s, S_DONE, 1);
	recv(s, &reply);
}

/* region -- region "r<i>" at generation gen with persistence persist */
static struct rpmaf__proto_region
region(unsigned i, uint64_t gen, uint8_t persist)
{
	static const uint8_t desc[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
	static const char *const names[] = {"r0", "r1", "r2", "r3"};

	return (struct rpmaf__proto_region){1 << 20, gen, persist,  RPMAF__PROTO_USAGE_ALL,
					    2,	     8,	  names[i], desc};
}

/* list -- a page of the list answering req_id: n regions from start of total */
static void
list(struct seed *s, uint64_t req_id, uint64_t table_gen, uint32_t total, uint32_t start,
     const struct rpmaf__proto_region *regs, uint32_t n)
{
	struct rpmaf__proto_hdr hdr = {Version, RPMAF__PROTO_T_REGION_LIST, 0, 0, 1, req_id};
	struct rpmaf__proto_list_builder lb;
	uint8_t buf[MSG_SIZE];

	if (rpmaf__proto_list_begin(&lb, buf, sizeof(buf), &hdr, table_gen, total, start, n, NULL))
		die("list");
	for (uint32_t i = 0; i < n; i++)
		if (rpmaf__proto_list_add(&lb, &regs[i], NULL))
			die("list entry");
	steps(s, S_DONE, 1);
	recv_raw(s, buf, rpmaf__proto_list_end(&lb, NULL));
}

/* handshake -- HELLO, AUTH with a key, the list (r0 GPSPM, r1 APM): the connection is ready */
static void
handshake(struct seed *s, bool key)
{
	const struct rpmaf__proto_region regs[] = {region(0, 3, RPMAF__PROTO_PERSIST_GPSPM),
						   region(1, 4, RPMAF__PROTO_PERSIST_APM)};

	hello_reply(s);
	if (key)
		auth_reply(s);
	list(s, key ? 3 : 2, 10, 2, 0, regs, 2);
}

/* handlers -- a page of the handler list answering req_id: ids[0 .. n) of total, idempotent */
static void
handlers(struct seed *s, uint64_t req_id, uint32_t total, uint32_t start, const uint32_t *ids,
	 uint32_t n)
{
	uint8_t entries[8 * RPMAF__PROTO_HANDLER_ENTRY];
	struct rpmaf__proto_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr = (struct rpmaf__proto_hdr){Version, RPMAF__PROTO_T_HANDLER_LIST, 0, 0, 1, req_id};
	for (uint32_t i = 0; i < n; i++)
		rpmaf__proto_handler_entry_put(entries + i * RPMAF__PROTO_HANDLER_ENTRY, ids[i],
					       RPMAF__PROTO_HANDLER_IDEMPOTENT);
	m.body.handler_list = (struct rpmaf__proto_handler_list){total, start, n, entries,
								 n * RPMAF__PROTO_HANDLER_ENTRY};
	steps(s, S_DONE, 1);
	recv(s, &m);
}

/* begin_ready -- a new input without a key, its connection made ready (handshake()) */
static void
begin_ready(struct seed *s)
{
	begin(s, false);
	handshake(s, false);
}

/*
 * handshake_v2 -- a server of version 2: HELLO, AUTH with a key, the region
 * list (r0 GPSPM, r1 APM), the handler list (handler 1 idempotent): ready
 */
static void
handshake_v2(struct seed *s, bool key)
{
	const uint32_t ids[] = {1};

	handshake(s, key);
	handlers(s, key ? 4 : 3, 1, 0, ids, 1);
}

/* reply -- a message answering req_id, one credit back */
static struct rpmaf__proto_msg
reply(unsigned type, uint64_t req_id)
{
	struct rpmaf__proto_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.version = Version;
	m.hdr.type = (uint8_t)type;
	m.hdr.credits = 1;
	m.hdr.req_id = req_id;
	return m;
}

/* announce -- an announcement of region reg (event) */
static void
announce(struct seed *s, unsigned event, struct rpmaf__proto_region reg, uint64_t table_gen)
{
	struct rpmaf__proto_msg m = reply(RPMAF__PROTO_T_ANNOUNCE, 0);

	m.hdr.credits = 0;
	m.body.announce.event = event;
	m.body.announce.table_generation = table_gen;
	if (event == RPMAF__PROTO_EV_REMOVED)
		reg.desc_len = 0;
	m.body.announce.region = reg;
	recv(s, &m);
}

/* app_reply -- a call's answer with an 8-byte payload */
static void
app_reply(struct seed *s, uint64_t req_id, uint32_t status)
{
	static const uint8_t payload[8] = "answer!";
	struct rpmaf__proto_msg m = reply(RPMAF__PROTO_T_APP_REPLY, req_id);

	m.body.app_reply.status = status;
	m.body.app_reply.handler_id = 1;
	m.body.app_reply.payload = payload;
	m.body.app_reply.payload_len = sizeof(payload);
	recv(s, &m);
}

/* error -- an ERROR answering req_id */
static void
error(struct seed *s, uint64_t req_id, uint32_t status)
{
	struct rpmaf__proto_msg m = reply(RPMAF__PROTO_T_ERROR, req_id);

	m.body.error.status = status;
	m.body.error.reason = "refused";
	m.body.error.reason_len = 7;
	recv(s, &m);
}

/* persist_reply -- a PERSIST_REPLY to req_id */
static void
persist_reply(struct seed *s, uint64_t req_id)
{
	struct rpmaf__proto_msg m = reply(RPMAF__PROTO_T_PERSIST_REPLY, req_id);

	m.body.persist_reply.status = RPMAF__PROTO_S_OK;
	recv(s, &m);
}

/* save -- write the input to dir/name */
static void
save(const struct seed *s, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")) || fwrite(s->b, 1, s->len, f) != s->len || fclose(f))
		die(path);
}

/* calls -- a call answered, another refused, a third failed by an ERROR (no-key handshake) */
static void
calls(struct seed *s)
{
	begin_ready(s);
	op(s, S_CALL, 0x11, 64); /* handler 1, 16 bytes, 64 back: req_id 3 */
	steps(s, S_DONE, 1);
	app_reply(s, 3, RPMAF__PROTO_S_OK);
	op(s, S_CALL, 0x05, 8); /* from the worker, empty: req_id 4 */
	steps(s, S_DONE, 1);
	app_reply(s, 4, RPMAF__PROTO_S_NO_HANDLER);
	op(s, S_CALL, 0x12, 0); /* req_id 5 */
	steps(s, S_DONE, 1);
	error(s, 5, RPMAF__PROTO_S_BUSY);
}

/* operations -- r0 (GPSPM): a flush and a persistent write; r1 (APM): the RDMA operations */
static void
operations(struct seed *s)
{
	begin_ready(s);
	op(s, S_OP, 0x08, 0); /* flush r0: PERSIST_REQ 3 */
	steps(s, S_DONE, 1);
	persist_reply(s, 3);
	op(s, S_OP, 0x10, 1); /* persistent write r0: the write, then PERSIST_REQ 4 */
	steps(s, S_DONE, 2);
	persist_reply(s, 4);
	op(s, S_OP, 0x01, 2); /* write r1 */
	op(s, S_OP, 0x85, 3); /* read r1, from the worker */
	op(s, S_OP, 0x0d, 4); /* atomic write r1 */
	op(s, S_OP, 0x11, 5); /* persistent write r1: write and flush */
	op(s, S_OP, 0x02, 0); /* write r2: no such region */
	steps(s, S_DONE, 4);
}

int
main(int argc, char *argv[])
{
	const struct rpmaf__proto_region page1[] = {region(0, 3, RPMAF__PROTO_PERSIST_GPSPM),
						    region(1, 4, RPMAF__PROTO_PERSIST_APM)};
	const struct rpmaf__proto_region page2[] = {region(2, 5, RPMAF__PROTO_PERSIST_NONE)};
	struct seed *s = malloc(sizeof(*s));

	if (argc != 2 || !s)
		die("usage: fuzz_ctl_pool_seeds DIR");

	begin_ready(s);
	save(s, argv[1], "handshake");

	begin(s, true);
	handshake(s, true);
	save(s, argv[1], "handshake-auth");

	begin(s, true);
	hello_reply(s);
	steps(s, S_DONE, 1);
	error(s, 2, RPMAF__PROTO_S_AUTH_FAILED);
	save(s, argv[1], "auth-refused");

	calls(s);
	save(s, argv[1], "calls");

	operations(s);
	save(s, argv[1], "operations");

	begin_ready(s);
	announce(s, RPMAF__PROTO_EV_ADDED, region(2, 11, RPMAF__PROTO_PERSIST_NONE), 11);
	announce(s, RPMAF__PROTO_EV_CHANGED, region(0, 12, RPMAF__PROTO_PERSIST_GPSPM), 12);
	announce(s, RPMAF__PROTO_EV_REMOVED, region(1, 13, RPMAF__PROTO_PERSIST_APM), 13);
	steps(s, S_DONE, 1); /* the CREDIT the removal sent at once */
	announce(s, RPMAF__PROTO_EV_ADDED, region(1, 9, RPMAF__PROTO_PERSIST_APM), 9); /* stale */
	save(s, argv[1], "announcements");

	begin(s, false);
	hello_reply(s);
	list(s, 2, 10, 3, 0, page1, 2);
	list(s, 3, 10, 3, 2, page2, 1);
	steps(s, S_DONE, 1);
	save(s, argv[1], "list-pages");

	/* lost with a call waiting, connected again: r1 is gone from the new listing */
	begin_ready(s);
	op(s, S_CALL, 0x11, 64);
	steps(s, S_DISCONNECT, 2);
	sessions(s, false);
	hello_reply(s);
	list(s, 2, 20, 1, 0, page1, 1);
	save(s, argv[1], "reconnect");

	/* the handshake never ends: the scan's deadline, the heartbeat's misses */
	begin(s, false);
	hello_reply(s);
	steps(s, S_TIMER, 30);
	save(s, argv[1], "handshake-timeout");

	/* ready, then silent: heartbeats sent, completed, then the peer is lost */
	begin_ready(s);
	for (int i = 0; i < 16; i++) {
		steps(s, S_TIMER, 3);
		steps(s, S_DONE, 1);
	}
	save(s, argv[1], "heartbeats");

	/* a call waiting when the send fails, another when the pool shuts down */
	begin_ready(s);
	op(s, S_CALL, 0x11, 64);
	steps(s, S_FAIL, 1);
	save(s, argv[1], "send-fails");

	begin_ready(s);
	op(s, S_CALL, 0x11, 64);
	op(s, S_OP, 0x01, 0);
	steps(s, S_SHUTDOWN, 1);
	op(s, S_CALL, 0x11, 64);
	save(s, argv[1], "shutdown");

	/*
	 * the largest generation, which the encoder refuses (written over the
	 * first entry's): r0 listed at it, then gone from the listing of the
	 * next connection, taken at the same table generation
	 */
	{
		const struct rpmaf__proto_region top[] = {
		    region(0, UINT64_MAX - 1, RPMAF__PROTO_PERSIST_GPSPM),
		    region(1, 4, RPMAF__PROTO_PERSIST_APM)};
		size_t at;

		begin(s, false);
		hello_reply(s);
		/* S_DONE, S_RECV and the length; the header, the page's fields, the entry's size */
		at = s->len + 1 + 3 + RPMAF__PROTO_HDR_SIZE + 20 + 8;
		list(s, 2, UINT64_MAX, 2, 0, top, 2);
		memset(s->b + at, 0xff, 8);
		steps(s, S_DISCONNECT, 2);
		sessions(s, false);
		hello_reply(s);
		list(s, 2, UINT64_MAX, 1, 0, top + 1, 1);
		save(s, argv[1], "generation-max");
	}

	/* posts that fail: the first of a write and its flush, the second, a call's send */
	begin_ready(s);
	post_fails(s, 0);
	op(s, S_OP, 0x11, 0); /* persistent write r1: the write fails, nothing posted */
	post_fails(s, 1);
	op(s, S_OP, 0x11, 1); /* its flush fails: the connection fails */
	save(s, argv[1], "post-fails");

	begin_ready(s);
	post_fails(s, 0);
	op(s, S_CALL, 0x11, 64);
	save(s, argv[1], "post-fails-call");

	/*
	 * answers of the wrong type: an APP_REPLY to the PERSIST_REQ of an
	 * operation that was a call before (its reply buffer freed since), a
	 * PERSIST_REPLY to a call
	 */
	begin_ready(s);
	op(s, S_CALL, 0x11, 64); /* req_id 3 */
	steps(s, S_DONE, 1);
	app_reply(s, 3, RPMAF__PROTO_S_OK);
	op(s, S_OP, 0x08, 0); /* flush r0, the same operation: PERSIST_REQ 4 */
	steps(s, S_DONE, 1);
	app_reply(s, 4, RPMAF__PROTO_S_OK);
	save(s, argv[1], "reply-type-mismatch");

	begin_ready(s);
	op(s, S_CALL, 0x11, 64); /* req_id 3 */
	steps(s, S_DONE, 1);
	persist_reply(s, 3);
	save(s, argv[1], "reply-type-mismatch-persist");

	/* version 2: the handler list, then an idempotent call lost and sent again */
	begin_v2(s, false);
	handshake_v2(s, false);
	save(s, argv[1], "v2-handshake");

	begin_v2(s, true);
	handshake_v2(s, true);
	save(s, argv[1], "v2-handshake-auth");

	{
		const uint32_t p1[] = {1, 3}, p2[] = {9};

		begin_v2(s, false);
		handshake(s, false);
		handlers(s, 3, 3, 0, p1, 2);
		handlers(s, 4, 3, 2, p2, 1);
		save(s, argv[1], "v2-handler-pages");
	}

	begin_v2(s, false);
	handshake_v2(s, false);
	op(s, S_CALL, 0x11, 64); /* handler 1 (idempotent), req_id 4 */
	op(s, S_CALL, 0x12, 64); /* handler 2, req_id 5: fails with the connection */
	op(s, S_OP, 0x10, 1);	 /* persistent write r0: waits to be posted again */
	steps(s, S_DISCONNECT, 2);
	sessions(s, false);
	handshake_v2(s, false);
	steps(s, S_DONE, 2);
	app_reply(s, 4, RPMAF__PROTO_S_OK);
	save(s, argv[1], "v2-call-retried");

	/* operations waiting for a connection until their deadline */
	begin_v2(s, false);
	handshake_v2(s, false);
	steps(s, S_DISCONNECT, 1);
	op(s, S_OP, 0x01, 2);
	op(s, S_CALL, 0x11, 64);
	steps(s, S_TIMER, 20);
	save(s, argv[1], "v2-wait-timeout");

	free(s);
	return 0;
}
