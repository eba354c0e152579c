/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.h -- what every librpma example starts with: argument parsing,
 * error reporting and memory for its buffers. The other common-*.h files
 * hold the shared steps of connections (common-conn.h), completions
 * (common-cq.h), exposed regions (common-region.h), messages
 * (common-messages.h) and mapped files (common-pmem.h).
 */

#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

/* exit code of a client whose connection was rejected or found no server */
#define COMMON_EXIT_NOT_CONNECTED 3

/* the text a client sends or writes when it is given none */
#define COMMON_CLIENT_TEXT "hello from client"

/* what a program was given on its command line */
struct common_args {
	const char *addr;
	const char *port;
	int nextra;   /* how many optional arguments follow ADDR PORT */
	char **extra; /* those arguments */
};

/*
 * COMMON_CHECK -- run an rpma_* call and end the program with a message when
 * it fails; the message names the call.
 */
#define COMMON_CHECK(call) common_check((call), #call)

void common_init(const char *role, int argc, char *argv[], int max_extra, const char *extra_usage,
		 struct common_args *args);
unsigned long common_server_init(int argc, char *argv[], unsigned long max_clients,
				 const char *extra_usage, struct common_args *args);
const char *common_role(void);
bool common_is_client(void);
void common_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void common_check(int ret, const char *what);
unsigned long common_ulong_arg(const struct common_args *args, int idx, unsigned long dflt,
			       unsigned long min, unsigned long max);
const char *common_str_arg(const struct common_args *args, int idx, const char *dflt);

void *common_alloc(size_t size);
char *common_text_arg(const struct common_args *args, int idx, size_t size, size_t *len);

#endif /* EXAMPLES_COMMON_H */
