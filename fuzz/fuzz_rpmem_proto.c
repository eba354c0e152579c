/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_rpmem_proto.c -- libFuzzer harness of the codec of librpmem's
 * requests and rpmemd's answers (librpmem/rpmem_proto.h): the bytes the
 * daemon gets from any authenticated client, and the client from the
 * daemon.
 *
 * The first input byte selects the decoder (even: request, odd: answer);
 * the rest is the payload. Properties:
 * - an accepted payload passes the checker, its size is its length, it
 *   encodes back to exactly the input bytes (canonical encoding), refuses a
 *   buffer one byte short, and its every proper prefix is refused;
 * - a refused payload returns -EPROTO, leaves the output struct untouched
 *   and gives one line of printable ASCII that fits RPMEM_PROTO_ERR_MAX;
 * - the payload as a pool set name is accepted exactly when the rule
 *   restated ("/" NAME "/" holds no "//", "/./" nor "/../", 1 to 255 bytes,
 *   no NUL) accepts it; as a region name, exactly when its bytes are 1 to
 *   63 of the allowed ones;
 * - the payload as the argument of rpmem_proto_ans_set_msg() gives a
 *   message that an answer carries.
 * AddressSanitizer and UBSan check that nothing is read out of bounds.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_assert.h"
#include "rpmem_proto.h"

/* check_err -- a refusal's message: one printable line that fits RPMEM_PROTO_ERR_MAX */
static void
check_err(const char *err)
{
	size_t len = strlen(err);

	fuzz_assert(len > 0 && len < RPMEM_PROTO_ERR_MAX);
	for (size_t i = 0; i < len; i++)
		fuzz_assert(err[i] >= 0x20 && err[i] < 0x7f);
}

/* fuzz_req -- the payload as a request */
static void
fuzz_req(const uint8_t *p, size_t len)
{
	static uint8_t out[RPMEM_PROTO_REQ_MAX + 1];
	char err[2 * RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_req q, untouched;
	size_t n = 0;
	int ret;

	memset(&q, 0x5a, sizeof(q));
	untouched = q;
	ret = rpmem_proto_req_decode(p, len, &q, err, sizeof(err));
	if (ret) {
		fuzz_assert(ret == -EPROTO);
		fuzz_assert(memcmp(&q, &untouched, sizeof(q)) == 0);
		check_err(err);
		return;
	}
	fuzz_assert(err[0] == '\0' && rpmem_proto_req_check(&q, NULL, 0) == 0);
	fuzz_assert(len <= RPMEM_PROTO_REQ_MAX && rpmem_proto_req_size(&q) == len);
	fuzz_assert(rpmem_proto_req_encode(&q, out, len - 1, &n) == -ENOBUFS);
	fuzz_assert(rpmem_proto_req_encode(&q, out, sizeof(out), &n) == 0);
	fuzz_assert(n == len && memcmp(out, p, len) == 0);
	for (size_t cut = 0; cut < len; cut++)
		fuzz_assert(rpmem_proto_req_decode(p, cut, &untouched, NULL, 0) == -EPROTO);
}

/* fuzz_ans -- the payload as an answer */
static void
fuzz_ans(const uint8_t *p, size_t len)
{
	static uint8_t out[RPMEM_PROTO_ANS_MAX + 1];
	char err[2 * RPMEM_PROTO_ERR_MAX];
	struct rpmem_proto_ans a, untouched;
	size_t n = 0;
	int ret;

	memset(&a, 0x5a, sizeof(a));
	untouched = a;
	ret = rpmem_proto_ans_decode(p, len, &a, err, sizeof(err));
	if (ret) {
		fuzz_assert(ret == -EPROTO);
		fuzz_assert(memcmp(&a, &untouched, sizeof(a)) == 0);
		check_err(err);
		return;
	}
	fuzz_assert(err[0] == '\0' && rpmem_proto_ans_check(&a, NULL, 0) == 0);
	fuzz_assert(len <= RPMEM_PROTO_ANS_MAX && rpmem_proto_ans_size(&a) == len);
	fuzz_assert(rpmem_proto_status_known(a.status));
	fuzz_assert(rpmem_proto_ans_encode(&a, out, len - 1, &n) == -ENOBUFS);
	fuzz_assert(rpmem_proto_ans_encode(&a, out, sizeof(out), &n) == 0);
	fuzz_assert(n == len && memcmp(out, p, len) == 0);
	for (size_t cut = 0; cut < len; cut++)
		fuzz_assert(rpmem_proto_ans_decode(p, cut, &untouched, NULL, 0) == -EPROTO);
}

/* name_oracle -- the pool set name rule restated on "/" NAME "/" */
static int
name_oracle(const uint8_t *p, size_t len)
{
	static char framed[RPMEM_PROTO_NAME_MAX + 2];

	if (len == 0 || len > RPMEM_PROTO_NAME_MAX || memchr(p, '\0', len))
		return 0;
	framed[0] = '/';
	memcpy(framed + 1, p, len);
	framed[len + 1] = '/';
	return !memmem(framed, len + 2, "//", 2) && !memmem(framed, len + 2, "/./", 3) &&
	       !memmem(framed, len + 2, "/../", 4);
}

/* region_oracle -- the region name rule restated */
static int
region_oracle(const uint8_t *p, size_t len)
{
	static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789_-.";

	if (len == 0 || len > RPMEM_PROTO_REGION_MAX)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (memchr(allowed, p[i], sizeof(allowed) - 1) == NULL)
			return 0;
	}
	return 1;
}

/* fuzz_texts -- the payload as a pool set name, a region name and a message */
static void
fuzz_texts(const uint8_t *p, size_t len)
{
	struct rpmem_proto_ans a;
	size_t text_len = strnlen((const char *)p, len);

	fuzz_assert((rpmem_proto_name_check((const char *)p, len) == 0) == name_oracle(p, len));
	fuzz_assert((rpmem_proto_region_check((const char *)p, len) == 0) == region_oracle(p, len));
	memset(&a, 0, sizeof(a));
	a.kind = RPMEM_PROTO_CLOSE;
	a.status = EIO;
	rpmem_proto_ans_set_msg(&a, "%.*s", (int)len, (const char *)p);
	fuzz_assert(a.msg_len == (text_len < RPMEM_PROTO_MSG_MAX ? text_len : RPMEM_PROTO_MSG_MAX));
	fuzz_assert(rpmem_proto_ans_check(&a, NULL, 0) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_ans(data + 1, size - 1);
	else
		fuzz_req(data + 1, size - 1);
	fuzz_texts(data + 1, size - 1);
	return 0;
}
