/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * msg.c -- the header and the per-type body codec. Each type has a reader
 * (bytes to struct), a checker (the rules of its fields, shared by the
 * decoder and the encoder, so that whatever encodes also decodes) and a
 * writer (struct to bytes). Every field of a body is stored in the struct
 * and no field has a "don't care" value, which makes the encoding
 * canonical.
 */

#include <stdio.h>
#include <string.h>

#include "msg.h"

/* one message type's body codec */
struct body_codec {
	const char *name;
	int (*read)(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m);
	int (*check)(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err);
	int (*write)(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m);
};

static const struct body_codec *codec_of(unsigned type);

/* check_range -- v of field within [lo, hi] */
static int
check_range(uint64_t v, uint64_t lo, uint64_t hi, const char *field, struct rpmaf__proto_err *err)
{
	if (v >= lo && v <= hi)
		return 0;
	return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE, "%s: %llu (%llu to %llu)", field,
				 (unsigned long long)v, (unsigned long long)lo,
				 (unsigned long long)hi);
}

/* check_name -- a name field: not NULL, then the rules of a name */
static int
check_name(const char *name, uint8_t len, const char *field, struct rpmaf__proto_err *err)
{
	if (name == NULL && len)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "%s: NULL", field);
	return rpmaf__proto_name_check(name, len, field, err);
}

/* read_name -- a u8 length then that many bytes of a name (checked later) */
static int
read_name(struct rpmaf__proto_rd *r, const char *len_field, const char *field, const char **name,
	  uint8_t *len)
{
	const uint8_t *p;
	int ret;

	if ((ret = rpmaf__proto_rd_u8(r, len_field, len)))
		return ret;
	if (*len > RPMAF__PROTO_NAME_MAX)
		return rpmaf__proto_fail(r->err, RPMAF__PROTO_E_TOO_BIG,
					 "%s: %u bytes long (a name of 1 to %d bytes)", field,
					 (unsigned)*len, RPMAF__PROTO_NAME_MAX);
	if ((ret = rpmaf__proto_rd_bytes(r, field, *len, &p)))
		return ret;
	*name = (const char *)p;
	return 0;
}

/* write_name -- a u8 length then the name */
static int
write_name(struct rpmaf__proto_wr *w, const char *name, uint8_t len)
{
	int ret = rpmaf__proto_wr_u8(w, len);

	return ret ? ret : rpmaf__proto_wr_bytes(w, name, len);
}

/* ---------------------------------------------------------------- HELLO */

/* hello_read -- min_version u16, max_version u16, max_msg_size u32, credits u32 */
static int
hello_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_hello *b = &m->body.hello;
	int ret;

	if ((ret = rpmaf__proto_rd_u16(r, "HELLO.min_version", &b->min_version)) ||
	    (ret = rpmaf__proto_rd_u16(r, "HELLO.max_version", &b->max_version)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HELLO.max_msg_size", &b->max_msg_size)))
		return ret;
	return rpmaf__proto_rd_u32(r, "HELLO.credits", &b->credits);
}

/* hello_check -- a version range, a receive buffer size and a credit count within bounds */
static int
hello_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_hello *b = &m->body.hello;
	int ret;

	if ((ret = check_range(b->min_version, 1, UINT16_MAX, "HELLO.min_version", err)))
		return ret;
	if (b->max_version < b->min_version)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "HELLO.max_version: %u is below min_version %u",
					 (unsigned)b->max_version, (unsigned)b->min_version);
	if ((ret = check_range(b->max_msg_size, RPMAF__PROTO_MSG_MIN, RPMAF__PROTO_MSG_MAX,
			       "HELLO.max_msg_size", err)))
		return ret;
	return check_range(b->credits, RPMAF__PROTO_CREDITS_MIN, RPMAF__PROTO_CREDITS_MAX,
			   "HELLO.credits", err);
}

/* hello_write -- see hello_read */
static int
hello_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_hello *b = &m->body.hello;
	int ret;

	if ((ret = rpmaf__proto_wr_u16(w, b->min_version)) ||
	    (ret = rpmaf__proto_wr_u16(w, b->max_version)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->max_msg_size)))
		return ret;
	return rpmaf__proto_wr_u32(w, b->credits);
}

/* ---------------------------------------------------------------- HELLO_REPLY */

/* hello_reply_read -- version u16, flags u16, max_msg_size, credits, hb_interval_ms, hb_misses
 * (u32 each), server_nonce[32] */
static int
hello_reply_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_hello_reply *b = &m->body.hello_reply;
	const uint8_t *nonce;
	int ret;

	if ((ret = rpmaf__proto_rd_u16(r, "HELLO_REPLY.version", &b->version)) ||
	    (ret = rpmaf__proto_rd_u16(r, "HELLO_REPLY.flags", &b->flags)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HELLO_REPLY.max_msg_size", &b->max_msg_size)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HELLO_REPLY.credits", &b->credits)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HELLO_REPLY.hb_interval_ms", &b->hb_interval_ms)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HELLO_REPLY.hb_misses", &b->hb_misses)) ||
	    (ret = rpmaf__proto_rd_bytes(r, "HELLO_REPLY.server_nonce", RPMAF__PROTO_NONCE_SIZE,
					 &nonce)))
		return ret;
	memcpy(b->server_nonce, nonce, RPMAF__PROTO_NONCE_SIZE);
	return 0;
}

/* hello_reply_check -- a version this side speaks, known flags, sizes within bounds */
static int
hello_reply_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_hello_reply *b = &m->body.hello_reply;
	int ret;

	if (b->version < RPMAF__PROTO_VERSION_MIN || b->version > RPMAF__PROTO_VERSION_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					 "HELLO_REPLY.version: %u (this side speaks %d to %d)",
					 (unsigned)b->version, RPMAF__PROTO_VERSION_MIN,
					 RPMAF__PROTO_VERSION_MAX);
	if (b->flags & ~RPMAF__PROTO_HELLO_AUTH)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "HELLO_REPLY.flags: 0x%04x (only 0x0001 auth is defined)",
					 (unsigned)b->flags);
	if ((ret = check_range(b->max_msg_size, RPMAF__PROTO_MSG_MIN, RPMAF__PROTO_MSG_MAX,
			       "HELLO_REPLY.max_msg_size", err)) ||
	    (ret = check_range(b->credits, RPMAF__PROTO_CREDITS_MIN, RPMAF__PROTO_CREDITS_MAX,
			       "HELLO_REPLY.credits", err)) ||
	    (ret = check_range(b->hb_interval_ms, 0, RPMAF__PROTO_HB_INTERVAL_MAX,
			       "HELLO_REPLY.hb_interval_ms", err)))
		return ret;
	return check_range(b->hb_misses, RPMAF__PROTO_HB_MISSES_MIN, RPMAF__PROTO_HB_MISSES_MAX,
			   "HELLO_REPLY.hb_misses", err);
}

/* hello_reply_write -- see hello_reply_read */
static int
hello_reply_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_hello_reply *b = &m->body.hello_reply;
	int ret;

	if ((ret = rpmaf__proto_wr_u16(w, b->version)) ||
	    (ret = rpmaf__proto_wr_u16(w, b->flags)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->max_msg_size)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->credits)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->hb_interval_ms)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->hb_misses)))
		return ret;
	return rpmaf__proto_wr_bytes(w, b->server_nonce, RPMAF__PROTO_NONCE_SIZE);
}

/* ---------------------------------------------------------------- AUTH, AUTH_REPLY */

/* auth_read -- client_nonce[32], proof[32], name_len u8, name */
static int
auth_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_auth *b = &m->body.auth;
	const uint8_t *nonce, *proof;
	int ret;

	if ((ret =
		 rpmaf__proto_rd_bytes(r, "AUTH.client_nonce", RPMAF__PROTO_NONCE_SIZE, &nonce)) ||
	    (ret = rpmaf__proto_rd_bytes(r, "AUTH.proof", RPMAF__PROTO_PROOF_SIZE, &proof)))
		return ret;
	memcpy(b->client_nonce, nonce, RPMAF__PROTO_NONCE_SIZE);
	memcpy(b->proof, proof, RPMAF__PROTO_PROOF_SIZE);
	return read_name(r, "AUTH.name_len", "AUTH.name", &b->name, &b->name_len);
}

/* auth_check -- the client's name is a name */
static int
auth_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	return check_name(m->body.auth.name, m->body.auth.name_len, "AUTH.name", err);
}

/* auth_write -- see auth_read */
static int
auth_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_auth *b = &m->body.auth;
	int ret;

	if ((ret = rpmaf__proto_wr_bytes(w, b->client_nonce, RPMAF__PROTO_NONCE_SIZE)) ||
	    (ret = rpmaf__proto_wr_bytes(w, b->proof, RPMAF__PROTO_PROOF_SIZE)))
		return ret;
	return write_name(w, b->name, b->name_len);
}

/* auth_reply_read -- proof[32] */
static int
auth_reply_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	const uint8_t *proof;
	int ret = rpmaf__proto_rd_bytes(r, "AUTH_REPLY.proof", RPMAF__PROTO_PROOF_SIZE, &proof);

	if (ret == 0)
		memcpy(m->body.auth_reply.proof, proof, RPMAF__PROTO_PROOF_SIZE);
	return ret;
}

/* auth_reply_write -- see auth_reply_read */
static int
auth_reply_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_wr_bytes(w, m->body.auth_reply.proof, RPMAF__PROTO_PROOF_SIZE);
}

/* ---------------------------------------------------------------- REGION_LIST_REQ */

/* list_req_read -- start u32, max_entries u32 */
static int
list_req_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	int ret = rpmaf__proto_rd_u32(r, "REGION_LIST_REQ.start", &m->body.list_req.start);

	return ret ? ret
		   : rpmaf__proto_rd_u32(r, "REGION_LIST_REQ.max_entries",
					 &m->body.list_req.max_entries);
}

/* list_req_check -- start and max_entries within the largest table */
static int
list_req_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	int ret = check_range(m->body.list_req.start, 0, RPMAF__PROTO_REGIONS_MAX,
			      "REGION_LIST_REQ.start", err);

	return ret ? ret
		   : check_range(m->body.list_req.max_entries, 0, RPMAF__PROTO_REGIONS_MAX,
				 "REGION_LIST_REQ.max_entries", err);
}

/* list_req_write -- see list_req_read */
static int
list_req_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	int ret = rpmaf__proto_wr_u32(w, m->body.list_req.start);

	return ret ? ret : rpmaf__proto_wr_u32(w, m->body.list_req.max_entries);
}

/* ---------------------------------------------------------------- REGION_LIST */

/*
 * list_entry_read -- entry i at r's cursor; the entry's field name is only
 * formatted when it is at fault (by reading the entry again)
 */
static int
list_entry_read(struct rpmaf__proto_rd *r, uint32_t i, struct rpmaf__proto_region *reg)
{
	struct rpmaf__proto_err *err = r->err;
	size_t at = r->off;
	char field[48];
	int ret;

	r->err = NULL;
	ret = rpmaf__proto_region_read(r, false, "REGION_LIST.entries[]", reg);
	r->err = err;
	if (ret == 0)
		return 0;
	r->off = at;
	snprintf(field, sizeof(field), "REGION_LIST.entries[%u]", (unsigned)i);
	return rpmaf__proto_region_read(r, false, field, reg);
}

/* list_entries_walk -- len bytes at p are exactly count valid entries */
static int
list_entries_walk(const uint8_t *p, size_t len, uint32_t count, struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_rd r = {.p = p, .len = len, .err = err};
	struct rpmaf__proto_region reg;
	int ret;

	if (p == NULL && len)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "REGION_LIST.entries: NULL");
	for (uint32_t i = 0; i < count; i++)
		if ((ret = list_entry_read(&r, i, &reg)))
			return ret;
	return rpmaf__proto_rd_end(&r, "REGION_LIST.entries");
}

/* list_read -- table_generation u64, total u32, start u32, count u32, count entries */
static int
list_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_region_list *b = &m->body.list;
	int ret;

	if ((ret = rpmaf__proto_rd_u64(r, "REGION_LIST.table_generation", &b->table_generation)) ||
	    (ret = rpmaf__proto_rd_u32(r, "REGION_LIST.total", &b->total)) ||
	    (ret = rpmaf__proto_rd_u32(r, "REGION_LIST.start", &b->start)) ||
	    (ret = rpmaf__proto_rd_u32(r, "REGION_LIST.count", &b->count)))
		return ret;
	b->entries_len = r->len - r->off;
	return rpmaf__proto_rd_bytes(r, "REGION_LIST.entries", b->entries_len, &b->entries);
}

/* list_check -- a page within the table, never empty before its end, of valid entries */
static int
list_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_region_list *b = &m->body.list;
	int ret;

	if ((ret = check_range(b->total, 0, RPMAF__PROTO_REGIONS_MAX, "REGION_LIST.total", err)) ||
	    (ret = check_range(b->start, 0, b->total, "REGION_LIST.start", err)) ||
	    (ret = check_range(b->count, 0, b->total - b->start, "REGION_LIST.count", err)))
		return ret;
	if (b->count == 0 && b->start < b->total)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "REGION_LIST.count: 0 while entries %u to %u are left",
					 (unsigned)b->start, (unsigned)b->total - 1);
	return list_entries_walk(b->entries, b->entries_len, b->count, err);
}

/* list_write -- see list_read; the entries were checked, they are copied */
static int
list_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_region_list *b = &m->body.list;
	int ret;

	if ((ret = rpmaf__proto_wr_u64(w, b->table_generation)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->total)) || (ret = rpmaf__proto_wr_u32(w, b->start)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->count)))
		return ret;
	return rpmaf__proto_wr_bytes(w, b->entries, b->entries_len);
}

/* ---------------------------------------------------------------- REGION_LOOKUP_REQ/_REPLY */

/* lookup_req_read -- name_len u8, name */
static int
lookup_req_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	return read_name(r, "REGION_LOOKUP_REQ.name_len", "REGION_LOOKUP_REQ.name",
			 &m->body.lookup_req.name, &m->body.lookup_req.name_len);
}

/* lookup_req_check -- the name is a name */
static int
lookup_req_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	return check_name(m->body.lookup_req.name, m->body.lookup_req.name_len,
			  "REGION_LOOKUP_REQ.name", err);
}

/* lookup_req_write -- see lookup_req_read */
static int
lookup_req_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	return write_name(w, m->body.lookup_req.name, m->body.lookup_req.name_len);
}

/* lookup_reply_read -- status u32, then the entry when status is OK */
static int
lookup_reply_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_lookup_reply *b = &m->body.lookup_reply;
	int ret = rpmaf__proto_rd_u32(r, "REGION_LOOKUP_REPLY.status", &b->status);

	if (ret || b->status != RPMAF__PROTO_S_OK)
		return ret;
	return rpmaf__proto_region_read(r, false, "REGION_LOOKUP_REPLY.region", &b->region);
}

/* lookup_reply_check -- a known status; a valid entry with OK */
static int
lookup_reply_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_lookup_reply *b = &m->body.lookup_reply;
	int ret = check_range(b->status, 0, RPMAF__PROTO_S_MAX, "REGION_LOOKUP_REPLY.status", err);

	if (ret || b->status != RPMAF__PROTO_S_OK)
		return ret;
	return rpmaf__proto_region_check(&b->region, false, "REGION_LOOKUP_REPLY.region", err);
}

/* lookup_reply_write -- see lookup_reply_read */
static int
lookup_reply_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_lookup_reply *b = &m->body.lookup_reply;
	int ret = rpmaf__proto_wr_u32(w, b->status);

	if (ret || b->status != RPMAF__PROTO_S_OK)
		return ret;
	return rpmaf__proto_region_write(w, &b->region);
}

/* ---------------------------------------------------------------- ANNOUNCE */

/* announce_read -- table_generation u64, event u32, entry (no descriptor for a removal) */
static int
announce_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_announce *b = &m->body.announce;
	int ret;

	if ((ret = rpmaf__proto_rd_u64(r, "ANNOUNCE.table_generation", &b->table_generation)) ||
	    (ret = rpmaf__proto_rd_u32(r, "ANNOUNCE.event", &b->event)) ||
	    (ret = check_range(b->event, 1, RPMAF__PROTO_EV_MAX, "ANNOUNCE.event", r->err)))
		return ret;
	return rpmaf__proto_region_read(r, b->event == RPMAF__PROTO_EV_REMOVED, "ANNOUNCE.region",
					&b->region);
}

/* announce_check -- a known event and a valid entry */
static int
announce_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_announce *b = &m->body.announce;
	int ret = check_range(b->event, 1, RPMAF__PROTO_EV_MAX, "ANNOUNCE.event", err);

	if (ret)
		return ret;
	return rpmaf__proto_region_check(&b->region, b->event == RPMAF__PROTO_EV_REMOVED,
					 "ANNOUNCE.region", err);
}

/* announce_write -- see announce_read */
static int
announce_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_announce *b = &m->body.announce;
	int ret;

	if ((ret = rpmaf__proto_wr_u64(w, b->table_generation)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->event)))
		return ret;
	return rpmaf__proto_region_write(w, &b->region);
}

/* ---------------------------------------------------------------- PERSIST_REQ/_REPLY */

/* persist_req_read -- offset u64, length u64, generation u64, name_len u8, name */
static int
persist_req_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_persist_req *b = &m->body.persist_req;
	int ret;

	if ((ret = rpmaf__proto_rd_u64(r, "PERSIST_REQ.offset", &b->offset)) ||
	    (ret = rpmaf__proto_rd_u64(r, "PERSIST_REQ.length", &b->length)) ||
	    (ret = rpmaf__proto_rd_u64(r, "PERSIST_REQ.generation", &b->generation)))
		return ret;
	return read_name(r, "PERSIST_REQ.name_len", "PERSIST_REQ.name", &b->name, &b->name_len);
}

/* persist_req_check -- a non-empty range that does not wrap, and a name */
static int
persist_req_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_persist_req *b = &m->body.persist_req;

	if (b->length == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "PERSIST_REQ.length: 0 (at least 1)");
	if (b->offset + b->length < b->offset)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_RANGE,
		    "PERSIST_REQ.length: offset %llu + length %llu wraps around",
		    (unsigned long long)b->offset, (unsigned long long)b->length);
	return check_name(b->name, b->name_len, "PERSIST_REQ.name", err);
}

/* persist_req_write -- see persist_req_read */
static int
persist_req_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_persist_req *b = &m->body.persist_req;
	int ret;

	if ((ret = rpmaf__proto_wr_u64(w, b->offset)) ||
	    (ret = rpmaf__proto_wr_u64(w, b->length)) ||
	    (ret = rpmaf__proto_wr_u64(w, b->generation)))
		return ret;
	return write_name(w, b->name, b->name_len);
}

/* persist_reply_read -- status u32 */
static int
persist_reply_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_rd_u32(r, "PERSIST_REPLY.status", &m->body.persist_reply.status);
}

/* persist_reply_check -- a known status */
static int
persist_reply_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	return check_range(m->body.persist_reply.status, 0, RPMAF__PROTO_S_MAX,
			   "PERSIST_REPLY.status", err);
}

/* persist_reply_write -- see persist_reply_read */
static int
persist_reply_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_wr_u32(w, m->body.persist_reply.status);
}

/* ---------------------------------------------------------------- APP_REQ/_REPLY */

/* read_payload -- the rest of the body */
static int
read_payload(struct rpmaf__proto_rd *r, const char *field, const uint8_t **p, size_t *len)
{
	*len = r->len - r->off;
	return rpmaf__proto_rd_bytes(r, field, *len, p);
}

/* check_payload -- not NULL when not empty */
static int
check_payload(const uint8_t *p, size_t len, const char *field, struct rpmaf__proto_err *err)
{
	if (p == NULL && len)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "%s: NULL", field);
	if (len > RPMAF__PROTO_MSG_MAX)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TOO_BIG, "%s: %zu bytes (at most %u)",
					 field, len, RPMAF__PROTO_MSG_MAX);
	return 0;
}

/* app_req_read -- handler_id u32, payload */
static int
app_req_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_app_req *b = &m->body.app_req;
	int ret = rpmaf__proto_rd_u32(r, "APP_REQ.handler_id", &b->handler_id);

	return ret ? ret : read_payload(r, "APP_REQ.payload", &b->payload, &b->payload_len);
}

/* app_req_check -- a payload that is there */
static int
app_req_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	return check_payload(m->body.app_req.payload, m->body.app_req.payload_len,
			     "APP_REQ.payload", err);
}

/* app_req_write -- see app_req_read */
static int
app_req_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_app_req *b = &m->body.app_req;
	int ret = rpmaf__proto_wr_u32(w, b->handler_id);

	return ret ? ret : rpmaf__proto_wr_bytes(w, b->payload, b->payload_len);
}

/* app_reply_read -- status u32, handler_id u32, payload */
static int
app_reply_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_app_reply *b = &m->body.app_reply;
	int ret;

	if ((ret = rpmaf__proto_rd_u32(r, "APP_REPLY.status", &b->status)) ||
	    (ret = rpmaf__proto_rd_u32(r, "APP_REPLY.handler_id", &b->handler_id)))
		return ret;
	return read_payload(r, "APP_REPLY.payload", &b->payload, &b->payload_len);
}

/* app_reply_check -- a known status and a payload that is there */
static int
app_reply_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_app_reply *b = &m->body.app_reply;
	int ret = check_range(b->status, 0, RPMAF__PROTO_S_MAX, "APP_REPLY.status", err);

	return ret ? ret : check_payload(b->payload, b->payload_len, "APP_REPLY.payload", err);
}

/* app_reply_write -- see app_reply_read */
static int
app_reply_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_app_reply *b = &m->body.app_reply;
	int ret;

	if ((ret = rpmaf__proto_wr_u32(w, b->status)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->handler_id)))
		return ret;
	return rpmaf__proto_wr_bytes(w, b->payload, b->payload_len);
}

/* ---------------------------------------------------------------- HEARTBEAT, ERROR, CREDIT */

/* heartbeat_read -- echo u64 (HEARTBEAT and HEARTBEAT_REPLY) */
static int
heartbeat_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_rd_u64(r, "HEARTBEAT.echo", &m->body.heartbeat.echo);
}

/* heartbeat_write -- see heartbeat_read */
static int
heartbeat_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_wr_u64(w, m->body.heartbeat.echo);
}

/* error_read -- status u32, reason_len u8, reason */
static int
error_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_error *b = &m->body.error;
	const uint8_t *reason;
	int ret;

	if ((ret = rpmaf__proto_rd_u32(r, "ERROR.status", &b->status)) ||
	    (ret = rpmaf__proto_rd_u8(r, "ERROR.reason_len", &b->reason_len)))
		return ret;
	if (b->reason_len > RPMAF__PROTO_REASON_MAX)
		return rpmaf__proto_fail(r->err, RPMAF__PROTO_E_TOO_BIG,
					 "ERROR.reason: %u bytes long (at most %d)",
					 (unsigned)b->reason_len, RPMAF__PROTO_REASON_MAX);
	if ((ret = rpmaf__proto_rd_bytes(r, "ERROR.reason", b->reason_len, &reason)))
		return ret;
	b->reason = (const char *)reason;
	return 0;
}

/* error_check -- a failure status and a printable reason */
static int
error_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_error *b = &m->body.error;
	int ret = check_range(b->status, 1, RPMAF__PROTO_S_MAX, "ERROR.status", err);

	if (ret)
		return ret;
	if (b->reason == NULL && b->reason_len)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "ERROR.reason: NULL");
	return rpmaf__proto_text_check(b->reason, b->reason_len, RPMAF__PROTO_REASON_MAX,
				       "ERROR.reason", err);
}

/* error_write -- see error_read */
static int
error_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_error *b = &m->body.error;
	int ret;

	if ((ret = rpmaf__proto_wr_u32(w, b->status)) ||
	    (ret = rpmaf__proto_wr_u8(w, b->reason_len)))
		return ret;
	return rpmaf__proto_wr_bytes(w, b->reason, b->reason_len);
}

/* empty_read -- a body of no field (CREDIT) */
static int
empty_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	(void)r;
	(void)m;
	return 0;
}

/* no_check -- a body with no rule beyond its layout */
static int
no_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	(void)m;
	(void)err;
	return 0;
}

/* empty_write -- see empty_read */
static int
empty_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	(void)w;
	(void)m;
	return 0;
}

/* ---------------------------------------------------------------- HANDLER_LIST_REQ/_LIST */

/* handler_list_req_read -- start u32 */
static int
handler_list_req_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_rd_u32(r, "HANDLER_LIST_REQ.start", &m->body.handler_list_req.start);
}

/* handler_list_req_check -- a start within the largest list */
static int
handler_list_req_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	return check_range(m->body.handler_list_req.start, 0, RPMAF__PROTO_HANDLERS_MAX,
			   "HANDLER_LIST_REQ.start", err);
}

/* handler_list_req_write -- see handler_list_req_read */
static int
handler_list_req_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	return rpmaf__proto_wr_u32(w, m->body.handler_list_req.start);
}

/* get_u32le -- a little-endian u32 at p */
static uint32_t
get_u32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* see msg.h */
void
rpmaf__proto_handler_entry(const struct rpmaf__proto_handler_list *l, uint32_t i, uint32_t *id,
			   uint32_t *flags)
{
	const uint8_t *p = l->entries + (size_t)i * RPMAF__PROTO_HANDLER_ENTRY;

	*id = get_u32le(p);
	*flags = get_u32le(p + 4);
}

/* see msg.h */
void
rpmaf__proto_handler_entry_put(uint8_t *p, uint32_t id, uint32_t flags)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(id >> (8 * i));
		p[4 + i] = (uint8_t)(flags >> (8 * i));
	}
}

/* handler_list_read -- total u32, start u32, count u32, count entries (id u32, flags u32) */
static int
handler_list_read(struct rpmaf__proto_rd *r, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_handler_list *b = &m->body.handler_list;
	int ret;

	if ((ret = rpmaf__proto_rd_u32(r, "HANDLER_LIST.total", &b->total)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HANDLER_LIST.start", &b->start)) ||
	    (ret = rpmaf__proto_rd_u32(r, "HANDLER_LIST.count", &b->count)))
		return ret;
	b->entries_len = r->len - r->off;
	return rpmaf__proto_rd_bytes(r, "HANDLER_LIST.entries", b->entries_len, &b->entries);
}

/* handler_entries_check -- count entries exactly, each with known flags, ids increasing */
static int
handler_entries_check(const struct rpmaf__proto_handler_list *b, struct rpmaf__proto_err *err)
{
	uint32_t id, flags, prev = 0;

	if (b->entries == NULL && b->entries_len)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "HANDLER_LIST.entries: NULL");
	if (b->entries_len != (size_t)b->count * RPMAF__PROTO_HANDLER_ENTRY)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "HANDLER_LIST.entries: %zu bytes for %u entries of %d",
					 b->entries_len, (unsigned)b->count,
					 RPMAF__PROTO_HANDLER_ENTRY);
	for (uint32_t i = 0; i < b->count; i++) {
		rpmaf__proto_handler_entry(b, i, &id, &flags);
		if (!flags || (flags & ~RPMAF__PROTO_HANDLER_FLAGS))
			return rpmaf__proto_fail(
			    err, RPMAF__PROTO_E_RANGE,
			    "HANDLER_LIST.entries[%u].flags: 0x%x (0x1 "
			    "idempotent; a handler without flags is not listed)",
			    (unsigned)i, (unsigned)flags);
		if (i && id <= prev)
			return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
						 "HANDLER_LIST.entries[%u].handler_id: %u after %u "
						 "(increasing)",
						 (unsigned)i, (unsigned)id, (unsigned)prev);
		prev = id;
	}
	return 0;
}

/* handler_list_check -- a page within the list, never empty before its end, of valid entries */
static int
handler_list_check(const struct rpmaf__proto_msg *m, struct rpmaf__proto_err *err)
{
	const struct rpmaf__proto_handler_list *b = &m->body.handler_list;
	int ret;

	if ((ret =
		 check_range(b->total, 0, RPMAF__PROTO_HANDLERS_MAX, "HANDLER_LIST.total", err)) ||
	    (ret = check_range(b->start, 0, b->total, "HANDLER_LIST.start", err)) ||
	    (ret = check_range(b->count, 0, b->total - b->start, "HANDLER_LIST.count", err)))
		return ret;
	if (b->count == 0 && b->start < b->total)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "HANDLER_LIST.count: 0 while entries %u to %u are left",
					 (unsigned)b->start, (unsigned)b->total - 1);
	return handler_entries_check(b, err);
}

/* handler_list_write -- see handler_list_read; the entries were checked, they are copied */
static int
handler_list_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_handler_list *b = &m->body.handler_list;
	int ret;

	if ((ret = rpmaf__proto_wr_u32(w, b->total)) || (ret = rpmaf__proto_wr_u32(w, b->start)) ||
	    (ret = rpmaf__proto_wr_u32(w, b->count)))
		return ret;
	return rpmaf__proto_wr_bytes(w, b->entries, b->entries_len);
}

/* ---------------------------------------------------------------- the table */

static const struct body_codec Codecs[RPMAF__PROTO_T_MAX + 1] = {
    [RPMAF__PROTO_T_HELLO] = {"HELLO", hello_read, hello_check, hello_write},
    [RPMAF__PROTO_T_HELLO_REPLY] = {"HELLO_REPLY", hello_reply_read, hello_reply_check,
				    hello_reply_write},
    [RPMAF__PROTO_T_AUTH] = {"AUTH", auth_read, auth_check, auth_write},
    [RPMAF__PROTO_T_AUTH_REPLY] = {"AUTH_REPLY", auth_reply_read, no_check, auth_reply_write},
    [RPMAF__PROTO_T_REGION_LIST_REQ] = {"REGION_LIST_REQ", list_req_read, list_req_check,
					list_req_write},
    [RPMAF__PROTO_T_REGION_LIST] = {"REGION_LIST", list_read, list_check, list_write},
    [RPMAF__PROTO_T_REGION_LOOKUP_REQ] = {"REGION_LOOKUP_REQ", lookup_req_read, lookup_req_check,
					  lookup_req_write},
    [RPMAF__PROTO_T_REGION_LOOKUP_REPLY] = {"REGION_LOOKUP_REPLY", lookup_reply_read,
					    lookup_reply_check, lookup_reply_write},
    [RPMAF__PROTO_T_ANNOUNCE] = {"ANNOUNCE", announce_read, announce_check, announce_write},
    [RPMAF__PROTO_T_PERSIST_REQ] = {"PERSIST_REQ", persist_req_read, persist_req_check,
				    persist_req_write},
    [RPMAF__PROTO_T_PERSIST_REPLY] = {"PERSIST_REPLY", persist_reply_read, persist_reply_check,
				      persist_reply_write},
    [RPMAF__PROTO_T_APP_REQ] = {"APP_REQ", app_req_read, app_req_check, app_req_write},
    [RPMAF__PROTO_T_APP_REPLY] = {"APP_REPLY", app_reply_read, app_reply_check, app_reply_write},
    [RPMAF__PROTO_T_HEARTBEAT] = {"HEARTBEAT", heartbeat_read, no_check, heartbeat_write},
    [RPMAF__PROTO_T_HEARTBEAT_REPLY] = {"HEARTBEAT_REPLY", heartbeat_read, no_check,
					heartbeat_write},
    [RPMAF__PROTO_T_ERROR] = {"ERROR", error_read, error_check, error_write},
    [RPMAF__PROTO_T_CREDIT] = {"CREDIT", empty_read, no_check, empty_write},
    [RPMAF__PROTO_T_HANDLER_LIST_REQ] = {"HANDLER_LIST_REQ", handler_list_req_read,
					 handler_list_req_check, handler_list_req_write},
    [RPMAF__PROTO_T_HANDLER_LIST] = {"HANDLER_LIST", handler_list_read, handler_list_check,
				     handler_list_write},
};

/* codec_of -- the codec of a known type, NULL for an unknown one */
static const struct body_codec *
codec_of(unsigned type)
{
	if (type == 0 || type > RPMAF__PROTO_T_MAX)
		return NULL;
	return &Codecs[type];
}

/* see msg.h */
const char *
rpmaf__proto_type_str(unsigned type)
{
	const struct body_codec *c = codec_of(type);

	return c ? c->name : "?";
}

/* ---------------------------------------------------------------- the header */

/* hdr_check_common -- a version this side speaks, a type of that version, no flags */
static int
hdr_check_common(const struct rpmaf__proto_hdr *hdr, struct rpmaf__proto_err *err)
{
	if (hdr->version < RPMAF__PROTO_VERSION_MIN || hdr->version > RPMAF__PROTO_VERSION_MAX)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_VERSION, "header.version: %u (this side speaks %d to %d)",
		    (unsigned)hdr->version, RPMAF__PROTO_VERSION_MIN, RPMAF__PROTO_VERSION_MAX);
	if (codec_of(hdr->type) == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TYPE, "header.type: %u (1 to %d)",
					 (unsigned)hdr->type, RPMAF__PROTO_T_MAX);
	if (hdr->type > RPMAF__PROTO_T_MAX_V1 && hdr->version < RPMAF__PROTO_VERSION_HANDLERS)
		return rpmaf__proto_fail(
		    err, RPMAF__PROTO_E_TYPE, "header.type: %u (1 to %d in version %u)",
		    (unsigned)hdr->type, RPMAF__PROTO_T_MAX_V1, (unsigned)hdr->version);
	if (hdr->flags)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "header.flags: 0x%02x (none defined: 0)",
					 (unsigned)hdr->flags);
	return 0;
}

/*
 * hdr_check_type -- the header rules of some types: the hello exchange in
 * the hello version, unsolicited messages with no request id, a CREDIT that
 * returns credits
 */
static int
hdr_check_type(const struct rpmaf__proto_hdr *hdr, struct rpmaf__proto_err *err)
{
	const char *name = rpmaf__proto_type_str(hdr->type);

	if ((hdr->type == RPMAF__PROTO_T_HELLO || hdr->type == RPMAF__PROTO_T_HELLO_REPLY) &&
	    hdr->version != RPMAF__PROTO_VERSION_HELLO)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_VERSION,
					 "%s: header.version %u (a hello is always version %d)",
					 name, (unsigned)hdr->version, RPMAF__PROTO_VERSION_HELLO);
	if ((hdr->type == RPMAF__PROTO_T_ANNOUNCE || hdr->type == RPMAF__PROTO_T_CREDIT) &&
	    hdr->req_id != 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "%s: header.req_id %llu (0 in an unsolicited message)",
					 name, (unsigned long long)hdr->req_id);
	if (hdr->type == RPMAF__PROTO_T_CREDIT && hdr->credits == 0)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_RANGE,
					 "CREDIT: header.credits 0 (a CREDIT returns at least 1)");
	return 0;
}

/* hdr_check_len -- the body fills the rest of the len bytes, within the largest message */
static int
hdr_check_len(const struct rpmaf__proto_hdr *hdr, size_t len, struct rpmaf__proto_err *err)
{
	size_t after = len - RPMAF__PROTO_HDR_SIZE;

	if (hdr->body_len > RPMAF__PROTO_MSG_MAX - RPMAF__PROTO_HDR_SIZE)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TOO_BIG,
					 "header.body_len: %u (a message is at most %u bytes)",
					 (unsigned)hdr->body_len, RPMAF__PROTO_MSG_MAX);
	if (hdr->body_len > after)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TRUNCATED,
					 "header.body_len: %u but %zu bytes follow the header",
					 (unsigned)hdr->body_len, after);
	if (hdr->body_len < after)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TRAILING,
					 "%s: %zu trailing bytes after the %u-byte body",
					 rpmaf__proto_type_str(hdr->type), after - hdr->body_len,
					 (unsigned)hdr->body_len);
	return 0;
}

/* see msg.h */
int
rpmaf__proto_hdr_check(const struct rpmaf__proto_hdr *hdr, struct rpmaf__proto_err *err)
{
	int ret = hdr_check_common(hdr, err);

	return ret ? ret : hdr_check_type(hdr, err);
}

/* see msg.h */
int
rpmaf__proto_hdr_decode(const void *buf, size_t len, struct rpmaf__proto_hdr *hdr,
			struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_rd r = {.p = buf, .len = len, .err = err, .prefix = "header."};
	uint32_t magic;
	int ret;

	if (buf == NULL || hdr == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "message: NULL buffer");
	if (len < RPMAF__PROTO_HDR_SIZE)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_TRUNCATED,
					 "header: truncated: %zu bytes (a header is %d)", len,
					 RPMAF__PROTO_HDR_SIZE);
	/* the length was checked: these reads cannot fail */
	(void)rpmaf__proto_rd_u32(&r, "magic", &magic);
	if (magic != RPMAF__PROTO_MAGIC)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_MAGIC,
					 "header.magic: 0x%08x (0x%08x, \"RPFC\")", (unsigned)magic,
					 RPMAF__PROTO_MAGIC);
	(void)rpmaf__proto_rd_u16(&r, "version", &hdr->version);
	(void)rpmaf__proto_rd_u8(&r, "type", &hdr->type);
	(void)rpmaf__proto_rd_u8(&r, "flags", &hdr->flags);
	(void)rpmaf__proto_rd_u32(&r, "body_len", &hdr->body_len);
	(void)rpmaf__proto_rd_u32(&r, "credits", &hdr->credits);
	(void)rpmaf__proto_rd_u64(&r, "req_id", &hdr->req_id);
	if ((ret = hdr_check_common(hdr, err)) || (ret = hdr_check_len(hdr, len, err)))
		return ret;
	return hdr_check_type(hdr, err);
}

/* see msg.h */
int
rpmaf__proto_msg_decode(const void *buf, size_t len, struct rpmaf__proto_msg *msg,
			struct rpmaf__proto_err *err)
{
	int ret;

	if (msg == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "message: NULL result");
	if ((ret = rpmaf__proto_hdr_decode(buf, len, &msg->hdr, err)))
		return ret;

	const struct body_codec *c = codec_of(msg->hdr.type);
	struct rpmaf__proto_rd r = {.p = (const uint8_t *)buf + RPMAF__PROTO_HDR_SIZE,
				    .len = msg->hdr.body_len,
				    .err = err};

	if ((ret = c->read(&r, msg)) || (ret = rpmaf__proto_rd_end(&r, c->name)))
		return ret;
	return c->check(msg, err);
}

/* see msg.h */
int
rpmaf__proto_hdr_write(struct rpmaf__proto_wr *w, const struct rpmaf__proto_hdr *hdr,
		       uint32_t body_len)
{
	size_t at = w->off;
	int ret;

	if ((ret = rpmaf__proto_wr_u32(w, RPMAF__PROTO_MAGIC)) ||
	    (ret = rpmaf__proto_wr_u16(w, hdr->version)) ||
	    (ret = rpmaf__proto_wr_u8(w, hdr->type)) || (ret = rpmaf__proto_wr_u8(w, hdr->flags)) ||
	    (ret = rpmaf__proto_wr_u32(w, body_len)) ||
	    (ret = rpmaf__proto_wr_u32(w, hdr->credits)) ||
	    (ret = rpmaf__proto_wr_u64(w, hdr->req_id)))
		w->off = at;
	return ret;
}

/* msg_patch_body_len -- write the body length into the header at the start of w's buffer */
static int
msg_patch_body_len(struct rpmaf__proto_wr *w)
{
	size_t body_len = w->off - RPMAF__PROTO_HDR_SIZE;
	struct rpmaf__proto_wr at = {.p = w->p + 8, .size = 4, .err = w->err};

	if (w->off > RPMAF__PROTO_MSG_MAX)
		return rpmaf__proto_fail(w->err, RPMAF__PROTO_E_TOO_BIG,
					 "message: %zu bytes (at most %u)", w->off,
					 RPMAF__PROTO_MSG_MAX);
	return rpmaf__proto_wr_u32(&at, (uint32_t)body_len);
}

/* see msg.h */
int
rpmaf__proto_msg_encode(void *buf, size_t size, const struct rpmaf__proto_msg *msg,
			struct rpmaf__proto_err *err)
{
	struct rpmaf__proto_wr w = {.p = buf, .size = size, .err = err};
	int ret;

	if (buf == NULL || msg == NULL)
		return rpmaf__proto_fail(err, RPMAF__PROTO_E_INVAL, "message: NULL %s",
					 buf == NULL ? "buffer" : "message");
	if ((ret = rpmaf__proto_hdr_check(&msg->hdr, err)))
		return ret;

	const struct body_codec *c = codec_of(msg->hdr.type);

	if ((ret = c->check(msg, err)) || (ret = rpmaf__proto_hdr_write(&w, &msg->hdr, 0)) ||
	    (ret = c->write(&w, msg)) || (ret = msg_patch_body_len(&w)))
		return ret;
	return (int)w.off;
}
