/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_auth.c -- the key file (format, length, permissions, each error with
 * its message) and the proofs: a proof verifies only under the same key,
 * for the same nonces, name, version and role.
 */

#include "proto_test.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"

#define HEX32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static char Dir[] = "/tmp/proto-auth-XXXXXX";
static char Path[256];

/* dir_setup -- a scratch directory for key files */
static int
dir_setup(void **state)
{
	(void)state;
	return mkdtemp(Dir) ? 0 : -1;
}

/* dir_teardown -- remove the scratch directory and what is in it */
static int
dir_teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", Dir);
	return system(cmd);
}

/* key_file -- write text into the scratch file name with mode; returns its path */
static const char *
key_file(const char *name, const char *text, mode_t mode)
{
	FILE *f;

	snprintf(Path, sizeof(Path), "%s/%s", Dir, name);
	unlink(Path);
	f = fopen(Path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(Path, mode), 0);
	return Path;
}

/* expect_parse_err -- parsing text fails with code and exactly msg, the key wiped */
static void
expect_parse_err(const char *text, int code, const char *msg)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_key key;
	static const uint8_t zero[sizeof(key)];

	memset(&key, 0xff, sizeof(key));
	assert_int_equal(rpmaf__proto_key_parse("k", text, strlen(text), &key, &err), code);
	assert_string_equal(err.msg, msg);
	assert_memory_equal(&key, zero, sizeof(key));
}

/* repeat -- n copies of c (static buffer) */
static const char *
repeat(char c, size_t n, const char *tail)
{
	static char buf[512];

	memset(buf, c, n);
	strcpy(buf + n, tail);
	return buf;
}

/* key_text_accepted -- 32 to 64 bytes of hex, either case, one final newline at most */
static void
key_text_accepted(void **state)
{
	struct rpmaf__proto_key key;

	(void)state;
	assert_int_equal(rpmaf__proto_key_parse("k", HEX32, 64, &key, NULL), 0);
	assert_int_equal(key.len, 32);
	for (int i = 0; i < 32; i++)
		assert_int_equal(key.bytes[i], i);
	assert_int_equal(rpmaf__proto_key_parse("k", HEX32 "\n", 65, &key, NULL), 0);
	assert_int_equal(key.len, 32);
	const char *upper = repeat('F', 128, "\n");

	assert_int_equal(rpmaf__proto_key_parse("k", upper, strlen(upper), &key, NULL), 0);
	assert_int_equal(key.len, 64);
	assert_int_equal(key.bytes[63], 0xff);
	assert_int_equal(rpmaf__proto_key_parse("k", "aB", 2, NULL, NULL), RPMAF__PROTO_E_INVAL);
	rpmaf__proto_key_wipe(&key);
	assert_int_equal(key.len, 0);
	assert_int_equal(key.bytes[63], 0);
}

/* key_text_refused -- empty, short, long, odd, not hex: each with its message */
static void
key_text_refused(void **state)
{
	(void)state;
	expect_parse_err("", RPMAF__PROTO_E_KEY_LENGTH,
			 "k: empty (a key is 64 to 128 hexadecimal digits)");
	expect_parse_err("\n", RPMAF__PROTO_E_KEY_LENGTH,
			 "k: empty (a key is 64 to 128 hexadecimal digits)");
	expect_parse_err(repeat('a', 62, "\n"), RPMAF__PROTO_E_KEY_LENGTH,
			 "k: a 31-byte key is too short (32 to 64 bytes: 64 to 128 hexadecimal "
			 "digits)");
	expect_parse_err(repeat('a', 130, ""), RPMAF__PROTO_E_KEY_LENGTH,
			 "k: a 65-byte key is too long (32 to 64 bytes: 64 to 128 hexadecimal "
			 "digits)");
	expect_parse_err(repeat('a', 63, ""), RPMAF__PROTO_E_KEY_FORMAT,
			 "k: 63 hexadecimal digits, an odd number (two per byte)");
	expect_parse_err("0123g56789", RPMAF__PROTO_E_KEY_FORMAT,
			 "k: byte 5 is not a hexadecimal digit (a key file holds hex digits and "
			 "at most one final newline)");
	expect_parse_err(HEX32 "\r\n", RPMAF__PROTO_E_KEY_FORMAT,
			 "k: byte 65 is not a hexadecimal digit (a key file holds hex digits and "
			 "at most one final newline)");
	expect_parse_err(HEX32 "\n\n", RPMAF__PROTO_E_KEY_FORMAT,
			 "k: byte 65 is not a hexadecimal digit (a key file holds hex digits and "
			 "at most one final newline)");
	expect_parse_err("00 11", RPMAF__PROTO_E_KEY_FORMAT,
			 "k: byte 3 is not a hexadecimal digit (a key file holds hex digits and "
			 "at most one final newline)");
}

/* expect_load_err -- loading path fails with code and exactly "<path>: msg" */
static void
expect_load_err(const char *path, int code, const char *msg)
{
	struct rpmaf__proto_err err = {0};
	struct rpmaf__proto_key key;
	char want[512];

	snprintf(want, sizeof(want), "%s: %s", path, msg);
	assert_int_equal(rpmaf__proto_key_load(path, &key, &err), code);
	assert_string_equal(err.msg, want);
	assert_int_equal(key.len, 0);
}

/* key_file_loaded -- a private file with a key in it */
static void
key_file_loaded(void **state)
{
	struct rpmaf__proto_key key;

	(void)state;
	assert_int_equal(rpmaf__proto_key_load(key_file("good", HEX32 "\n", 0600), &key, NULL), 0);
	assert_int_equal(key.len, 32);
	assert_int_equal(key.bytes[31], 0x1f);
	assert_int_equal(rpmaf__proto_key_load(key_file("ro", HEX32, 0400), &key, NULL), 0);
	assert_int_equal(rpmaf__proto_key_load(NULL, &key, NULL), RPMAF__PROTO_E_INVAL);
}

/* key_file_refused -- missing, open to others, not a file, too large, bad content */
static void
key_file_refused(void **state)
{
	char path[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/missing", Dir);
	expect_load_err(path, RPMAF__PROTO_E_KEY_IO, "cannot open: No such file or directory");
	expect_load_err(key_file("group", HEX32, 0640), RPMAF__PROTO_E_KEY_MODE,
			"mode 0640 lets its group or other users in (only its owner may have "
			"access: chmod 600)");
	expect_load_err(key_file("other", HEX32, 0604), RPMAF__PROTO_E_KEY_MODE,
			"mode 0604 lets its group or other users in (only its owner may have "
			"access: chmod 600)");
	expect_load_err(key_file("gexec", HEX32, 0610), RPMAF__PROTO_E_KEY_MODE,
			"mode 0610 lets its group or other users in (only its owner may have "
			"access: chmod 600)");
	expect_load_err(Dir, RPMAF__PROTO_E_KEY_IO, "not a regular file (a key file)");
	snprintf(path, sizeof(path), "%s/fifo", Dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_load_err(path, RPMAF__PROTO_E_KEY_IO, "not a regular file (a key file)");
	expect_load_err(key_file("big", repeat('a', 200, ""), 0600), RPMAF__PROTO_E_KEY_LENGTH,
			"more than 129 bytes (a key is 64 to 128 hexadecimal digits and at most "
			"one newline)");
	expect_load_err(key_file("short", "abcd\n", 0600), RPMAF__PROTO_E_KEY_LENGTH,
			"a 2-byte key is too short (32 to 64 bytes: 64 to 128 hexadecimal digits)");
	expect_load_err(key_file("empty", "", 0600), RPMAF__PROTO_E_KEY_LENGTH,
			"empty (a key is 64 to 128 hexadecimal digits)");
	expect_load_err(key_file("text", "key = secret\n", 0600), RPMAF__PROTO_E_KEY_FORMAT,
			"byte 1 is not a hexadecimal digit (a key file holds hex digits and at "
			"most one final newline)");
}

static uint8_t Snonce[RPMAF__PROTO_NONCE_SIZE], Cnonce[RPMAF__PROTO_NONCE_SIZE];

/* transcript -- version 1, the two nonces, name "client-1" */
static struct rpmaf__proto_transcript
transcript(void)
{
	memset(Snonce, 0x11, sizeof(Snonce));
	memset(Cnonce, 0x22, sizeof(Cnonce));
	return (struct rpmaf__proto_transcript){1, Snonce, Cnonce, "client-1", 8};
}

/* test_key -- a key of len bytes starting at first */
static struct rpmaf__proto_key
test_key(uint8_t first, size_t len)
{
	struct rpmaf__proto_key k = {.len = len};

	for (size_t i = 0; i < len; i++)
		k.bytes[i] = (uint8_t)(first + i);
	return k;
}

/* proof_is_the_documented_hmac -- HMAC-SHA-256 of label\0, version, nonces, name_len, name */
static void
proof_is_the_documented_hmac(void **state)
{
	struct rpmaf__proto_key key = test_key(7, 32);
	struct rpmaf__proto_transcript t = transcript();
	uint8_t msg[200], want[32], got[32];
	size_t n = 0;

	(void)state;
	memcpy(msg, "rpmaf proto client proof", 25); /* with its NUL */
	n = 25;
	msg[n++] = 1;
	msg[n++] = 0;
	memcpy(msg + n, Snonce, 32), n += 32;
	memcpy(msg + n, Cnonce, 32), n += 32;
	msg[n++] = 8;
	memcpy(msg + n, "client-1", 8), n += 8;
	crypto_auth_hmacsha256(want, msg, n, key.bytes);
	assert_int_equal(rpmaf__proto_auth_proof(&key, RPMAF__PROTO_ROLE_CLIENT, &t, got), 0);
	assert_memory_equal(got, want, 32);

	memcpy(msg, "rpmaf proto server proof", 25);
	crypto_auth_hmacsha256(want, msg, n, key.bytes);
	assert_int_equal(rpmaf__proto_auth_proof(&key, RPMAF__PROTO_ROLE_SERVER, &t, got), 0);
	assert_memory_equal(got, want, 32);
}

/* expect_no_verify -- proof (made for the reference transcript) fails against t */
static void
expect_no_verify(const struct rpmaf__proto_key *key, enum rpmaf__proto_role role,
		 const struct rpmaf__proto_transcript *t, const uint8_t *proof)
{
	struct rpmaf__proto_err err = {0};

	assert_int_equal(rpmaf__proto_auth_verify(key, role, t, proof, &err), RPMAF__PROTO_E_AUTH);
	assert_string_equal(err.msg, role == RPMAF__PROTO_ROLE_CLIENT
					 ? "AUTH.proof: does not verify (another key, or a proof "
					   "made for other nonces)"
					 : "AUTH_REPLY.proof: does not verify (another key, or a "
					   "proof made for other nonces)");
}

/* proofs_bind_everything -- same key and transcript verify; any difference does not */
static void
proofs_bind_everything(void **state)
{
	struct rpmaf__proto_key key = test_key(1, 48), other = test_key(2, 48);
	struct rpmaf__proto_transcript t = transcript(), u;
	uint8_t proof[32], again[32], other_snonce[32];

	(void)state;
	assert_int_equal(rpmaf__proto_auth_proof(&key, RPMAF__PROTO_ROLE_CLIENT, &t, proof), 0);
	assert_int_equal(rpmaf__proto_auth_proof(&key, RPMAF__PROTO_ROLE_CLIENT, &t, again), 0);
	assert_memory_equal(proof, again, 32);
	assert_int_equal(rpmaf__proto_auth_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &t, proof, NULL),
			 0);
	expect_no_verify(&other, RPMAF__PROTO_ROLE_CLIENT, &t, proof); /* wrong key */
	key.len = 47;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &t, proof); /* a prefix of the key */
	key.len = 48;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_SERVER, &t, proof); /* reflected */
	memset(other_snonce, 0x11, 32);
	other_snonce[31] ^= 1;
	u = t, u.server_nonce = other_snonce; /* replayed on another connection */
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &u, proof);
	u = t, u.client_nonce = other_snonce;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &u, proof);
	u = t, u.name = "client-2";
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &u, proof);
	u = t, u.name_len = 7;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &u, proof);
	u = t, u.version = 2;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &u, proof);
	proof[0] ^= 0x80;
	expect_no_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &t, proof);
}

/* proof_refusals -- NULLs and keys of a wrong length */
static void
proof_refusals(void **state)
{
	struct rpmaf__proto_key key = test_key(1, 32), small = test_key(1, 31);
	struct rpmaf__proto_transcript t = transcript();
	struct rpmaf__proto_err err = {0};
	uint8_t proof[32] = {0};

	(void)state;
	assert_int_equal(rpmaf__proto_auth_proof(&small, RPMAF__PROTO_ROLE_CLIENT, &t, proof),
			 RPMAF__PROTO_E_INVAL);
	assert_int_equal(rpmaf__proto_auth_proof(NULL, RPMAF__PROTO_ROLE_CLIENT, &t, proof),
			 RPMAF__PROTO_E_INVAL);
	t.server_nonce = NULL;
	assert_int_equal(rpmaf__proto_auth_proof(&key, RPMAF__PROTO_ROLE_CLIENT, &t, proof),
			 RPMAF__PROTO_E_INVAL);
	t = transcript();
	assert_int_equal(rpmaf__proto_auth_verify(&key, RPMAF__PROTO_ROLE_CLIENT, &t, NULL, &err),
			 RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "proof: NULL");
	assert_int_equal(
	    rpmaf__proto_auth_verify(&small, RPMAF__PROTO_ROLE_CLIENT, &t, proof, &err),
	    RPMAF__PROTO_E_INVAL);
	assert_string_equal(err.msg, "proof: cannot be computed: invalid argument");
}

/* nonces_are_fresh -- two nonces differ and are not all zero */
static void
nonces_are_fresh(void **state)
{
	uint8_t a[RPMAF__PROTO_NONCE_SIZE], b[RPMAF__PROTO_NONCE_SIZE];
	static const uint8_t zero[RPMAF__PROTO_NONCE_SIZE];

	(void)state;
	assert_int_equal(rpmaf__proto_auth_nonce(a), 0);
	assert_int_equal(rpmaf__proto_auth_nonce(b), 0);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, zero, sizeof(a));
	assert_int_equal(rpmaf__proto_auth_nonce(NULL), RPMAF__PROTO_E_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(key_text_accepted),
	    cmocka_unit_test(key_text_refused),
	    cmocka_unit_test(key_file_loaded),
	    cmocka_unit_test(key_file_refused),
	    cmocka_unit_test(proof_is_the_documented_hmac),
	    cmocka_unit_test(proofs_bind_everything),
	    cmocka_unit_test(proof_refusals),
	    cmocka_unit_test(nonces_are_fresh),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
