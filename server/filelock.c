// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * filelock.c -- the lock on a region file and the lookup of its holder
 * (see filelock.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "filelock.h"

/* see filelock.h */
int
rpmaf__filelock_take(int fd)
{
	int ret;

	do
		ret = flock(fd, LOCK_EX | LOCK_NB);
	while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

/*
 * holder_of -- the pid of a /proc/locks line when it is a granted flock()
 * lock on the file st describes; 0 otherwise (a waiter's line, "->",
 * names no holder and does not parse as one)
 */
static pid_t
holder_of(const char *line, const struct stat *st)
{
	char kind[16];
	unsigned maj, min;
	unsigned long long ino;
	int pid;

	if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &pid, &maj, &min, &ino) != 5)
		return 0;
	if (strcmp(kind, "FLOCK") || pid <= 0 || maj != major(st->st_dev) ||
	    min != minor(st->st_dev) || ino != (unsigned long long)st->st_ino)
		return 0;
	return (pid_t)pid;
}

/* see filelock.h */
pid_t
rpmaf__filelock_holder(int fd)
{
	struct stat st;
	char line[256];
	pid_t pid = 0;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!pid && fgets(line, sizeof(line), f))
		pid = holder_of(line, &st);
	fclose(f);
	return pid;
}
