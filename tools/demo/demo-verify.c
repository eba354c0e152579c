/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * demo-verify.c -- after the demonstration, open the server's file anew and
 * check that it holds every record the client wrote, each at its place and
 * intact. It reads the file with pread(2), not through RDMA.
 *
 * usage: demo-verify [-n RECORDS] [-s RECORD_SIZE] PATH
 *
 * Exit codes: 0 every record is intact, 1 an error or a bad record, 2 bad
 * arguments.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"

/*
 * read_record -- read record number seq of size bytes into buf.
 */
static int
read_record(int fd, const char *path, void *buf, unsigned long seq, size_t size)
{
	size_t have = 0;
	off_t off = (off_t)(seq * size);

	while (have < size) {
		ssize_t n = pread(fd, (char *)buf + have, size - have, off + (off_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "verify: reading record %lu of %s failed: %s\n", seq, path,
				strerror(errno));
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "verify: %s ends before record %lu\n", path, seq);
			return -1;
		}
		have += (size_t)n;
	}
	return 0;
}

/*
 * main -- check every record of the file and say how many are intact.
 */
int
main(int argc, char *argv[])
{
	unsigned long records = 16384, rec_size = 4096, good = 0, seq;
	void *buf;
	int opt, fd, ret, err = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n':
			if (demo_parse_ulong("verify", opt, optarg, 1, 1UL << 32, &records))
				return 2;
			break;
		case 's':
			if (demo_parse_ulong("verify", opt, optarg, DEMO_MIN_RECORD_SIZE,
					     DEMO_MAX_RECORD_SIZE, &rec_size) ||
			    !demo_record_size_ok(rec_size)) {
				fprintf(stderr, "verify: -s wants a multiple of 8\n");
				return 2;
			}
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1)
		goto usage;
	const char *path = argv[optind];

	ret = posix_memalign(&buf, 64, rec_size);
	if (ret) {
		fprintf(stderr, "verify: cannot allocate %lu bytes: %s\n", rec_size, strerror(ret));
		return 1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "verify: cannot open %s: %s\n", path, strerror(errno));
		goto err_free;
	}
	for (seq = 0; seq < records; seq++) {
		if (read_record(fd, path, buf, seq, rec_size))
			goto err_close;

		const char *why = demo_record_check(buf, seq, rec_size);

		if (why == NULL)
			good++;
		else if (seq - good < 10) /* the bad records before this one */
			fprintf(stderr, "verify: record %lu in %s: %s\n", seq, path, why);
	}
	printf("verify: %lu/%lu records in %s are intact\n", good, records, path);
	if (good == records)
		err = 0;
err_close:
	if (close(fd)) {
		fprintf(stderr, "verify: close(%s) failed: %s\n", path, strerror(errno));
		err = 1;
	}
err_free:
	free(buf);
	return err;
usage:
	fprintf(stderr, "usage: %s [-n RECORDS] [-s RECORD_SIZE] PATH\n", argv[0]);
	return 2;
}
