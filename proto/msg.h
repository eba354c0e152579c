/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * msg.h -- the messages of the control protocol: a fixed little-endian
 * header followed by a body whose layout depends on the type.
 * doc/PROTOCOL.md describes every field on the wire; this header describes
 * the C side.
 *
 * Decoding allocates nothing and copies nothing but integers and the fixed
 * 32-byte nonces and proofs: the pointers of a decoded message (names,
 * descriptors, payloads, reason, region entries) point into the buffer that
 * was decoded, so a decoded message is valid only as long as that buffer is
 * neither reused nor freed (for a receive buffer: until it is posted again).
 * Names and texts are not NUL-terminated; their length is beside them.
 *
 * Encoding writes the whole message into a caller's buffer after checking
 * every field against the same rules the decoder applies, so what encodes
 * decodes; and the encoding is canonical: a decoded message encodes back to
 * exactly the bytes it came from.
 *
 * ASSUMPTIONS
 * None of these functions keeps state; each is thread-safe as long as the
 * buffers and structs it is given are not written by another thread.
 */

#ifndef RPMAF_PROTO_MSG_H
#define RPMAF_PROTO_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "region.h"
#include "status.h"
#include "wire.h"

/* the first four bytes of every message: "RPFC" */
#define RPMAF__PROTO_MAGIC 0x43465052u

/* the header: magic u32, version u16, type u8, flags u8, body_len u32, credits u32, req_id u64 */
#define RPMAF__PROTO_HDR_SIZE 24

/* the protocol versions this code speaks */
#define RPMAF__PROTO_VERSION_MIN 1
#define RPMAF__PROTO_VERSION_MAX 2
/* the first version with the handler list (HANDLER_LIST_REQ, HANDLER_LIST) */
#define RPMAF__PROTO_VERSION_HANDLERS 2
/* the version in the header of HELLO and HELLO_REPLY, whatever is negotiated */
#define RPMAF__PROTO_VERSION_HELLO 1

/* bounds of a whole message (header included) and of what a HELLO may announce */
#define RPMAF__PROTO_MSG_MIN	     256	/* smallest receive buffer a peer may have */
#define RPMAF__PROTO_MSG_MAX	     (1u << 20) /* largest message, and receive buffer */
#define RPMAF__PROTO_CREDITS_MIN     3		/* see doc/PROTOCOL.md, "Credits" */
#define RPMAF__PROTO_CREDITS_MAX     65536
#define RPMAF__PROTO_HB_INTERVAL_MAX 3600000u /* heartbeat interval, ms */
#define RPMAF__PROTO_HB_MISSES_MIN   1
#define RPMAF__PROTO_HB_MISSES_MAX   1000
#define RPMAF__PROTO_NONCE_SIZE	     32
#define RPMAF__PROTO_PROOF_SIZE	     32

/* message types (u8) */
enum rpmaf__proto_type {
	RPMAF__PROTO_T_HELLO = 1,
	RPMAF__PROTO_T_HELLO_REPLY = 2,
	RPMAF__PROTO_T_AUTH = 3,
	RPMAF__PROTO_T_AUTH_REPLY = 4,
	RPMAF__PROTO_T_REGION_LIST_REQ = 5,
	RPMAF__PROTO_T_REGION_LIST = 6,
	RPMAF__PROTO_T_REGION_LOOKUP_REQ = 7,
	RPMAF__PROTO_T_REGION_LOOKUP_REPLY = 8,
	RPMAF__PROTO_T_ANNOUNCE = 9,
	RPMAF__PROTO_T_PERSIST_REQ = 10,
	RPMAF__PROTO_T_PERSIST_REPLY = 11,
	RPMAF__PROTO_T_APP_REQ = 12,
	RPMAF__PROTO_T_APP_REPLY = 13,
	RPMAF__PROTO_T_HEARTBEAT = 14,
	RPMAF__PROTO_T_HEARTBEAT_REPLY = 15,
	RPMAF__PROTO_T_ERROR = 16,
	RPMAF__PROTO_T_CREDIT = 17,
	RPMAF__PROTO_T_HANDLER_LIST_REQ = 18, /* version 2 on */
	RPMAF__PROTO_T_HANDLER_LIST = 19,     /* version 2 on */
};
#define RPMAF__PROTO_T_MAX RPMAF__PROTO_T_HANDLER_LIST
/* the last type of version 1 */
#define RPMAF__PROTO_T_MAX_V1 RPMAF__PROTO_T_CREDIT

/* the header; the magic is implied */
struct rpmaf__proto_hdr {
	uint16_t version;
	uint8_t type;	   /* enum rpmaf__proto_type */
	uint8_t flags;	   /* none defined: 0 */
	uint32_t body_len; /* filled by the encoder; ignored in what it is given */
	uint32_t credits;  /* receive buffers the sender has freed since it last said */
	uint64_t req_id;   /* set by a requester, echoed by the reply; 0 when unsolicited */
};

/* HELLO, client to server: what the client speaks and can receive */
struct rpmaf__proto_hello {
	uint16_t min_version; /* 1 <= min_version <= max_version */
	uint16_t max_version;
	uint32_t max_msg_size; /* the client's receive buffer: RPMAF__PROTO_MSG_MIN to _MAX */
	uint32_t credits;      /* its receive buffers for this connection: _CREDITS_MIN to _MAX */
};

/* HELLO_REPLY.flags: the client must authenticate before anything else */
#define RPMAF__PROTO_HELLO_AUTH (1u << 0)

/* HELLO_REPLY, server to client */
struct rpmaf__proto_hello_reply {
	uint16_t version; /* the version chosen, within the client's range */
	uint16_t flags;	  /* RPMAF__PROTO_HELLO_* */
	uint32_t max_msg_size;
	uint32_t credits;
	uint32_t hb_interval_ms; /* 0: no heartbeats; at most RPMAF__PROTO_HB_INTERVAL_MAX */
	uint32_t hb_misses;	 /* RPMAF__PROTO_HB_MISSES_MIN to _MAX */
	uint8_t server_nonce[RPMAF__PROTO_NONCE_SIZE];
};

/* AUTH, client to server: the proof that the client holds the key */
struct rpmaf__proto_auth {
	uint8_t client_nonce[RPMAF__PROTO_NONCE_SIZE];
	uint8_t proof[RPMAF__PROTO_PROOF_SIZE];
	const char *name; /* the client's name (a name, see wire.h) */
	uint8_t name_len;
};

/* AUTH_REPLY, server to client: the proof that the server holds the key too */
struct rpmaf__proto_auth_reply {
	uint8_t proof[RPMAF__PROTO_PROOF_SIZE];
};

/* REGION_LIST_REQ: a page of the region list from index start */
struct rpmaf__proto_list_req {
	uint32_t start;
	uint32_t max_entries; /* 0: as many as fit one message */
};

/*
 * REGION_LIST: one page of the server's region table, entries start to
 * start + count - 1 of total. The entries stay encoded: walk them with
 * rpmaf__proto_list_next() (list.h).
 */
struct rpmaf__proto_region_list {
	uint64_t table_generation; /* of the table the page was taken from */
	uint32_t total;		   /* entries in the table, at most RPMAF__PROTO_REGIONS_MAX */
	uint32_t start;		   /* index of the first entry of the page */
	uint32_t count;		   /* entries in the page; start + count <= total */
	const uint8_t *entries;	   /* the encoded entries */
	size_t entries_len;
};

/* REGION_LOOKUP_REQ: a region by name */
struct rpmaf__proto_lookup_req {
	const char *name;
	uint8_t name_len;
};

/* REGION_LOOKUP_REPLY: the region when status is OK; no entry otherwise */
struct rpmaf__proto_lookup_reply {
	uint32_t status; /* enum rpmaf__proto_status */
	struct rpmaf__proto_region region;
};

/* ANNOUNCE.event */
enum rpmaf__proto_event {
	RPMAF__PROTO_EV_ADDED = 1,
	RPMAF__PROTO_EV_REMOVED = 2, /* the entry carries no descriptor */
	RPMAF__PROTO_EV_CHANGED = 3, /* resized or registered again: a new descriptor */
};
#define RPMAF__PROTO_EV_MAX RPMAF__PROTO_EV_CHANGED

/* ANNOUNCE, server to client, unsolicited (req_id 0) */
struct rpmaf__proto_announce {
	uint64_t table_generation; /* of the server's region table after the change */
	uint32_t event;		   /* enum rpmaf__proto_event */
	struct rpmaf__proto_region region;
};

/* PERSIST_REQ: persist [offset, offset + length) of the region (GPSPM) */
struct rpmaf__proto_persist_req {
	uint64_t offset;
	uint64_t length;     /* > 0; offset + length does not wrap */
	uint64_t generation; /* of the region as the client knows it */
	const char *name;
	uint8_t name_len;
};

/* PERSIST_REPLY, and any reply that is only a status */
struct rpmaf__proto_status_reply {
	uint32_t status;
};

/* APP_REQ: a request for the application handler handler_id */
struct rpmaf__proto_app_req {
	uint32_t handler_id;
	const uint8_t *payload; /* the rest of the message; may be NULL when payload_len is 0 */
	size_t payload_len;
};

/* APP_REPLY */
struct rpmaf__proto_app_reply {
	uint32_t status; /* OK: the handler ran; NO_HANDLER, APP_FAILED, BUSY, ... */
	uint32_t handler_id;
	const uint8_t *payload;
	size_t payload_len;
};

/* where the payload of APP_REQ and APP_REPLY starts: a caller may build it in place */
#define RPMAF__PROTO_APP_REQ_PAYLOAD_OFF   (RPMAF__PROTO_HDR_SIZE + 4)
#define RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF (RPMAF__PROTO_HDR_SIZE + 8)

/* HANDLER_LIST_REQ: a page of the list of handlers with flags, from index start */
struct rpmaf__proto_handler_list_req {
	uint32_t start;
};

/* a flag of a HANDLER_LIST entry: running a request twice does what running it once does */
#define RPMAF__PROTO_HANDLER_IDEMPOTENT (1u << 0)
#define RPMAF__PROTO_HANDLER_FLAGS	RPMAF__PROTO_HANDLER_IDEMPOTENT /* every flag defined */
/* bytes of one entry: handler_id u32, flags u32 */
#define RPMAF__PROTO_HANDLER_ENTRY 8
/* the most handlers a list may hold */
#define RPMAF__PROTO_HANDLERS_MAX 65536u
/* where the entries of a HANDLER_LIST start in the message: a builder may fill them in place */
#define RPMAF__PROTO_HANDLER_LIST_ENTRIES_OFF (RPMAF__PROTO_HDR_SIZE + 12)

/*
 * HANDLER_LIST: one page of the server's handlers that have a flag (the
 * others are not listed), in increasing handler_id order, entries start
 * to start + count - 1 of total. The entries stay encoded: read them with
 * rpmaf__proto_handler_entry().
 */
struct rpmaf__proto_handler_list {
	uint32_t total; /* handlers listed, at most RPMAF__PROTO_HANDLERS_MAX */
	uint32_t start;
	uint32_t count;
	const uint8_t *entries; /* count entries of RPMAF__PROTO_HANDLER_ENTRY bytes */
	size_t entries_len;
};

/* HEARTBEAT and HEARTBEAT_REPLY: the reply echoes the value */
struct rpmaf__proto_heartbeat_msg {
	uint64_t echo;
};

/* ERROR: a failure status and a short reason */
struct rpmaf__proto_error {
	uint32_t status; /* not OK */
	const char *reason;
	uint8_t reason_len; /* at most RPMAF__PROTO_REASON_MAX, printable ASCII */
};

/* a message: the header and the body of hdr.type (CREDIT has no body) */
struct rpmaf__proto_msg {
	struct rpmaf__proto_hdr hdr;
	union {
		struct rpmaf__proto_hello hello;
		struct rpmaf__proto_hello_reply hello_reply;
		struct rpmaf__proto_auth auth;
		struct rpmaf__proto_auth_reply auth_reply;
		struct rpmaf__proto_list_req list_req;
		struct rpmaf__proto_region_list list;
		struct rpmaf__proto_lookup_req lookup_req;
		struct rpmaf__proto_lookup_reply lookup_reply;
		struct rpmaf__proto_announce announce;
		struct rpmaf__proto_persist_req persist_req;
		struct rpmaf__proto_status_reply persist_reply;
		struct rpmaf__proto_app_req app_req;
		struct rpmaf__proto_app_reply app_reply;
		struct rpmaf__proto_heartbeat_msg heartbeat; /* HEARTBEAT and HEARTBEAT_REPLY */
		struct rpmaf__proto_error error;
		struct rpmaf__proto_handler_list_req handler_list_req;
		struct rpmaf__proto_handler_list handler_list;
	} body;
};

/*
 * rpmaf__proto_handler_entry -- entry i (below count) of a handler list
 * page: its handler's id and flags. Thread-safe.
 */
void rpmaf__proto_handler_entry(const struct rpmaf__proto_handler_list *l, uint32_t i, uint32_t *id,
				uint32_t *flags);

/*
 * rpmaf__proto_handler_entry_put -- write the entry of handler id with
 * flags at p (RPMAF__PROTO_HANDLER_ENTRY bytes). Thread-safe.
 */
void rpmaf__proto_handler_entry_put(uint8_t *p, uint32_t id, uint32_t flags);

/*
 * rpmaf__proto_hdr_decode -- decode and check the header of the len bytes
 * at buf: the magic, a known version and a type of that version, no flags, and a body that
 * fills the rest of the bytes exactly and keeps the whole message within
 * RPMAF__PROTO_MSG_MAX.
 *
 * RETURN VALUE
 * 0 with *hdr filled; otherwise, with the message in err (may be NULL):
 * - RPMAF__PROTO_E_INVAL      buf or hdr is NULL
 * - RPMAF__PROTO_E_TRUNCATED  fewer bytes than a header, or than the body needs
 * - RPMAF__PROTO_E_MAGIC, _VERSION, _TYPE   as named
 * - RPMAF__PROTO_E_RANGE      flags not 0
 * - RPMAF__PROTO_E_TOO_BIG    a body length beyond RPMAF__PROTO_MSG_MAX
 * - RPMAF__PROTO_E_TRAILING   bytes after the body (so also len beyond RPMAF__PROTO_MSG_MAX)
 */
int rpmaf__proto_hdr_decode(const void *buf, size_t len, struct rpmaf__proto_hdr *hdr,
			    struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_msg_decode -- decode and check the whole message of the len
 * bytes at buf into *msg, whose pointers then point into buf.
 *
 * RETURN VALUE
 * 0; or what rpmaf__proto_hdr_decode() returns, or for the body:
 * - RPMAF__PROTO_E_TRUNCATED  a field, or an entry the count promises, is missing
 * - RPMAF__PROTO_E_TRAILING   bytes after the body's last field
 * - RPMAF__PROTO_E_RANGE      an enum, flag, count, size or header field out of range
 * - RPMAF__PROTO_E_STRING     a name or reason empty (names) or with a forbidden byte
 * - RPMAF__PROTO_E_TOO_BIG    a name, descriptor or reason longer than its bound
 * - RPMAF__PROTO_E_VERSION    HELLO_REPLY.version not one this side speaks, or a
 *                             HELLO or HELLO_REPLY not in the hello version
 * On failure *msg holds whatever was decoded before the error; do not use it.
 */
int rpmaf__proto_msg_decode(const void *buf, size_t len, struct rpmaf__proto_msg *msg,
			    struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_msg_encode -- encode msg (msg->hdr.body_len is ignored)
 * into the size bytes at buf. The payload of APP_REQ and APP_REPLY may
 * already be in place at RPMAF__PROTO_APP_*_PAYLOAD_OFF of buf (the body's
 * other pointers must not point into buf).
 *
 * RETURN VALUE
 * The message's length; or, with the message in err:
 * - RPMAF__PROTO_E_INVAL    buf or msg NULL, a NULL pointer with a non-zero length
 * - RPMAF__PROTO_E_NOSPC    the message is longer than size
 * - RPMAF__PROTO_E_TOO_BIG  the message is longer than RPMAF__PROTO_MSG_MAX
 * - any code of rpmaf__proto_msg_decode() for a field the decoder would refuse
 * buf may be partly written on failure.
 */
int rpmaf__proto_msg_encode(void *buf, size_t size, const struct rpmaf__proto_msg *msg,
			    struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_hdr_check -- the rules of a header about to be encoded: a
 * version this side speaks, a type of that version, no flags, the hello version in
 * HELLO and HELLO_REPLY, req_id 0 in ANNOUNCE and CREDIT, credits in CREDIT.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_VERSION, _TYPE or _RANGE.
 */
int rpmaf__proto_hdr_check(const struct rpmaf__proto_hdr *hdr, struct rpmaf__proto_err *err);

/*
 * rpmaf__proto_hdr_write -- the header hdr with body_len written by w (the
 * region list builder's first step; msg_encode uses it too).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_NOSPC.
 */
int rpmaf__proto_hdr_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_hdr *hdr,
			   uint32_t body_len);

/*
 * rpmaf__proto_type_str -- the name of a message type ("HELLO"), "?" for
 * an unknown one. Thread-safe.
 */
const char *rpmaf__proto_type_str(unsigned type);

#endif /* RPMAF_PROTO_MSG_H */
