/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * args.h -- rpma-load's command line: the options, their checks, --help
 * and --version.
 *
 * ASSUMPTIONS
 * Called by the main thread, once.
 */

#ifndef RPMA_LOAD_ARGS_H
#define RPMA_LOAD_ARGS_H

#include <stdbool.h>

#define EXIT_FAIL	 1
#define EXIT_USAGE	 2
#define EXIT_INTERRUPTED 130 /* 128 + SIGINT, as a shell reports a run stopped by Ctrl-C */

/* where an output goes: nowhere, stdout, or a file */
struct args_out {
	bool on;
	const char *file; /* NULL: stdout */
};

struct args {
	const char *cfg, *workload, *verify_file, *journal, *histogram, *timeline;
	const char **sets, **wsets; /* --set for FILE, and for WORKLOAD (prefix removed) */
	unsigned nsets, nwsets;
	bool verify, sweep, keep_running;
	struct args_out json, csv;
	char warmup[40]; /* --warmup as an override of the workload ("warmup=2.5s") */
};

/*
 * args_parse -- the command line into a (which it allocates in: args_fini())
 * RETURN VALUE: -1 to go on; or the exit status (--help, --version: 0; a
 * usage error, with a message on stderr: EXIT_USAGE).
 */
int args_parse(int argc, char *argv[], struct args *a);

/* args_fini -- free what args_parse() allocated */
void args_fini(struct args *a);

#endif /* RPMA_LOAD_ARGS_H */
