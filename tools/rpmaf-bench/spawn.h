/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * spawn.h -- the benchmark's own server process: forked before the parent
 * touches the RDMA device, so that the two are separate peers, as on two
 * hosts. The child dies with its parent (PR_SET_PDEATHSIG).
 */

#ifndef RPMAF_BENCH_SPAWN_H
#define RPMAF_BENCH_SPAWN_H

#include <sys/types.h>

#define SPAWN_PORTS_MAX 2

struct spawn {
	pid_t pid;
	unsigned port;			 /* where the server listens (ports[0]) */
	unsigned ports[SPAWN_PORTS_MAX]; /* every port it announced, in order */
};

/*
 * what the child runs: announce each port it listens on by writing it (an
 * unsigned) to ready_fd, serve until SIGTERM; 0 after a clean stop
 */
typedef int (*spawn_serve_fn)(int ready_fd);

/*
 * spawn_server -- fork a server (server_run()) on the first free port of
 * first..last and wait until it listens.
 * RETURN VALUE: 0 and *s set; -1 (the reason printed on stderr), no child left.
 * THREAD SAFETY: not thread-safe (fork).
 */
int spawn_server(unsigned first, unsigned last, struct spawn *s);

/*
 * spawn_start -- fork a child running serve() and wait until it has
 * announced nports ports (at most SPAWN_PORTS_MAX).
 * RETURN VALUE: 0 and *s set; -1 (the reason printed on stderr), no child left.
 * THREAD SAFETY: not thread-safe (fork).
 */
int spawn_start(spawn_serve_fn serve, unsigned nports, struct spawn *s);

/*
 * spawn_stop -- stop the server (SIGTERM; SIGKILL after 5 s) and reap it.
 * RETURN VALUE: 0 when it exited cleanly; -1 otherwise (printed on stderr).
 * THREAD SAFETY: not thread-safe.
 */
int spawn_stop(struct spawn *s);

#endif
