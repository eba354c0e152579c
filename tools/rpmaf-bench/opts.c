// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * opts.c -- the command line of rpmaf-bench
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "overhead.h"
#include "util.h"

/* opts_usage -- print the usage; a wrong command line always ends here */
static int
opts_usage(const char *why)
{
	if (why)
		fprintf(stderr, "rpmaf-bench: %s\n", why);
	fprintf(stderr,
		"usage: rpmaf-bench scale   [--conns 1,10,100,1000] [--seconds S] [--window W]"
		" [--batch B] [--port P]\n"
		"       rpmaf-bench threads [--conns C] [--seconds S] [--window W] [--batch B]"
		" [--port P]\n"
		"       rpmaf-bench overhead [--ops N] [--depth D]\n"
		"       rpmaf-bench serve   [--port P]\n"
		"  --conns    scale: the connection counts; threads: connections per thread (10)\n"
		"  --seconds  measured time of each point (2)\n"
		"  --window   64-byte writes outstanding per connection (4)\n"
		"  --batch    writes per admitted batch, only the last signaled (window/2)\n"
		"  --port     serve: listen there; else: use a server already there\n"
		"             (without it a server is forked); %u to %u\n"
		"  --ops      overhead: operations of each measured phase (10000)\n"
		"  --depth    overhead: operations in flight, 1 to %u (1)\n",
		UTIL_PORT_FIRST, UTIL_PORT_LAST, OVERHEAD_DEPTH_MAX);
	return -1;
}

/* opts_uint -- a whole decimal number in lo..hi, or -1 */
static int
opts_uint(const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (end == s || *end || n < lo || n > hi)
		return -1;
	*v = (unsigned)n;
	return 0;
}

/* opts_conns -- a comma-separated list of connection counts */
static int
opts_conns(char *s, struct opts *o)
{
	char *save = NULL;

	o->nconns = 0;
	for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nconns == OPTS_MAX_POINTS ||
		    opts_uint(tok, 1, OPTS_MAX_CONNS, &o->conns[o->nconns++]))
			return -1;
	}
	return o->nconns ? 0 : -1;
}

/* opts_mode -- the first argument names the mode and sets its defaults */
static int
opts_mode(const char *word, struct opts *o)
{
	static const unsigned scale[] = {1, 10, 100, 1000};

	*o = (struct opts){.seconds = 2.0, .window = 4, .ops = 10000, .depth = 1};
	if (strcmp(word, "scale") == 0) {
		o->mode = OPTS_SCALE;
		memcpy(o->conns, scale, sizeof(scale));
		o->nconns = sizeof(scale) / sizeof(scale[0]);
	} else if (strcmp(word, "threads") == 0) {
		o->mode = OPTS_THREADS;
		o->conns[0] = 10;
		o->nconns = 1;
	} else if (strcmp(word, "overhead") == 0) {
		o->mode = OPTS_OVERHEAD;
	} else if (strcmp(word, "serve") == 0) {
		o->mode = OPTS_SERVE;
	} else {
		return -1;
	}
	return 0;
}

/* opts_option -- one option and its value */
static int
opts_option(int opt, char *arg, struct opts *o)
{
	char *end;

	switch (opt) {
	case 'c':
		if (o->mode == OPTS_SERVE || o->mode == OPTS_OVERHEAD || opts_conns(arg, o))
			return opts_usage("--conns: counts of 1 to 4096, at most 16 of them");
		if (o->mode == OPTS_THREADS && o->nconns != 1)
			return opts_usage("--conns: threads takes one count (per thread)");
		return 0;
	case 's':
		o->seconds = strtod(arg, &end);
		if (end == arg || *end || !(o->seconds >= 0.01 && o->seconds <= 600))
			return opts_usage("--seconds: 0.01 to 600");
		return 0;
	case 'w':
		return opts_uint(arg, 1, OPTS_MAX_WINDOW, &o->window)
			   ? opts_usage("--window: 1 to 1024")
			   : 0;
	case 'b':
		return opts_uint(arg, 1, OPTS_MAX_WINDOW, &o->batch)
			   ? opts_usage("--batch: 1 to 1024")
			   : 0;
	case 'o':
		if (o->mode != OPTS_OVERHEAD)
			return opts_usage("--ops: only for overhead");
		return opts_uint(arg, 1, OVERHEAD_OPS_MAX, &o->ops)
			   ? opts_usage("--ops: 1 to 10000000")
			   : 0;
	case 'd':
		if (o->mode != OPTS_OVERHEAD)
			return opts_usage("--depth: only for overhead");
		return opts_uint(arg, 1, OVERHEAD_DEPTH_MAX, &o->depth)
			   ? opts_usage("--depth: 1 to 64")
			   : 0;
	case 'p':
		return opts_uint(arg, UTIL_PORT_FIRST, UTIL_PORT_LAST, &o->port)
			   ? opts_usage("--port: out of the benchmark's range")
			   : 0;
	default:
		return opts_usage(NULL);
	}
}

/* opts_parse -- see opts.h */
int
opts_parse(int argc, char *argv[], struct opts *o)
{
	static const struct option longs[] = {
	    {"conns", required_argument, NULL, 'c'},
	    {"seconds", required_argument, NULL, 's'},
	    {"window", required_argument, NULL, 'w'},
	    {"batch", required_argument, NULL, 'b'},
	    {"port", required_argument, NULL, 'p'},
	    {"ops", required_argument, NULL, 'o'},
	    {"depth", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	if (argc < 2 || opts_mode(argv[1], o))
		return opts_usage("name a mode: scale, threads, overhead or serve");
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", longs, NULL)) != -1)
		if (opts_option(opt, optarg, o))
			return -1;
	if (optind != argc)
		return opts_usage("unexpected arguments");
	if (o->batch == 0)
		o->batch = o->window > 1 ? o->window / 2 : 1;
	if (o->batch > o->window || o->window % o->batch)
		return opts_usage("--batch must divide --window");
	return 0;
}
