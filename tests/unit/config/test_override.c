/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_override.c -- "--set key.path=value": values of every shape, paths
 * into mappings and lists, sections created on the way, the order of
 * several overrides, and every way an override can be wrong.
 */

#include "config_test.h"

#include <string.h>

/* the characters of an override a message shows before it cuts it */
#define DIAG_SHOWN 160

/* load_sets -- load yaml with n overrides and assert success */
static struct rpmaf_cfg *
load_sets(const char *yaml, const char **sets, unsigned n)
{
	struct rpmaf_cfg_opts opts = {
	    .overrides = sets, .n_overrides = n, .flags = RPMAF_CFG_NO_FILE_CHECKS};

	return load_ok_opts(yaml, &opts);
}

/* values -- scalars, lists and mappings, into existing keys and new ones */
static void
values(void **state)
{
	const char *sets[] = {
	    "workers.count=2",
	    "workers.cpus=[1, 0]",
	    "listen.address=10.0.0.1",
	    "targets[0].port=9000",
	    "regions[0].backing={file: /pmem/x, create: true}",
	    "log.file=\"/a b\"",
	    "queues.srq.rq=0",
	    "reconnect.jitter=0.5",
	};
	struct rpmaf_cfg *c = load_sets("workers: {count: 1}\ntargets: [{name: a, address: b}]\n"
					"regions: [{name: r, size: 4K}]\n",
					sets, 8);

	(void)state;
	assert_int_equal(c->workers.count, 2);
	assert_int_equal(c->workers.ncpus, 2);
	assert_int_equal(c->workers.cpus[0], 1);
	assert_true(c->listen.enabled);
	assert_string_equal(c->listen.address, "10.0.0.1");
	assert_int_equal(c->targets[0].port, 9000);
	assert_int_equal(c->regions[0].backing, RPMAF_BACKING_FILE);
	assert_string_equal(c->regions[0].path, "/pmem/x");
	assert_true(c->regions[0].create);
	assert_string_equal(c->log.file, "/a b");
	assert_int_equal(c->queues.srq_rq, 0);
	assert_int_equal(c->queues.rq, 16);
	assert_true(c->reconnect.jitter == 0.5);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* whole_lists -- a list replaced or created whole; the last override of a key wins */
static void
whole_lists(void **state)
{
	const char *sets[] = {
	    "targets=[{name: x, address: y, connections: 3}, {name: z, address: y}]",
	    "workers.count=3",
	    "workers.count=1",
	    "regions=[]",
	};
	struct rpmaf_cfg *c =
	    load_sets("targets: [{name: a, address: b}]\nregions: [{name: r, size: 4K}]", sets, 4);

	(void)state;
	assert_int_equal(c->ntargets, 2);
	assert_string_equal(c->targets[0].name, "x");
	assert_int_equal(c->targets[0].connections, 3);
	assert_int_equal(c->workers.count, 1);
	assert_int_equal(c->nregions, 0);
	assert_int_equal(c->conns_per_worker, 4);
	rpmaf_cfg_delete(&c);
}

/* bad_syntax -- not key.path=value, not a path, not a YAML value */
static void
bad_syntax(void **state)
{
	(void)state;
	expect_err_set("{}", "nonsense", RPMAF_E_PARSE,
		       "--set nonsense: not key.path=value (e.g. workers.count=2)");
	expect_err_set("{}", "=4", RPMAF_E_PARSE,
		       "--set =4: not key.path=value (e.g. workers.count=2)");
	expect_err_set(
	    "{}", "workers..count=1", RPMAF_E_PARSE,
	    "--set workers..count=1: \"workers..count\" is not a key path (keys joined by '.', "
	    "list entries as [N]: regions[0].size)");
	expect_err_set(
	    "{}", "workers.count[x]=1", RPMAF_E_PARSE,
	    "--set workers.count[x]=1: \"workers.count[x]\" is not a key path (keys joined by "
	    "'.', list entries as [N]: regions[0].size)");
	expect_err_set("{}", "workers.=1", RPMAF_E_PARSE,
		       "--set workers.=1: \"workers.\" is not a key path (keys joined by '.', list "
		       "entries as [N]: regions[0].size)");
	expect_err_set(
	    "{}", "[0]=1", RPMAF_E_PARSE,
	    "--set [0]=1: \"[0]\" is not a key path (keys joined by '.', list entries as [N]: "
	    "regions[0].size)");
	expect_err_set(
	    "{}", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q=1", RPMAF_E_PARSE,
	    "--set a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q=1: \"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q\" "
	    "is not a key path (keys joined by '.', list entries as [N]: "
	    "regions[0].size)");
	expect_err_set("{}", "queues.cq=[1,", RPMAF_E_PARSE,
		       "--set queues.cq=[1,: YAML syntax error: did not find expected node content "
		       "while parsing a flow node (well-formed YAML)");
	expect_err_set("{}", "log.file=\xff", RPMAF_E_PARSE,
		       "--set log.file=\\xff: invalid UTF-8 byte 0xff (UTF-8 text)");
	expect_err_set("{}", "log.level=a\n---\nb", RPMAF_E_PARSE,
		       "--set log.level=a\\x0a---\\x0ab: a second document (one value)");
	expect_err_set("{}", "log={level: info, level: debug}", RPMAF_E_PARSE,
		       "--set log={level: info, level: debug}: duplicate key \"level\" (each key "
		       "once)");
	expect_err_set("{}", "log.file=*a", RPMAF_E_PARSE,
		       "--set log.file=*a: unknown alias *a (an anchor &a earlier, on a complete "
		       "node)");
	expect_err_set(
	    "{}", "log.file=!!str x", RPMAF_E_PARSE,
	    "--set log.file=!!str x: tag \"tag:yaml.org,2002:str\" (no tags: each key has "
	    "a fixed type)");
	expect_err_set(
	    "{}", "log=[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]", RPMAF_E_PARSE,
	    "--set log=[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]: log: nests too deep (a flatter "
	    "value)");
}

/* bad_paths -- paths that do not fit the document */
static void
bad_paths(void **state)
{
	(void)state;
	expect_err_set("{}", "targets[0].port=1", RPMAF_E_PARSE,
		       "--set targets[0].port=1: targets[0]: no such entry (an existing list)");
	expect_err_set("targets: [{name: a, address: b}]", "targets[5].port=1", RPMAF_E_PARSE,
		       "--set targets[5].port=1: targets[5]: no such entry (an index below 1)");
	/* the mappings on the way are created: here one where an integer belongs */
	expect_err_set("{}", "workers.count.x=1", RPMAF_E_CONFIG,
		       "--set workers.count.x=1: workers.count: found a mapping (an integer from 1 "
		       "to 256)");
	expect_err_set(
	    "workers: {count: 1}", "workers.count.x=1", RPMAF_E_PARSE,
	    "--set workers.count.x=1: workers.count.x: the value holding this key is not "
	    "a mapping (a path through mappings)");
	expect_err_set("workers: {}", "workers[0]=1", RPMAF_E_PARSE,
		       "--set workers[0]=1: workers[0]: not a list (an index into a list)");
}

/* long_ones -- a long override is cut in messages; a mapping full before the override */
static void
long_ones(void **state)
{
	char set[256];
	char yaml[16384];
	size_t o;

	(void)state;
	memset(set, 'x', sizeof(set));
	memcpy(set, "log.file=", 9);
	set[sizeof(set) - 1] = '\0';
	set[20] = '\x01';
	expect_err_set("{}", set, RPMAF_E_PARSE,
		       fmt("--set log.file=xxxxxxxxxxx\\x01%.*s...: control character U+0001 "
			   "(printable text)",
			   DIAG_SHOWN - 21, set + 21));
	o = (size_t)sprintf(yaml, "log: {");
	for (int i = 0; i < 1024; i++)
		o += (size_t)sprintf(yaml + o, "%sk%d: 1", i ? ", " : "", i);
	sprintf(yaml + o, "}");
	expect_err_set(yaml, "log.x=1", RPMAF_E_PARSE,
		       "--set log.x=1: log.x: one entry too many (a shorter mapping)");
}

/* checked_like_the_file -- a value from an override meets the same checks, named by it */
static void
checked_like_the_file(void **state)
{
	const char *sets[] = {"workers.count=2", "workers.polling=bussy"};
	struct rpmaf_cfg_opts opts = {.overrides = sets, .n_overrides = 2};
	struct rpmaf_cfg *c = NULL;
	struct rpmaf_cfg_err err;

	(void)state;
	expect_err_set(
	    "{}", "workers.count=abc", RPMAF_E_CONFIG,
	    "--set workers.count=abc: workers.count: found \"abc\" (an integer from 1 to "
	    "256)");
	expect_err_set("{}", "workers.count=", RPMAF_E_CONFIG,
		       "--set workers.count=: workers.count: no value (an integer from 1 to 256)");
	expect_err_set(
	    "{}", "workers.cont=3", RPMAF_E_CONFIG,
	    "--set workers.cont=3: workers.cont: unknown key (did you mean count? one of "
	    "count, cpus, polling, spin_us, batch)");
	expect_err_set(
	    "{}", "listen.port=80", RPMAF_E_CONFIG,
	    "--set listen.port=80: listen.address: missing (an IPv4 or IPv6 address or a "
	    "host name)");
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, "{}", 2, &opts, &c, &err), RPMAF_E_CONFIG);
	assert_int_equal(err.override, 1);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.msg, "--set workers.polling=bussy: workers.polling: unknown value "
				     "\"bussy\" (did you mean busy? one of busy, adaptive, event)");
	assert_null(c);
	/* a document that is not a mapping gets its own message, overrides or not */
	expect_err_set("- a", "workers.count=1", RPMAF_E_CONFIG,
		       "t.yaml:1:1: found a list (a mapping of workers, queues, listen, targets, "
		       "regions, timeouts, reconnect, auth, log, stats, rpmem)");
}

/* bad_options -- too many overrides, a NULL one */
static void
bad_options(void **state)
{
	static const char *sets[RPMAF_CFG_MAX_OVERRIDES + 1];
	struct rpmaf_cfg_opts opts = {.overrides = sets, .n_overrides = RPMAF_CFG_MAX_OVERRIDES};
	struct rpmaf_cfg *c;

	(void)state;
	for (unsigned i = 0; i <= RPMAF_CFG_MAX_OVERRIDES; i++)
		sets[i] = "workers.batch=2";
	c = load_ok_opts("{}", &opts);
	assert_int_equal(c->workers.batch, 2);
	rpmaf_cfg_delete(&c);
	opts.n_overrides++;
	expect_err_opts("{}", &opts, RPMAF_E_INVAL,
			"t.yaml: invalid argument: more than RPMAF_CFG_MAX_OVERRIDES overrides");
	sets[3] = NULL;
	opts.n_overrides = 4;
	expect_err_opts("{}", &opts, RPMAF_E_INVAL,
			"t.yaml: invalid argument: an override is NULL");
	opts.overrides = NULL;
	expect_err_opts("{}", &opts, RPMAF_E_INVAL, "t.yaml: invalid argument: overrides is NULL");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(values),
	    cmocka_unit_test(whole_lists),
	    cmocka_unit_test(bad_syntax),
	    cmocka_unit_test(bad_paths),
	    cmocka_unit_test(checked_like_the_file),
	    cmocka_unit_test(bad_options),
	    cmocka_unit_test(long_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
