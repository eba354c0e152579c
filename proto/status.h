/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * status.h -- the control protocol's two kinds of failure:
 * - local error codes (negative int) that the codec, the session state
 *   machines, the authentication and the flow control return to their
 *   caller, each with a one-line message naming the field at fault;
 * - wire status codes (enum rpmaf__proto_status, a u32 on the wire) that a
 *   peer sends in ERROR and in the replies that carry a status.
 *
 * The local codes are internal to librpmaf. They sit in their own range
 * (-100 and below) so that they never collide with the public RPMAF_E_*
 * codes of rpmaf.h (-1 to -99); the runtime maps them onto public codes.
 *
 * ASSUMPTIONS
 * A struct rpmaf__proto_err belongs to one caller; nothing here is shared.
 */

#ifndef RPMAF_PROTO_STATUS_H
#define RPMAF_PROTO_STATUS_H

#include <stdint.h>

/* local error codes */
#define RPMAF__PROTO_E_INVAL                                                                       \
	(-100) /* an argument is invalid (NULL, a value the encoder refuses)                       \
		*/
#define RPMAF__PROTO_E_NOSPC	 (-101) /* the message does not fit the caller's buffer */
#define RPMAF__PROTO_E_TRUNCATED (-102) /* the bytes end before the header or a field does */
#define RPMAF__PROTO_E_TRAILING	 (-103) /* bytes left after the last field of the body */
#define RPMAF__PROTO_E_MAGIC	 (-104) /* the header does not start with the magic */
#define RPMAF__PROTO_E_VERSION	 (-105) /* a protocol version this side does not speak */
#define RPMAF__PROTO_E_TYPE	 (-106) /* an unknown message type */
#define RPMAF__PROTO_E_TOO_BIG	 (-107) /* the message, or a field with a bound, is too long */
#define RPMAF__PROTO_E_RANGE	 (-108) /* a value out of its range (enum, flags, count, size) */
#define RPMAF__PROTO_E_STRING	 (-109) /* a name or text empty or with a forbidden byte */
#define RPMAF__PROTO_E_STATE	 (-110) /* a message the session does not accept now */
#define RPMAF__PROTO_E_AUTH	 (-111) /* a proof of the key does not verify */
#define RPMAF__PROTO_E_AUTH_MODE                                                                   \
	(-112)				 /* one side requires authentication, the other has no key \
					  */
#define RPMAF__PROTO_E_PEER	  (-113) /* the peer refused the session with an ERROR */
#define RPMAF__PROTO_E_KEY_IO	  (-114) /* the key file cannot be opened, read, or is no file */
#define RPMAF__PROTO_E_KEY_MODE	  (-115) /* the key file is open to group or others */
#define RPMAF__PROTO_E_KEY_FORMAT (-116) /* the key file holds something else than hex digits */
#define RPMAF__PROTO_E_KEY_LENGTH (-117) /* the key is empty, too short or too long */
#define RPMAF__PROTO_E_CRYPTO	  (-118) /* the crypto library failed to initialise */
#define RPMAF__PROTO_E_CREDITS	  (-119) /* no credit to send, or the peer returned too many */

/* wire status codes: ERROR.status and the status field of replies (u32) */
enum rpmaf__proto_status {
	RPMAF__PROTO_S_OK = 0,		  /* success */
	RPMAF__PROTO_S_BAD_MESSAGE = 1,	  /* the request could not be decoded */
	RPMAF__PROTO_S_VERSION = 2,	  /* no protocol version in common */
	RPMAF__PROTO_S_UNEXPECTED = 3,	  /* a message out of order for the session */
	RPMAF__PROTO_S_AUTH_REQUIRED = 4, /* this server requires authentication */
	RPMAF__PROTO_S_AUTH_FAILED = 5,	  /* the proof of the key did not verify */
	RPMAF__PROTO_S_NOT_FOUND = 6,	  /* no region of that name */
	RPMAF__PROTO_S_OUT_OF_RANGE = 7,  /* offset and length beyond the region */
	RPMAF__PROTO_S_STALE = 8,	  /* the region changed since the generation named */
	RPMAF__PROTO_S_DENIED = 9,	  /* the region's usage does not allow the request */
	RPMAF__PROTO_S_NO_HANDLER = 10,	  /* no application handler of that id */
	RPMAF__PROTO_S_IO = 11,		  /* persisting the range failed */
	RPMAF__PROTO_S_BUSY = 12,	  /* the server cannot take the request now */
	RPMAF__PROTO_S_INTERNAL = 13,	  /* the server failed for another reason */
	RPMAF__PROTO_S_APP_FAILED = 14,	  /* the handler failed; its payload says why */
};
#define RPMAF__PROTO_S_MAX RPMAF__PROTO_S_APP_FAILED

/* the longest message of a struct rpmaf__proto_err, NUL included */
#define RPMAF__PROTO_ERR_MSG_MAX 192

/* what went wrong: the code returned and a message naming the field at fault */
struct rpmaf__proto_err {
	int code;
	char msg[RPMAF__PROTO_ERR_MSG_MAX];
};

/*
 * rpmaf__proto_fail -- record code and the message from fmt in err (which
 * may be NULL: then only the code is returned). Allocates nothing.
 *
 * RETURN VALUE
 * code, so that callers can write "return rpmaf__proto_fail(...)".
 *
 * THREAD SAFETY
 * Thread-safe for distinct err.
 */
int rpmaf__proto_fail(struct rpmaf__proto_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * rpmaf__proto_err_str -- a short English description of a local error
 * code; "unknown error" for a code not defined above. Thread-safe.
 */
const char *rpmaf__proto_err_str(int code);

/*
 * rpmaf__proto_status_str -- the name of a wire status ("NOT_FOUND");
 * "?" for a value beyond RPMAF__PROTO_S_MAX. Thread-safe.
 */
const char *rpmaf__proto_status_str(uint32_t status);

#endif /* RPMAF_PROTO_STATUS_H */
