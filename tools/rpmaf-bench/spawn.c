// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * spawn.c -- fork, watch and stop the benchmark's server process
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"
#include "spawn.h"
#include "util.h"

#define SPAWN_READY_MS 15000 /* the longest a server may take to listen */
#define SPAWN_STOP_S   5.0   /* the longest it may take to stop */

/* the port range of spawn_server()'s child */
static unsigned Spawn_first, Spawn_last;

/* spawn_child -- the server's side of the fork: serve, then exit with its status */
static void __attribute__((noreturn)) spawn_child(spawn_serve_fn serve, int ready_fd)
{
	/* a parent killed before it could stop the server must not leave it behind */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(1);
	exit(serve(ready_fd) ? 1 : 0);
}

/* spawn_wait_port -- the child writes each port once it listens, or closes the pipe */
static int
spawn_wait_port(int fd, unsigned *port)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int n = poll(&pfd, 1, SPAWN_READY_MS);

	if (n != 1) {
		fprintf(stderr, "rpmaf-bench: the server did not start within %d ms\n",
			SPAWN_READY_MS);
		return -1;
	}
	if (read(fd, port, sizeof(*port)) != (ssize_t)sizeof(*port)) {
		fprintf(stderr, "rpmaf-bench: the server failed to start\n");
		return -1;
	}
	return 0;
}

/* spawn_plain -- the child of spawn_server() */
static int
spawn_plain(int ready_fd)
{
	return server_run(Spawn_first, Spawn_last, ready_fd);
}

/* spawn_server -- see spawn.h */
int
spawn_server(unsigned first, unsigned last, struct spawn *s)
{
	Spawn_first = first;
	Spawn_last = last;
	return spawn_start(spawn_plain, 1, s);
}

/* spawn_start -- see spawn.h */
int
spawn_start(spawn_serve_fn serve, unsigned nports, struct spawn *s)
{
	int fds[2], ret = 0;

	if (pipe(fds)) {
		fprintf(stderr, "rpmaf-bench: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		fprintf(stderr, "rpmaf-bench: fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (s->pid == 0) {
		close(fds[0]);
		spawn_child(serve, fds[1]);
	}
	close(fds[1]);
	for (unsigned i = 0; i < nports && i < SPAWN_PORTS_MAX && ret == 0; i++)
		ret = spawn_wait_port(fds[0], &s->ports[i]);
	s->port = s->ports[0];

	close(fds[0]);
	if (ret)
		(void)spawn_stop(s);
	return ret;
}

/* spawn_reap -- wait for the child up to timeout seconds; 1: reaped, 0: still running */
static int
spawn_reap(struct spawn *s, double timeout, int *status)
{
	double deadline = util_now() + timeout;

	for (;;) {
		pid_t r = waitpid(s->pid, status, WNOHANG);

		if (r == s->pid || (r < 0 && errno != EINTR))
			return 1;
		if (util_now() > deadline)
			return 0;
		util_sleep(0.01);
	}
}

/* spawn_stop -- see spawn.h */
int
spawn_stop(struct spawn *s)
{
	int status = 0;

	if (s->pid <= 0)
		return 0;
	kill(s->pid, SIGTERM);
	if (!spawn_reap(s, SPAWN_STOP_S, &status)) {
		fprintf(stderr, "rpmaf-bench: the server did not stop in %.0f s: killed\n",
			SPAWN_STOP_S);
		kill(s->pid, SIGKILL);
		(void)spawn_reap(s, SPAWN_STOP_S, &status);
		s->pid = 0;
		return -1;
	}
	s->pid = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "rpmaf-bench: the server ended with status 0x%x\n", status);
		return -1;
	}
	return 0;
}
