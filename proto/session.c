/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * session.c -- the server's and the client's state machines of a control
 * session.
 */

#include <string.h>

#include "session.h"

/* type_bit -- a message type as a bit of a set */
#define TYPE_BIT(t) (1u << (t))

/* what a ready server accepts from a client */
static const uint32_t Server_ready_types =
    TYPE_BIT(RPMAF__PROTO_T_REGION_LIST_REQ) | TYPE_BIT(RPMAF__PROTO_T_REGION_LOOKUP_REQ) |
    TYPE_BIT(RPMAF__PROTO_T_PERSIST_REQ) | TYPE_BIT(RPMAF__PROTO_T_APP_REQ) |
    TYPE_BIT(RPMAF__PROTO_T_HEARTBEAT) | TYPE_BIT(RPMAF__PROTO_T_HEARTBEAT_REPLY) |
    TYPE_BIT(RPMAF__PROTO_T_CREDIT) | TYPE_BIT(RPMAF__PROTO_T_HANDLER_LIST_REQ);

/* what a ready client accepts from a server (ERROR included: a request's failure) */
static const uint32_t Client_ready_types =
    TYPE_BIT(RPMAF__PROTO_T_REGION_LIST) | TYPE_BIT(RPMAF__PROTO_T_REGION_LOOKUP_REPLY) |
    TYPE_BIT(RPMAF__PROTO_T_ANNOUNCE) | TYPE_BIT(RPMAF__PROTO_T_PERSIST_REPLY) |
    TYPE_BIT(RPMAF__PROTO_T_APP_REPLY) | TYPE_BIT(RPMAF__PROTO_T_HEARTBEAT) |
    TYPE_BIT(RPMAF__PROTO_T_HEARTBEAT_REPLY) | TYPE_BIT(RPMAF__PROTO_T_CREDIT) |
    TYPE_BIT(RPMAF__PROTO_T_ERROR) | TYPE_BIT(RPMAF__PROTO_T_HANDLER_LIST);

/* see session.h */
uint32_t
rpmaf__proto_status_of(int code)
{
	switch (code) {
	case RPMAF__PROTO_E_TRUNCATED:
	case RPMAF__PROTO_E_TRAILING:
	case RPMAF__PROTO_E_MAGIC:
	case RPMAF__PROTO_E_TYPE:
	case RPMAF__PROTO_E_TOO_BIG:
	case RPMAF__PROTO_E_RANGE:
	case RPMAF__PROTO_E_STRING:
		return RPMAF__PROTO_S_BAD_MESSAGE;
	case RPMAF__PROTO_E_VERSION:
		return RPMAF__PROTO_S_VERSION;
	case RPMAF__PROTO_E_STATE:
		return RPMAF__PROTO_S_UNEXPECTED;
	case RPMAF__PROTO_E_AUTH:
		return RPMAF__PROTO_S_AUTH_FAILED;
	case RPMAF__PROTO_E_AUTH_MODE:
		return RPMAF__PROTO_S_AUTH_REQUIRED;
	default:
		return RPMAF__PROTO_S_INTERNAL;
	}
}

/* the fixed reasons of a session's ERROR, by status: nothing beyond the status itself */
static const char *const Reasons[RPMAF__PROTO_S_MAX + 1] = {
    [RPMAF__PROTO_S_BAD_MESSAGE] = "malformed message",
    [RPMAF__PROTO_S_VERSION] = "no protocol version in common",
    [RPMAF__PROTO_S_UNEXPECTED] = "message out of order",
    [RPMAF__PROTO_S_AUTH_REQUIRED] = "authentication required",
    [RPMAF__PROTO_S_AUTH_FAILED] = "authentication failed",
};

/* see session.h */
void
rpmaf__proto_session_error(struct rpmaf__proto_msg *out, uint16_t version, uint64_t req_id,
			   uint32_t status)
{
	const char *reason;

	if (status == RPMAF__PROTO_S_OK || status > RPMAF__PROTO_S_MAX)
		status = RPMAF__PROTO_S_INTERNAL;
	reason = Reasons[status] ? Reasons[status] : "closing the session";
	memset(out, 0, sizeof(*out));
	out->hdr.version = version ? version : RPMAF__PROTO_VERSION_HELLO;
	out->hdr.type = RPMAF__PROTO_T_ERROR;
	out->hdr.req_id = req_id;
	out->body.error.status = status;
	out->body.error.reason = reason;
	out->body.error.reason_len = (uint8_t)strlen(reason);
}

/* ---------------------------------------------------------------- server */

/* see session.h */
void
rpmaf__proto_server_init(struct rpmaf__proto_server *s, const struct rpmaf__proto_key *key,
			 const uint8_t nonce[RPMAF__PROTO_NONCE_SIZE])
{
	memset(s, 0, sizeof(*s));
	s->state = RPMAF__PROTO_SRV_WAIT_HELLO;
	s->key = key;
	memcpy(s->server_nonce, nonce, RPMAF__PROTO_NONCE_SIZE);
}

/* server_fail -- close the session for code, with the status to tell the client */
static int
server_fail(struct rpmaf__proto_server *s, int code, uint32_t status)
{
	s->state = RPMAF__PROTO_SRV_CLOSED;
	s->status = status;
	return code;
}

/* server_hello -- negotiate the highest version both sides speak */
static int
server_hello(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
	     struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_hello *h = &m->body.hello;

	if (h->min_version > RPMAF__PROTO_VERSION_MAX || h->max_version < RPMAF__PROTO_VERSION_MIN)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					 "HELLO: versions %u to %u, this server speaks %d to %d",
					 (unsigned)h->min_version, (unsigned)h->max_version,
					 RPMAF__PROTO_VERSION_MIN, RPMAF__PROTO_VERSION_MAX);
	s->version =
	    h->max_version < RPMAF__PROTO_VERSION_MAX ? h->max_version : RPMAF__PROTO_VERSION_MAX;
	s->peer = *h;
	s->req_id = m->hdr.req_id;
	s->state = s->key ? RPMAF__PROTO_SRV_WAIT_AUTH : RPMAF__PROTO_SRV_READY;
	return 0;
}

/* server_auth -- the client's proof over this connection's nonce */
static int
server_auth(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
	    struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_auth *a = &m->body.auth;
	struct rpmaf__proto_transcript t = {
	    .version = s->version,
	    .server_nonce = s->server_nonce,
	    .client_nonce = a->client_nonce,
	    .name = a->name,
	    .name_len = a->name_len,
	};
	int ret = rpmaf__proto_auth_verify(s->key, RPMAF__PROTO_ROLE_CLIENT, &t, a->proof, err);

	if (ret)
		return ret;
	memcpy(s->client_nonce, a->client_nonce, RPMAF__PROTO_NONCE_SIZE);
	memcpy(s->name, a->name, a->name_len);
	s->name[a->name_len] = '\0';
	s->name_len = a->name_len;
	s->req_id = m->hdr.req_id;
	s->state = RPMAF__PROTO_SRV_READY;
	return 0;
}

/* server_expect -- the type of m is the one state waits for (want), or fail */
static int
server_expect(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m, unsigned want,
	      uint32_t status, struct rpmaf__proto_err *err)
{
	if (m->hdr.type == want)
		return 0;
	return server_fail(
	    s,
	    rpmaf__proto_fail(err, RPMAF__PROTO_E_STATE, "%s from the client while waiting for %s",
			      rpmaf__proto_type_str(m->hdr.type), rpmaf__proto_type_str(want)),
	    status);
}

/* server_version -- m is in the session's agreed version */
static int
server_version(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
	       struct rpmaf__proto_err *err)
{
	if (m->hdr.version == s->version)
		return 0;
	return server_fail(s,
			   rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					     "%s: header.version %u, the session's is %u",
					     rpmaf__proto_type_str(m->hdr.type),
					     (unsigned)m->hdr.version, (unsigned)s->version),
			   RPMAF__PROTO_S_VERSION);
}

/* server_ready -- a request or a session message the ready server serves */
static int
server_ready(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
	     struct rpmaf__proto_err *err)
{
	int ret = server_version(s, m, err);

	if (ret || (Server_ready_types & TYPE_BIT(m->hdr.type)))
		return ret;
	return server_fail(s,
			   rpmaf__proto_fail(err, RPMAF__PROTO_E_STATE,
					     "%s from the client: not a request a server serves",
					     rpmaf__proto_type_str(m->hdr.type)),
			   RPMAF__PROTO_S_UNEXPECTED);
}

/* server_wait_hello -- the first message: HELLO, with a version in common */
static int
server_wait_hello(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
		  struct rpmaf__proto_err *err)
{
	int ret = server_expect(s, m, RPMAF__PROTO_T_HELLO, RPMAF__PROTO_S_UNEXPECTED, err);

	if (ret == 0 && (ret = server_hello(s, m, err)))
		server_fail(s, ret, RPMAF__PROTO_S_VERSION);
	return ret;
}

/* server_wait_auth -- after HELLO with a key: AUTH only, with a proof that verifies */
static int
server_wait_auth(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
		 struct rpmaf__proto_err *err)
{
	int ret;

	if ((ret = server_expect(s, m, RPMAF__PROTO_T_AUTH, RPMAF__PROTO_S_AUTH_REQUIRED, err)) ||
	    (ret = server_version(s, m, err)))
		return ret;
	if ((ret = server_auth(s, m, err)))
		server_fail(s, ret, RPMAF__PROTO_S_AUTH_FAILED);
	return ret;
}

/* see session.h */
int
rpmaf__proto_server_recv(struct rpmaf__proto_server *s, const struct rpmaf__proto_msg *m,
			 struct rpmaf__proto_err *err)
{
	if (s->state == RPMAF__PROTO_SRV_CLOSED)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_STATE, "%s: the session is closed",
					 rpmaf__proto_type_str(m->hdr.type));
	if (m->hdr.type == RPMAF__PROTO_T_ERROR)
		return server_fail(s,
				   rpmaf__proto_fail(err, RPMAF__PROTO_E_PEER,
						     "the client closes the session: ERROR %s",
						     rpmaf__proto_status_str(m->body.error.status)),
				   RPMAF__PROTO_S_OK);
	if (s->state == RPMAF__PROTO_SRV_WAIT_HELLO)
		return server_wait_hello(s, m, err);
	if (s->state == RPMAF__PROTO_SRV_WAIT_AUTH)
		return server_wait_auth(s, m, err);
	return server_ready(s, m, err);
}

/* see session.h */
int
rpmaf__proto_server_hello_reply(const struct rpmaf__proto_server *s,
				const struct rpmaf__proto_params *own, struct rpmaf__proto_msg *out)
{
	struct rpmaf__proto_hello_reply *b = &out->body.hello_reply;

	if (s->version == 0 || s->state == RPMAF__PROTO_SRV_CLOSED)
		return RPMAF__PROTO_E_STATE;
	memset(out, 0, sizeof(*out));
	out->hdr.version = RPMAF__PROTO_VERSION_HELLO;
	out->hdr.type = RPMAF__PROTO_T_HELLO_REPLY;
	out->hdr.req_id = s->req_id;
	b->version = s->version;
	b->flags = s->key ? RPMAF__PROTO_HELLO_AUTH : 0;
	b->max_msg_size = own->max_msg_size;
	b->credits = own->credits;
	b->hb_interval_ms = own->hb_interval_ms;
	b->hb_misses = own->hb_misses;
	memcpy(b->server_nonce, s->server_nonce, RPMAF__PROTO_NONCE_SIZE);
	return 0;
}

/* see session.h */
int
rpmaf__proto_server_auth_reply(const struct rpmaf__proto_server *s, struct rpmaf__proto_msg *out)
{
	struct rpmaf__proto_transcript t = {
	    .version = s->version,
	    .server_nonce = s->server_nonce,
	    .client_nonce = s->client_nonce,
	    .name = s->name,
	    .name_len = s->name_len,
	};

	if (s->key == NULL || s->state != RPMAF__PROTO_SRV_READY)
		return RPMAF__PROTO_E_STATE;
	memset(out, 0, sizeof(*out));
	out->hdr.version = s->version;
	out->hdr.type = RPMAF__PROTO_T_AUTH_REPLY;
	out->hdr.req_id = s->req_id;
	return rpmaf__proto_auth_proof(s->key, RPMAF__PROTO_ROLE_SERVER, &t,
				       out->body.auth_reply.proof);
}

/* ---------------------------------------------------------------- client */

/* see session.h */
int
rpmaf__proto_client_init(struct rpmaf__proto_client *c, const struct rpmaf__proto_key *key,
			 const char *name, const uint8_t nonce[RPMAF__PROTO_NONCE_SIZE],
			 struct rpmaf__proto_err *err)
{
	size_t len;
	int ret;

	if (c == NULL || name == NULL || nonce == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "client: NULL argument");
	len = strnlen(name, RPMAF__PROTO_NAME_MAX + 1);
	if ((ret = rpmaf__proto_name_check(name, len, "client name", err)))
		return ret;
	memset(c, 0, sizeof(*c));
	c->state = RPMAF__PROTO_CLI_START;
	c->key = key;
	memcpy(c->client_nonce, nonce, RPMAF__PROTO_NONCE_SIZE);
	memcpy(c->name, name, len);
	c->name_len = (uint8_t)len;
	return 0;
}

/* see session.h */
int
rpmaf__proto_client_hello(struct rpmaf__proto_client *c, const struct rpmaf__proto_params *own,
			  uint64_t req_id, struct rpmaf__proto_msg *out)
{
	if (c->state != RPMAF__PROTO_CLI_START)
		return RPMAF__PROTO_E_STATE;
	memset(out, 0, sizeof(*out));
	out->hdr.version = RPMAF__PROTO_VERSION_HELLO;
	out->hdr.type = RPMAF__PROTO_T_HELLO;
	out->hdr.req_id = req_id;
	out->body.hello.min_version = RPMAF__PROTO_VERSION_MIN;
	out->body.hello.max_version = RPMAF__PROTO_VERSION_MAX;
	out->body.hello.max_msg_size = own->max_msg_size;
	out->body.hello.credits = own->credits;
	c->req_id = req_id;
	c->state = RPMAF__PROTO_CLI_WAIT_HELLO_REPLY;
	return 0;
}

/* client_transcript -- what both proofs of this client's session bind */
static struct rpmaf__proto_transcript
client_transcript(const struct rpmaf__proto_client *c)
{
	return (struct rpmaf__proto_transcript){
	    .version = c->version,
	    .server_nonce = c->server_nonce,
	    .client_nonce = c->client_nonce,
	    .name = c->name,
	    .name_len = c->name_len,
	};
}

/* see session.h */
int
rpmaf__proto_client_auth(struct rpmaf__proto_client *c, uint64_t req_id,
			 struct rpmaf__proto_msg *out)
{
	struct rpmaf__proto_transcript t = client_transcript(c);
	int ret;

	if (c->state != RPMAF__PROTO_CLI_NEED_AUTH)
		return RPMAF__PROTO_E_STATE;
	memset(out, 0, sizeof(*out));
	out->hdr.version = c->version;
	out->hdr.type = RPMAF__PROTO_T_AUTH;
	out->hdr.req_id = req_id;
	memcpy(out->body.auth.client_nonce, c->client_nonce, RPMAF__PROTO_NONCE_SIZE);
	out->body.auth.name = c->name;
	out->body.auth.name_len = c->name_len;
	if ((ret = rpmaf__proto_auth_proof(c->key, RPMAF__PROTO_ROLE_CLIENT, &t,
					   out->body.auth.proof)))
		return ret;
	c->req_id = req_id;
	c->state = RPMAF__PROTO_CLI_WAIT_AUTH_REPLY;
	return 0;
}

/* client_fail -- close the session for code */
static int
client_fail(struct rpmaf__proto_client *c, int code)
{
	c->state = RPMAF__PROTO_CLI_CLOSED;
	return code;
}

/* client_answers -- m is the reply (of type want) to the client's pending hello or auth */
static int
client_answers(const struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m, unsigned want,
	       struct rpmaf__proto_err *err)
{
	if (m->hdr.type != want)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_STATE, "%s from the server while waiting for %s",
		    rpmaf__proto_type_str(m->hdr.type), rpmaf__proto_type_str(want));
	if (m->hdr.req_id != c->req_id)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_STATE,
					 "%s: header.req_id %llu does not answer request %llu",
					 rpmaf__proto_type_str(want),
					 (unsigned long long)m->hdr.req_id,
					 (unsigned long long)c->req_id);
	return 0;
}

/* client_hello_reply -- the server's choices: a version of ours, the same use of a key */
static int
client_hello_reply(struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m,
		   struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_hello_reply *r = &m->body.hello_reply;
	bool wants_auth = (r->flags & RPMAF__PROTO_HELLO_AUTH) != 0;
	int ret;

	if ((ret = client_answers(c, m, RPMAF__PROTO_T_HELLO_REPLY, err)))
		return ret;
	if (r->version < RPMAF__PROTO_VERSION_MIN || r->version > RPMAF__PROTO_VERSION_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					 "HELLO_REPLY.version: %u, this client speaks %d to %d",
					 (unsigned)r->version, RPMAF__PROTO_VERSION_MIN,
					 RPMAF__PROTO_VERSION_MAX);
	if (wants_auth && c->key == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_AUTH_MODE,
					 "HELLO_REPLY.flags: the server requires authentication "
					 "and this client has no key");
	if (!wants_auth && c->key)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_AUTH_MODE,
					 "HELLO_REPLY.flags: the server does not authenticate "
					 "but this client has a key: the server cannot prove "
					 "who it is");
	c->version = r->version;
	c->peer = *r;
	memcpy(c->server_nonce, r->server_nonce, RPMAF__PROTO_NONCE_SIZE);
	c->state = wants_auth ? RPMAF__PROTO_CLI_NEED_AUTH : RPMAF__PROTO_CLI_READY;
	return 0;
}

/* client_auth_reply -- the server's proof: it holds the key too */
static int
client_auth_reply(struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m,
		  struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_transcript t = client_transcript(c);
	int ret;

	if ((ret = client_answers(c, m, RPMAF__PROTO_T_AUTH_REPLY, err)) ||
	    (ret = rpmaf__proto_auth_verify(c->key, RPMAF__PROTO_ROLE_SERVER, &t,
					    m->body.auth_reply.proof, err)))
		return ret;
	c->state = RPMAF__PROTO_CLI_READY;
	return 0;
}

/* client_check -- the session's version, and a message the client takes now */
static int
client_check(const struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m,
	     struct rpmaf__proto_err *err)
{
	bool hello = c->state == RPMAF__PROTO_CLI_WAIT_HELLO_REPLY;
	uint16_t version = hello ? RPMAF__PROTO_VERSION_HELLO : c->version;

	if (c->state == RPMAF__PROTO_CLI_START || c->state == RPMAF__PROTO_CLI_NEED_AUTH ||
	    c->state == RPMAF__PROTO_CLI_CLOSED)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_STATE, "%s from the server: the client %s",
		    rpmaf__proto_type_str(m->hdr.type),
		    c->state == RPMAF__PROTO_CLI_CLOSED ? "session is closed"
							: "has not sent its request yet");
	if (m->hdr.version != version)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					 "%s: header.version %u, the session's is %u",
					 rpmaf__proto_type_str(m->hdr.type),
					 (unsigned)m->hdr.version, (unsigned)version);
	if (m->hdr.type == RPMAF__PROTO_T_ERROR && c->state != RPMAF__PROTO_CLI_READY)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_PEER,
					 "the server refuses the session: ERROR %s",
					 rpmaf__proto_status_str(m->body.error.status));
	if (c->state == RPMAF__PROTO_CLI_READY && !(Client_ready_types & TYPE_BIT(m->hdr.type)))
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_STATE,
					 "%s from the server: not a message a client takes",
					 rpmaf__proto_type_str(m->hdr.type));
	return 0;
}

/* see session.h */
int
rpmaf__proto_client_recv(struct rpmaf__proto_client *c, const struct rpmaf__proto_msg *m,
			 struct rpmaf__proto_err *err)
{
	int ret = client_check(c, m, err);

	if (ret == 0 && c->state == RPMAF__PROTO_CLI_WAIT_HELLO_REPLY)
		ret = client_hello_reply(c, m, err);
	else if (ret == 0 && c->state == RPMAF__PROTO_CLI_WAIT_AUTH_REPLY)
		ret = client_auth_reply(c, m, err);
	return ret ? client_fail(c, ret) : 0;
}
