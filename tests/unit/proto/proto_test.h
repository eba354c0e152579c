/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * proto_test.h -- what the tests of proto/ share: a valid sample message of
 * every type, encoding and decoding with the result asserted, the exact
 * error of a rejected message (and, through count_alloc.h, the count of
 * allocations).
 */

#ifndef PROTO_TEST_H
#define PROTO_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "count_alloc.h"
#include "msg.h"

/* a buffer as large as the largest message */
#define T_BUF_SIZE RPMAF__PROTO_MSG_MAX

/*
 * sample_msg -- a valid message of type (with fixed, distinctive field
 * values), in version Sample_version (the hello exchange in the hello
 * version, the handler list in version 2 at least)
 */
void sample_msg(unsigned type, struct rpmaf__proto_msg *m);

/* the version of the samples: 1 unless a test sets it (the sessions' tests: the newest) */
extern uint16_t Sample_version;

/* sample_region -- a valid region entry named name (static storage) */
struct rpmaf__proto_region sample_region(const char *name);

/* encode_ok -- encode m into buf (size bytes) and return the length; asserts success */
size_t encode_ok(const struct rpmaf__proto_msg *m, uint8_t *buf, size_t size);

/*
 * expect_decode_err -- decoding the len bytes at buf fails with code and
 * exactly msg, and allocates nothing
 */
void expect_decode_err(const uint8_t *buf, size_t len, int code, const char *msg);

/* expect_encode_err -- encoding m fails with code and exactly msg */
void expect_encode_err(const struct rpmaf__proto_msg *m, int code, const char *msg);

/* put_le -- write the n-byte little-endian v at p (to corrupt a message on purpose) */
void put_le(uint8_t *p, size_t n, uint64_t v);

#endif /* PROTO_TEST_H */
