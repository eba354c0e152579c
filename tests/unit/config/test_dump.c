/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_dump.c -- the dump (its exact text, keys left out where they do not
 * apply, numbers and strings that read back exactly), rpmaf_cfg_equal() on
 * every kind of field, and the arguments of every public function.
 */

#include "config_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char Dump_expected[] =
    "# the resolved configuration: every key that applies, defaults filled in\n"
    "workers:\n"
    "  count: 2\n"
    "  cpus: [1, 0]\n"
    "  polling: busy\n"
    "  batch: 16\n"
    "queues:\n"
    "  sq: 64\n"
    "  rq: 16\n"
    "  cq: 2048\n"
    "  rcq: 512\n"
    "  srq:\n"
    "    rq: 0\n"
    "  inline: 64\n"
    "  messages:\n"
    "    size: 4K\n"
    "    credits: 16\n"
    "listen:\n"
    "  address: \"127.0.0.1\"\n"
    "  port: 7204\n"
    "  backlog: 128\n"
    "  max_connections: 64\n"
    "regions:\n"
    "- name: \"r\"\n"
    "  size: 3M\n"
    "  backing:\n"
    "    file: \"/p \\\"q\\\"\"\n"
    "    create: true\n"
    "  usage: [read, flush]\n"
    "  persistence: gpspm\n"
    "  direct_write: false\n"
    "timeouts:\n"
    "  connect_ms: 5000\n"
    "  operation_ms: 10000\n"
    "  heartbeat_interval_ms: 1000\n"
    "  heartbeat_misses: 3\n"
    "reconnect:\n"
    "  initial_ms: 100\n"
    "  max_ms: 10000\n"
    "  multiplier: 2\n"
    "  jitter: 0.2\n"
    "log:\n"
    "  level: notice\n"
    "stats:\n"
    "  interval_ms: 0\n";

/* dump_text -- the exact dump: resolved sizes, keys that do not apply left out */
static void
dump_text(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c = load_ok_opts(
	    "workers: {count: 2, cpus: [1, 0], polling: busy}\n"
	    "queues: {srq: {rq: 0}}\nlisten: {address: 127.0.0.1}\n"
	    "regions: [{name: r, size: 3072K, usage: [flush, read], persistence: gpspm,\n"
	    "  backing: {file: '/p \"q\"', create: true}}]\n",
	    &opts);
	char *text = dump_str(c);

	(void)state;
	assert_string_equal(text, Dump_expected);
	free(text);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* dump_numbers -- every double the loader accepts reads back as itself */
static void
dump_numbers(void **state)
{
	static const char *const texts[] = {
	    "0", "0.1", "0.3333333333333333", "1e-7", "0.99999999999999989", "0.000001", "1"};
	struct rpmaf_cfg *c;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		c = load_ok(
		    fmt("reconnect: {jitter: %s, multiplier: 1.0000000000000002}", texts[i]));
		assert_true(c->reconnect.jitter == strtod(texts[i], NULL));
		expect_roundtrip(c);
		rpmaf_cfg_delete(&c);
	}
}

/* dump_strings -- quotes, backslashes, line separators and non-ASCII read back exactly */
static void
dump_strings(void **state)
{
	struct rpmaf_cfg *c = load_ok("log: {file: \"/a\\\"b\\\\c\\u0085d\\u2028e\\ufeff\\U0001F600"
				      "\xc3\xa9\"}");
	char *text = dump_str(c);

	(void)state;
	assert_string_equal(c->log.file, "/a\"b\\c\xc2\x85"
					 "d\xe2\x80\xa8"
					 "e\xef\xbb\xbf"
					 "\xf0\x9f\x98\x80\xc3\xa9");
	assert_non_null(strstr(text, "  file: \"/a\\\"b\\\\c\\u0085d\\u2028e\\ufeff\xf0\x9f\x98\x80"
				     "\xc3\xa9\"\n"));
	free(text);
	expect_roundtrip(c);
	rpmaf_cfg_delete(&c);
}

/* dump_errors -- bad arguments, a stream that fails, an enum out of range */
static void
dump_errors(void **state)
{
	struct rpmaf_cfg *c = load_ok("{}");
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	assert_int_equal(rpmaf_cfg_dump(NULL, stdout), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_cfg_dump(c, NULL), RPMAF_E_INVAL);
	assert_non_null(full);
	assert_int_equal(rpmaf_cfg_dump(c, full), RPMAF_E_IO);
	fclose(full);
	full = fopen("/dev/null", "w");
	c->workers.polling = (enum rpmaf_polling)7;
	assert_int_equal(rpmaf_cfg_dump(c, full), RPMAF_E_INVAL);
	fclose(full);
	rpmaf_cfg_delete(&c);
}

/* expect_differs -- b, changed by one field, is not equal to a (either way round) */
static void
expect_differs(const struct rpmaf_cfg *a, const struct rpmaf_cfg *b)
{
	assert_false(rpmaf_cfg_equal(a, b));
	assert_false(rpmaf_cfg_equal(b, a));
}

/* equal -- each kind of field makes two configurations differ */
static void
equal(void **state)
{
	static const char yaml[] = "workers: {count: 2, cpus: [0, 1]}\nlisten: {address: a}\n"
				   "targets: [{name: t, address: b}]\n"
				   "regions: [{name: r, size: 4K}, {name: s, size: 4K, backing: "
				   "{file: /dev/null}}]\nlog: {file: /tmp/l}\n";
	struct rpmaf_cfg *a = load_ok(yaml);
	struct rpmaf_cfg *b = load_ok(yaml);
	uint32_t cpu;
	char *s;

	(void)state;
	assert_true(rpmaf_cfg_equal(a, b));
	assert_false(rpmaf_cfg_equal(a, NULL));
	assert_false(rpmaf_cfg_equal(NULL, a));
#define DIFFERS(field, value)                                                                      \
	do {                                                                                       \
		__typeof__(b->field) saved = b->field;                                             \
		b->field = value;                                                                  \
		expect_differs(a, b);                                                              \
		b->field = saved;                                                                  \
		assert_true(rpmaf_cfg_equal(a, b));                                                \
	} while (0)
	DIFFERS(workers.count, 3);
	DIFFERS(workers.ncpus, 1);
	DIFFERS(workers.polling, RPMAF_POLLING_EVENT);
	DIFFERS(queues.srq_rcq, 1);
	DIFFERS(queues.msg_size, 8192);
	DIFFERS(listen.enabled, false);
	DIFFERS(listen.address, "x");
	DIFFERS(listen.port, 1);
	DIFFERS(ntargets, 0);
	DIFFERS(targets[0].connections, 9);
	DIFFERS(targets[0].name, "u");
	DIFFERS(regions[0].size, 8192);
	DIFFERS(regions[0].usage, RPMAF_USAGE_READ);
	DIFFERS(regions[1].backing, RPMAF_BACKING_ANONYMOUS);
	DIFFERS(regions[1].path, "/dev/zero");
	DIFFERS(regions[1].create, true);
	DIFFERS(reconnect.jitter, 0.25);
	DIFFERS(log.file, NULL);
	DIFFERS(auth.key_file, "/k");
	DIFFERS(rpmem.enabled, true);
	DIFFERS(conns_per_worker, 1);
	cpu = b->workers.cpus[1];
	b->workers.cpus[1] = 5;
	expect_differs(a, b);
	b->workers.cpus[1] = cpu;
	/* strings are compared by content, not by address */
	s = b->log.file;
	b->log.file = "/tmp/l";
	assert_true(rpmaf_cfg_equal(a, b));
	b->log.file = s;
	rpmaf_cfg_delete(&a);
	rpmaf_cfg_delete(&b);
}

/* api_arguments -- NULL and odd arguments of the public functions */
static void
api_arguments(void **state)
{
	struct rpmaf_cfg *c = NULL;
	struct rpmaf_cfg_err err;

	(void)state;
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, "{}", 2, NULL, NULL, &err), RPMAF_E_INVAL);
	assert_string_equal(err.msg, "t.yaml: invalid argument: cfg_ptr is NULL");
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, NULL, 2, NULL, &c, &err), RPMAF_E_INVAL);
	assert_string_equal(err.msg, "t.yaml: invalid argument: buf is NULL");
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, NULL, 0, NULL, &c, &err), RPMAF_E_PARSE);
	assert_string_equal(err.msg, "t.yaml:1:1: no document (a mapping of sections: workers, "
				     "queues, listen, ...)");
	assert_int_equal(rpmaf_cfg_load_buffer(NULL, "a", 1, NULL, &c, &err), RPMAF_E_CONFIG);
	assert_string_equal(err.msg, "<buffer>:1:1: found \"a\" (a mapping of workers, queues, "
				     "listen, targets, regions, timeouts, reconnect, auth, log, "
				     "stats, rpmem)");
	assert_int_equal(rpmaf_cfg_load_buffer(NULL, "a", 1, NULL, &c, NULL), RPMAF_E_CONFIG);
	assert_null(c);
	assert_int_equal(rpmaf_cfg_load_file(NULL, NULL, &c, &err), RPMAF_E_INVAL);
	assert_string_equal(err.msg, "<null>: invalid argument: path is NULL");
	assert_int_equal(rpmaf_cfg_load_file("x.yaml", NULL, NULL, &err), RPMAF_E_INVAL);
	assert_string_equal(err.msg, "x.yaml: invalid argument: cfg_ptr is NULL");
	assert_int_equal(rpmaf_cfg_delete(NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf_cfg_delete(&c), 0);
	assert_null(c);
	/* the buffer needs no NUL: only len bytes are read */
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, "{}x", 2, NULL, &c, &err), 0);
	rpmaf_cfg_delete(&c);
}

/* err_str -- every code has a description */
static void
err_str(void **state)
{
	(void)state;
	assert_string_equal(rpmaf_err_str(0), "success");
	assert_string_equal(rpmaf_err_str(RPMAF_E_INVAL), "invalid argument");
	assert_string_equal(rpmaf_err_str(RPMAF_E_NOMEM), "out of memory");
	assert_string_equal(rpmaf_err_str(RPMAF_E_IO), "input/output error");
	assert_string_equal(rpmaf_err_str(RPMAF_E_PARSE), "not an acceptable YAML document");
	assert_string_equal(rpmaf_err_str(RPMAF_E_CONFIG), "invalid configuration");
	assert_string_equal(rpmaf_err_str(RPMAF_E_TIMEOUT), "the operation timed out");
	assert_string_equal(rpmaf_err_str(RPMAF_E_SHUTDOWN), "shutting down");
	assert_string_equal(rpmaf_err_str(RPMAF_E_BUSY), "in use by another server or process");
	assert_string_equal(rpmaf_err_str(-99), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dump_text),    cmocka_unit_test(dump_numbers),
	    cmocka_unit_test(dump_strings), cmocka_unit_test(dump_errors),
	    cmocka_unit_test(equal),	    cmocka_unit_test(api_arguments),
	    cmocka_unit_test(err_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
