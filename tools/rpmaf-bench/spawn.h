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

struct spawn {
	pid_t pid;
	unsigned port; /* where the server listens */
};

/*
 * spawn_server -- fork a server (server_run()) on the first free port of
 * first..last and wait until it listens.
 * RETURN VALUE: 0 and *s set; -1 (the reason printed on stderr), no child left.
 * THREAD SAFETY: not thread-safe (fork).
 */
int spawn_server(unsigned first, unsigned last, struct spawn *s);

/*
 * spawn_stop -- stop the server (SIGTERM; SIGKILL after 5 s) and reap it.
 * RETURN VALUE: 0 when it exited cleanly; -1 otherwise (printed on stderr).
 * THREAD SAFETY: not thread-safe.
 */
int spawn_stop(struct spawn *s);

#endif
