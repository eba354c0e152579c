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

/* spawn_child -- the server's side of the fork: serve, then exit with its status */
static void __attribute__((noreturn)) spawn_child(unsigned first, unsigned last, int ready_fd)
{
	/* a parent killed before it could stop the server must not leave it behind */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(1);
	exit(server_run(first, last, ready_fd) ? 1 : 0);
}

/* spawn_wait_port -- the child writes its port once it listens, or closes the pipe */
static int
spawn_wait_port(int fd, struct spawn *s)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int n = poll(&pfd, 1, SPAWN_READY_MS);

	if (n != 1) {
		fprintf(stderr, "rpmaf-bench: the server did not start within %d ms\n",
			SPAWN_READY_MS);
		return -1;
	}
	if (read(fd, &s->port, sizeof(s->port)) != (ssize_t)sizeof(s->port)) {
		fprintf(stderr, "rpmaf-bench: the server failed to start\n");
		return -1;
	}
	return 0;
}

/* spawn_server -- see spawn.h */
int
spawn_server(unsigned first, unsigned last, struct spawn *s)
{
	int fds[2];

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
		spawn_child(first, last, fds[1]);
	}
	close(fds[1]);
	int ret = spawn_wait_port(fds[0], s);

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
