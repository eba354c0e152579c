// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * rpmemd.c -- the librpmem target daemon: serves the pool sets under
 * rpmem.poolset_dir to librpmem clients over the framework (daemon.h),
 * in the foreground, until SIGTERM or SIGINT.
 */

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librpma.h>

#include "../common/service.h"
#include "daemon.h"
#include "rpmaf.h"

static const char Usage[] = "usage: rpmemd -c FILE [--set KEY=VALUE]...\n"
			    "       rpmemd --help | --version\n";

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
    "  -V, --version         print the version (and the git revision built from)\n"
    "\n"
    "exit status: 0 after SIGTERM or SIGINT, 1 the daemon cannot start, 2 wrong usage\n";

/* what runs, in the order it is made */
struct daemon_run {
	struct rpmaf_cfg *cfg;
	struct rpma_peer *peer;
	struct rpmaf_workers *ws;
	struct rpmaf_server *srv;
	struct rpmemd *d;
};

/* config_load -- the file with the overrides; NULL (and a log line) when it cannot serve */
static struct rpmaf_cfg *
config_load(const struct service_args *a)
{
	struct rpmaf_cfg *cfg = service_config(a);

	if (cfg && !cfg->rpmem.enabled) {
		service_log(RPMAF_LOG_ERROR, "%s: the configuration has no rpmem section", a->file);
		rpmaf_cfg_delete(&cfg);
	}
	return cfg;
}

/* start -- the peer, the workers, the server with the daemon's handlers, listening */
static int
start(struct daemon_run *r)
{
	int ret;

	if (service_peer(r->cfg, &r->peer))
		return -1;
	if ((ret = rpmaf_workers_new(r->cfg, r->peer, &r->ws)) ||
	    (ret = rpmaf_server_new(r->cfg, r->peer, r->ws, &r->srv)) ||
	    (ret = rpmemd_new(r->cfg, r->srv, service_log, &r->d)) ||
	    (ret = rpmaf_server_start(r->srv))) {
		service_log(RPMAF_LOG_ERROR, "cannot start on %s:%u: %s (the log above says why)",
			    r->cfg->listen.address, r->cfg->listen.port, rpmaf_err_str(ret));
		return -1;
	}
	service_log(RPMAF_LOG_NOTICE,
		    "listening on %s:%u: pool sets under %s, %s, %u worker%s, pid %d",
		    r->cfg->listen.address, rpmaf_server_port(r->srv), r->cfg->rpmem.poolset_dir,
		    r->cfg->rpmem.direct_write && r->cfg->rpmem.persistence != RPMAF_PERSIST_GPSPM
			? "APM for pools on persistent memory"
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
		service_log(RPMAF_LOG_WARNING, "drain: %s", rpmaf_err_str(rr));
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
	service_log(RPMAF_LOG_NOTICE, "%s: stopping", strsignal(sig));
}

int
main(int argc, char *argv[])
{
	struct daemon_run r = {0};
	struct service_args a = {0};
	sigset_t set;
	int ret;

	service_init("rpmemd");
	if ((ret = service_args(argc, argv, Usage, Help, &a)) >= 0)
		goto out;
	ret = SERVICE_EXIT_FAIL;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* before any thread exists, so that every thread inherits the mask */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) || !(r.cfg = config_load(&a)) ||
	    service_log_open(r.cfg))
		goto stop;
	if (start(&r))
		goto stop;
	wait_signal(&set);
	ret = EXIT_SUCCESS;
stop:
	if (stop(&r) && ret == EXIT_SUCCESS)
		service_log(RPMAF_LOG_WARNING, "the teardown reported an error (see above)");
	if (ret == EXIT_SUCCESS)
		service_log(RPMAF_LOG_NOTICE, "stopped");
	service_log_close();
out:
	free(a.sets);
	return ret;
}
