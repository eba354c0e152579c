/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpma-load -- the framework's load generator: drives a workload (a YAML
 * file, workload.h) through librpmaf's pool against a target's region and
 * reports throughput and latency per operation kind; --verify checks what
 * it wrote, --verify-file checks a server's region file afterwards.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "report.h"
#include "run.h"
#include "vfile.h"
#include "workload.h"

#define EXIT_FAIL  1
#define EXIT_USAGE 2
#define WL_PREFIX  "workload."

static const char Usage[] =
    "usage: rpma-load -c FILE -w WORKLOAD [--set KEY=VALUE]... [--json] [--verify]\n"
    "                 [--journal PATH]\n"
    "       rpma-load --verify-file REGION_FILE [--journal PATH]\n"
    "       rpma-load --help\n";

static const char Help[] =
    "\n"
    "Run the operations of WORKLOAD through the framework's pool against a region\n"
    "of a target of the configuration FILE (its targets section), print a progress\n"
    "line once a second and, at the end, one row per operation kind: count, ops/s,\n"
    "MB/s, latency percentiles in microseconds and errors.\n"
    "\n"
    "options:\n"
    "  -c, --config FILE      the framework configuration (doc/CONFIG.md)\n"
    "  -w, --workload FILE    the workload (below)\n"
    "  -s, --set KEY=VALUE    override a key of FILE, or of WORKLOAD when KEY starts\n"
    "                         with \"workload.\" (workload.rate=500); may be repeated\n"
    "  -j, --json             print the final figures as one JSON object\n"
    "  -V, --verify           write records that can be checked, read every one back\n"
    "                         at the end and check it\n"
    "      --journal PATH     with --verify: write what was written last where to PATH;\n"
    "                         with --verify-file: check against it\n"
    "      --verify-file F    check the records in F, a server's region file, after the\n"
    "                         server has exited (no RDMA)\n"
    "  -h, --help             print this help\n"
    "\n"
    "workload (YAML):\n"
    "  region: data                       the target region (required)\n"
    "  mix:                               kinds and weights (required)\n"
    "    - {kind: write_persist, weight: 3}   write, write_persist, read, atomic, call\n"
    "    - {kind: read, weight: 1}\n"
    "  sizes: {write_persist: 4K, read: {uniform: [512, 8K]}, call: 64}\n"
    "  threads: 2                         application threads (default 1)\n"
    "  queue_depth: 8                     operations in flight per thread (default 1)\n"
    "  duration: 5s                       or count: N (operations in all); one of them\n"
    "  rate: 10000                        optional: ops/s in all, open loop; latency is\n"
    "                                     measured from each operation's intended start\n"
    "  seed: 42                           optional: the random choices\n"
    "Calls go to handler 1 of the region's target (rpma-server's echo).\n"
    "Without a rate (closed loop) each thread's operations run on one worker\n"
    "(thread t on worker t mod workers.count): a completion submits the next\n"
    "operation at once, on that worker's own connection when it has one.\n"
    "\n"
    "verification:\n"
    "  The region is cut into slots of the largest write size (rounded up to 64\n"
    "  bytes; the last 4 KiB are kept for atomic writes when the mix has them);\n"
    "  thread t writes only slots s with s % threads == t, one write per slot at a\n"
    "  time. Each write is a record: a 48-byte header (magic, its offset, sequence,\n"
    "  length, slot size, run id, CRC-32C of the whole record) and a pseudo-random\n"
    "  payload. --verify reads back every slot whose last write completed and\n"
    "  checks its record and sequence; --journal keeps the slot, sequence, length\n"
    "  and CRC of each. --verify-file with the journal checks that every slot holds\n"
    "  its last record exactly and that other slots are blank or sound; without it,\n"
    "  it finds the records by their header and checks each (at least one needed).\n"
    "  Writes shorter than 48 bytes are written as 48 under --verify; calls check\n"
    "  that the echo reply equals the request.\n"
    "\n"
    "exit status: 0 no error; 1 an operation failed, a check failed or the setup\n"
    "failed (with a message); 2 wrong usage\n";

struct args {
	const char *cfg, *workload, *verify_file, *journal;
	const char **sets, **wsets; /* --set for FILE, and for WORKLOAD (prefix removed) */
	unsigned nsets, nwsets;
	bool json, verify;
};

/* usage_fail -- a usage error: the message, the usage, exit status 2 */
static int
usage_fail(const char *what, const char *arg)
{
	fprintf(stderr, "rpma-load: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", Usage);
	return EXIT_USAGE;
}

/* args_set -- one --set, to FILE or to WORKLOAD */
static void
args_set(struct args *a, const char *s)
{
	if (!strncmp(s, WL_PREFIX, strlen(WL_PREFIX)))
		a->wsets[a->nwsets++] = s + strlen(WL_PREFIX);
	else
		a->sets[a->nsets++] = s;
}

/* args_check -- the options that go together; -1 to go on, or an exit status */
static int
args_check(const struct args *a)
{
	if (a->verify_file)
		return a->cfg || a->workload || a->verify
			   ? usage_fail("--verify-file takes no -c, -w or --verify", NULL)
			   : -1;
	if (!a->cfg || !a->workload)
		return usage_fail("a configuration and a workload are needed (-c FILE -w FILE)",
				  NULL);
	if (a->journal && !a->verify)
		return usage_fail("--journal needs --verify or --verify-file", NULL);
	return -1;
}

/* args_parse -- the command line into a; returns -1 to go on, or an exit status */
static int
args_parse(int argc, char *argv[], struct args *a)
{
	enum { OPT_VFILE = 256, OPT_JOURNAL };
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"workload", required_argument, NULL, 'w'},
	    {"set", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"verify", no_argument, NULL, 'V'},
	    {"verify-file", required_argument, NULL, OPT_VFILE},
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	a->sets = calloc((size_t)argc, sizeof(*a->sets));
	a->wsets = calloc((size_t)argc, sizeof(*a->wsets));
	if (!a->sets || !a->wsets)
		return usage_fail("out of memory", NULL);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:w:s:jVh", longopts, NULL)) != -1) {
		if (c == 'c')
			a->cfg = optarg;
		else if (c == 'w')
			a->workload = optarg;
		else if (c == 's')
			args_set(a, optarg);
		else if (c == 'j')
			a->json = true;
		else if (c == 'V')
			a->verify = true;
		else if (c == OPT_VFILE)
			a->verify_file = optarg;
		else if (c == OPT_JOURNAL)
			a->journal = optarg;
		else if (c == 'h')
			return fputs(Usage, stdout) < 0 || fputs(Help, stdout) < 0 ? EXIT_FAIL
										   : EXIT_SUCCESS;
		else if (c == ':')
			return usage_fail("a value is needed after", argv[optind - 1]);
		else
			return usage_fail("unknown option", argv[optind - 1]);
	}
	if (optind < argc)
		return usage_fail("unexpected argument", argv[optind]);
	return args_check(a);
}

/* load_report -- the final figures; returns whether anything failed */
static bool
load_report(const struct args *a, const struct workload *wl, struct run *r,
	    const struct report_verify *v)
{
	struct run_result *res = malloc(sizeof(*res));
	const char *first;
	char buf[160];
	bool failed;

	if (!res)
		return fprintf(stderr, "rpma-load: out of memory\n"), true;
	run_collect(r, res);
	first = run_first_error(r, buf, sizeof(buf));
	if (a->json)
		report_json(stdout, wl, res, run_elapsed(r), v, first);
	else
		report_table(stdout, wl, res, run_elapsed(r), v);
	fflush(stdout);
	if (first)
		fprintf(stderr, "rpma-load: %llu operation%s failed; the first: %s\n",
			(unsigned long long)res->all.errors, res->all.errors == 1 ? "" : "s",
			first);
	failed = res->all.errors || v->bad;
	free(res);
	return failed;
}

/* load_run -- the run on an open client: threads, progress, verification, report */
static int
load_run(const struct args *a, const struct workload *wl, struct client *cl, struct run *r)
{
	struct report_verify v = {.done = false};
	struct report *rep = report_new(stderr);
	int ret;

	if (!rep)
		return fprintf(stderr, "rpma-load: out of memory\n"), EXIT_FAIL;
	ret = run_exec(r, report_progress, rep);
	report_delete(&rep);
	if (ret)
		return EXIT_FAIL;
	if (a->verify) {
		v.done = true;
		run_verify(r, &v.checked, &v.bad);
		if (a->journal && run_journal(r, a->journal))
			ret = EXIT_FAIL;
	}
	(void)cl;
	if (load_report(a, wl, r, &v))
		ret = EXIT_FAIL;
	return ret;
}

/* load -- the workload against the configuration's target */
static int
load(const struct args *a)
{
	struct workload *wl = NULL;
	struct rpmaf_cfg_err err;
	struct client cl;
	struct run *r = NULL;
	int ret = EXIT_FAIL;

	if (wl_load_file(a->workload, a->wsets, a->nwsets, &wl, &err)) {
		fprintf(stderr, "rpma-load: %s\n", err.msg);
		return EXIT_FAIL;
	}
	if (client_open(&cl, a->cfg, a->sets, a->nsets, wl->region))
		goto err_wl;
	if (run_new(wl, &cl, a->verify, &r))
		goto err_client;
	ret = load_run(a, wl, &cl, r);
err_client:
	client_close(&cl);
	run_delete(&r);
err_wl:
	wl_delete(&wl);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct args a = {.nsets = 0};
	int ret = args_parse(argc, argv, &a);

	if (ret < 0)
		ret = a.verify_file ? vfile_check(a.verify_file, a.journal, stdout) : load(&a);
	free(a.sets);
	free(a.wsets);
	return ret;
}
