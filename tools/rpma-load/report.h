/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * report.h -- what rpma-load prints: a progress line once a second (on a
 * terminal rewritten in place, else one line each), and at the end one
 * table row per kind of the mix or one JSON object.
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
	struct run_result prev, cur;
};

/* what the verification found, for the final figures */
struct report_verify {
	bool done;
	uint64_t checked, bad;
};

/* report_init -- progress lines to out; NULL when out of memory */
struct report *report_new(FILE *out);

/* report_progress -- one progress line (the run_exec() callback; arg is the report) */
void report_progress(struct run *r, void *arg);

/* report_delete -- end the progress line (a newline on a terminal) and free rep */
void report_delete(struct report **rep_ptr);

/* report_table -- the final figures as a table, one row per kind of the mix and a total */
void report_table(FILE *out, const struct workload *wl, const struct run_result *res,
		  double seconds, const struct report_verify *v);

/* report_json -- the final figures as one JSON object on one line */
void report_json(FILE *out, const struct workload *wl, const struct run_result *res, double seconds,
		 const struct report_verify *v, const char *first_error);

#endif /* RPMA_LOAD_REPORT_H */
