/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * args.c -- rpma-load's command line.
 */

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "meta.h"

#define WL_PREFIX "workload."

/* the options with no short letter */
enum {
	OPT_VFILE = 256,
	OPT_JOURNAL,
	OPT_VERIFY,
	OPT_CSV,
	OPT_WARMUP,
	OPT_HIST,
	OPT_TIMELINE,
	OPT_KEEP
};

static const char Usage[] =
    "usage: rpma-load -c FILE -w WORKLOAD [--set KEY=VALUE]... [--verify [--journal PATH]]\n"
    "                 [--warmup SECONDS] [-a] [--json[=FILE]] [--csv[=FILE]]\n"
    "                 [--histogram FILE] [--timeline FILE] [--keep-running]\n"
    "       rpma-load --verify-file REGION_FILE [--journal PATH]\n"
    "       rpma-load --help | --version\n";

static const char Help[] =
    "\n"
    "Run the operations of WORKLOAD through the framework's pool against a region\n"
    "of a target of the configuration FILE (its targets section), print a progress\n"
    "line once a second and, at the end, one row per operation kind: count, ops/s,\n"
    "MB/s, latency (min, mean, stdev, percentiles, max) in microseconds and errors.\n"
    "\n"
    "units: MB = 10^6 bytes (MB/s); latencies in microseconds (us); in FILE and\n"
    "WORKLOAD sizes take K, M, G = 1024, 1024^2, 1024^3 bytes (4K = 4096).\n"
    "The progress line shows the last interval only: its ops/s, MB/s, p99 and\n"
    "errors (nothing is cumulative).\n"
    "\n"
    "options:\n"
    "  -c, --config FILE      the framework configuration (doc/CONFIG.md)\n"
    "  -w, --workload FILE    the workload (below)\n"
    "  -s, --set KEY=VALUE    override a key of FILE, or of WORKLOAD when KEY starts\n"
    "                         with \"workload.\" (workload.rate=500); may be repeated;\n"
    "                         workload.count replaces the file's duration, and\n"
    "                         workload.duration its count\n"
    "      --verify           write records that can be checked, read every one back\n"
    "                         at the end and check it\n"
    "      --journal PATH     with --verify: write what was written last where to PATH;\n"
    "                         with --verify-file: check against it\n"
    "      --verify-file F    check the records in F, a server's region file, after the\n"
    "                         server has exited (no RDMA)\n"
    "      --warmup SECONDS   run that long first, outside the figures (the workload's\n"
    "                         warmup key; with a duration only)\n"
    "  -a, --all-sizes        a size sweep: one run per power of two from the smallest\n"
    "                         to the largest size of the workload's writes, reads and\n"
    "                         calls, each of them at that size; one row each\n"
    "  -j, --json[=FILE]      the final figures as one JSON object (to FILE)\n"
    "      --csv[=FILE]       the final figures as CSV (to FILE); columns:\n"
    "                         size,kind,count,seconds,ops_per_sec,mb_per_sec,min_us,\n"
    "                         mean_us,stdev_us,p50_us,p90_us,p99_us,p999_us,max_us,errors\n"
    "                         (size: the sweep's, empty without -a)\n"
    "      --histogram FILE   the latency histogram as CSV, for a CDF: columns\n"
    "                         kind,size,upper_us,count,cumulative: per kind and for the\n"
    "                         total (and per size with -a), one row per non-empty\n"
    "                         bucket: its upper bound in us, its count, the fraction of\n"
    "                         the kind's operations at or below it\n"
    "      --timeline FILE    a CSV line every 100 ms (and at the start and the end):\n"
    "                         seconds,epoch,ok,failed: seconds since the start, the\n"
    "                         wall clock (Unix time, ms), the operations completed ok\n"
    "                         and failed in the interval (the warm-up included)\n"
    "      --keep-running     go on to the end when the target has no healthy\n"
    "                         connection (operations fail meanwhile) instead of\n"
    "                         stopping after timeouts.operation_ms\n"
    "  -V, --version          print the version (and the git revision built from)\n"
    "  -h, --help             print this help\n"
    "Without a FILE, JSON or CSV replaces the table on the standard output.\n"
    "The JSON object holds version, start_time (ISO-8601, UTC), host, config_sha256\n"
    "(of the resolved configuration and workload), interrupted, unreachable, the\n"
    "figures (kinds, total; a sweep's in \"sweep\"), the failed operations by why\n"
    "(failures: timeout, connlost, noent, remote, refused, shutdown, echo, other),\n"
    "accounting and verify.\n"
    "accounting: how every operation submitted ended, the warm-up included:\n"
    "  submitted = rejected (at submission) + completed_ok + completed_failed\n"
    "  + never_completed (within 2 x timeouts.operation_ms + 1 s after the end)\n"
    "  + in_flight (a run stopped by a signal); completed_twice and late (after\n"
    "  it was given up) count completions beyond those.\n"
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
    "  warmup: 1s                         optional, with duration: run first, not counted\n"
    "  rate: 10000                        optional: ops/s in all, open loop; latency is\n"
    "                                     measured from each operation's intended start\n"
    "  seed: 42                           optional: the random choices\n"
    "Calls go to handler 1 of the region's target (rpma-server's echo).\n"
    "Without a rate (closed loop) each thread's operations run on one worker\n"
    "(thread t on worker t mod workers.count): a completion submits the next\n"
    "operation at once, on that worker's own connection when it has one.\n"
    "\n"
    "signals: SIGINT (Ctrl-C), SIGTERM or SIGHUP stop the run at any moment, the\n"
    "connection included (within 100 ms): the figures of the part that ran are\n"
    "printed, marked interrupted (\"interrupted\": true in JSON), and the exit\n"
    "status is 130.\n"
    "\n"
    "an unreachable target: an operation submitted while the target has no\n"
    "healthy connection waits for one (up to connections x queues.sq of them;\n"
    "beyond that it is refused), and one whose connection is lost is sent again,\n"
    "so an outage shorter than timeouts.operation_ms costs no operation; past it,\n"
    "each fails once (timeout). A run whose target has no healthy connection for\n"
    "longer than timeouts.operation_ms stops with an error (not with\n"
    "--keep-running); --verify then reports\n"
    "the records it cannot read back as not checked (target unreachable), not bad.\n"
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
    "exit status: 0 no error; 1 an operation failed, a check failed, the target\n"
    "became unreachable or the setup failed (with a message); 2 wrong usage (an\n"
    "unknown option, a missing or malformed value, options that do not go\n"
    "together); 130 interrupted by a signal\n";

/* usage_fail -- a usage error: the message, the usage, exit status 2 */
static int
usage_fail(const char *what, const char *arg)
{
	fprintf(stderr, "rpma-load: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", Usage);
	return EXIT_USAGE;
}

/* args_set -- one --set, to FILE or to WORKLOAD; -1, or EXIT_USAGE when it is no KEY=VALUE */
static int
args_set(struct args *a, const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s ||
	    (!strncmp(s, WL_PREFIX, strlen(WL_PREFIX)) && eq == s + strlen(WL_PREFIX)))
		return usage_fail("--set takes KEY=VALUE", s);
	if (!strncmp(s, WL_PREFIX, strlen(WL_PREFIX)))
		a->wsets[a->nwsets++] = s + strlen(WL_PREFIX);
	else
		a->sets[a->nsets++] = s;
	return -1;
}

/* args_warmup -- --warmup SECONDS as the override warmup=SECONDSs; -1, or EXIT_USAGE */
static int
args_warmup(struct args *a, const char *v)
{
	char *end;
	double s = strtod(v, &end);

	if (end == v || *end || !isfinite(s) || s < 0 || s > 86400)
		return usage_fail("--warmup takes seconds from 0 to 86400", v);
	snprintf(a->warmup, sizeof(a->warmup), "warmup=%.9fs", s);
	a->wsets[a->nwsets++] = a->warmup;
	return -1;
}

/* args_check -- the options that go together; -1 to go on, or an exit status */
static int
args_check(const struct args *a)
{
	if (a->verify_file)
		return a->cfg || a->workload || a->verify || a->sweep || a->json.on || a->csv.on ||
			       a->histogram || a->warmup[0] || a->timeline || a->keep_running
			   ? usage_fail("--verify-file takes only --journal", NULL)
			   : -1;
	if (!a->cfg || !a->workload)
		return usage_fail("a configuration and a workload are needed (-c FILE -w FILE)",
				  NULL);
	if (a->journal && !a->verify)
		return usage_fail("--journal needs --verify or --verify-file", NULL);
	if (a->journal && a->sweep)
		return usage_fail("--journal holds one run: not with -a", NULL);
	if (a->timeline && a->sweep)
		return usage_fail("--timeline holds one run: not with -a", NULL);
	if (a->json.on && a->csv.on && !a->json.file && !a->csv.file)
		return usage_fail("--json and --csv both to the standard output: give a FILE",
				  NULL);
	return -1;
}

/* args_option -- one option c (with optarg); -1 to go on, or an exit status */
static int
args_option(struct args *a, int c, char *argv[])
{
	switch (c) {
	case 'c':
		a->cfg = optarg;
		return -1;
	case 'w':
		a->workload = optarg;
		return -1;
	case 's':
		return args_set(a, optarg);
	case 'j':
		a->json = (struct args_out){true, optarg};
		return -1;
	case OPT_CSV:
		a->csv = (struct args_out){true, optarg};
		return -1;
	case 'a':
		a->sweep = true;
		return -1;
	case OPT_VERIFY:
		a->verify = true;
		return -1;
	case OPT_VFILE:
		a->verify_file = optarg;
		return -1;
	case OPT_JOURNAL:
		a->journal = optarg;
		return -1;
	case OPT_WARMUP:
		return args_warmup(a, optarg);
	case OPT_HIST:
		a->histogram = optarg;
		return -1;
	case OPT_TIMELINE:
		a->timeline = optarg;
		return -1;
	case OPT_KEEP:
		a->keep_running = true;
		return -1;
	case 'V':
		return printf("rpma-load %s\n", RPMAF_TOOLS_VERSION) < 0 ? EXIT_FAIL : 0;
	case 'h':
		return fputs(Usage, stdout) < 0 || fputs(Help, stdout) < 0 ? EXIT_FAIL : 0;
	case ':':
		return usage_fail("a value is needed after", argv[optind - 1]);
	default:
		return usage_fail("unknown option", argv[optind - 1]);
	}
}

/* see args.h */
int
args_parse(int argc, char *argv[], struct args *a)
{
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"workload", required_argument, NULL, 'w'},
	    {"set", required_argument, NULL, 's'},
	    {"json", optional_argument, NULL, 'j'},
	    {"csv", optional_argument, NULL, OPT_CSV},
	    {"all-sizes", no_argument, NULL, 'a'},
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"verify-file", required_argument, NULL, OPT_VFILE},
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"histogram", required_argument, NULL, OPT_HIST},
	    {"timeline", required_argument, NULL, OPT_TIMELINE},
	    {"keep-running", no_argument, NULL, OPT_KEEP},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, ret;

	a->sets = calloc((size_t)argc, sizeof(*a->sets));
	a->wsets = calloc((size_t)argc, sizeof(*a->wsets));
	if (!a->sets || !a->wsets)
		return fprintf(stderr, "rpma-load: out of memory\n"), EXIT_FAIL;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:w:s:jaVh", longopts, NULL)) != -1)
		if ((ret = args_option(a, c, argv)) >= 0)
			return ret;
	if (optind < argc)
		return usage_fail("unexpected argument", argv[optind]);
	return args_check(a);
}

/* see args.h */
void
args_fini(struct args *a)
{
	free(a->sets);
	free(a->wsets);
}
