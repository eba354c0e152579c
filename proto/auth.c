/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * auth.c -- key files, nonces and HMAC proofs, all through libsodium.
 */

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"

/* the labels that open each role's proof; the NUL ends the label on the wire */
static const char Label_client[] = "rpmaf proto client proof";
static const char Label_server[] = "rpmaf proto server proof";

/* key_hex_digit -- c is a hexadecimal digit */
static int
key_hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* key_check_text -- the digits of text: hex only, an even number, of a key's length */
static int
key_check_text(const char *name, const char *text, size_t digits, struct rpmaf__proto_err *err)
{
	if (digits == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_LENGTH,
					 "%s: empty (a key is %d to %d hexadecimal digits)", name,
					 2 * RPMAF__PROTO_KEY_MIN, 2 * RPMAF__PROTO_KEY_MAX);
	for (size_t i = 0; i < digits; i++)
		if (!key_hex_digit((unsigned char)text[i]))
			return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_FORMAT,
						 "%s: byte %zu is not a hexadecimal digit (a key "
						 "file holds hex digits and at most one final "
						 "newline)",
						 name, i + 1);
	if (digits % 2)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_FORMAT,
					 "%s: %zu hexadecimal digits, an odd number (two per byte)",
					 name, digits);
	if (digits < 2 * RPMAF__PROTO_KEY_MIN || digits > 2 * RPMAF__PROTO_KEY_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_LENGTH,
					 "%s: a %zu-byte key is too %s (%d to %d bytes: %d to %d "
					 "hexadecimal digits)",
					 name, digits / 2,
					 digits < 2 * RPMAF__PROTO_KEY_MIN ? "short" : "long",
					 RPMAF__PROTO_KEY_MIN, RPMAF__PROTO_KEY_MAX,
					 2 * RPMAF__PROTO_KEY_MIN, 2 * RPMAF__PROTO_KEY_MAX);
	return 0;
}

/* see auth.h */
int
rpmaf__proto_key_parse(const char *name, const char *text, size_t len, struct rpmaf__proto_key *key,
		       struct rpmaf__proto_err *err)
{
	size_t digits = len, bin_len = 0;
	int ret;

	if (name == NULL || (text == NULL && len) || key == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "key: NULL argument");
	rpmaf__proto_key_wipe(key);
	if (digits && text[digits - 1] == '\n')
		digits--;
	if ((ret = key_check_text(name, text, digits, err)))
		return ret;
	/* checked above: every byte is a digit and the key fits */
	if (sodium_hex2bin(key->bytes, sizeof(key->bytes), text, digits, NULL, &bin_len, NULL) ||
	    bin_len != digits / 2) {
		rpmaf__proto_key_wipe(key);
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_FORMAT,
					 "%s: cannot be decoded as hexadecimal", name);
	}
	key->len = bin_len;
	return 0;
}

/* key_read_all -- up to size bytes of fd until its end; -1 with errno on a failure */
static ssize_t
key_read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size) {
		ssize_t got = read(fd, buf + n, size - n);

		if (got == 0)
			break;
		if (got < 0 && errno != EINTR)
			return -1;
		if (got > 0)
			n += (size_t)got;
	}
	return (ssize_t)n;
}

/* key_read_fd -- the content of the private regular file fd (path for messages) into key */
static int
key_read_fd(int fd, const char *path, struct rpmaf__proto_key *key, struct rpmaf__proto_err *err)
{
	char text[RPMAF__PROTO_KEY_FILE_MAX + 1];
	struct stat st;
	ssize_t n;
	int ret;

	if (fstat(fd, &st) != 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_IO, "%s: cannot stat: %s", path,
					 strerror(errno));
	if (!S_ISREG(st.st_mode))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_IO,
					 "%s: not a regular file (a key file)", path);
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_MODE,
					 "%s: mode %04o lets its group or other users in (only "
					 "its owner may have access: chmod 600)",
					 path, (unsigned)(st.st_mode & 07777));
	/* one byte more than a key file may hold is read, to see a file that is too long */
	n = key_read_all(fd, text, sizeof(text));
	if (n < 0)
		ret = rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_IO, "%s: cannot read: %s", path,
					strerror(errno));
	else if ((size_t)n > RPMAF__PROTO_KEY_FILE_MAX)
		ret = rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_LENGTH,
					"%s: more than %d bytes (a key is %d to %d hexadecimal "
					"digits and at most one newline)",
					path, RPMAF__PROTO_KEY_FILE_MAX, 2 * RPMAF__PROTO_KEY_MIN,
					2 * RPMAF__PROTO_KEY_MAX);
	else
		ret = rpmaf__proto_key_parse(path, text, (size_t)n, key, err);
	sodium_memzero(text, sizeof(text));
	return ret;
}

/* see auth.h */
int
rpmaf__proto_key_load(const char *path, struct rpmaf__proto_key *key, struct rpmaf__proto_err *err)
{
	int fd, ret;

	if (path == NULL || key == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "key: NULL argument");
	rpmaf__proto_key_wipe(key);
	/* non-blocking: opening a FIFO must not wait for a writer; it is refused next */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_KEY_IO, "%s: cannot open: %s", path,
					 strerror(errno));
	ret = key_read_fd(fd, path, key, err);
	if (ret)
		rpmaf__proto_key_wipe(key);
	close(fd);
	return ret;
}

/* see auth.h */
void
rpmaf__proto_key_wipe(struct rpmaf__proto_key *key)
{
	if (key)
		sodium_memzero(key, sizeof(*key));
}

/* auth_ready -- libsodium initialised (idempotent, thread-safe) */
static int
auth_ready(void)
{
	return sodium_init() < 0 ? RPMAF__PROTO_E_CRYPTO : 0;
}

/* see auth.h */
int
rpmaf__proto_auth_nonce(uint8_t nonce[RPMAF__PROTO_NONCE_SIZE])
{
	int ret;

	if (nonce == NULL)
		return RPMAF__PROTO_E_INVAL;
	if ((ret = auth_ready()))
		return ret;
	randombytes_buf(nonce, RPMAF__PROTO_NONCE_SIZE);
	return 0;
}

/* see auth.h */
int
rpmaf__proto_auth_proof(const struct rpmaf__proto_key *key, enum rpmaf__proto_role role,
			const struct rpmaf__proto_transcript *t,
			uint8_t out[RPMAF__PROTO_PROOF_SIZE])
{
	crypto_auth_hmacsha256_state st;
	const char *label = role == RPMAF__PROTO_ROLE_SERVER ? Label_server : Label_client;
	uint8_t version[2];
	int ret;

	if (key == NULL || t == NULL || out == NULL || t->server_nonce == NULL ||
	    t->client_nonce == NULL || (t->name == NULL && t->name_len) ||
	    key->len < RPMAF__PROTO_KEY_MIN || key->len > RPMAF__PROTO_KEY_MAX)
		return RPMAF__PROTO_E_INVAL;
	if ((ret = auth_ready()))
		return ret;
	version[0] = (uint8_t)t->version;
	version[1] = (uint8_t)(t->version >> 8);
	crypto_auth_hmacsha256_init(&st, key->bytes, key->len);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)label, strlen(label) + 1);
	crypto_auth_hmacsha256_update(&st, version, sizeof(version));
	crypto_auth_hmacsha256_update(&st, t->server_nonce, RPMAF__PROTO_NONCE_SIZE);
	crypto_auth_hmacsha256_update(&st, t->client_nonce, RPMAF__PROTO_NONCE_SIZE);
	crypto_auth_hmacsha256_update(&st, &t->name_len, 1);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)t->name, t->name_len);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
	return 0;
}

/* see auth.h */
int
rpmaf__proto_auth_verify(const struct rpmaf__proto_key *key, enum rpmaf__proto_role role,
			 const struct rpmaf__proto_transcript *t,
			 const uint8_t proof[RPMAF__PROTO_PROOF_SIZE], struct rpmaf__proto_err *err)
{
	uint8_t expected[RPMAF__PROTO_PROOF_SIZE];
	int ret;

	if (proof == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "proof: NULL");
	if ((ret = rpmaf__proto_auth_proof(key, role, t, expected)))
		return rpmaf__proto_fail(err, ret, "proof: cannot be computed: %s",
					 rpmaf__proto_err_str(ret));
	if (crypto_verify_32(expected, proof) != 0)
		ret = rpmaf__proto_fail(err, RPMAF__PROTO_E_AUTH,
					"%s: does not verify (another key, or a proof made for "
					"other nonces)",
					role == RPMAF__PROTO_ROLE_SERVER ? "AUTH_REPLY.proof"
									 : "AUTH.proof");
	sodium_memzero(expected, sizeof(expected));
	return ret;
}
