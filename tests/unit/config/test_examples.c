/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_examples.c -- every configuration file of config/examples/ loads (file checks on,
 * but for the files that name directories an installation makes; the workloads of
 * config/examples/workloads/ are rpma-load's, tested there)
 * and survives the dump/reload round trip; doc/CONFIG.md names every key of
 * the key table.
 */

#include "config_test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

#define EXAMPLES CONFIG_TOP_DIR "/config/examples"
#define DOC	 CONFIG_TOP_DIR "/doc/CONFIG.md"

/* examples that name a directory made when the service is installed, not on a build host */
static const char *const Installed[] = {"rpmemd.yaml"};

/* is_installed -- NAME is one of Installed: its files are not checked */
static bool
is_installed(const char *name)
{
	for (size_t i = 0; i < sizeof(Installed) / sizeof(Installed[0]); i++) {
		if (strcmp(name, Installed[i]) == 0)
			return true;
	}
	return false;
}

/* load_example -- config/examples/NAME, which must be valid */
static struct rpmaf_cfg *
load_example(const char *name)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c = NULL;
	struct rpmaf_cfg_err err;

	if (rpmaf_cfg_load_file(fmt("%s/%s", EXAMPLES, name), is_installed(name) ? &opts : NULL, &c,
				&err) != 0)
		fail_msg("%s", err.msg);
	return c;
}

/* every_example -- each *.yaml loads and round-trips */
static void
every_example(void **state)
{
	DIR *dir = opendir(EXAMPLES);
	struct dirent *e;
	int n = 0;

	(void)state;
	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL) {
		size_t len = strlen(e->d_name);
		struct rpmaf_cfg *c;

		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		c = load_example(e->d_name);
		expect_roundtrip(c);
		rpmaf_cfg_delete(&c);
		n++;
	}
	closedir(dir);
	assert_true(n >= 6);
}

/* example_values -- what the examples say they configure */
static void
example_values(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	c = load_example("demo.yaml");
	assert_int_equal(c->conns_per_worker, 5); /* (8 + 2) over 2 workers */
	assert_int_equal(c->queues.cq, 320);
	assert_int_equal(c->queues.srq_rq, 80);
	assert_string_equal(c->regions[0].path, "/tmp/rpma-demo.pmem");
	assert_int_equal(c->regions[0].persistence, RPMAF_PERSIST_GPSPM);
	rpmaf_cfg_delete(&c);
	c = load_example("server.yaml");
	assert_int_equal(c->queues.cq, 16384);
	assert_int_equal(c->queues.srq_rq, 1024);
	assert_int_equal(c->workers.polling, RPMAF_POLLING_BUSY);
	assert_int_equal(c->workers.spin_us, 0);
	rpmaf_cfg_delete(&c);
	c = load_example("no-srq.yaml");
	assert_int_equal(c->queues.srq_rq, 0);
	assert_int_equal(c->queues.rcq, 512);
	rpmaf_cfg_delete(&c);
	c = load_example("client.yaml");
	assert_int_equal(c->ntargets, 2);
	assert_false(c->listen.enabled);
	assert_true(c->reconnect.multiplier == 1.5);
	rpmaf_cfg_delete(&c);
	c = load_example("rpmemd.yaml");
	assert_true(c->rpmem.enabled);
	assert_int_equal(c->rpmem.max_lanes, 64);
	assert_string_equal(c->rpmem.poolset_dir, "/var/lib/rpmemd/pools");
	rpmaf_cfg_delete(&c);
	c = load_example("minimal.yaml");
	assert_int_equal(c->conns_per_worker, 64);
	rpmaf_cfg_delete(&c);
}

/* doc_names -- every key path of keys under prefix appears in doc as `path` */
static int
doc_names(const char *doc, const struct rpmaf__cfg_key *keys, const char *prefix)
{
	int n = 0;

	for (const struct rpmaf__cfg_key *k = keys; k->name; k++) {
		char path[128];
		char quoted[132];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k->name);
		snprintf(quoted, sizeof(quoted), "`%s`", path);
		if (strstr(doc, quoted) == NULL)
			fail_msg("doc/CONFIG.md does not document %s", quoted);
		n++;
		if (k->type == RPMAF__CFG_T_LIST)
			snprintf(path + strlen(path), sizeof(path) - strlen(path), "[]");
		if (k->keys)
			n += doc_names(doc, k->keys, path);
	}
	return n;
}

/* doc_complete -- doc/CONFIG.md documents every key */
static void
doc_complete(void **state)
{
	FILE *f = fopen(DOC, "r");
	char *doc = calloc(1, 1 << 20);
	size_t len;

	(void)state;
	assert_non_null(f);
	assert_non_null(doc);
	len = fread(doc, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0);
	assert_int_equal(doc_names(doc, rpmaf__cfg_schema.keys, ""), 61);
	free(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_example),
	    cmocka_unit_test(example_values),
	    cmocka_unit_test(doc_complete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
