// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * service.c -- what the framework's daemons share (see service.h).
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "rpmaf_version.h"
#include "service.h"
#include "wtime.h"

static const char *Name = "service";
static enum rpmaf_log_level Log_level = RPMAF_LOG_NOTICE;
static FILE *Log_out;

/* see service.h */
void
service_init(const char *name)
{
	Name = name;
}

/* log_line -- one line "TIME NAME: LEVEL: MSG" of the daemon's log */
static void
log_line(enum rpmaf_log_level level, const char *msg)
{
	static const char *const names[] = {"error", "warning", "notice", "info", "debug"};
	FILE *out = Log_out ? Log_out : stderr;
	char when[40];

	rpmaf__wlog_time(when, sizeof(when));
	flockfile(out);
	fprintf(out, "%s %s: %s: %s\n", when, Name, names[level], msg);
	fflush(out);
	funlockfile(out);
}

/* see service.h */
void
service_log(enum rpmaf_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (level > Log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_line(level, msg);
}

/* library_log -- librpmaf's lines (rpmaf_log_set_callback()) into the daemon's log */
static void
library_log(enum rpmaf_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level <= Log_level)
		log_line(level, msg);
}

/* service_version -- --version: the name and the version on standard output, exit status 0 */
static int
service_version(void)
{
	return printf("%s %s\n", Name, RPMAF_TOOLS_VERSION) < 0 ? SERVICE_EXIT_FAIL : EXIT_SUCCESS;
}

/* usage_fail -- a usage error: the message, the usage, exit status 2 */
static int
usage_fail(const char *usage, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s\n%s", Name, what, arg ? ": " : "", arg ? arg : "", usage);
	return SERVICE_EXIT_USAGE;
}

/* see service.h */
int
service_args(int argc, char *argv[], const char *usage, const char *help, struct service_args *a)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"set", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	if (!(a->sets = calloc((size_t)argc, sizeof(*a->sets))))
		return usage_fail(usage, "out of memory", NULL);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:s:hV", longopts, NULL)) != -1) {
		if (c == 'c')
			a->file = optarg;
		else if (c == 's')
			a->sets[a->nsets++] = optarg;
		else if (c == 'h')
			return printf("%s%s", usage, help) < 0 ? SERVICE_EXIT_FAIL : EXIT_SUCCESS;
		else if (c == 'V')
			return service_version();
		else if (c == ':')
			return usage_fail(usage, "a value is needed after", argv[optind - 1]);
		else
			return usage_fail(usage, "unknown option", argv[optind - 1]);
	}
	if (optind < argc)
		return usage_fail(usage, "unexpected argument", argv[optind]);
	if (!a->file)
		return usage_fail(usage, "a configuration file is needed (-c FILE)", NULL);
	return -1;
}

/* see service.h */
struct rpmaf_cfg *
service_config(const struct service_args *a)
{
	struct rpmaf_cfg_opts opts = {.overrides = a->sets, .n_overrides = a->nsets};
	struct rpmaf_cfg_err err;
	struct rpmaf_cfg *cfg = NULL;

	if (rpmaf_cfg_load_file(a->file, &opts, &cfg, &err)) {
		service_log(RPMAF_LOG_ERROR, "%s", err.msg);
		return NULL;
	}
	return cfg;
}

/* see service.h */
int
service_log_open(const struct rpmaf_cfg *cfg)
{
	Log_level = cfg->log.level;
	if (cfg->log.file && !(Log_out = fopen(cfg->log.file, "ae"))) {
		service_log(RPMAF_LOG_ERROR, "log.file %s: %s", cfg->log.file, strerror(errno));
		return -1;
	}
	/* one log: the library's lines in the daemon's form, to the daemon's file */
	rpmaf_log_set_callback(library_log, NULL);
	return 0;
}

/* see service.h */
void
service_log_config(const struct rpmaf_cfg *cfg, const char *file)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;

	if (Log_level < RPMAF_LOG_DEBUG)
		return;
	if (!(f = open_memstream(&text, &len)))
		return;
	if (rpmaf_cfg_dump(cfg, f) || fclose(f)) {
		service_log(RPMAF_LOG_DEBUG, "%s: the resolved configuration does not print", file);
		free(text);
		return;
	}
	service_log(RPMAF_LOG_DEBUG, "%s, resolved (defaults filled in):", file);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		service_log(RPMAF_LOG_DEBUG, "  %s", line);
	free(text);
}

/* see service.h */
void
service_log_close(void)
{
	rpmaf_log_set_callback(NULL, NULL);
	if (Log_out)
		fclose(Log_out);
	Log_out = NULL;
}

/* see service.h */
int
service_peer(const struct rpmaf_cfg *cfg, struct rpma_peer **peer_ptr)
{
	struct ibv_context *dev = NULL;
	int ret =
	    rpma_utils_get_ibv_context(cfg->listen.address, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev);

	if (!ret)
		ret = rpma_peer_new(dev, peer_ptr);
	if (ret)
		service_log(RPMAF_LOG_ERROR,
			    "listen.address %s: no RDMA device has this address (%s): load an "
			    "RDMA driver for its interface (rdma_rxe, siw), or run under "
			    "tools/softrdma-run for the software device",
			    cfg->listen.address, rpma_err_2str(ret));
	return ret ? -1 : 0;
}
