/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * service.h -- what the framework's daemons (rpma-server, rpmemd) share:
 * the command line "-c FILE [--set KEY=VALUE]... | --help | --version", the
 * configuration loaded with its overrides, the daemon's own log lines
 * (to log.file or standard error, up to log.level) and the RDMA peer of
 * the listening address.
 *
 * CONCURRENCY
 * service_init(), service_args(), service_log_open() and
 * service_log_close() run on the main thread before and after the other
 * threads; service_log() may be called from any thread in between.
 */

#ifndef TOOLS_SERVICE_H
#define TOOLS_SERVICE_H

#include "rpmaf.h"

#define SERVICE_EXIT_FAIL  1
#define SERVICE_EXIT_USAGE 2

struct rpma_peer;

/* the command line of a daemon */
struct service_args {
	const char *file;  /* -c FILE */
	const char **sets; /* --set KEY=VALUE, in order */
	unsigned nsets;
};

/* service_init -- the program's name, for its log lines and usage errors */
void service_init(const char *name);

/*
 * service_args -- parse argv into a (a->sets is allocated: free it);
 * usage is printed on a usage error, usage and help on --help, the name
 * and the version (RPMAF_TOOLS_VERSION) on -V, --version.
 * RETURN VALUE: -1 to go on; otherwise the exit status (0 after --help or --version,
 * SERVICE_EXIT_USAGE after a usage error, SERVICE_EXIT_FAIL).
 */
int service_args(int argc, char *argv[], const char *usage, const char *help,
		 struct service_args *a);

/*
 * service_config -- the file of a with its overrides; NULL (and a log line
 * saying why, with the file, line and column) when it does not load
 */
struct rpmaf_cfg *service_config(const struct service_args *a);

/* service_log -- one line of the daemon's log, when level is within log.level */
void service_log(enum rpmaf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * service_log_open -- log to cfg's log.file and up to its level, librpmaf's
 * lines too (rpmaf_log_set_callback()); 0 or -1 (logged). Lines read
 * "2026-11-27T10:59:42.123+00:00 NAME: LEVEL: message".
 */
int service_log_open(const struct rpmaf_cfg *cfg);

/* service_log_config -- at log.level debug, cfg as loaded from file with every value resolved */
void service_log_config(const struct rpmaf_cfg *cfg, const char *file);

/* service_log_close -- give librpmaf its own log back, close log.file if one was opened */
void service_log_close(void);

/*
 * service_peer -- the RDMA device of the listening address and a peer on
 * it; 0, or -1 with a log line
 */
int service_peer(const struct rpmaf_cfg *cfg, struct rpma_peer **peer_ptr);

#endif /* TOOLS_SERVICE_H */
