/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * gpspm.h -- the two messages of the general-purpose server persistency
 * method (GPSPM), as the client and the server of this example exchange them.
 */

#ifndef EXAMPLES_GPSPM_H
#define EXAMPLES_GPSPM_H 1

#include <stdint.h>

/* a client's request: persist len bytes at offset */
struct persist_req {
	uint64_t offset;
	uint64_t len;
};

/* the server's answer: the range and 0, or -1 when the range was invalid */
struct persist_resp {
	uint64_t offset;
	uint64_t len;
	int64_t status;
};

#endif /* EXAMPLES_GPSPM_H */
