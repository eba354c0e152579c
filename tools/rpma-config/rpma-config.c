/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpma-config -- check a framework configuration file, or print it with
 * every value resolved:
 *   rpma-config check [--set KEY=VALUE]... [--no-file-checks] FILE
 *   rpma-config dump  [--set KEY=VALUE]... [--no-file-checks] FILE
 * Exit status: 0 valid, 1 invalid (the message on standard error), 2 usage.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "rpmaf_version.h"

#define EXIT_INVALID 1
#define EXIT_USAGE   2

static const char Usage[] =
    "usage: rpma-config check [--set KEY=VALUE]... [--no-file-checks] FILE\n"
    "       rpma-config dump  [--set KEY=VALUE]... [--no-file-checks] FILE\n"
    "       rpma-config --help | --version\n";

static const char Help[] =
    "\n"
    "Check or print a configuration file of the rpma framework (rpma-server,\n"
    "rpma-load, rpmemd). doc/CONFIG.md describes every key.\n"
    "\n"
    "commands:\n"
    "  check   load and validate FILE; print a one-line summary and exit 0 when it\n"
    "          is valid, print the first error and exit 1 when it is not\n"
    "  dump    print FILE as YAML with every value resolved (defaults filled in,\n"
    "          auto sizes computed); the output loads back to the same configuration\n"
    "\n"
    "options:\n"
    "  -s, --set KEY=VALUE   override a key, as if FILE said so; KEY is a key path\n"
    "                        (workers.count, regions[0].size), VALUE is YAML\n"
    "                        (4, busy, [0, 1], {file: /pmem/r0, create: true});\n"
    "                        may be repeated, applied in order\n"
    "  -n, --no-file-checks  do not look at the files FILE names (region files, key\n"
    "                        file, directories), e.g. to check a server's file elsewhere\n"
    "  -h, --help            print this help\n"
    "  -V, --version         print the version (and the git revision built from)\n"
    "\n"
    "Errors read FILE:LINE:COLUMN: key.path: what is wrong (what was expected), or\n"
    "--set KEY=VALUE: key.path: ... when an override is at fault.\n"
    "\n"
    "exit status: 0 valid, 1 invalid, 2 wrong usage\n";

struct args {
	const char *command;
	const char *file;
	const char **sets;
	unsigned nsets;
	unsigned flags;
};

/* usage_fail -- a usage error: the message, the usage, exit status 2 */
static int
usage_fail(const char *what, const char *arg)
{
	fprintf(stderr, "rpma-config: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", Usage);
	return EXIT_USAGE;
}

/* args_parse -- the command line into a; returns -1 to go on, or an exit status */
static int
args_parse(int argc, char *argv[], struct args *a)
{
	static const struct option longopts[] = {
	    {"set", required_argument, NULL, 's'},
	    {"no-file-checks", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	a->sets = calloc((size_t)argc, sizeof(*a->sets));
	if (a->sets == NULL)
		return usage_fail("out of memory", NULL);
	opterr = 0; /* usage_fail() says what is wrong */
	while ((c = getopt_long(argc, argv, ":s:nhV", longopts, NULL)) != -1) {
		if (c == 's')
			a->sets[a->nsets++] = optarg;
		else if (c == 'n')
			a->flags |= RPMAF_CFG_NO_FILE_CHECKS;
		else if (c == 'h')
			return printf("%s%s", Usage, Help) < 0 ? EXIT_INVALID : EXIT_SUCCESS;
		else if (c == 'V')
			return printf("rpma-config %s\n", RPMAF_TOOLS_VERSION) < 0 ? EXIT_INVALID
										   : EXIT_SUCCESS;
		else if (c == ':')
			return usage_fail("a value is needed after", argv[optind - 1]);
		else
			return usage_fail("unknown option", argv[optind - 1]);
	}
	if (optind < argc && strcmp(argv[optind], "help") == 0)
		return printf("%s%s", Usage, Help) < 0 ? EXIT_INVALID : EXIT_SUCCESS;
	if (argc - optind != 2)
		return usage_fail(argc - optind < 2 ? "a command and a FILE are needed"
						    : "too many arguments",
				  NULL);
	a->command = argv[optind];
	a->file = argv[optind + 1];
	if (strcmp(a->command, "check") != 0 && strcmp(a->command, "dump") != 0)
		return usage_fail("unknown command", a->command);
	return -1;
}

/* config_summary -- the line "check" prints for a valid file */
static void
config_summary(const char *file, const struct rpmaf_cfg *cfg)
{
	printf("%s: valid: %u worker%s, %u connection%s per worker, %u target%s, %u region%s%s%s\n",
	       file, cfg->workers.count, cfg->workers.count == 1 ? "" : "s", cfg->conns_per_worker,
	       cfg->conns_per_worker == 1 ? "" : "s", cfg->ntargets, cfg->ntargets == 1 ? "" : "s",
	       cfg->nregions, cfg->nregions == 1 ? "" : "s",
	       cfg->listen.enabled ? ", listening" : "",
	       cfg->rpmem.enabled ? ", rpmem target" : "");
}

/* config_run -- load the file and do the command */
static int
config_run(const struct args *a)
{
	struct rpmaf_cfg_opts opts = {
	    .overrides = a->sets, .n_overrides = a->nsets, .flags = a->flags};
	struct rpmaf_cfg_err err;
	struct rpmaf_cfg *cfg = NULL;
	int ret;

	if (rpmaf_cfg_load_file(a->file, &opts, &cfg, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return EXIT_INVALID;
	}
	if (strcmp(a->command, "check") == 0) {
		config_summary(a->file, cfg);
		ret = EXIT_SUCCESS;
	} else if ((ret = rpmaf_cfg_dump(cfg, stdout)) != 0) {
		fprintf(stderr, "rpma-config: cannot write the configuration: %s\n",
			rpmaf_err_str(ret));
		ret = EXIT_INVALID;
	}
	rpmaf_cfg_delete(&cfg);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct args a = {0};
	int ret = args_parse(argc, argv, &a);

	if (ret < 0)
		ret = config_run(&a);
	free(a.sets);
	if (fflush(stdout) != 0 && ret == EXIT_SUCCESS)
		ret = EXIT_INVALID;
	return ret;
}
