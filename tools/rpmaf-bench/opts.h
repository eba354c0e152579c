/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * opts.h -- the command line of rpmaf-bench:
 *   rpmaf-bench scale   [--conns 1,10,100,1000] [--seconds S] [--window W] [--batch B] [--port P]
 *   rpmaf-bench threads [--conns C] [--seconds S] [--window W] [--batch B] [--port P]
 *   rpmaf-bench overhead [--ops N] [--depth D]
 *   rpmaf-bench serve   [--port P]
 * --port for scale and threads: a server (rpmaf-bench serve) already listens
 * there; without it the benchmark forks its own on a free port of
 * UTIL_PORT_FIRST..UTIL_PORT_LAST.
 */

#ifndef RPMAF_BENCH_OPTS_H
#define RPMAF_BENCH_OPTS_H

#define OPTS_MAX_POINTS 16   /* values of --conns */
#define OPTS_MAX_CONNS	4096 /* connections of one point */
#define OPTS_MAX_WINDOW 1024

enum opts_mode {
	OPTS_SCALE,    /* connection scaling: one thread, N connections */
	OPTS_THREADS,  /* thread scaling: 1 and 2 threads */
	OPTS_OVERHEAD, /* instructions per op: the pool against bare librpma */
	OPTS_SERVE,    /* only the server */
};

struct opts {
	enum opts_mode mode;
	unsigned conns[OPTS_MAX_POINTS]; /* scale: the points; threads: conns[0] per thread */
	unsigned nconns;
	double seconds;	 /* measured time of one point */
	unsigned window; /* writes outstanding per connection */
	unsigned batch;	 /* writes per batch, only the last signaled */
	unsigned port;	 /* 0: fork a server */
	unsigned ops;	 /* overhead: operations of each measured phase */
	unsigned depth;	 /* overhead: operations in flight */
};

/*
 * opts_parse -- fill o from argv, defaults for what is not given.
 * RETURN VALUE: 0; -1 after printing what is wrong and the usage on stderr.
 * THREAD SAFETY: not thread-safe (getopt).
 */
int opts_parse(int argc, char *argv[], struct opts *o);

#endif
