/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * common.c -- what every librpma example starts with: the command line,
 * error reporting and buffers. Every helper of examples/common that fails
 * prints what failed and ends the program with a non-zero code, so that the
 * examples themselves stay short and still check every call.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* "server" or "client": the prefix of every line a program prints */
static const char *Role = "example";

/* whether this program is the client (a refused connection ends it with 3) */
static bool Is_client;

/*
 * common_role -- the prefix of the program's messages.
 */
const char *
common_role(void)
{
	return Role;
}

/*
 * common_is_client -- whether this program is a client, which ends with
 * COMMON_EXIT_NOT_CONNECTED when it finds no server.
 */
bool
common_is_client(void)
{
	return Is_client;
}

/*
 * usage -- print how to call the program and end it.
 */
static void __attribute__((noreturn)) usage(const char *prog, const char *extra_usage)
{
	fprintf(stderr, "usage: %s ADDR PORT%s%s\n", prog, extra_usage ? " " : "",
		extra_usage ? extra_usage : "");
	exit(2);
}

/*
 * common_init -- remember the role, check the version of the library and
 * split the command line into ADDR, PORT and up to max_extra more arguments.
 * Standard output is line-buffered so that a test reading it through a pipe
 * or a file sees every line as soon as it is printed.
 */
void
common_init(const char *role, int argc, char *argv[], int max_extra, const char *extra_usage,
	    struct common_args *args)
{
	Role = role;
	Is_client = strncmp(role, "client", 6) == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);

	const char *why = rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION);

	if (why != NULL)
		common_die("librpma %d.%d is not available: %s", RPMA_MAJOR_VERSION,
			   RPMA_MINOR_VERSION, why);

	if (argc < 3 || argc - 3 > max_extra)
		usage(argv[0], extra_usage);
	args->addr = argv[1];
	args->port = argv[2];
	args->nextra = argc - 3;
	args->extra = argv + 3;
}

/*
 * common_server_init -- common_init() for a server whose first optional
 * argument is how many clients to serve, one after the other unless the
 * server says otherwise: from 1 to max_clients, 1 when not given; returns
 * it. extra_usage describes the arguments after CLIENTS, NULL for none.
 */
unsigned long
common_server_init(int argc, char *argv[], unsigned long max_clients, const char *extra_usage,
		   struct common_args *args)
{
	char usage[64];

	snprintf(usage, sizeof(usage), "[CLIENTS%s%s]", extra_usage ? " " : "",
		 extra_usage ? extra_usage : "");
	common_init("server", argc, argv, extra_usage ? 2 : 1, usage, args);
	return common_ulong_arg(args, 0, 1, 1, max_clients);
}

/*
 * common_die -- print a message prefixed with the role on stderr and end the
 * program with code 1.
 */
void
common_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", Role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/*
 * common_check -- end the program when an rpma_* call returned an error,
 * saying which call failed, the text of the error code and, when the
 * library left one, its own message.
 */
void
common_check(int ret, const char *what)
{
	if (ret >= 0)
		return;

	const char *msg = rpma_errormsg();

	if (ret == RPMA_E_PROVIDER)
		common_die("%s failed: %s (%s; errno: %s)", what, rpma_err_2str(ret), msg,
			   strerror(errno));
	common_die("%s failed: %s%s%s%s", what, rpma_err_2str(ret), msg[0] ? " (" : "", msg,
		   msg[0] ? ")" : "");
}

/*
 * common_ulong_arg -- the optional numeric argument number idx (after ADDR
 * PORT), or dflt when it was not given; ends the program when it is not a
 * number within [min, max].
 */
unsigned long
common_ulong_arg(const struct common_args *args, int idx, unsigned long dflt, unsigned long min,
		 unsigned long max)
{
	char *end;

	if (idx >= args->nextra)
		return dflt;

	errno = 0;
	unsigned long val = strtoul(args->extra[idx], &end, 0);

	if (errno || end == args->extra[idx] || *end != '\0' || val < min || val > max)
		common_die("invalid argument '%s': expected a number from %lu to %lu",
			   args->extra[idx], min, max);
	return val;
}

/*
 * common_str_arg -- the optional argument number idx, or dflt when it was
 * not given.
 */
const char *
common_str_arg(const struct common_args *args, int idx, const char *dflt)
{
	return idx < args->nextra ? args->extra[idx] : dflt;
}

/*
 * common_alloc -- zeroed, page-aligned memory, as memory registration works
 * best with whole pages.
 */
void *
common_alloc(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *ptr;
	int err;

	if (page <= 0)
		page = 4096;
	err = posix_memalign(&ptr, (size_t)page, size);
	if (err)
		common_die("cannot allocate %zu bytes: %s", size, strerror(err));
	memset(ptr, 0, size);
	return ptr;
}

/*
 * common_text_arg -- the optional text argument number idx (COMMON_CLIENT_TEXT
 * when not given) in a new buffer of size bytes (common_alloc()) with its
 * terminating zero; *len is its length with that zero. Ends the program when
 * the text does not fit.
 */
char *
common_text_arg(const struct common_args *args, int idx, size_t size, size_t *len)
{
	const char *text = common_str_arg(args, idx, COMMON_CLIENT_TEXT);
	size_t n = strlen(text) + 1;

	if (n > size)
		common_die("the text is longer than %zu bytes", size - 1);

	char *buf = common_alloc(size);

	memcpy(buf, text, n);
	*len = n;
	return buf;
}
