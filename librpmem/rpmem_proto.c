/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmem_proto.c -- the codec of librpmem's requests and rpmemd's answers
 * (see rpmem_proto.h). Each direction has a reader (bytes to struct, only
 * what the layout needs: lengths and presence), a checker (every rule of
 * every field, shared by the decoder and the encoder) and a writer (struct
 * to bytes, after the checker). Which fields a kind carries is one table;
 * the fields always come in the same order, so one reader and one writer
 * serve every kind. Integers are assembled byte by byte: the code is the
 * same on any host byte order and never makes an unaligned access.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../proto/wire.h"
#include "rpmem_proto.h"

/* the fields of a request, in their order on the wire */
#define F_SIZE	  0x01u /* pool_size u64, nlanes u32 */
#define F_POOL_ID 0x02u /* pool_id u64 */
#define F_FLAGS	  0x04u /* flags u32 */
#define F_ATTR	  0x08u /* attr_present u8, attr[104] when present */
#define F_NAME	  0x10u /* name_len u8, name */

/* the fields of an answer after status and message, when status is 0 */
#define A_TAIL 0x01u /* pool_id, pool_size, nlanes, persist, region: CREATE and OPEN */
#define A_ATTR 0x02u /* attr[104] after them: OPEN */

/* what a kind carries */
struct kind_info {
	const char *req_name; /* for messages: "CREATE" */
	const char *ans_name; /* "CREATE answer" */
	unsigned req_fields;  /* F_* */
	uint32_t flags_ok;    /* the flags it may have */
	unsigned ans_fields;  /* A_* */
};

static const struct kind_info Kinds[RPMEM_PROTO_KIND_MAX + 1] = {
    [RPMEM_PROTO_CREATE] = {"CREATE", "CREATE answer", F_SIZE | F_FLAGS | F_ATTR | F_NAME, 0,
			    A_TAIL},
    [RPMEM_PROTO_OPEN] = {"OPEN", "OPEN answer", F_SIZE | F_FLAGS | F_NAME, 0, A_TAIL | A_ATTR},
    [RPMEM_PROTO_CLOSE] = {"CLOSE", "CLOSE answer", F_POOL_ID | F_FLAGS, 0, 0},
    [RPMEM_PROTO_SET_ATTR] = {"SET_ATTR", "SET_ATTR answer", F_POOL_ID | F_ATTR, 0, 0},
    [RPMEM_PROTO_REMOVE] = {"REMOVE", "REMOVE answer", F_FLAGS | F_NAME,
			    RPMEM_PROTO_REMOVE_FORCE | RPMEM_PROTO_REMOVE_POOL_SET, 0},
};

/* the statuses a daemon sends besides 0 (doc/RPMEM-PROTOCOL.md, Linux errno values) */
static const uint32_t Statuses[] = {1,	2,  5,	7,  12, 13, 16, 17,  20,
				    22, 27, 28, 30, 36, 71, 75, 117, 122};

/* where a message goes: len bytes at buf, its NUL included (buf NULL: nowhere) */
struct err {
	char *buf;
	size_t len;
};

/* the state of one decode: the framework's bounded reader (proto/wire.h) and its messages */
struct rd {
	struct rpmaf__proto_rd w;
	const char *what; /* the message prefix: "request", then "CREATE" */
	struct err *e;
	char prefix[32];	      /* what and a dot, the reader's prefix of field names */
	struct rpmaf__proto_err perr; /* the reader's message, copied into e */
};

/* fail -- "what.field: ..." into e, if anywhere; return -1, which callers turn into an errno */
__attribute__((format(printf, 2, 3))) static int
fail(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (e->buf == NULL || e->len == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->buf, e->len, fmt, ap);
	va_end(ap);
	return -1;
}

/* null_arg -- a NULL argument: say so, return -EINVAL */
static int
null_arg(struct err *e, const char *what)
{
	fail(e, "%s: NULL argument", what);
	return -EINVAL;
}

/* ok -- an empty message, on success */
static void
ok(struct err *e)
{
	if (e->buf != NULL && e->len > 0)
		e->buf[0] = '\0';
}

/* kind_of -- the table entry of kind, NULL for an unknown one */
static const struct kind_info *
kind_of(unsigned kind)
{
	if (kind == 0 || kind > RPMEM_PROTO_KIND_MAX)
		return NULL;
	return &Kinds[kind];
}

/* see rpmem_proto.h */
const char *
rpmem_proto_kind_name(unsigned kind)
{
	const struct kind_info *k = kind_of(kind);

	return k ? k->req_name : NULL;
}

/* see rpmem_proto.h */
bool
rpmem_proto_status_known(uint32_t status)
{
	if (status == 0)
		return true;
	for (size_t i = 0; i < sizeof(Statuses) / sizeof(Statuses[0]); i++) {
		if (Statuses[i] == status)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- names and texts */

/* check_elements -- the path elements of a pool set name: none empty, ".", or ".." */
static int
check_elements(const char *name, size_t len, const char *what, const char *field, struct err *e)
{
	for (size_t start = 0; start <= len;) {
		const char *slash = memchr(name + start, '/', len - start);
		size_t end = slash ? (size_t)(slash - name) : len;
		size_t n = end - start;

		if (n == 0 && start == 0)
			return fail(e,
				    "%s.%s: starts with '/' (a path relative to the pool set dir)",
				    what, field);
		if (n == 0 && start == len)
			return fail(e, "%s.%s: ends with '/'", what, field);
		if (n == 0)
			return fail(e, "%s.%s: \"//\" at byte %zu", what, field, start - 1);
		if (n <= 2 && memcmp(name + start, "..", n) == 0)
			return fail(e, "%s.%s: path element \"%.*s\" at byte %zu", what, field,
				    (int)n, name + start, start);
		start = end + 1;
	}
	return 0;
}

/* check_name -- a pool set name: see rpmem_proto_name_check() */
static int
check_name(const char *name, size_t len, const char *what, const char *field, struct err *e)
{
	const char *nul;

	if (len == 0 || len > RPMEM_PROTO_NAME_MAX)
		return fail(e, "%s.%s: %zu bytes (1 to %d)", what, field, len,
			    RPMEM_PROTO_NAME_MAX);
	if ((nul = memchr(name, '\0', len)) != NULL)
		return fail(e, "%s.%s: byte %zu is NUL", what, field, (size_t)(nul - name));
	return check_elements(name, len, what, field, e);
}

/* region_byte_ok -- c may appear in a region name */
static bool
region_byte_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* check_region -- a region name: see rpmem_proto_region_check() */
static int
check_region(const char *name, size_t len, const char *what, struct err *e)
{
	if (len == 0 || len > RPMEM_PROTO_REGION_MAX)
		return fail(e, "%s.region: %zu bytes (1 to %d)", what, len, RPMEM_PROTO_REGION_MAX);
	for (size_t i = 0; i < len; i++) {
		if (!region_byte_ok((unsigned char)name[i]))
			return fail(e,
				    "%s.region: byte %zu is 0x%02x (letters, digits, '_', '-' "
				    "and '.')",
				    what, i, (unsigned char)name[i]);
	}
	return 0;
}

/* check_msg -- an answer's message: printable ASCII */
static int
check_msg(const char *msg, size_t len, const char *what, struct err *e)
{
	if (len > RPMEM_PROTO_MSG_MAX)
		return fail(e, "%s.message: %zu bytes (at most %d)", what, len,
			    RPMEM_PROTO_MSG_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c > 0x7e)
			return fail(e, "%s.message: byte %zu is 0x%02x (printable ASCII only)",
				    what, i, c);
	}
	return 0;
}

/* check_nul -- a text of the struct ends at its length, as the decoder leaves it */
static int
check_nul(const char *text, size_t len, const char *what, const char *field, struct err *e)
{
	if (text[len] == '\0')
		return 0;
	return fail(e, "%s.%s: no NUL after its %zu bytes", what, field, len);
}

/* see rpmem_proto.h */
int
rpmem_proto_name_check(const char *name, size_t len)
{
	struct err e = {NULL, 0};

	if (name == NULL && len)
		return -EINVAL;
	return check_name(name, len, "", "", &e) ? -EINVAL : 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_region_check(const char *name, size_t len)
{
	struct err e = {NULL, 0};

	if (name == NULL && len)
		return -EINVAL;
	return check_region(name, len, "", &e) ? -EINVAL : 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_req_set_name(struct rpmem_proto_req *r, const char *name)
{
	size_t len;

	if (r == NULL || name == NULL)
		return -EINVAL;
	len = strlen(name);
	if (rpmem_proto_name_check(name, len))
		return -EINVAL;
	memcpy(r->name, name, len + 1);
	r->name_len = (uint8_t)len;
	return 0;
}

/* see rpmem_proto.h */
void
rpmem_proto_ans_set_msg(struct rpmem_proto_ans *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		a->msg[0] = '\0';
	a->msg_len = (uint8_t)strlen(a->msg);
	for (size_t i = 0; i < a->msg_len; i++) {
		if ((unsigned char)a->msg[i] < 0x20 || (unsigned char)a->msg[i] > 0x7e)
			a->msg[i] = '?';
	}
}

/* see rpmem_proto.h */
int
rpmem_proto_ans_set_region(struct rpmem_proto_ans *a, const char *region)
{
	size_t len;

	if (a == NULL || region == NULL)
		return -EINVAL;
	len = strlen(region);
	if (rpmem_proto_region_check(region, len))
		return -EINVAL;
	memcpy(a->region, region, len + 1);
	a->region_len = (uint8_t)len;
	return 0;
}

/* ---------------------------------------------------------------- attributes */

/* put_le -- the n-byte little-endian form of v at p; return the byte after it */
static uint8_t *
put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + n;
}

/* put_bytes -- n bytes at p; return the byte after them */
static uint8_t *
put_bytes(uint8_t *p, const void *src, size_t n)
{
	memcpy(p, src, n);
	return p + n;
}

/* see rpmem_proto.h */
void
rpmem_proto_attr_pack(const struct rpmem_proto_attr *attr, uint8_t out[RPMEM_PROTO_ATTR_SIZE])
{
	uint8_t *p = put_bytes(out, attr->signature, sizeof(attr->signature));

	p = put_le(p, attr->major, 4);
	p = put_le(p, attr->compat_features, 4);
	p = put_le(p, attr->incompat_features, 4);
	p = put_le(p, attr->ro_compat_features, 4);
	p = put_bytes(p, attr->poolset_uuid, 16);
	p = put_bytes(p, attr->uuid, 16);
	p = put_bytes(p, attr->next_uuid, 16);
	p = put_bytes(p, attr->prev_uuid, 16);
	put_bytes(p, attr->user_flags, 16);
}

/* see rpmem_proto.h */
void
rpmem_proto_attr_unpack(const uint8_t in[RPMEM_PROTO_ATTR_SIZE], struct rpmem_proto_attr *attr)
{
	/* 16 bytes of four integers: the reader cannot run short */
	struct rpmaf__proto_rd r = {in + 8, 16, 0, NULL, NULL};

	memcpy(attr->signature, in, 8);
	(void)rpmaf__proto_rd_u32(&r, "major", &attr->major);
	(void)rpmaf__proto_rd_u32(&r, "compat_features", &attr->compat_features);
	(void)rpmaf__proto_rd_u32(&r, "incompat_features", &attr->incompat_features);
	(void)rpmaf__proto_rd_u32(&r, "ro_compat_features", &attr->ro_compat_features);
	memcpy(attr->poolset_uuid, in + 24, 16);
	memcpy(attr->uuid, in + 40, 16);
	memcpy(attr->next_uuid, in + 56, 16);
	memcpy(attr->prev_uuid, in + 72, 16);
	memcpy(attr->user_flags, in + 88, 16);
}

/* is_zero -- the n bytes at p are all zero */
static bool
is_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		if (b[i])
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- reading */

/* rd_what -- name the part being read in messages: "what.field: ..." */
static void
rd_what(struct rd *r, const char *what)
{
	r->what = what;
	snprintf(r->prefix, sizeof(r->prefix), "%s.", what);
	r->w.prefix = r->prefix;
}

/* rd_init -- a decode of len bytes at p, its messages into e */
static void
rd_init(struct rd *r, const uint8_t *p, size_t len, const char *what, struct err *e)
{
	r->w = (struct rpmaf__proto_rd){p, len, 0, &r->perr, NULL};
	r->e = e;
	rd_what(r, what);
}

/* rd_ret -- a reader's result: on a failure its message goes to e and -1 comes back */
static int
rd_ret(struct rd *r, int ret)
{
	return ret ? fail(r->e, "%s", r->perr.msg) : 0;
}

/* rd_u8 -- a u8 field */
static int
rd_u8(struct rd *r, const char *field, uint8_t *v)
{
	return rd_ret(r, rpmaf__proto_rd_u8(&r->w, field, v));
}

/* rd_u16 -- a u16 field */
static int
rd_u16(struct rd *r, const char *field, uint16_t *v)
{
	return rd_ret(r, rpmaf__proto_rd_u16(&r->w, field, v));
}

/* rd_u32 -- a u32 field */
static int
rd_u32(struct rd *r, const char *field, uint32_t *v)
{
	return rd_ret(r, rpmaf__proto_rd_u32(&r->w, field, v));
}

/* rd_u64 -- a u64 field */
static int
rd_u64(struct rd *r, const char *field, uint64_t *v)
{
	return rd_ret(r, rpmaf__proto_rd_u64(&r->w, field, v));
}

/* rd_copy -- n bytes of field into dst */
static int
rd_copy(struct rd *r, const char *field, void *dst, size_t n)
{
	const uint8_t *at;

	if (rd_ret(r, rpmaf__proto_rd_bytes(&r->w, field, n, &at)))
		return -1;
	memcpy(dst, at, n);
	return 0;
}

/* rd_text -- a u8 length (at most max, which dst holds with a NUL) then that many bytes */
static int
rd_text(struct rd *r, const char *field, char *dst, size_t max, uint8_t *len)
{
	if (rd_u8(r, field, len))
		return -1;
	if (*len > max)
		return fail(r->e, "%s.%s: %u bytes (at most %zu)", r->what, field, (unsigned)*len,
			    max);
	if (rd_copy(r, field, dst, *len))
		return -1;
	dst[*len] = '\0';
	return 0;
}

/* rd_hdr -- magic, version and kind, each checked as it comes: the kind decides the rest */
static int
rd_hdr(struct rd *r, uint16_t *kind, bool answer, const struct kind_info **k)
{
	uint32_t magic;
	uint16_t version;

	if (rd_u32(r, "magic", &magic))
		return -1;
	if (magic != RPMEM_PROTO_MAGIC)
		return fail(r->e, "%s.magic: 0x%08x (0x%08x, \"RRPM\")", r->what, magic,
			    RPMEM_PROTO_MAGIC);
	if (rd_u16(r, "version", &version))
		return -1;
	if (version != RPMEM_PROTO_VERSION)
		return fail(r->e, "%s.version: %u (%d)", r->what, (unsigned)version,
			    RPMEM_PROTO_VERSION);
	if (rd_u16(r, "kind", kind))
		return -1;
	if ((*k = kind_of(*kind)) == NULL)
		return fail(r->e, "%s.kind: %u (1 to %d)", r->what, (unsigned)*kind,
			    RPMEM_PROTO_KIND_MAX);
	rd_what(r, answer ? (*k)->ans_name : (*k)->req_name);
	return 0;
}

/* rd_end -- no byte left after the last field */
static int
rd_end(struct rd *r)
{
	return rd_ret(r, rpmaf__proto_rd_end(&r->w, r->what));
}

/* rd_attr -- attr_present, then the attributes when present */
static int
rd_attr(struct rd *r, bool *present, uint8_t *attr)
{
	uint8_t p;

	if (rd_u8(r, "attr_present", &p))
		return -1;
	if (p > 1)
		return fail(r->e, "%s.attr_present: %u (0 or 1)", r->what, (unsigned)p);
	*present = p;
	return p ? rd_copy(r, "attr", attr, RPMEM_PROTO_ATTR_SIZE) : 0;
}

/* ---------------------------------------------------------------- requests */

/* req_read -- the body of a request of kind k, its fields in their order */
static int
req_read(struct rd *r, const struct kind_info *k, struct rpmem_proto_req *q)
{
	if (k->req_fields & F_SIZE) {
		if (rd_u64(r, "pool_size", &q->pool_size) || rd_u32(r, "nlanes", &q->nlanes))
			return -1;
	}
	if ((k->req_fields & F_POOL_ID) && rd_u64(r, "pool_id", &q->pool_id))
		return -1;
	if ((k->req_fields & F_FLAGS) && rd_u32(r, "flags", &q->flags))
		return -1;
	if ((k->req_fields & F_ATTR) && rd_attr(r, &q->attr_present, q->attr))
		return -1;
	if (k->req_fields & F_NAME)
		return rd_text(r, "pool_set_name", q->name, RPMEM_PROTO_NAME_MAX, &q->name_len);
	return 0;
}

/* absent -- a field its kind does not carry is zero */
static int
absent(uint64_t v, const char *what, const char *field, struct err *e)
{
	if (v == 0)
		return 0;
	return fail(e, "%s.%s: %llu (not carried: 0)", what, field, (unsigned long long)v);
}

/* req_check_size -- pool_size and nlanes */
static int
req_check_size(const struct rpmem_proto_req *q, const struct kind_info *k, struct err *e)
{
	const char *what = k->req_name;

	if (!(k->req_fields & F_SIZE)) {
		if (absent(q->pool_size, what, "pool_size", e))
			return -1;
		return absent(q->nlanes, what, "nlanes", e);
	}
	if (q->pool_size < RPMEM_PROTO_POOL_SIZE_MIN)
		return fail(e, "%s.pool_size: %llu (at least %d)", what,
			    (unsigned long long)q->pool_size, RPMEM_PROTO_POOL_SIZE_MIN);
	if (q->nlanes == 0)
		return fail(e, "%s.nlanes: 0 (at least 1)", what);
	return 0;
}

/* req_check_id_flags -- pool_id, and flags within the kind's */
static int
req_check_id_flags(const struct rpmem_proto_req *q, const struct kind_info *k, struct err *e)
{
	const char *what = k->req_name;

	if (!(k->req_fields & F_POOL_ID)) {
		if (absent(q->pool_id, what, "pool_id", e))
			return -1;
	} else if (q->pool_id == 0) {
		return fail(e, "%s.pool_id: 0 (not 0)", what);
	}
	if (q->flags & ~k->flags_ok)
		return fail(e, "%s.flags: 0x%x (0x%x allowed)", what, (unsigned)q->flags,
			    (unsigned)k->flags_ok);
	return 0;
}

/* req_check_attr -- no attributes where the kind carries none; zero ones when absent */
static int
req_check_attr(const struct rpmem_proto_req *q, const struct kind_info *k, struct err *e)
{
	const char *what = k->req_name;

	if (!(k->req_fields & F_ATTR) && q->attr_present)
		return fail(e, "%s.attr_present: 1 (not carried: 0)", what);
	if (!q->attr_present && !is_zero(q->attr, sizeof(q->attr)))
		return fail(e, "%s.attr: not zero while attr_present is 0", what);
	return 0;
}

/* req_check_name -- a pool set name where the kind carries one, else none */
static int
req_check_name(const struct rpmem_proto_req *q, const struct kind_info *k, struct err *e)
{
	const char *what = k->req_name;

	if (!(k->req_fields & F_NAME) && absent(q->name_len, what, "name_len", e))
		return -1;
	if ((k->req_fields & F_NAME) && check_name(q->name, q->name_len, what, "pool_set_name", e))
		return -1;
	return check_nul(q->name, q->name_len, what, "pool_set_name", e);
}

/* req_check -- every rule of a request */
static int
req_check(const struct rpmem_proto_req *q, struct err *e)
{
	const struct kind_info *k = kind_of(q->kind);

	if (k == NULL)
		return fail(e, "request.kind: %u (1 to %d)", (unsigned)q->kind,
			    RPMEM_PROTO_KIND_MAX);
	if (req_check_size(q, k, e) || req_check_id_flags(q, k, e) || req_check_attr(q, k, e))
		return -1;
	return req_check_name(q, k, e);
}

/* see rpmem_proto.h */
size_t
rpmem_proto_req_size(const struct rpmem_proto_req *q)
{
	const struct kind_info *k = kind_of(q->kind);
	size_t n = RPMEM_PROTO_HDR_SIZE;

	if (k == NULL)
		return 0;
	if (k->req_fields & F_SIZE)
		n += 8 + 4;
	if (k->req_fields & F_POOL_ID)
		n += 8;
	if (k->req_fields & F_FLAGS)
		n += 4;
	if (k->req_fields & F_ATTR)
		n += 1 + (q->attr_present ? RPMEM_PROTO_ATTR_SIZE : 0);
	if (k->req_fields & F_NAME)
		n += 1 + (size_t)q->name_len;
	return n;
}

/* wr_hdr -- the common header */
static uint8_t *
wr_hdr(uint8_t *p, uint16_t kind)
{
	p = put_le(p, RPMEM_PROTO_MAGIC, 4);
	p = put_le(p, RPMEM_PROTO_VERSION, 2);
	return put_le(p, kind, 2);
}

/* req_write -- a checked request, see req_read */
static void
req_write(const struct rpmem_proto_req *q, uint8_t *p)
{
	const struct kind_info *k = kind_of(q->kind);

	p = wr_hdr(p, q->kind);
	if (k->req_fields & F_SIZE) {
		p = put_le(p, q->pool_size, 8);
		p = put_le(p, q->nlanes, 4);
	}
	if (k->req_fields & F_POOL_ID)
		p = put_le(p, q->pool_id, 8);
	if (k->req_fields & F_FLAGS)
		p = put_le(p, q->flags, 4);
	if (k->req_fields & F_ATTR) {
		p = put_le(p, q->attr_present, 1);
		if (q->attr_present)
			p = put_bytes(p, q->attr, RPMEM_PROTO_ATTR_SIZE);
	}
	if (k->req_fields & F_NAME) {
		p = put_le(p, q->name_len, 1);
		put_bytes(p, q->name, q->name_len);
	}
}

/* see rpmem_proto.h */
int
rpmem_proto_req_check(const struct rpmem_proto_req *q, char *err, size_t err_len)
{
	struct err e = {err, err_len};

	if (q == NULL)
		return null_arg(&e, "request");
	if (req_check(q, &e))
		return -EINVAL;
	ok(&e);
	return 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_req_encode(const struct rpmem_proto_req *q, void *buf, size_t size, size_t *len_ptr)
{
	struct err e = {NULL, 0};
	size_t len;

	if (q == NULL || (buf == NULL && size) || req_check(q, &e))
		return -EINVAL;
	len = rpmem_proto_req_size(q);
	if (len > size)
		return -ENOBUFS;
	req_write(q, buf);
	if (len_ptr)
		*len_ptr = len;
	return 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_req_decode(const void *buf, size_t len, struct rpmem_proto_req *out, char *err,
		       size_t err_len)
{
	struct err e = {err, err_len};
	struct rd r;
	const struct kind_info *k;
	struct rpmem_proto_req q;

	if (out == NULL || (buf == NULL && len))
		return null_arg(&e, "request");
	rd_init(&r, buf, len, "request", &e);
	memset(&q, 0, sizeof(q));
	if (rd_hdr(&r, &q.kind, false, &k) || req_read(&r, k, &q) || rd_end(&r) ||
	    req_check(&q, &e))
		return -EPROTO;
	*out = q;
	ok(&e);
	return 0;
}

/* ---------------------------------------------------------------- answers */

/* ans_tail -- the answer carries pool_id, pool_size, nlanes, persist, region (and attr?) */
static unsigned
ans_tail(const struct kind_info *k, uint32_t status)
{
	return status == 0 ? k->ans_fields : 0;
}

/* ans_read -- the body of an answer of kind k */
static int
ans_read(struct rd *r, const struct kind_info *k, struct rpmem_proto_ans *a)
{
	unsigned tail;

	if (rd_u32(r, "status", &a->status) ||
	    rd_text(r, "message", a->msg, RPMEM_PROTO_MSG_MAX, &a->msg_len))
		return -1;
	tail = ans_tail(k, a->status);
	if (!(tail & A_TAIL))
		return 0;
	if (rd_u64(r, "pool_id", &a->pool_id) || rd_u64(r, "pool_size", &a->pool_size) ||
	    rd_u32(r, "nlanes", &a->nlanes) || rd_u8(r, "persist", &a->persist) ||
	    rd_text(r, "region", a->region, RPMEM_PROTO_REGION_MAX, &a->region_len))
		return -1;
	return (tail & A_ATTR) ? rd_copy(r, "attr", a->attr, RPMEM_PROTO_ATTR_SIZE) : 0;
}

/* ans_check_status -- a known status; a message of printable ASCII, empty on success */
static int
ans_check_status(const struct rpmem_proto_ans *a, const char *what, struct err *e)
{
	if (!rpmem_proto_status_known(a->status))
		return fail(e, "%s.status: %u (not a status a daemon sends)", what,
			    (unsigned)a->status);
	if (check_msg(a->msg, a->msg_len, what, e) ||
	    check_nul(a->msg, a->msg_len, what, "message", e))
		return -1;
	if (a->status == 0 && a->msg_len)
		return fail(e, "%s.message: %u bytes with status 0 (empty)", what,
			    (unsigned)a->msg_len);
	return 0;
}

/* ans_check_absent -- an answer without the tail: all of its fields zero */
static int
ans_check_absent(const struct rpmem_proto_ans *a, const char *what, struct err *e)
{
	if (absent(a->pool_id, what, "pool_id", e) || absent(a->pool_size, what, "pool_size", e) ||
	    absent(a->nlanes, what, "nlanes", e) || absent(a->persist, what, "persist", e) ||
	    absent(a->region_len, what, "region_len", e))
		return -1;
	return check_nul(a->region, 0, what, "region", e);
}

/* ans_check_tail -- the pool of a CREATE or OPEN that worked */
static int
ans_check_tail(const struct rpmem_proto_ans *a, const char *what, struct err *e)
{
	if (a->pool_id == 0)
		return fail(e, "%s.pool_id: 0 (not 0)", what);
	if (a->pool_size < RPMEM_PROTO_POOL_SIZE_MIN)
		return fail(e, "%s.pool_size: %llu (at least %d)", what,
			    (unsigned long long)a->pool_size, RPMEM_PROTO_POOL_SIZE_MIN);
	if (a->nlanes == 0)
		return fail(e, "%s.nlanes: 0 (at least 1)", what);
	if (a->persist != RPMEM_PROTO_PERSIST_APM && a->persist != RPMEM_PROTO_PERSIST_GPSPM)
		return fail(e, "%s.persist: %u (1 APM or 2 GPSPM)", what, (unsigned)a->persist);
	if (check_region(a->region, a->region_len, what, e))
		return -1;
	return check_nul(a->region, a->region_len, what, "region", e);
}

/* ans_check -- every rule of an answer */
static int
ans_check(const struct rpmem_proto_ans *a, struct err *e)
{
	const struct kind_info *k = kind_of(a->kind);
	unsigned tail;

	if (k == NULL)
		return fail(e, "answer.kind: %u (1 to %d)", (unsigned)a->kind,
			    RPMEM_PROTO_KIND_MAX);
	if (ans_check_status(a, k->ans_name, e))
		return -1;
	tail = ans_tail(k, a->status);
	if ((tail & A_TAIL) ? ans_check_tail(a, k->ans_name, e)
			    : ans_check_absent(a, k->ans_name, e))
		return -1;
	if (!(tail & A_ATTR) && !is_zero(a->attr, sizeof(a->attr)))
		return fail(e, "%s.attr: not zero (not carried)", k->ans_name);
	return 0;
}

/* see rpmem_proto.h */
size_t
rpmem_proto_ans_size(const struct rpmem_proto_ans *a)
{
	const struct kind_info *k = kind_of(a->kind);
	size_t n = RPMEM_PROTO_HDR_SIZE + 4 + 1 + (size_t)a->msg_len;
	unsigned tail;

	if (k == NULL)
		return 0;
	tail = ans_tail(k, a->status);
	if (tail & A_TAIL)
		n += 8 + 8 + 4 + 1 + 1 + (size_t)a->region_len;
	if (tail & A_ATTR)
		n += RPMEM_PROTO_ATTR_SIZE;
	return n;
}

/* ans_write -- a checked answer, see ans_read */
static void
ans_write(const struct rpmem_proto_ans *a, uint8_t *p)
{
	unsigned tail = ans_tail(kind_of(a->kind), a->status);

	p = wr_hdr(p, a->kind);
	p = put_le(p, a->status, 4);
	p = put_le(p, a->msg_len, 1);
	p = put_bytes(p, a->msg, a->msg_len);
	if (!(tail & A_TAIL))
		return;
	p = put_le(p, a->pool_id, 8);
	p = put_le(p, a->pool_size, 8);
	p = put_le(p, a->nlanes, 4);
	p = put_le(p, a->persist, 1);
	p = put_le(p, a->region_len, 1);
	p = put_bytes(p, a->region, a->region_len);
	if (tail & A_ATTR)
		put_bytes(p, a->attr, RPMEM_PROTO_ATTR_SIZE);
}

/* see rpmem_proto.h */
int
rpmem_proto_ans_check(const struct rpmem_proto_ans *a, char *err, size_t err_len)
{
	struct err e = {err, err_len};

	if (a == NULL)
		return null_arg(&e, "answer");
	if (ans_check(a, &e))
		return -EINVAL;
	ok(&e);
	return 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_ans_encode(const struct rpmem_proto_ans *a, void *buf, size_t size, size_t *len_ptr)
{
	struct err e = {NULL, 0};
	size_t len;

	if (a == NULL || (buf == NULL && size) || ans_check(a, &e))
		return -EINVAL;
	len = rpmem_proto_ans_size(a);
	if (len > size)
		return -ENOBUFS;
	ans_write(a, buf);
	if (len_ptr)
		*len_ptr = len;
	return 0;
}

/* see rpmem_proto.h */
int
rpmem_proto_ans_decode(const void *buf, size_t len, struct rpmem_proto_ans *out, char *err,
		       size_t err_len)
{
	struct err e = {err, err_len};
	struct rd r;
	const struct kind_info *k;
	struct rpmem_proto_ans a;

	if (out == NULL || (buf == NULL && len))
		return null_arg(&e, "answer");
	rd_init(&r, buf, len, "answer", &e);
	memset(&a, 0, sizeof(a));
	if (rd_hdr(&r, &a.kind, true, &k) || ans_read(&r, k, &a) || rd_end(&r) || ans_check(&a, &e))
		return -EPROTO;
	*out = a;
	ok(&e);
	return 0;
}
