/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * report.c -- the progress line and the final table or JSON object.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "report.h"

#define MB 1e6

/* see report.h */
struct report *
report_new(FILE *out)
{
	struct report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return NULL;
	rep->out = out;
	rep->tty = isatty(fileno(out));
	return rep;
}

/* us -- nanoseconds as microseconds */
static double
us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* see report.h */
void
report_progress(struct run *r, void *arg)
{
	struct report *rep = arg;
	double t = run_elapsed(r), dt = t - rep->last_t;
	uint64_t ops, bytes;

	rep->prev = rep->cur;
	run_collect(r, &rep->cur);
	ops = rep->cur.all.ops - rep->prev.all.ops;
	bytes = rep->cur.all.bytes - rep->prev.all.bytes;
	if (dt <= 0)
		dt = 1;
	fprintf(rep->out, "%s[%6.1fs] %10.0f ops/s %9.2f MB/s  p99 %9.1f us  errors %" PRIu64 "%s",
		rep->tty ? "\r" : "", t, (double)ops / dt, (double)bytes / dt / MB,
		us(rpmaf__hist_snap_percentile(&rep->cur.all.snap, 99)), rep->cur.all.errors,
		rep->tty ? "\033[K" : "\n");
	fflush(rep->out);
	rep->shown = rep->tty;
	rep->last_t = t;
}

/* see report.h */
void
report_delete(struct report **rep_ptr)
{
	if (!*rep_ptr)
		return;
	if ((*rep_ptr)->shown)
		fputc('\n', (*rep_ptr)->out);
	free(*rep_ptr);
	*rep_ptr = NULL;
}

/* row -- one row of the table */
static void
row(FILE *out, const char *name, const struct run_fig *f, double s)
{
	const struct rpmaf__hist_snap *h = &f->snap;

	fprintf(out,
		"%-14s %10" PRIu64 " %11.1f %9.2f %9.1f %9.1f %9.1f %9.1f %9.1f %7" PRIu64 "\n",
		name, f->ops, (double)f->ops / s, (double)f->bytes / s / MB,
		us(rpmaf__hist_snap_percentile(h, 50)), us(rpmaf__hist_snap_percentile(h, 90)),
		us(rpmaf__hist_snap_percentile(h, 99)), us(rpmaf__hist_snap_percentile(h, 99.9)),
		us(h->max), f->errors);
}

/* see report.h */
void
report_table(FILE *out, const struct workload *wl, const struct run_result *res, double seconds,
	     const struct report_verify *v)
{
	if (seconds <= 0)
		seconds = 1e-9;
	fprintf(out, "%-14s %10s %11s %9s %9s %9s %9s %9s %9s %7s\n", "kind", "count", "ops/s",
		"MB/s", "p50(us)", "p90(us)", "p99(us)", "p99.9(us)", "max(us)", "errors");
	for (int k = 0; k < WL_NKINDS; k++)
		if (wl->in_mix[k])
			row(out, Wl_kind_names[k], &res->kind[k], seconds);
	row(out, "total", &res->all, seconds);
	fprintf(out, "%.2f s, %u thread%s, queue depth %u", seconds, wl->threads,
		wl->threads == 1 ? "" : "s", wl->queue_depth);
	if (wl->rate > 0)
		fprintf(out, ", open loop at %.0f ops/s (latency from the intended start)",
			wl->rate);
	if (v->done)
		fprintf(out, "; verify: %" PRIu64 " records read back, %" PRIu64 " bad", v->checked,
			v->bad);
	fputc('\n', out);
}

/* json_fig -- the figures of one kind as a JSON object */
static void
json_fig(FILE *out, const char *name, const struct run_fig *f, double s)
{
	const struct rpmaf__hist_snap *h = &f->snap;

	fprintf(out,
		"\"%s\":{\"count\":%" PRIu64 ",\"ops_per_sec\":%.1f,\"mb_per_sec\":%.3f,"
		"\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,"
		"\"max_us\":%.1f,\"errors\":%" PRIu64 "}",
		name, f->ops, (double)f->ops / s, (double)f->bytes / s / MB,
		us(rpmaf__hist_snap_percentile(h, 50)), us(rpmaf__hist_snap_percentile(h, 90)),
		us(rpmaf__hist_snap_percentile(h, 99)), us(rpmaf__hist_snap_percentile(h, 99.9)),
		us(h->max), f->errors);
}

/* see report.h */
void
report_json(FILE *out, const struct workload *wl, const struct run_result *res, double seconds,
	    const struct report_verify *v, const char *first_error)
{
	if (seconds <= 0)
		seconds = 1e-9;
	fprintf(out,
		"{\"seconds\":%.3f,\"threads\":%u,\"queue_depth\":%u,\"rate\":%.1f,\"kinds\":{",
		seconds, wl->threads, wl->queue_depth, wl->rate);
	for (int k = 0, n = 0; k < WL_NKINDS; k++)
		if (wl->in_mix[k]) {
			fprintf(out, "%s", n++ ? "," : "");
			json_fig(out, Wl_kind_names[k], &res->kind[k], seconds);
		}
	fprintf(out, "},");
	json_fig(out, "total", &res->all, seconds);
	if (v->done)
		fprintf(out, ",\"verify\":{\"checked\":%" PRIu64 ",\"bad\":%" PRIu64 "}",
			v->checked, v->bad);
	/* the error text is one of this program's fixed strings: no escaping needed */
	if (first_error)
		fprintf(out, ",\"first_error\":\"%s\"", first_error);
	fprintf(out, "}\n");
}
