/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * report.c -- the progress line and the final table, JSON object, CSV and
 * histogram.
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "report.h"

#define MB 1e6 /* the M of MB/s */

static const char Csv_header[] = "size,kind,count,seconds,ops_per_sec,mb_per_sec,min_us,mean_us,"
				 "stdev_us,p50_us,p90_us,p99_us,p999_us,max_us,errors\n";

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
	struct run_fig d;

	if (!run_warming(r) && t < 0.1)
		return; /* the warm-up just ended: no interval to show yet */
	if (run_warming(r)) {
		fprintf(rep->out, "%s[warm-up] not counted%s", rep->tty ? "\r" : "",
			rep->tty ? "\033[K" : "\n");
		fflush(rep->out);
		rep->shown = rep->tty;
		return;
	}
	rep->prev = rep->cur;
	run_collect(r, &rep->cur);
	d = rep->cur.all;
	run_fig_sub(&d, &rep->prev.all);
	if (dt <= 0)
		dt = 1;
	fprintf(rep->out,
		"%s[%6.1fs] last %.1fs: %10.0f ops/s %9.2f MB/s  p99 %9.1f us  errors %" PRIu64
		"%s",
		rep->tty ? "\r" : "", t, dt, (double)d.ops / dt, (double)d.bytes / dt / MB,
		us(rpmaf__hist_snap_percentile(&d.snap, 99)), d.errors, rep->tty ? "\033[K" : "\n");
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

/* the figures of one row, in microseconds */
struct row_lat {
	double min, mean, stdev, p50, p90, p99, p999, max;
};

/* row_lat -- min, mean, stdev (from the buckets' middles), percentiles, max of h */
static struct row_lat
row_lat(const struct rpmaf__hist_snap *h)
{
	struct row_lat l = {0};
	double var = 0;

	if (!h->count)
		return l;
	l.mean = (double)h->sum / (double)h->count;
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++)
		if (h->bucket[i]) {
			double mid = ((double)rpmaf__hist_bucket_low(i) +
				      (double)rpmaf__hist_bucket_high(i)) /
					 2 -
				     l.mean;

			var += (double)h->bucket[i] * mid * mid;
		}
	l.stdev = us((uint64_t)sqrt(var / (double)h->count));
	l.mean = l.mean / 1e3;
	l.min = us(h->min);
	l.max = us(h->max);
	l.p50 = us(rpmaf__hist_snap_percentile(h, 50));
	l.p90 = us(rpmaf__hist_snap_percentile(h, 90));
	l.p99 = us(rpmaf__hist_snap_percentile(h, 99));
	l.p999 = us(rpmaf__hist_snap_percentile(h, 99.9));
	return l;
}

/* row -- one row of the table */
static void
row(FILE *out, const char *name, uint64_t size, const struct run_fig *f, double s)
{
	struct row_lat l = row_lat(&f->snap);
	char sz[24] = "";

	if (size)
		snprintf(sz, sizeof(sz), "%" PRIu64, size);
	fprintf(out,
		"%-14s %10s %10" PRIu64 " %11.1f %9.2f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f"
		" %9.1f %7" PRIu64 "\n",
		name, sz, f->ops, (double)f->ops / s, (double)f->bytes / s / MB, l.min, l.mean,
		l.stdev, l.p50, l.p90, l.p99, l.p999, l.max, f->errors);
}

/* table_verify -- the verification's part of the table's last line */
static void
table_verify(FILE *out, const struct report_verify *v)
{
	if (!v->done)
		return;
	fprintf(out, "; verify: %" PRIu64 " records read back, %" PRIu64 " bad", v->checked,
		v->bad);
	if (v->unchecked)
		fprintf(out, ", %" PRIu64 " not checked (%s)", v->unchecked,
			v->interrupted ? "interrupted" : "target unreachable");
}

/* table_fails -- the failures by why, when there are any, for the table's last line */
static void
table_fails(FILE *out, const struct run_result *res)
{
	const char *sep = "; failed: ";

	for (int w = 0; w < RUN_NWHY; w++) {
		if (!res->fails[w])
			continue;
		fprintf(out, "%s%" PRIu64 " %s", sep, res->fails[w], Run_why_names[w]);
		sep = ", ";
	}
}

/* see report.h */
void
report_table(FILE *out, const struct workload *wl, const struct report_meta *m,
	     const struct report_run *runs, unsigned n)
{
	fprintf(out, "# MB = 10^6 bytes; latencies in microseconds (us)\n");
	fprintf(out, "%-14s %10s %10s %11s %9s %8s %8s %8s %8s %8s %8s %9s %9s %7s\n", "kind",
		"size(B)", "count", "ops/s", "MB/s", "min", "mean", "stdev", "p50", "p90", "p99",
		"p99.9", "max", "errors");
	for (unsigned i = 0; i < n; i++) {
		const struct report_run *rr = &runs[i];
		double s = rr->seconds > 0 ? rr->seconds : 1e-9;

		for (int k = 0; k < WL_NKINDS; k++)
			if (wl->in_mix[k])
				row(out, Wl_kind_names[k], rr->size, &rr->res.kind[k], s);
		row(out, "total", rr->size, &rr->res.all, s);
	}
	fprintf(out, "%u thread%s, queue depth %u", wl->threads, wl->threads == 1 ? "" : "s",
		wl->queue_depth);
	if (wl->rate > 0)
		fprintf(out, ", open loop at %.0f ops/s (latency from the intended start)",
			wl->rate);
	if (m->warmup > 0)
		fprintf(out, ", figures after a warm-up of %.2f s", m->warmup);
	fputc('\n', out);
	for (unsigned i = 0; i < n; i++) {
		if (runs[i].size)
			fprintf(out, "size %" PRIu64 ": ", runs[i].size);
		fprintf(out, "%.2f s", runs[i].seconds);
		table_fails(out, &runs[i].res);
		table_verify(out, &runs[i].v);
		fputc('\n', out);
	}
	if (m->unreachable)
		fprintf(out, "STOPPED: the target was unreachable (no healthy connection)\n");
	if (m->interrupted)
		fprintf(out, "INTERRUPTED: by a signal; the figures are of the part that ran\n");
}

/* json_fig -- the figures of one kind as a JSON object */
static void
json_fig(FILE *out, const char *name, const struct run_fig *f, double s)
{
	struct row_lat l = row_lat(&f->snap);

	fprintf(out,
		"\"%s\":{\"count\":%" PRIu64 ",\"ops_per_sec\":%.1f,\"mb_per_sec\":%.3f,"
		"\"min_us\":%.3f,\"mean_us\":%.3f,\"stdev_us\":%.3f,"
		"\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,"
		"\"max_us\":%.1f,\"errors\":%" PRIu64 "}",
		name, f->ops, (double)f->ops / s, (double)f->bytes / s / MB, l.min, l.mean, l.stdev,
		l.p50, l.p90, l.p99, l.p999, l.max, f->errors);
}

/* json_str -- s as a JSON string */
static void
json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* json_account -- how every operation of the run ended, as a JSON member */
static void
json_account(FILE *out, const struct run_account *a)
{
	fprintf(out,
		",\"accounting\":{\"submitted\":%" PRIu64 ",\"rejected\":%" PRIu64
		",\"completed_ok\":%" PRIu64 ",\"completed_failed\":%" PRIu64
		",\"never_completed\":%" PRIu64 ",\"in_flight\":%" PRIu64
		",\"completed_twice\":%" PRIu64 ",\"late\":%" PRIu64 "}",
		a->submitted, a->rejected, a->completed_ok, a->completed_failed, a->never,
		a->in_flight, a->twice, a->late);
}

/* json_run -- the figures of one run: seconds, kinds, total, accounting, verify, first error */
static void
json_run(FILE *out, const struct workload *wl, const struct report_run *rr)
{
	double s = rr->seconds > 0 ? rr->seconds : 1e-9;

	fprintf(out, "\"seconds\":%.3f,", rr->seconds);
	if (rr->size)
		fprintf(out, "\"size\":%" PRIu64 ",", rr->size);
	fprintf(out, "\"kinds\":{");
	for (int k = 0, n = 0; k < WL_NKINDS; k++)
		if (wl->in_mix[k]) {
			fprintf(out, "%s", n++ ? "," : "");
			json_fig(out, Wl_kind_names[k], &rr->res.kind[k], s);
		}
	fprintf(out, "},");
	json_fig(out, "total", &rr->res.all, s);
	fprintf(out, ",\"failures\":{");
	for (int w = 0; w < RUN_NWHY; w++)
		fprintf(out, "%s\"%s\":%" PRIu64, w ? "," : "", Run_why_names[w], rr->res.fails[w]);
	fprintf(out, "}");
	json_account(out, &rr->acct);
	if (rr->v.done)
		fprintf(out,
			",\"verify\":{\"checked\":%" PRIu64 ",\"bad\":%" PRIu64
			",\"not_checked\":%" PRIu64 "}",
			rr->v.checked, rr->v.bad, rr->v.unchecked);
	if (rr->first_error[0]) {
		fprintf(out, ",\"first_error\":");
		json_str(out, rr->first_error);
	}
}

/* see report.h */
void
report_json(FILE *out, const struct workload *wl, const struct report_meta *m,
	    const struct report_run *runs, unsigned n)
{
	fprintf(out, "{\"version\":");
	json_str(out, m->version);
	fprintf(out, ",\"start_time\":\"%s\",\"host\":", m->start);
	json_str(out, m->host);
	fprintf(out,
		",\"config_sha256\":\"%s\",\"interrupted\":%s,\"unreachable\":%s,"
		"\"units\":{\"mb\":1000000,\"latency\":\"us\"},\"warmup_seconds\":%.3f,"
		"\"threads\":%u,\"queue_depth\":%u,\"rate\":%.1f,",
		m->digest, m->interrupted ? "true" : "false", m->unreachable ? "true" : "false",
		m->warmup, wl->threads, wl->queue_depth, wl->rate);
	if (n == 1 && !runs[0].size) {
		json_run(out, wl, &runs[0]);
	} else {
		fprintf(out, "\"sweep\":[");
		for (unsigned i = 0; i < n; i++) {
			fprintf(out, "%s{", i ? "," : "");
			json_run(out, wl, &runs[i]);
			fputc('}', out);
		}
		fputc(']', out);
	}
	fprintf(out, "}\n");
}

/* csv_row -- one row of the CSV */
static void
csv_row(FILE *out, const char *name, const struct report_run *rr, const struct run_fig *f)
{
	double s = rr->seconds > 0 ? rr->seconds : 1e-9;
	struct row_lat l = row_lat(&f->snap);

	if (rr->size)
		fprintf(out, "%" PRIu64, rr->size);
	fprintf(out,
		",%s,%" PRIu64 ",%.3f,%.1f,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%" PRIu64
		"\n",
		name, f->ops, rr->seconds, (double)f->ops / s, (double)f->bytes / s / MB, l.min,
		l.mean, l.stdev, l.p50, l.p90, l.p99, l.p999, l.max, f->errors);
}

/* see report.h */
void
report_csv(FILE *out, const struct workload *wl, const struct report_run *runs, unsigned n)
{
	fputs(Csv_header, out);
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < WL_NKINDS; k++)
			if (wl->in_mix[k])
				csv_row(out, Wl_kind_names[k], &runs[i], &runs[i].res.kind[k]);
		csv_row(out, "total", &runs[i], &runs[i].res.all);
	}
}

/* hist_rows -- the non-empty buckets of h as CSV rows */
static void
hist_rows(FILE *out, const char *name, uint64_t size, const struct rpmaf__hist_snap *h)
{
	uint64_t cum = 0;
	char sz[24] = "";

	if (size)
		snprintf(sz, sizeof(sz), "%" PRIu64, size);
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS && cum < h->count; i++) {
		if (!h->bucket[i])
			continue;
		cum += h->bucket[i];
		fprintf(out, "%s,%s,%.3f,%" PRIu64 ",%.6f\n", name, sz,
			us(rpmaf__hist_bucket_high(i)), h->bucket[i],
			(double)cum / (double)h->count);
	}
}

/* see report.h */
void
report_histogram(FILE *out, const struct workload *wl, const struct report_run *runs, unsigned n)
{
	fputs("kind,size,upper_us,count,cumulative\n", out);
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < WL_NKINDS; k++)
			if (wl->in_mix[k])
				hist_rows(out, Wl_kind_names[k], runs[i].size,
					  &runs[i].res.kind[k].snap);
		hist_rows(out, "total", runs[i].size, &runs[i].res.all.snap);
	}
}
