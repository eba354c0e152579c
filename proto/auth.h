/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * auth.h -- the pre-shared key and the challenge-response that proves, in
 * both directions, that a peer holds it. All cryptography is libsodium's:
 * HMAC-SHA-256 (crypto_auth_hmacsha256_*), random nonces (randombytes_buf),
 * constant-time comparison (crypto_verify_32) and wiping (sodium_memzero).
 *
 * The key file holds the key as hexadecimal digits (either case), 64 to 128
 * of them (a key of 32 to 64 bytes), optionally followed by one newline;
 * nothing else. `openssl rand -hex 32 > key; chmod 600 key` makes one. Like
 * ssh with a private key, the loader refuses a file that its group or other
 * users may access in any way.
 *
 * A proof is HMAC-SHA-256 under the key of
 *   label || u16le version || server_nonce[32] || client_nonce[32] ||
 *   u8 name_len || name
 * where label is "rpmaf proto client proof\0" for the client's proof and
 * "rpmaf proto server proof\0" for the server's (doc/PROTOCOL.md says why).
 *
 * ASSUMPTIONS
 * Every function is thread-safe for distinct keys and buffers; a key is
 * only read by the proof functions, so one key may serve any number of
 * threads at once once loaded.
 */

#ifndef RPMAF_PROTO_AUTH_H
#define RPMAF_PROTO_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "status.h"

/* key material, in bytes */
#define RPMAF__PROTO_KEY_MIN 32
#define RPMAF__PROTO_KEY_MAX 64
/* the largest key file: the digits of the longest key and a newline */
#define RPMAF__PROTO_KEY_FILE_MAX (2 * RPMAF__PROTO_KEY_MAX + 1)

/* a pre-shared key; wipe it with rpmaf__proto_key_wipe() when done */
struct rpmaf__proto_key {
	uint8_t bytes[RPMAF__PROTO_KEY_MAX];
	size_t len; /* RPMAF__PROTO_KEY_MIN to _MAX once loaded */
};

/* whose proof: the labels differ, so that one side's proof never serves as the other's */
enum rpmaf__proto_role {
	RPMAF__PROTO_ROLE_CLIENT,
	RPMAF__PROTO_ROLE_SERVER,
};

/* what a proof binds: the session's version, both nonces and the client's name */
struct rpmaf__proto_transcript {
	uint16_t version;
	const uint8_t *server_nonce; /* RPMAF__PROTO_NONCE_SIZE bytes */
	const uint8_t *client_nonce; /* RPMAF__PROTO_NONCE_SIZE bytes */
	const char *name;
	uint8_t name_len;
};

/*
 * rpmaf__proto_key_parse -- the key written in the len bytes at text (the
 * content of a key file, no NUL needed); name stands for the file in
 * messages.
 *
 * RETURN VALUE
 * 0 with *key filled; otherwise *key wiped and, with the message in err:
 * - RPMAF__PROTO_E_INVAL       a NULL argument
 * - RPMAF__PROTO_E_KEY_LENGTH  empty, or fewer than 64 / more than 128 digits
 * - RPMAF__PROTO_E_KEY_FORMAT  a byte that is not a hex digit (its position
 *                              is given, not its value), an odd digit count
 */
int rpmaf__proto_key_parse(const char *name, const char *text, size_t len,
			   struct rpmaf__proto_key *key, struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_key_load -- the key of the file at path.
 *
 * RETURN VALUE
 * 0 with *key filled; otherwise *key wiped and, with the message in err:
 * - RPMAF__PROTO_E_INVAL       a NULL argument
 * - RPMAF__PROTO_E_KEY_IO      the file cannot be opened or read, or is not a
 *                              regular file (errno's text in the message)
 * - RPMAF__PROTO_E_KEY_MODE    the group or others have any permission on it
 * - RPMAF__PROTO_E_KEY_LENGTH  larger than RPMAF__PROTO_KEY_FILE_MAX, or as
 *                              rpmaf__proto_key_parse()
 * - RPMAF__PROTO_E_KEY_FORMAT  as rpmaf__proto_key_parse()
 */
int rpmaf__proto_key_load(const char *path, struct rpmaf__proto_key *key,
			  struct rpmaf__proto_err *err);

/* rpmaf__proto_key_wipe -- overwrite the key with zeros (not optimised away) */
void rpmaf__proto_key_wipe(struct rpmaf__proto_key *key);

/*
 * rpmaf__proto_auth_nonce -- a fresh random nonce, for each connection
 * (server) or each authentication (client).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CRYPTO when libsodium cannot be initialised.
 */
int rpmaf__proto_auth_nonce(uint8_t nonce[RPMAF__PROTO_NONCE_SIZE]);

/*
 * rpmaf__proto_auth_proof -- the proof of role over t under key into out.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_INVAL (a NULL argument, a key of a wrong length);
 * RPMAF__PROTO_E_CRYPTO.
 */
int rpmaf__proto_auth_proof(const struct rpmaf__proto_key *key, enum rpmaf__proto_role role,
			    const struct rpmaf__proto_transcript *t,
			    uint8_t out[RPMAF__PROTO_PROOF_SIZE]);

/*
 * rpmaf__proto_auth_verify -- proof is role's proof over t under key,
 * compared in constant time.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_AUTH when it is not; the codes of
 * rpmaf__proto_auth_proof().
 */
int rpmaf__proto_auth_verify(const struct rpmaf__proto_key *key, enum rpmaf__proto_role role,
			     const struct rpmaf__proto_transcript *t,
			     const uint8_t proof[RPMAF__PROTO_PROOF_SIZE],
			     struct rpmaf__proto_err *err);

#endif /* RPMAF_PROTO_AUTH_H */
