// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * rpmaf-bench -- what librpmaf's workers (one shared send CQ per thread)
 * gain over bare librpma (one CQ per connection, polled round robin) when
 * one thread drives many connections, and how both scale with threads.
 * Prints figures; it passes or fails only on errors, never on time.
 *
 *   scale    one thread, N connections: 64-byte RDMA writes per second of
 *            a worker and of a bare librpma thread, and their ratio
 *   threads  1 and 2 worker threads (--conns connections each) against 1
 *            and 2 bare threads with one connection each (upstream's model)
 *   overhead the pool's cost per operation against bare librpma, one
 *            operation at a time (meant for callgrind: overhead.h)
 *   serve    only the server (a plain librpma server exporting one region)
 *
 * Without --port the program forks its own server. Any error (a connection
 * that cannot be made, a failed completion, a time-out) is printed and
 * makes the exit status 1.
 */

#include <stdio.h>

#include "bload.h"
#include "opts.h"
#include "overhead.h"
#include "server.h"
#include "spawn.h"
#include "wload.h"

#define MAIN_WARMUP_MAX 0.25 /* seconds of warm-up before a point, at most */

/* main_params -- what every point of a run shares */
static void
main_params(const struct opts *o, const char *port, struct load_params *p)
{
	double warmup = o->seconds / 4;

	*p = (struct load_params){.port = port,
				  .window = o->window,
				  .batch = o->batch,
				  .seconds = o->seconds,
				  .warmup = warmup < MAIN_WARMUP_MAX ? warmup : MAIN_WARMUP_MAX};
}

/* main_cell -- a table cell: the rate, or what failed (the reason follows the line) */
static void
main_cell(int ret, const struct load_result *r, unsigned asked)
{
	if (ret == 0)
		printf(" %16.0f", r->ops_per_sec);
	else if (r->conns < asked)
		printf(" %9u conns!", r->conns);
	else
		printf(" %16s", "FAILED");
}

/* main_ratio -- the last column: a ratio of two rates, when both were measured */
static void
main_ratio(int wret, const struct load_result *w, int bret, const struct load_result *b)
{
	if (wret == 0 && bret == 0 && b->ops_per_sec > 0)
		printf(" %12.2f\n", w->ops_per_sec / b->ops_per_sec);
	else
		printf(" %12s\n", "-");
}

/* main_why -- the reason under a failed line, naming the model */
static void
main_why(const char *model, int ret, struct load_result *r, unsigned asked)
{
	if (ret == 0)
		return;
	printf("        %s: %u of %u connections established; %s\n", model, r->conns, asked,
	       util_why(&r->fail));
}

/* main_scale -- one line per N: a worker against a bare thread, N connections each */
static int
main_scale(const struct opts *o, const struct load_params *p)
{
	unsigned largest = 0, most_conns = 0;
	int failed = 0;

	printf("connection scaling: one thread, N connections, %u-byte RDMA writes, window %u per "
	       "connection in batches of %u, %.2f s per point\n",
	       LOAD_WRITE_SIZE, p->window, p->batch, p->seconds);
	printf("%7s %16s %16s %12s\n", "N", "workers ops/s", "bare ops/s", "workers/bare");
	printf("%7s %16s %16s\n", "", "(1 shared CQ)", "(N CQs, RR)");
	for (unsigned i = 0; i < o->nconns; i++) {
		unsigned n = o->conns[i];
		struct load_result w = {0}, b = {0};
		int wret = wload_run(p, 1, n, &w);
		int bret = bload_run(p, 1, n, &b);

		printf("%7u", n);
		main_cell(wret, &w, n);
		main_cell(bret, &b, n);
		main_ratio(wret, &w, bret, &b);
		main_why("workers", wret, &w, n);
		main_why("bare", bret, &b, n);
		fflush(stdout);
		if (wret || bret)
			failed = 1;
		else if (n > largest)
			largest = n;
		most_conns = w.conns > most_conns ? w.conns : most_conns;
		most_conns = b.conns > most_conns ? b.conns : most_conns;
	}
	if (failed)
		printf("largest N that worked: %u (most connections established at once: %u)\n",
		       largest, most_conns);
	return failed;
}

/* main_threads -- 1 and 2 threads: workers with their connections, bare with one each */
static int
main_threads(const struct opts *o, const struct load_params *p)
{
	unsigned c = o->conns[0];
	struct load_result w[2] = {0}, b[2] = {0};
	int wret[2], bret[2], failed = 0;

	printf("thread scaling: %u-byte RDMA writes, window %u per connection in batches of %u, "
	       "%.2f s per point\n",
	       LOAD_WRITE_SIZE, p->window, p->batch, p->seconds);
	printf("%7s %16s %16s %12s\n", "threads", "workers ops/s", "bare ops/s", "workers/bare");
	printf("%7s %16s %16s\n", "", "(conns/thread)", "(1 conn/thread)");
	for (unsigned t = 0; t < 2; t++) {
		wret[t] = wload_run(p, t + 1, c, &w[t]);
		bret[t] = bload_run(p, t + 1, 1, &b[t]);
		printf("%7u", t + 1);
		main_cell(wret[t], &w[t], (t + 1) * c);
		main_cell(bret[t], &b[t], t + 1);
		main_ratio(wret[t], &w[t], bret[t], &b[t]);
		main_why("workers", wret[t], &w[t], (t + 1) * c);
		main_why("bare", bret[t], &b[t], t + 1);
		fflush(stdout);
		failed |= wret[t] || bret[t];
	}
	printf("(workers: %u connections per thread)\n", c);
	if (!failed && w[0].ops_per_sec > 0 && b[0].ops_per_sec > 0)
		printf("2 threads / 1 thread: workers %.2f, bare %.2f\n",
		       w[1].ops_per_sec / w[0].ops_per_sec, b[1].ops_per_sec / b[0].ops_per_sec);
	return failed;
}

/* main_client -- a server (forked unless --port names one), the mode's table, the server's end */
static int
main_client(const struct opts *o)
{
	struct spawn srv = {0};
	struct load_params p;
	char port[16];
	int failed;

	if (o->port == 0 && spawn_server(UTIL_PORT_FIRST, UTIL_PORT_LAST, &srv))
		return 1;
	snprintf(port, sizeof(port), "%u", o->port ? o->port : srv.port);
	main_params(o, port, &p);
	printf("server: %s:%s (%s)\n", UTIL_ADDR, port, o->port ? "given" : "forked");
	failed = o->mode == OPTS_SCALE ? main_scale(o, &p) : main_threads(o, &p);
	fflush(stdout);
	if (spawn_stop(&srv))
		failed = 1;
	return failed;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	if (opts_parse(argc, argv, &o))
		return 2;
	if (o.mode == OPTS_OVERHEAD)
		return overhead_run(o.ops, o.depth) ? 1 : 0;
	if (o.mode == OPTS_SERVE) {
		unsigned first = o.port ? o.port : UTIL_PORT_FIRST;

		return server_run(first, o.port ? o.port : UTIL_PORT_LAST, -1) ? 1 : 0;
	}
	return main_client(&o);
}
