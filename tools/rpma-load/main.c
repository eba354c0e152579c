/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpma-load -- the framework's load generator: drives a workload (a YAML
 * file, workload.h) through librpmaf's pool against a target's region and
 * reports throughput and latency per operation kind (one run, or one per
 * size of a sweep); --verify checks what it wrote, --verify-file checks a
 * server's region file afterwards. The options: args.c.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "meta.h"
#include "report.h"
#include "run.h"
#include "vfile.h"
#include "workload.h"

#define MAX_SWEEP 64

/* the outputs besides the standard output, opened before the run */
struct outs {
	FILE *json, *csv, *hist, *timeline;
};

/* out_open -- path for writing into *f; -1 with a message */
static int
out_open(const char *path, FILE **f)
{
	if (!path)
		return 0;
	if (!(*f = fopen(path, "w"))) {
		perror(path);
		return -1;
	}
	return 0;
}

/* out_close -- close f (NULL, or stdout: nothing); -1 with a message when writing failed */
static int
out_close(FILE *f, const char *path)
{
	if (!f || f == stdout)
		return 0;
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

/* outs_open -- the files of --json=FILE, --csv=FILE, --histogram FILE, --timeline FILE */
static int
outs_open(const struct args *a, struct outs *o)
{
	memset(o, 0, sizeof(*o));
	if ((a->json.on && out_open(a->json.file, &o->json)) ||
	    (a->csv.on && out_open(a->csv.file, &o->csv)) || out_open(a->histogram, &o->hist) ||
	    out_open(a->timeline, &o->timeline))
		return -1;
	if (a->json.on && !o->json)
		o->json = stdout;
	if (a->csv.on && !o->csv)
		o->csv = stdout;
	return 0;
}

/* outs_close -- every output file; -1 when one could not be written */
static int
outs_close(const struct args *a, struct outs *o)
{
	int ret = out_close(o->json, a->json.file);

	ret |= out_close(o->csv, a->csv.file);
	ret |= out_close(o->hist, a->histogram);
	ret |= out_close(o->timeline, a->timeline);
	return ret;
}

/* sweep_sizes -- the powers of two from the least to the largest size swept; how many */
static unsigned
sweep_sizes(const struct workload *wl, uint64_t *sizes)
{
	uint64_t lo = UINT64_MAX, hi = 0, p = 1;
	unsigned n = 0;

	for (int k = 0; k < WL_NKINDS; k++)
		if (wl->in_mix[k] && k != WL_ATOMIC) {
			lo = wl->size[k].lo < lo ? wl->size[k].lo : lo;
			hi = wl->size[k].hi > hi ? wl->size[k].hi : hi;
		}
	while (p < lo)
		p <<= 1;
	for (; p <= hi && n < MAX_SWEEP; p <<= 1)
		sizes[n++] = p;
	return n;
}

/* sweep_workload -- wl with every kind swept (all but atomic) at size */
static void
sweep_workload(struct workload *w, const struct workload *wl, uint64_t size)
{
	*w = *wl;
	for (int k = 0; size && k < WL_NKINDS; k++)
		if (k != WL_ATOMIC)
			w->size[k] = (struct wl_size){size, size};
}

/* run_figures -- the run's final figures, verification and first error into rr */
static void
run_figures(const struct args *a, struct run *r, struct report_run *rr)
{
	run_collect(r, &rr->res);
	run_account_get(r, &rr->acct);
	rr->seconds = run_elapsed(r);
	if (!run_first_error(r, rr->first_error, sizeof(rr->first_error)))
		rr->first_error[0] = '\0';
	if (!a->verify)
		return;
	if (run_interrupted()) {
		fprintf(stderr, "rpma-load: interrupted: the records are not read back\n");
		return;
	}
	rr->v.done = true;
	run_verify(r, &rr->v.checked, &rr->v.bad, &rr->v.unchecked);
	rr->v.interrupted = run_interrupted();
}

/*
 * run_one -- one run of w on the open client into rr (the run in *r_ptr);
 * 0; 1 when the figures are there but the journal could not be written;
 * -1 with no figures
 */
static int
run_one(const struct args *a, const struct workload *w, struct client *cl, struct report_run *rr,
	FILE *timeline, struct run **r_ptr)
{
	struct run_opts ro = {a->verify, a->keep_running, timeline};
	struct report *rep;
	int ret;

	if (run_new(w, cl, &ro, r_ptr))
		return -1;
	if (!(rep = report_new(stderr)))
		return fprintf(stderr, "rpma-load: out of memory\n"), -1;
	if (rr->size)
		fprintf(stderr, "rpma-load: size %llu bytes\n", (unsigned long long)rr->size);
	ret = run_exec(*r_ptr, report_progress, rep);
	report_delete(&rep);
	if (ret)
		return -1;
	run_figures(a, *r_ptr, rr);
	return a->journal && rr->v.done && run_journal(*r_ptr, a->journal) ? 1 : 0;
}

/* report_all -- the figures of the n runs to every output asked for */
static void
report_all(const struct outs *o, const struct workload *wl, const struct report_meta *m,
	   const struct report_run *runs, unsigned n)
{
	if (o->json)
		report_json(o->json, wl, m, runs, n);
	if (o->csv)
		report_csv(o->csv, wl, runs, n);
	if (o->hist)
		report_histogram(o->hist, wl, runs, n);
	if (o->json != stdout && o->csv != stdout)
		report_table(stdout, wl, m, runs, n);
	fflush(stdout);
}

/* failures -- say what failed in the n runs; whether anything did */
static bool
failures(const struct client *cl, const struct report_meta *m, const struct report_run *runs,
	 unsigned n)
{
	bool failed = m->unreachable;

	if (m->unreachable)
		fprintf(stderr,
			"rpma-load: stopped: target %s had no healthy connection for more than %u "
			"ms (timeouts.operation_ms): is the server running?\n",
			cl->target, cl->cfg->timeouts.operation_ms);
	for (unsigned i = 0; i < n; i++) {
		const struct run_fig *f = &runs[i].res.all;

		if (runs[i].first_error[0]) {
			fprintf(stderr, "rpma-load: %llu operation%s failed (",
				(unsigned long long)f->errors, f->errors == 1 ? "" : "s");
			for (int w = 0, n = 0; w < RUN_NWHY; w++)
				if (runs[i].res.fails[w])
					fprintf(stderr, "%s%llu %s", n++ ? ", " : "",
						(unsigned long long)runs[i].res.fails[w],
						Run_why_names[w]);
			fprintf(stderr, "); the first: %s\n", runs[i].first_error);
		}
		if (runs[i].v.unchecked)
			fprintf(stderr, "rpma-load: verify: %llu records not checked (%s)\n",
				(unsigned long long)runs[i].v.unchecked,
				runs[i].v.interrupted ? "interrupted" : "target unreachable");
		failed |= f->errors || runs[i].v.bad || runs[i].v.unchecked;
	}
	return failed;
}

/* sweep_go -- whether the sweep goes on after the run r (NULL: none yet) of size */
static bool
sweep_go(const struct run *r, uint64_t size, const struct report_meta *m)
{
	if (run_interrupted() || m->unreachable)
		return false;
	if (r && !run_idle(r)) {
		fprintf(stderr,
			"rpma-load: -a: operations still in flight after the run of %llu bytes; "
			"the sweep stops\n",
			(unsigned long long)size);
		return false;
	}
	return true;
}

/*
 * load_runs -- every run (one, or one per size) on the open client, which
 * it closes; the exit status
 */
static int
load_runs(const struct args *a, const struct workload *wl, struct client *cl, struct report_meta *m,
	  const struct outs *o)
{
	uint64_t sizes[MAX_SWEEP] = {0};
	unsigned n = a->sweep ? sweep_sizes(wl, sizes) : 1, done = 0;
	struct report_run *runs = NULL;
	struct run *r = NULL;
	struct workload w;
	int ret = EXIT_SUCCESS, one;

	if (!n) {
		fprintf(stderr, "rpma-load: -a: no power of two between the workload's sizes\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (!(runs = calloc(n, sizeof(*runs)))) {
		fprintf(stderr, "rpma-load: out of memory\n");
		ret = EXIT_FAIL;
		goto out;
	}
	for (; done < n && sweep_go(r, done ? sizes[done - 1] : 0, m); done++) {
		run_delete(&r);
		runs[done].size = sizes[done];
		sweep_workload(&w, wl, sizes[done]);
		if ((one = run_one(a, &w, cl, &runs[done], o->timeline, &r)) < 0)
			break;
		if (one)
			ret = EXIT_FAIL;
		m->unreachable = run_unreachable(r);
	}
	if (done < n && !run_interrupted())
		ret = EXIT_FAIL; /* said above */
	m->interrupted = run_interrupted();
	if (done)
		report_all(o, wl, m, runs, done);
	if (failures(cl, m, runs, done))
		ret = EXIT_FAIL;
out:
	if (r)
		run_abandon(r);
	client_close(cl);
	run_delete(&r);
	free(runs);
	return ret;
}

/* load -- the workload against the configuration's target; the exit status */
static int
load(const struct args *a)
{
	struct report_meta m = {.version = NULL};
	struct workload *wl = NULL;
	struct rpmaf_cfg_err err;
	struct client cl;
	struct outs o;
	int ret = EXIT_FAIL;

	if (wl_load_file(a->workload, a->wsets, a->nwsets, &wl, &err)) {
		fprintf(stderr, "rpma-load: %s\n", err.msg);
		return EXIT_FAIL;
	}
	m.warmup = (double)wl->warmup_ns / 1e9;
	meta_start(&m);
	if (outs_open(a, &o))
		goto err_outs;
	if (client_open(&cl, a->cfg, a->sets, a->nsets, wl->region))
		goto err_outs;
	if (meta_digest(&m, cl.cfg, wl)) {
		client_close(&cl);
		goto err_outs;
	}
	ret = load_runs(a, wl, &cl, &m, &o);
err_outs:
	if (outs_close(a, &o) && ret == EXIT_SUCCESS)
		ret = EXIT_FAIL;
	wl_delete(&wl);
	if (run_interrupted()) {
		fprintf(stderr, "rpma-load: interrupted by a signal%s\n",
			m.digest[0] ? ": the figures are of the part that ran" : "");
		ret = EXIT_INTERRUPTED;
	}
	return ret;
}

int
main(int argc, char *argv[])
{
	struct args a;
	int ret;

	memset(&a, 0, sizeof(a));
	run_signals_init();
	if ((ret = args_parse(argc, argv, &a)) < 0)
		ret = a.verify_file ? vfile_check(a.verify_file, a.journal, stdout) : load(&a);
	args_fini(&a);
	return ret;
}
