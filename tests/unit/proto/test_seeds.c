/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_seeds.c -- the seed corpus of fuzz/fuzz_proto.c: one valid message
 * of every type, variants of the optional parts, a full region page, key
 * files, and a few malformed messages. The test checks that
 * fuzz/corpus/fuzz_proto/ holds exactly these bytes (and that the valid
 * ones are accepted); with PROTO_WRITE_SEEDS=DIR in the environment it
 * writes them into DIR instead (make proto-seeds).
 */

#include "proto_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "list.h"

#define CORPUS PROTO_TOP_DIR "/fuzz/corpus/fuzz_proto"

static uint8_t Seed[8192];
static int Seeds;

/* seed_emit -- write (or compare with the corpus) len bytes of Seed as the seed name */
static void
seed_emit(const char *name, size_t len)
{
	const char *dir = getenv("PROTO_WRITE_SEEDS");
	static uint8_t file[sizeof(Seed) + 1];
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : CORPUS, name);
	f = fopen(path, dir ? "wb" : "rb");
	if (f == NULL)
		fail_msg("seed %s: cannot open %s (make proto-seeds writes the corpus)", name,
			 path);
	if (dir) {
		assert_int_equal(fwrite(Seed, 1, len, f), len);
	} else {
		size_t n = fread(file, 1, sizeof(file), f);

		if (n != len || memcmp(file, Seed, len) != 0)
			fail_msg("seed %s differs from %s (make proto-seeds writes it again)", name,
				 path);
	}
	assert_int_equal(fclose(f), 0);
	Seeds++;
}

/* seed_msg -- m encoded, checked to decode, emitted as name */
static void
seed_msg(const char *name, const struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_msg d;
	size_t len = encode_ok(m, Seed, sizeof(Seed));

	assert_int_equal(rpmaf__proto_msg_decode(Seed, len, &d, NULL), 0);
	seed_emit(name, len);
}

/* seeds_every_type -- the sample of each of the 19 types, named after it */
static void
seeds_every_type(void)
{
	struct rpmaf__proto_msg m;
	char name[64];

	for (unsigned t = 1; t <= RPMAF__PROTO_T_MAX; t++) {
		sample_msg(t, &m);
		snprintf(name, sizeof(name), "%02u-%s", t, rpmaf__proto_type_str(t));
		seed_msg(name, &m);
	}
}

/* seeds_variants -- the optional parts left out, and the other branches of a body */
static void
seeds_variants(void)
{
	struct rpmaf__proto_msg m;

	sample_msg(RPMAF__PROTO_T_REGION_LOOKUP_REPLY, &m);
	m.body.lookup_reply.status = RPMAF__PROTO_S_NOT_FOUND;
	seed_msg("lookup-not-found", &m);
	sample_msg(RPMAF__PROTO_T_ANNOUNCE, &m);
	m.body.announce.event = RPMAF__PROTO_EV_REMOVED;
	m.body.announce.region.desc_len = 0;
	seed_msg("announce-removed", &m);
	sample_msg(RPMAF__PROTO_T_APP_REQ, &m);
	m.body.app_req.payload_len = 0;
	seed_msg("app-req-empty", &m);
	sample_msg(RPMAF__PROTO_T_ERROR, &m);
	m.body.error.reason_len = 0;
	seed_msg("error-no-reason", &m);
	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &m);
	m.body.hello_reply.flags = 0;
	seed_msg("hello-reply-no-auth", &m);
	sample_msg(RPMAF__PROTO_T_HELLO_REPLY, &m);
	m.body.hello_reply.version = RPMAF__PROTO_VERSION_MAX;
	seed_msg("hello-reply-v2", &m);
	sample_msg(RPMAF__PROTO_T_HANDLER_LIST, &m);
	m.body.handler_list = (struct rpmaf__proto_handler_list){5, 5, 0, NULL, 0};
	seed_msg("handler-list-end", &m);
	sample_msg(RPMAF__PROTO_T_REGION_LIST, &m);
	m.body.list = (struct rpmaf__proto_region_list){3, 0, 0, 0, NULL, 0};
	seed_msg("list-empty", &m);
}

/* seed_list_page -- a page of three regions built with the builder */
static void
seed_list_page(void)
{
	static const char *const names[] = {"alpha", "beta.log", "gamma_2"};
	struct rpmaf__proto_hdr h = {.version = 1, .credits = 4, .req_id = 9};
	struct rpmaf__proto_list_builder b;
	int len;

	assert_int_equal(rpmaf__proto_list_begin(&b, Seed, sizeof(Seed), &h, 8, 4, 1, 0, NULL), 0);
	for (int i = 0; i < 3; i++) {
		struct rpmaf__proto_region r = sample_region(names[i]);

		r.persist = (uint8_t)i;
		assert_int_equal(rpmaf__proto_list_add(&b, &r, NULL), 0);
	}
	len = rpmaf__proto_list_end(&b, NULL);
	assert_true(len > 0);
	seed_emit("list-page", (size_t)len);
}

/* seeds_keys -- key files the parser accepts */
static void
seeds_keys(void)
{
	static const char *const keys[] = {
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n",
	    "FFEEDDCCBBAA99887766554433221100FFEEDDCCBBAA99887766554433221100"
	    "0123456789ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef",
	};
	struct rpmaf__proto_key key;

	for (int i = 0; i < 2; i++) {
		size_t len = strlen(keys[i]);

		assert_int_equal(rpmaf__proto_key_parse("k", keys[i], len, &key, NULL), 0);
		memcpy(Seed, keys[i], len);
		seed_emit(i ? "key-64" : "key-32", len);
	}
}

/* seeds_malformed -- a truncated message and one with trailing bytes */
static void
seeds_malformed(void)
{
	struct rpmaf__proto_msg m;
	size_t len;

	sample_msg(RPMAF__PROTO_T_AUTH, &m);
	len = encode_ok(&m, Seed, sizeof(Seed));
	seed_emit("bad-truncated-auth", len - 1);
	sample_msg(RPMAF__PROTO_T_PERSIST_REQ, &m);
	len = encode_ok(&m, Seed, sizeof(Seed));
	Seed[len] = 0;
	seed_emit("bad-trailing-persist", len + 1);
}

/* corpus_is_current -- the corpus holds the seeds this program makes */
static void
corpus_is_current(void **state)
{
	(void)state;
	seeds_every_type();
	seeds_variants();
	seed_list_page();
	seeds_keys();
	seeds_malformed();
	assert_int_equal(Seeds, 19 + 8 + 1 + 2 + 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(corpus_is_current),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
