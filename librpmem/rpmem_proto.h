/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmem_proto.h -- the payloads librpmem and rpmemd exchange in the
 * framework's APP_REQ and APP_REPLY: the five pool requests (create, open,
 * close, set attributes, remove) and their answers. doc/RPMEM-PROTOCOL.md
 * describes every byte on the wire; this header describes the C side.
 *
 * A request or an answer is a plain struct: the fields a kind does not
 * carry are zero, texts are NUL-terminated with their length beside them
 * and attributes are the raw 104 bytes of the wire. A checker holds the
 * rules of every field and is shared by the encoder and the decoder, so
 * whatever encodes decodes, and what decodes encodes back to exactly the
 * same bytes (the encoding is canonical).
 *
 * ERRORS
 * Every function returns 0 or a negative errno: -EINVAL for a NULL argument
 * or, when encoding or checking, a field out of its bounds; -ENOBUFS when
 * the encoding does not fit the caller's buffer; -EPROTO when the bytes
 * being decoded are not a valid payload. Decoding and checking put one line
 * in err (err_len bytes at most, its NUL included; err may be NULL) naming
 * the field at fault, e.g. "CREATE.pool_size: 4096 (at least 8192)"; on
 * success err is "".
 *
 * ASSUMPTIONS
 * No function keeps state and none allocates: any thread may call any of
 * them, as long as no other thread writes the structs and buffers it is
 * given.
 */

#ifndef LIBRPMEM_RPMEM_PROTO_H
#define LIBRPMEM_RPMEM_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the first four bytes of every payload: "RRPM" */
#define RPMEM_PROTO_MAGIC   0x4d505252u
#define RPMEM_PROTO_VERSION 1
/* the common header: magic u32, version u16, kind u16 */
#define RPMEM_PROTO_HDR_SIZE 8

/* the framework handler id a request of kind is sent to */
#define RPMEM_PROTO_HANDLER(kind) (0x524d0000u | (kind))

/* what a request asks, and what its answer answers (u16) */
enum rpmem_proto_kind {
	RPMEM_PROTO_CREATE = 1,
	RPMEM_PROTO_OPEN,
	RPMEM_PROTO_CLOSE,
	RPMEM_PROTO_SET_ATTR,
	RPMEM_PROTO_REMOVE,
};
#define RPMEM_PROTO_KIND_MAX RPMEM_PROTO_REMOVE

#define RPMEM_PROTO_ATTR_SIZE	  104  /* a pool's attributes on the wire */
#define RPMEM_PROTO_NAME_MAX	  255  /* pool set name */
#define RPMEM_PROTO_MSG_MAX	  200  /* answer message */
#define RPMEM_PROTO_REGION_MAX	  63   /* region name, as the framework's names */
#define RPMEM_PROTO_POOL_SIZE_MIN 8192 /* pool_size of a request and an answer */

/* REMOVE.flags */
#define RPMEM_PROTO_REMOVE_FORCE    0x1u
#define RPMEM_PROTO_REMOVE_POOL_SET 0x2u

/* answer.persist: how the client makes its writes persistent */
#define RPMEM_PROTO_PERSIST_APM	  1 /* it writes, then reads back */
#define RPMEM_PROTO_PERSIST_GPSPM 2 /* it sends the framework's PERSIST_REQ */

/* the longest encodings: a CREATE with attributes and a 255-byte name; an OPEN answer */
#define RPMEM_PROTO_REQ_MAX 385
#define RPMEM_PROTO_ANS_MAX 402

/* room for any message of the decoder or the checkers, its NUL included */
#define RPMEM_PROTO_ERR_MAX 160

/*
 * a request. Carried by kind (everything else is zero):
 * CREATE    pool_size, nlanes, flags (0), attr_present, attr, name
 * OPEN      pool_size, nlanes, flags (0), name
 * CLOSE     pool_id, flags (0)
 * SET_ATTR  pool_id, attr_present, attr
 * REMOVE    flags (RPMEM_PROTO_REMOVE_*), name
 * attr_present 0 stands for a NULL attribute pointer: attr is all zero.
 */
struct rpmem_proto_req {
	uint16_t kind;
	uint64_t pool_size; /* >= RPMEM_PROTO_POOL_SIZE_MIN */
	uint32_t nlanes;    /* >= 1 */
	uint32_t flags;
	uint64_t pool_id; /* != 0 */
	bool attr_present;
	uint8_t attr[RPMEM_PROTO_ATTR_SIZE];
	uint8_t name_len;		     /* the pool set name: rpmem_proto_name_check() */
	char name[RPMEM_PROTO_NAME_MAX + 1]; /* NUL at name[name_len] */
};

/*
 * an answer to a request of the same kind. status is 0 or one of the errno
 * values rpmem_proto_status_known() accepts; msg is printable ASCII, empty
 * when status is 0. Only the answer to a CREATE or an OPEN whose status is
 * 0 carries pool_id, pool_size, nlanes, persist and region; only OPEN's
 * carries attr. Everything else is zero.
 */
struct rpmem_proto_ans {
	uint16_t kind;
	uint32_t status;
	uint8_t msg_len;
	char msg[RPMEM_PROTO_MSG_MAX + 1]; /* NUL at msg[msg_len] */
	uint64_t pool_id;		   /* != 0 */
	uint64_t pool_size;		   /* >= RPMEM_PROTO_POOL_SIZE_MIN */
	uint32_t nlanes;		   /* >= 1 (the request's bound is the client's to check) */
	uint8_t persist;		   /* RPMEM_PROTO_PERSIST_APM or _GPSPM */
	uint8_t region_len;		   /* the region: rpmem_proto_region_check() */
	char region[RPMEM_PROTO_REGION_MAX + 1]; /* NUL at region[region_len] */
	uint8_t attr[RPMEM_PROTO_ATTR_SIZE];
};

/* the 104 attribute bytes as fields (librpmem's struct rpmem_pool_attr) */
struct rpmem_proto_attr {
	char signature[8];
	uint32_t major;
	uint32_t compat_features;
	uint32_t incompat_features;
	uint32_t ro_compat_features;
	uint8_t poolset_uuid[16];
	uint8_t uuid[16];
	uint8_t next_uuid[16];
	uint8_t prev_uuid[16];
	uint8_t user_flags[16];
};

/* rpmem_proto_kind_name -- "CREATE", "OPEN", ... for logs; NULL for an unknown kind */
const char *rpmem_proto_kind_name(unsigned kind);

/*
 * rpmem_proto_name_check -- the len bytes at name are a pool set name: 1 to
 * 255 bytes, no NUL, not starting with '/', no empty path element (no "//",
 * no trailing '/'), no element "." or ".."
 *
 * RETURN VALUE
 * 0, or -EINVAL (also when name is NULL and len is not 0).
 */
int rpmem_proto_name_check(const char *name, size_t len);

/*
 * rpmem_proto_region_check -- the len bytes at name are a region name (the
 * framework's rule): 1 to 63 ASCII letters, digits, '_', '-' and '.'
 *
 * RETURN VALUE
 * 0, or -EINVAL.
 */
int rpmem_proto_region_check(const char *name, size_t len);

/* rpmem_proto_status_known -- status is 0 or an errno value a daemon may answer */
bool rpmem_proto_status_known(uint32_t status);

/*
 * rpmem_proto_req_set_name -- the NUL-terminated name into r->name and
 * r->name_len, when it is a pool set name
 *
 * RETURN VALUE
 * 0; -EINVAL when an argument is NULL or name is not a pool set name (r
 * untouched).
 */
int rpmem_proto_req_set_name(struct rpmem_proto_req *r, const char *name);

/*
 * rpmem_proto_ans_set_msg -- a printf(3) message into a->msg and
 * a->msg_len, cut to RPMEM_PROTO_MSG_MAX bytes, every byte that is not
 * printable ASCII replaced with '?': whatever the arguments (a path, say),
 * the message is one the encoder accepts
 */
__attribute__((format(printf, 2, 3))) void rpmem_proto_ans_set_msg(struct rpmem_proto_ans *a,
								   const char *fmt, ...);

/*
 * rpmem_proto_ans_set_region -- the NUL-terminated region name into
 * a->region and a->region_len, when it is one
 *
 * RETURN VALUE
 * 0; -EINVAL when an argument is NULL or region is not a region name (a
 * untouched).
 */
int rpmem_proto_ans_set_region(struct rpmem_proto_ans *a, const char *region);

/* rpmem_proto_attr_pack -- the attributes as their 104 bytes on the wire */
void rpmem_proto_attr_pack(const struct rpmem_proto_attr *attr, uint8_t out[RPMEM_PROTO_ATTR_SIZE]);

/* rpmem_proto_attr_unpack -- the 104 bytes of the wire as attributes */
void rpmem_proto_attr_unpack(const uint8_t in[RPMEM_PROTO_ATTR_SIZE],
			     struct rpmem_proto_attr *attr);

/*
 * rpmem_proto_req_size -- the bytes r's encoding takes (by its kind,
 * attr_present and name_len; not checked); 0 for an unknown kind
 */
size_t rpmem_proto_req_size(const struct rpmem_proto_req *r);

/*
 * rpmem_proto_req_check -- every field of r within its bounds, the fields
 * its kind does not carry zero, name NUL-terminated at name_len
 *
 * RETURN VALUE
 * 0, or -EINVAL with the field at fault in err.
 */
int rpmem_proto_req_check(const struct rpmem_proto_req *r, char *err, size_t err_len);

/*
 * rpmem_proto_req_encode -- r checked (rpmem_proto_req_check()), then
 * encoded into the size bytes at buf; its length into *len_ptr (may be
 * NULL)
 *
 * RETURN VALUE
 * 0; -EINVAL for a NULL argument or a field out of bounds; -ENOBUFS when
 * size is below rpmem_proto_req_size(r). Nothing is written on failure.
 */
int rpmem_proto_req_encode(const struct rpmem_proto_req *r, void *buf, size_t size,
			   size_t *len_ptr);

/*
 * rpmem_proto_req_decode -- the len bytes at buf, exactly one request, into
 * *r
 *
 * RETURN VALUE
 * 0; -EINVAL when r is NULL, or buf is NULL and len is not 0; -EPROTO when
 * the bytes are too few or too many, or a field is out of bounds. On
 * failure *r is untouched and err says which field was wrong.
 */
int rpmem_proto_req_decode(const void *buf, size_t len, struct rpmem_proto_req *r, char *err,
			   size_t err_len);

/* rpmem_proto_ans_size -- the same as rpmem_proto_req_size(), for an answer */
size_t rpmem_proto_ans_size(const struct rpmem_proto_ans *a);

/* rpmem_proto_ans_check -- the same as rpmem_proto_req_check(), for an answer */
int rpmem_proto_ans_check(const struct rpmem_proto_ans *a, char *err, size_t err_len);

/* rpmem_proto_ans_encode -- the same as rpmem_proto_req_encode(), for an answer */
int rpmem_proto_ans_encode(const struct rpmem_proto_ans *a, void *buf, size_t size,
			   size_t *len_ptr);

/* rpmem_proto_ans_decode -- the same as rpmem_proto_req_decode(), for an answer */
int rpmem_proto_ans_decode(const void *buf, size_t len, struct rpmem_proto_ans *a, char *err,
			   size_t err_len);

#endif /* LIBRPMEM_RPMEM_PROTO_H */
