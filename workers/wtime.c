// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wtime.c -- the time of a log line (wtime.h): a file of its own, so that a
 * daemon linking librpmaf.a for it takes nothing else of the log.
 */

#include <stdio.h>
#include <time.h>

#include "wtime.h"

/* see wtime.h */
void
rpmaf__wlog_time(char *buf, size_t size)
{
	struct timespec ts;
	char zone[8];
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	/* %z is +hhmm; ISO 8601's extended form, as the date and time are, is +hh:mm */
	if (!strftime(zone, sizeof(zone), "%z", &tm))
		zone[0] = '\0';
	snprintf(buf + n, size - n, ".%03ld%.3s:%.2s", ts.tv_nsec / 1000000L, zone,
		 zone[0] ? zone + 3 : "");
}
