/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * report.h -- what rpma-load prints: a progress line once a second (on a
 * terminal rewritten in place, else one line each), each figure of the
 * last interval; at the end the figures of every run (one, or one per size
 * of a sweep) as a table, one JSON object or CSV, and the latency
 * histogram as CSV.
 *
 * Units: bytes per second in MB/s with MB = 10^6 bytes; latencies in
 * microseconds; stdev is computed from the histogram (each sample at its
 * bucket's middle), min and max are exact except after a warm-up (then
 * within the histogram's precision, stats/hist.h).
 *
 * ASSUMPTIONS
 * Called by the main thread only.
 */

#ifndef RPMA_LOAD_REPORT_H
#define RPMA_LOAD_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"

/* the progress line's state */
struct report {
	FILE *out;
	bool tty;
	bool shown; /* a line rewritten in place is on the terminal */
	double last_t;
	uint64_t size; /* of a sweep: the size of the run; 0 */
	struct run_result prev, cur;
};

/* what the verification found, for the final figures */
struct report_verify {
	bool done;
	bool interrupted; /* a signal stopped it: what is not checked was not tried */
	uint64_t checked, bad, unchecked;
};

/* the figures of one run */
struct report_run {
	uint64_t size; /* a sweep's size of the run; 0: the workload's sizes */
	double seconds;
	struct run_result res;
	struct run_account acct; /* how every operation ended, the warm-up included */
	struct report_verify v;
	char first_error[160]; /* "" when none */
};

/* what the run was: the header of the JSON object, the table's last line */
struct report_meta {
	const char *version;
	char start[40];	 /* ISO-8601, UTC */
	char host[256];	 /* gethostname() */
	char digest[65]; /* SHA-256 of the resolved configuration and workload, hex */
	bool interrupted;
	bool unreachable;
	double warmup; /* seconds, outside the figures */
};

/* report_new -- progress lines to out; NULL when out of memory */
struct report *report_new(FILE *out);

/* report_progress -- one progress line (the run_exec() callback; arg is the report) */
void report_progress(struct run *r, void *arg);

/* report_delete -- end the progress line (a newline on a terminal) and free rep */
void report_delete(struct report **rep_ptr);

/* report_table -- the figures as a table: one row per kind (per size of a sweep), a total */
void report_table(FILE *out, const struct workload *wl, const struct report_meta *m,
		  const struct report_run *runs, unsigned n);

/* report_json -- the figures as one JSON object on one line */
void report_json(FILE *out, const struct workload *wl, const struct report_meta *m,
		 const struct report_run *runs, unsigned n);

/*
 * report_csv -- the figures as CSV: a header, then one row per kind and a
 * total per run (columns in report.c's Csv_header)
 */
void report_csv(FILE *out, const struct workload *wl, const struct report_run *runs, unsigned n);

/*
 * report_histogram -- the latency histogram of each kind and of the total
 * as CSV, for a CDF: kind, size (a sweep's, or empty), bucket upper bound
 * in microseconds, count, cumulative fraction; non-empty buckets only
 */
void report_histogram(FILE *out, const struct workload *wl, const struct report_run *runs,
		      unsigned n);

#endif /* RPMA_LOAD_REPORT_H */
