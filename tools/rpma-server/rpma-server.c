/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpma-server -- export the regions of a framework configuration to its
 * clients over RDMA, in the foreground:
 *   rpma-server -c FILE [--set KEY=VALUE]...
 * Signals: SIGHUP loads FILE again and applies its regions (announced to
 * the clients; a file that does not validate changes nothing), SIGTERM and
 * SIGINT drain and exit 0, SIGUSR1 writes the counters as one JSON line.
 * Exit status: 0 after a drain, 1 when the server cannot start (the reason
 * on the log), 2 wrong usage.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/service.h"
#include "reload.h"
#include "rpmaf.h"
#include "rpmaf_version.h"

/* the handler rpma-load's message calls go to: the request comes back as the reply */
#define HANDLER_ECHO 1

static const char Usage[] = "usage: rpma-server -c FILE [--set KEY=VALUE]...\n"
			    "       rpma-server --help | --version\n";

static const char Help[] =
    "\n"
    "Export the regions of the configuration FILE (doc/CONFIG.md) to clients over\n"
    "RDMA and serve the framework's control protocol (doc/PROTOCOL.md), in the\n"
    "foreground, until SIGTERM or SIGINT.\n"
    "\n"
    "options:\n"
    "  -c, --config FILE     the configuration (it needs a listen section)\n"
    "  -s, --set KEY=VALUE   override a key of FILE (as rpma-config does); may be\n"
    "                        repeated; applied again on every reload\n"
    "  -h, --help            print this help\n"
    "  -V, --version         print the version (and the git revision built from)\n"
    "\n"
    "signals:\n"
    "  SIGHUP    load FILE again: regions added, removed or changed are applied and\n"
    "            announced to the clients; a new size, usage or create changes a\n"
    "            region in place (no operation in flight fails), a new backing or\n"
    "            persistence removes and adds it again; a file that does not\n"
    "            validate, or a region that cannot be exported, changes nothing (the\n"
    "            log says why); other changes need a restart\n"
    "  SIGTERM, SIGINT   drain: stop accepting, let requests in flight finish (at\n"
    "            most timeouts.operation_ms), disconnect, persist, exit 0\n"
    "  SIGUSR1   write the statistics as one JSON line to stats.file (or stderr),\n"
    "            and to stats.prometheus_file when set (as every stats.interval_ms)\n"
    "\n"
    "Application calls with handler id 1 are answered with the request (echo).\n"
    "\n"
    "exit status: 0 after a drain, 1 the server cannot start, 2 wrong usage\n";

/* what runs, in the order it was made */
struct server {
	struct service_args args;
	struct rpmaf_cfg *cfg;	/* in force */
	struct rpmaf_cfg *boot; /* the one the server and workers were made with */
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_server *srv;
	bool serving; /* it started: its statistics mean something */
	int sigfd;
};

/* config_load -- load the file with the overrides; NULL (and a log line) when invalid */
static struct rpmaf_cfg *
config_load(const struct service_args *a)
{
	struct rpmaf_cfg *cfg = service_config(a);

	if (cfg && !cfg->listen.enabled) {
		service_log(RPMAF_LOG_ERROR, "%s: the configuration has no listen section",
			    a->file);
		rpmaf_cfg_delete(&cfg);
	}
	return cfg;
}

/* echo -- the handler of HANDLER_ECHO: the reply is the request */
static int
echo(uint32_t handler_id, const void *req, size_t req_len, void *reply, size_t reply_max,
     size_t *reply_len, void *arg)
{
	(void)handler_id;
	(void)arg;
	if (req_len > reply_max)
		return RPMAF_E_INVAL;
	memcpy(reply, req, req_len);
	*reply_len = req_len;
	return 0;
}

/* server_start -- the peer, the workers, the server with its regions, listening */
static int
server_start(struct server *s)
{
	int ret;

	if (service_peer(s->cfg, &s->peer))
		return -1;
	if ((ret = rpmaf_workers_new(s->cfg, s->peer, &s->ws))) {
		service_log(RPMAF_LOG_ERROR, "cannot start the workers: %s", rpmaf_err_str(ret));
		return -1;
	}
	if ((ret = rpmaf_server_new(s->cfg, s->peer, s->ws, &s->srv)) ||
	    (ret = rpmaf_server_handler_add_flags(s->srv, HANDLER_ECHO, echo, NULL,
						  RPMAF_HANDLER_IDEMPOTENT)) ||
	    (ret = rpmaf_server_start(s->srv))) {
		service_log(RPMAF_LOG_ERROR,
			    "cannot start the server on %s:%u: %s (the log above says why)",
			    s->cfg->listen.address, s->cfg->listen.port, rpmaf_err_str(ret));
		return -1;
	}
	service_log(RPMAF_LOG_NOTICE, "listening on %s:%u: %u region%s, %u worker%s, pid %d",
		    s->cfg->listen.address, rpmaf_server_port(s->srv), s->cfg->nregions,
		    s->cfg->nregions == 1 ? "" : "s", s->cfg->workers.count,
		    s->cfg->workers.count == 1 ? "" : "s", (int)getpid());
	return 0;
}

/* stats_json -- the statistics as one JSON line to stats.file (appended) or standard error */
static void
stats_json(const struct server *s, const struct rpmaf_stats_meta *meta)
{
	FILE *out = stderr, *f = NULL;
	int ret;

	if (s->cfg->stats.file && !(out = f = fopen(s->cfg->stats.file, "ae"))) {
		service_log(RPMAF_LOG_ERROR, "stats.file %s: %s", s->cfg->stats.file,
			    strerror(errno));
		return;
	}
	if ((ret = rpmaf_server_stats_write(s->srv, RPMAF_STATS_JSON, meta, out)))
		service_log(RPMAF_LOG_ERROR, "stats.file %s: %s",
			    s->cfg->stats.file ? s->cfg->stats.file : "(standard error)",
			    rpmaf_err_str(ret));
	if (f)
		fclose(f);
}

/*
 * stats_prometheus -- the statistics in the Prometheus text format to
 * stats.prometheus_file, replaced whole: written to a file beside it, then
 * renamed over it, so a collector never reads half of it
 */
static void
stats_prometheus(const struct server *s, const struct rpmaf_stats_meta *meta)
{
	const char *path = s->cfg->stats_prometheus_file;
	char tmp[4096 + 32];
	FILE *f;
	int fd, ret;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0 || !(f = fdopen(fd, "w"))) {
		service_log(RPMAF_LOG_ERROR, "stats.prometheus_file %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* mkostemp() makes it 0600: a collector running as another user reads it */
	(void)fchmod(fd, 0644);
	ret = rpmaf_server_stats_write(s->srv, RPMAF_STATS_PROMETHEUS, meta, f);
	if (fclose(f) && !ret)
		ret = RPMAF_E_IO;
	if (!ret && rename(tmp, path))
		ret = RPMAF_E_IO;
	if (ret) {
		service_log(RPMAF_LOG_ERROR, "stats.prometheus_file %s: %s", path,
			    ret == RPMAF_E_IO ? strerror(errno) : rpmaf_err_str(ret));
		unlink(tmp);
	}
}

/* counters_dump -- the statistics: a JSON line, and the Prometheus file when configured */
static void
counters_dump(const struct server *s)
{
	const struct rpmaf_stats_meta meta = {"rpma-server", RPMAF_TOOLS_VERSION};

	stats_json(s, &meta);
	stats_prometheus(s, &meta);
}

/* reload -- SIGHUP: the file again, its regions applied, or nothing changed */
static void
reload(struct server *s)
{
	struct rpmaf_cfg *next = config_load(&s->args);

	if (!next) {
		service_log(RPMAF_LOG_ERROR, "reload refused: nothing changed");
		return;
	}
	if (reload_apply(s->srv, s->cfg, next, service_log)) {
		service_log(RPMAF_LOG_ERROR, "reload refused: nothing changed");
		rpmaf_cfg_delete(&next);
		return;
	}
	/* the boot configuration stays: the workers and the server were made of it */
	if (s->cfg != s->boot)
		rpmaf_cfg_delete(&s->cfg);
	s->cfg = next;
	service_log(RPMAF_LOG_NOTICE, "reloaded %s: %u region%s", s->args.file, next->nregions,
		    next->nregions == 1 ? "" : "s");
}

/* signals_block -- take the signals the loop handles away from every thread, into a signalfd */
static int
signals_block(struct server *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	/* before any thread exists, so that every thread inherits the mask */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) ||
	    (s->sigfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		service_log(RPMAF_LOG_ERROR, "signalfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* serve -- wait for signals until SIGTERM or SIGINT, dumping counters every stats interval */
static void
serve(struct server *s)
{
	int timeout = s->cfg->stats.interval_ms ? (int)s->cfg->stats.interval_ms : -1;

	for (;;) {
		struct pollfd pfd = {.fd = s->sigfd, .events = POLLIN};
		struct signalfd_siginfo si;
		int n = poll(&pfd, 1, timeout);

		if (n == 0) {
			counters_dump(s);
			continue;
		}
		if (n < 0 || read(s->sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP)
			reload(s);
		else if (si.ssi_signo == SIGUSR1)
			counters_dump(s);
		else {
			service_log(RPMAF_LOG_NOTICE, "%s: draining", strsignal((int)si.ssi_signo));
			return;
		}
	}
}

/* server_stop -- drain and free in the reverse order of server_start(); 0 when all went well */
static int
server_stop(struct server *s)
{
	int ret = 0, r;

	if (s->srv) {
		if ((r = rpmaf_server_stop(s->srv, s->cfg->timeouts.operation_ms))) {
			service_log(RPMAF_LOG_WARNING, "drain: %s", rpmaf_err_str(r));
			ret = r;
		}
		/* a server that never started served nothing: no line, no stats.file */
		if (s->serving)
			counters_dump(s);
		if ((r = rpmaf_server_delete(&s->srv)) && !ret)
			ret = r;
	}
	if (s->ws && (r = rpmaf_workers_delete(&s->ws)) && !ret)
		ret = r;
	if (s->peer)
		rpma_peer_delete(&s->peer);
	if (s->cfg != s->boot)
		rpmaf_cfg_delete(&s->boot);
	rpmaf_cfg_delete(&s->cfg);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct server s = {.sigfd = -1};
	int ret;

	service_init("rpma-server");
	if ((ret = service_args(argc, argv, Usage, Help, &s.args)) >= 0)
		goto out;
	ret = SERVICE_EXIT_FAIL;
	if (!(s.cfg = config_load(&s.args)))
		goto stop;
	s.boot = s.cfg;
	if (service_log_open(s.cfg) || signals_block(&s))
		goto stop;
	service_log_config(s.cfg, s.args.file);
	if (server_start(&s))
		goto stop;
	s.serving = true;
	serve(&s);
	ret = EXIT_SUCCESS;
stop:
	if (server_stop(&s) && ret == EXIT_SUCCESS)
		service_log(RPMAF_LOG_WARNING, "the teardown reported an error (see above)");
	if (ret == EXIT_SUCCESS)
		service_log(RPMAF_LOG_NOTICE, "stopped");
	if (s.sigfd >= 0)
		close(s.sigfd);
	service_log_close();
out:
	free(s.args.sets);
	return ret;
}
