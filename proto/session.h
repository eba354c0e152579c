/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * session.h -- the state machines of a control session, one per side, so
 * that the runtime cannot serve a request out of order: before HELLO only
 * HELLO is accepted, before the client has proved it holds the key only
 * AUTH, and no message meant for the other side is ever accepted. They do
 * no I/O and keep no global state: the runtime decodes a message, hands it
 * to *_recv(), acts on it only when that returns 0, and closes the
 * connection (after sending the ERROR that rpmaf__proto_session_error()
 * builds) when it does not.
 *
 * Server:  WAIT_HELLO --HELLO--> WAIT_AUTH --AUTH (proof verified)--> READY
 *          (WAIT_AUTH is skipped when the server has no key)
 * Client:  START --hello()--> WAIT_HELLO_REPLY --HELLO_REPLY--> NEED_AUTH
 *          --auth()--> WAIT_AUTH_REPLY --AUTH_REPLY (proof verified)--> READY
 *          (without a key, HELLO_REPLY leads to READY directly)
 * Any failure leads to CLOSED, where every message is refused.
 *
 * Matching a reply to its request by req_id, past the hello and the
 * authentication, is the runtime's job (it knows what it has in flight).
 *
 * ASSUMPTIONS
 * A session belongs to the thread that owns its connection; nothing here
 * is thread-safe against concurrent use of the same session. The key a
 * session points to must outlive it and is only read.
 */

#ifndef RPMAF_PROTO_SESSION_H
#define RPMAF_PROTO_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "msg.h"

/* what a side announces of itself in its hello */
struct rpmaf__proto_params {
	uint32_t max_msg_size;	 /* its receive buffer */
	uint32_t credits;	 /* its receive buffers for the connection */
	uint32_t hb_interval_ms; /* server only: heartbeat interval; 0: none */
	uint32_t hb_misses;	 /* server only: unanswered intervals that mean a dead peer */
};

enum rpmaf__proto_server_state {
	RPMAF__PROTO_SRV_WAIT_HELLO,
	RPMAF__PROTO_SRV_WAIT_AUTH,
	RPMAF__PROTO_SRV_READY,
	RPMAF__PROTO_SRV_CLOSED,
};

struct rpmaf__proto_server {
	enum rpmaf__proto_server_state state;
	const struct rpmaf__proto_key *key; /* NULL: no authentication */
	uint8_t server_nonce[RPMAF__PROTO_NONCE_SIZE];
	uint8_t client_nonce[RPMAF__PROTO_NONCE_SIZE];
	uint16_t version; /* agreed in HELLO; 0 before */
	uint64_t req_id;  /* of the HELLO, then of the AUTH: echoed by their replies */
	struct rpmaf__proto_hello peer;	      /* what the client announced */
	char name[RPMAF__PROTO_NAME_MAX + 1]; /* the client's, NUL-terminated, after AUTH */
	uint8_t name_len;
	uint32_t status; /* the wire status of the failure that closed the session */
};

/*
 * rpmaf__proto_server_init -- a server session for one new connection:
 * key (NULL for none) and nonce, a fresh one from rpmaf__proto_auth_nonce()
 * for every connection.
 */
void rpmaf__proto_server_init(struct rpmaf__proto_server *s, const struct rpmaf__proto_key *key,
			      const uint8_t nonce[RPMAF__PROTO_NONCE_SIZE]);

/*
 * rpmaf__proto_server_recv -- the client sent m (decoded): accept it and
 * move the session on. HELLO negotiates the version (the highest both
 * speak); AUTH verifies the client's proof over this connection's nonce.
 *
 * RETURN VALUE
 * 0: serve m (or answer the hello with rpmaf__proto_server_hello_reply(),
 * the auth with rpmaf__proto_server_auth_reply()). Otherwise the session is
 * CLOSED, s->status says what to tell the client in ERROR (OK: nothing,
 * the client closed it itself), and, with the message in
 * err:
 * - RPMAF__PROTO_E_STATE    a type not acceptable now (anything but AUTH
 *                           before authentication: status AUTH_REQUIRED)
 * - RPMAF__PROTO_E_VERSION  no version in common, or a message not in the
 *                           agreed version
 * - RPMAF__PROTO_E_AUTH     the proof does not verify
 * - RPMAF__PROTO_E_PEER     the client sent ERROR
 */
int rpmaf__proto_server_recv(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
			     struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_server_hello_reply -- the HELLO_REPLY to send in *out after
 * the HELLO was accepted: own announces this server's sizes and heartbeat.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STATE when no HELLO was just accepted.
 */
int rpmaf__proto_server_hello_reply(const struct rpmaf__proto_server *s,
				    const struct rpmaf__proto_params *own,
				    struct rpmaf__proto_msg *out);

/*
 * rpmaf__proto_server_auth_reply -- the AUTH_REPLY (the server's own
 * proof) to send in *out after the AUTH was accepted.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STATE when no AUTH was accepted; the codes of
 * rpmaf__proto_auth_proof().
 */
int rpmaf__proto_server_auth_reply(const struct rpmaf__proto_server *s,
				   struct rpmaf__proto_msg *out);

enum rpmaf__proto_client_state {
	RPMAF__PROTO_CLI_START,
	RPMAF__PROTO_CLI_WAIT_HELLO_REPLY,
	RPMAF__PROTO_CLI_NEED_AUTH,
	RPMAF__PROTO_CLI_WAIT_AUTH_REPLY,
	RPMAF__PROTO_CLI_READY,
	RPMAF__PROTO_CLI_CLOSED,
};

struct rpmaf__proto_client {
	enum rpmaf__proto_client_state state;
	const struct rpmaf__proto_key *key; /* NULL: no authentication */
	uint8_t client_nonce[RPMAF__PROTO_NONCE_SIZE];
	uint8_t server_nonce[RPMAF__PROTO_NONCE_SIZE];
	char name[RPMAF__PROTO_NAME_MAX + 1]; /* NUL-terminated */
	uint8_t name_len;
	uint16_t version;		      /* agreed; 0 before HELLO_REPLY */
	uint64_t req_id;		      /* of the HELLO, then of the AUTH */
	struct rpmaf__proto_hello_reply peer; /* what the server announced */
};

/*
 * rpmaf__proto_client_init -- a client session named name (a name, see
 * wire.h) with key (NULL for none) and nonce, a fresh one from
 * rpmaf__proto_auth_nonce() for every connection.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_INVAL (NULL) or the codes of rpmaf__proto_name_check().
 */
int rpmaf__proto_client_init(struct rpmaf__proto_client *c, const struct rpmaf__proto_key *key,
			     const char *name, const uint8_t nonce[RPMAF__PROTO_NONCE_SIZE],
			     struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_client_hello -- the HELLO to send first, in *out, with
 * request id req_id.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STATE when a HELLO was already made.
 */
int rpmaf__proto_client_hello(struct rpmaf__proto_client *c, const struct rpmaf__proto_params *own,
			      uint64_t req_id, struct rpmaf__proto_msg *out);

/*
 * rpmaf__proto_client_auth -- the AUTH to send in *out once HELLO_REPLY
 * asked for it (state NEED_AUTH).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_STATE; the codes of rpmaf__proto_auth_proof().
 */
int rpmaf__proto_client_auth(struct rpmaf__proto_client *c, uint64_t req_id,
			     struct rpmaf__proto_msg *out);

/*
 * rpmaf__proto_client_recv -- the server sent m (decoded): accept it and
 * move the session on. A client with a key requires the server to
 * authenticate (and to prove it holds the key too); one without a key
 * cannot talk to a server that requires it.
 *
 * RETURN VALUE
 * 0: act on m; NEED_AUTH after HELLO_REPLY means: send
 * rpmaf__proto_client_auth() next. Otherwise the session is CLOSED and,
 * with the message in err:
 * - RPMAF__PROTO_E_STATE      a type not expected now, or a hello or auth
 *                             reply that does not answer this client's request
 * - RPMAF__PROTO_E_VERSION    a version outside the client's range, or a
 *                             message not in the agreed version
 * - RPMAF__PROTO_E_AUTH_MODE  one side has a key, the other does not use one
 * - RPMAF__PROTO_E_AUTH       the server's proof does not verify
 * - RPMAF__PROTO_E_PEER       the server refused the session with ERROR
 */
int rpmaf__proto_client_recv(struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m,
			     struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_session_error -- the ERROR to send in *out before closing a
 * session after the local failure code (a decode error, a *_recv() error):
 * its wire status and a fixed reason that says no more than the status.
 * version is the agreed one (0 before the hello: the hello version is used).
 */
void rpmaf__proto_session_error(struct rpmaf__proto_msg *out, uint16_t version, uint64_t req_id,
				uint32_t status);

/*
 * rpmaf__proto_status_of -- the wire status that tells a peer about the
 * local failure code: BAD_MESSAGE for a decode error, VERSION, UNEXPECTED,
 * AUTH_FAILED, AUTH_REQUIRED; INTERNAL for anything else.
 */
uint32_t rpmaf__proto_status_of(int code);

#endif /* RPMAF_PROTO_SESSION_H */
