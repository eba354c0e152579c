// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * rpmemd.c -- the librpmem target daemon: serves the pool sets under
 * rpmem.poolset_dir to librpmem clients over the framework (daemon.h),
 * in the foreground, until SIGTERM or SIGINT.
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "daemon.h"
#include "rpmaf.h"

#define EXIT_FAIL  1
#define EXIT_USAGE 2

static const char Usage[] = "usage: rpmemd -c FILE [--set KEY=VALUE]...\n"
			    "       rpmemd --help\n";

static const char Help[] =
    "\n"
    "Serve the pool sets under rpmem.poolset_dir of the configuration FILE\n"
    "(doc/CONFIG.md) to librpmem clients: create, open, close, set_attr and\n"
    "remove (doc/RPMEM-PROTOCOL.md); each open pool is written, read and\n"
    "persisted over RDMA. In the foreground, until SIGTERM or SIGINT, which\n"
    "close every pool and exit 0. A client's pools are closed when its\n"
    "connection is lost.\n"
    "\n"
    "options:\n"
    "  -c, --config FILE     the configuration (it needs listen and rpmem sections)\n"
    "  -s, --set KEY=VALUE   override a key of FILE; may be repeated\n"
    "  -h, --help            print this help\n"
    "\n"
    "exit status: 0 after SIGTERM or SIGINT, 1 the daemon cannot start, 2 wrong usage\n";

struct args {
	const char *file;
	const char **sets;
	unsigned nsets;
};

/* what runs, in the order it is made */
struct daemon_run {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_server *srv;
	struct rpmemd *d;
};

static enum rpmaf_log_level Log_level = RPMAF_LOG_NOTICE;
static FILE *Log_out;

/* tool_log -- one line of the daemon's log, up to the configured level */
__attribute__((format(printf, 2, 3))) static void
tool_log(enum rpmaf_log_level level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", "notice", "info", "debug"};
	FILE *out = Log_out ? Log_out : stderr;
	struct timespec ts;
	va_list ap;

	if (level > Log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	flockfile(out);
	fprintf(out, "%lld.%03ld rpmemd: %s: ", (long long)ts.tv_sec, ts.tv_nsec / 1000000,
		names[level]);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
	funlockfile(out);
}

/* usage_fail -- a usage error: the message, the usage, exit status 2 */
static int
usage_fail(const char *what, const char *arg)
{
	fprintf(stderr, "rpmemd: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", Usage);
	return EXIT_USAGE;
}

/* args_parse -- the command line into a; returns -1 to go on, or an exit status */
static int
args_parse(int argc, char *argv[], struct args *a)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"set", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	if (!(a->sets = calloc((size_t)argc, sizeof(*a->sets))))
		return usage_fail("out of memory", NULL);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:s:h", longopts, NULL)) != -1) {
		if (c == 'c')
			a->file = optarg;
		else if (c == 's')
			a->sets[a->nsets++] = optarg;
		else if (c == 'h')
			return printf("%s%s", Usage, Help) < 0 ? EXIT_FAIL : EXIT_SUCCESS;
		else if (c == ':')
			return usage_fail("a value is needed after", argv[optind - 1]);
		else
			return usage_fail("unknown option", argv[optind - 1]);
	}
	if (optind < argc)
		return usage_fail("unexpected argument", argv[optind]);
	if (!a->file)
		return usage_fail("a configuration file is needed (-c FILE)", NULL);
	return -1;
}

/* config_load -- the file with the overrides; NULL (and a log line) when it cannot serve */
static struct rpmaf_cfg *
config_load(const struct args *a)
{
	struct rpmaf_cfg_opts opts = {.overrides = a->sets, .n_overrides = a->nsets};
	struct rpmaf_cfg_err err;
	struct rpmaf_cfg *cfg = NULL;

	if (rpmaf_cfg_load_file(a->file, &opts, &cfg, &err)) {
		tool_log(RPMAF_LOG_ERROR, "%s", err.msg);
		return NULL;
	}
	if (!cfg->rpmem.enabled) {
		tool_log(RPMAF_LOG_ERROR, "%s: the configuration has no rpmem section", a->file);
		rpmaf_cfg_delete(&cfg);
	}
	return cfg;
}

/* log_open -- log where and as much as the configuration says */
static int
log_open(const struct rpmaf_cfg *cfg)
{
	Log_level = cfg->log.level;
	if (!cfg->log.file)
		return 0;
	if (!(Log_out = fopen(cfg->log.file, "a"))) {
		tool_log(RPMAF_LOG_ERROR, "log.file %s: %s", cfg->log.file, strerror(errno));
		return -1;
	}
	return 0;
}

/* start -- the peer, the workers, the server with the daemon's handlers, listening */
static int
start(struct daemon_run *r)
{
	struct ibv_context *dev = NULL;
	int ret =
	    rpma_utils_get_ibv_context(r->cfg->listen.address, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev);

	if (ret || (ret = rpma_peer_new(dev, &r->peer))) {
		tool_log(RPMAF_LOG_ERROR, "listen.address %s: no RDMA device: %s",
			 r->cfg->listen.address, rpma_err_2str(ret));
		return -1;
	}
	if ((ret = rpmaf_workers_new(r->cfg, r->peer, &r->ws)) ||
	    (ret = rpmaf_server_new(r->cfg, r->peer, r->ws, &r->srv)) ||
	    (ret = rpmemd_new(r->cfg, r->srv, tool_log, &r->d)) ||
	    (ret = rpmaf_server_start(r->srv))) {
		tool_log(RPMAF_LOG_ERROR, "cannot start on %s:%u: %s (the log above says why)",
			 r->cfg->listen.address, r->cfg->listen.port, rpmaf_err_str(ret));
		return -1;
	}
	tool_log(RPMAF_LOG_NOTICE,
		 "listening on %s:%u: pool sets under %s, %s, %u worker%s, pid %d",
		 r->cfg->listen.address, rpmaf_server_port(r->srv), r->cfg->rpmem.poolset_dir,
		 r->cfg->rpmem.direct_write && r->cfg->rpmem.persistence != RPMAF_PERSIST_GPSPM
		     ? "APM"
		     : "GPSPM",
		 r->cfg->workers.count, r->cfg->workers.count == 1 ? "" : "s", (int)getpid());
	return 0;
}

/* stop -- in the reverse order of start(): answer what is in flight, close the pools */
static int
stop(struct daemon_run *r)
{
	int ret = 0, rr;

	if (r->srv && (rr = rpmaf_server_stop(r->srv, r->cfg->timeouts.operation_ms))) {
		tool_log(RPMAF_LOG_WARNING, "drain: %s", rpmaf_err_str(rr));
		ret = rr;
	}
	rpmemd_delete(&r->d);
	if ((rr = rpmaf_server_delete(&r->srv)) && !ret)
		ret = rr;
	if (r->ws && (rr = rpmaf_workers_delete(&r->ws)) && !ret)
		ret = rr;
	if (r->peer)
		rpma_peer_delete(&r->peer);
	rpmaf_cfg_delete(&r->cfg);
	return ret;
}

/* wait_signal -- until SIGTERM or SIGINT (blocked in every thread, taken here) */
static void
wait_signal(const sigset_t *set)
{
	int sig = 0;

	while (sigwait(set, &sig) || (sig != SIGTERM && sig != SIGINT))
		;
	tool_log(RPMAF_LOG_NOTICE, "%s: stopping", strsignal(sig));
}

int
main(int argc, char *argv[])
{
	struct daemon_run r = {0};
	struct args a = {0};
	sigset_t set;
	int ret = args_parse(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = EXIT_FAIL;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* before any thread exists, so that every thread inherits the mask */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) || !(r.cfg = config_load(&a)) || log_open(r.cfg))
		goto stop;
	if (start(&r))
		goto stop;
	wait_signal(&set);
	ret = EXIT_SUCCESS;
stop:
	if (stop(&r) && ret == EXIT_SUCCESS)
		tool_log(RPMAF_LOG_WARNING, "the teardown reported an error (see above)");
	if (ret == EXIT_SUCCESS)
		tool_log(RPMAF_LOG_NOTICE, "stopped");
	if (Log_out)
		fclose(Log_out);
out:
	free(a.sets);
	return ret;
}
