/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_doc.c -- the document below the keys: encoding, tabs, YAML syntax,
 * duplicate keys, empty and multiple documents, anchors and aliases, every
 * bound (depth, nodes, entries, anchors, scalar and file size), and files.
 */

#include "config_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* expect_err_len -- expect_err() on len bytes (which may hold NULs) */
static void
expect_err_len(const char *buf, size_t len, int code, const char *msg)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_cfg_err err;

	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, buf, len, NULL, &cfg, &err), code);
	assert_string_equal(err.msg, msg);
	assert_null(cfg);
}

/* encoding -- UTF-8 only, no control characters; the position of the first bad byte */
static void
encoding(void **state)
{
	(void)state;
	expect_err("log: {file: \"\xff\"}", RPMAF_E_PARSE,
		   "t.yaml:1:14: invalid UTF-8 byte 0xff (UTF-8 text)");
	expect_err("log:\n  file: x\xc3", RPMAF_E_PARSE,
		   "t.yaml:2:10: invalid UTF-8 byte 0xc3 (UTF-8 text)");
	expect_err("a: \xc0\xaf", RPMAF_E_PARSE,
		   "t.yaml:1:4: invalid UTF-8 byte 0xc0 (UTF-8 text)");
	expect_err("a: \xe0\x80\xaf", RPMAF_E_PARSE,
		   "t.yaml:1:4: invalid UTF-8 byte 0xe0 (UTF-8 text)");
	expect_err("a: \xed\xa0\x80", RPMAF_E_PARSE,
		   "t.yaml:1:4: invalid UTF-8 byte 0xed (UTF-8 text)");
	expect_err("a: \xf4\x90\x80\x80", RPMAF_E_PARSE,
		   "t.yaml:1:4: invalid UTF-8 byte 0xf4 (UTF-8 text)");
	expect_err("# \xc3\xa9t\xc3\xa9\na: \xc3(", RPMAF_E_PARSE,
		   "t.yaml:2:4: invalid UTF-8 byte 0xc3 (UTF-8 text)");
	expect_err("a: \x07", RPMAF_E_PARSE,
		   "t.yaml:1:4: control character U+0007 (printable text)");
	expect_err("a: \x7f", RPMAF_E_PARSE,
		   "t.yaml:1:4: control character U+007F (printable text)");
	expect_err("a: \xc2\x80", RPMAF_E_PARSE,
		   "t.yaml:1:4: control character U+0080 (printable text)");
	expect_err("a: \xef\xbf\xbe", RPMAF_E_PARSE,
		   "t.yaml:1:4: control character U+FFFE (printable text)");
	expect_err_len("log: {}\n\0", 9, RPMAF_E_PARSE, "t.yaml:2:1: NUL byte (UTF-8 text)");
	/* column counts characters, not bytes */
	expect_err("log: {file: \"\xc3\xa9\xc3\xa9\", level: x\x01}", RPMAF_E_PARSE,
		   "t.yaml:1:27: control character U+0001 (printable text)");
}

/* encoding_ok -- a BOM, CR LF line ends and non-ASCII text are fine */
static void
encoding_ok(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	c = load_ok(
	    "\xef\xbb\xbfworkers:\r\n  count: 2\r\nlog: {file: /tmp/\xc3\xa9t\xc3\xa9}\r\n");
	assert_int_equal(c->workers.count, 2);
	assert_string_equal(c->log.file, "/tmp/\xc3\xa9t\xc3\xa9");
	rpmaf_cfg_delete(&c);
	expect_err("workers:\r\n  count: 2\r\n  cont: 1\r\n", RPMAF_E_CONFIG,
		   "t.yaml:3:3: workers.cont: unknown key (did you mean count? one of count, cpus, "
		   "polling, spin_us, batch)");
	expect_err("workers:\r  count: 2\r  cont: 1\r", RPMAF_E_CONFIG,
		   "t.yaml:3:3: workers.cont: unknown key (did you mean count? one of count, cpus, "
		   "polling, spin_us, batch)");
}

/* tabs -- in indentation, and where YAML wants spaces */
static void
tabs(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	expect_err("workers:\n\tcount: 2\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: tab in indentation (indent with spaces)");
	expect_err("workers:\n  \tcount: 2\n", RPMAF_E_PARSE,
		   "t.yaml:2:3: tab in indentation (indent with spaces)");
	expect_err("log: {}\n\t\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: tab in indentation (indent with spaces)");
	expect_err("targets:\n  -\t{name: a, address: b}", RPMAF_E_PARSE,
		   "t.yaml:2:4: targets[0]: tab character (separate with spaces)");
	/* a tab inside a quoted string, between flow items or after a key is text or a space */
	c = load_ok("log: {file: \"a b\",\tlevel: info}\nworkers:\n  count:\t2\t# two\n");
	assert_int_equal(c->log.level, RPMAF_LOG_INFO);
	assert_int_equal(c->workers.count, 2);
	rpmaf_cfg_delete(&c);
	expect_err("log:\n  file: a\tb\n", RPMAF_E_CONFIG,
		   "t.yaml:2:9: log.file: \"a\\x09b\" is not valid (a path of 1 to 4095 bytes)");
}

/* syntax -- libyaml's complaint, placed where it found the problem */
static void
syntax(void **state)
{
	(void)state;
	expect_err("workers: [\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: workers[0]: YAML syntax error: did not find expected node content "
		   "while parsing a flow node (well-formed YAML)");
	expect_err("workers: {count: 2\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: workers: YAML syntax error: did not find expected ',' or '}' while "
		   "parsing a flow mapping (well-formed YAML)");
	expect_err("workers:\n  count: 2\n batch: 3\n", RPMAF_E_PARSE,
		   "t.yaml:3:2: YAML syntax error: did not find expected key while parsing a block "
		   "mapping (well-formed YAML)");
	expect_err("log: 'abc\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: log: YAML syntax error: found unexpected end of stream while "
		   "scanning a quoted scalar (well-formed YAML)");
	expect_err("\"k\\x01.\": [\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: \"k\\x01.\"[0]: YAML syntax error: did not find expected node "
		   "content while parsing a flow node (well-formed YAML)");
	expect_err("%YAML 2.0\n---\n{}\n", RPMAF_E_PARSE,
		   "t.yaml:1:1: YAML syntax error: found incompatible YAML document (well-formed "
		   "YAML)");
	expect_err(
	    "log: @x\n", RPMAF_E_PARSE,
	    "t.yaml:1:6: log: YAML syntax error: found character that cannot start any token "
	    "while scanning for the next token (well-formed YAML)");
}

/* duplicates -- a key twice in one mapping, at any level and in any style */
static void
duplicates(void **state)
{
	(void)state;
	expect_err("workers: {}\nlog: {}\nworkers: {}\n", RPMAF_E_PARSE,
		   "t.yaml:3:1: duplicate key \"workers\" (first at line 1, column 1)");
	expect_err("workers:\n  count: 2\n  count: 3\n", RPMAF_E_PARSE,
		   "t.yaml:3:3: workers: duplicate key \"count\" (first at line 2, column 3)");
	expect_err("targets: [{name: a, address: b, name: c}]", RPMAF_E_PARSE,
		   "t.yaml:1:33: targets[0]: duplicate key \"name\" (first at line 1, column 12)");
	expect_err("log: {'level': info, \"level\": debug}", RPMAF_E_PARSE,
		   "t.yaml:1:22: log: duplicate key \"level\" (first at line 1, column 7)");
	expect_err("? [a]\n: 1\n", RPMAF_E_PARSE,
		   "t.yaml:1:3: a list as a key (a key is a scalar)");
	expect_err("{{a: 1}: 1}", RPMAF_E_PARSE,
		   "t.yaml:1:2: a mapping as a key (a key is a scalar)");
}

/* documents -- none, an empty one, more than one */
static void
documents(void **state)
{
	(void)state;
	expect_err("", RPMAF_E_PARSE,
		   "t.yaml:1:1: no document (a mapping of sections: workers, queues, listen, ...)");
	expect_err("# nothing\n\n", RPMAF_E_PARSE,
		   "t.yaml:3:1: no document (a mapping of sections: workers, queues, listen, ...)");
	expect_err("---\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: empty document (a mapping of workers, queues, listen, targets, "
		   "regions, timeouts, reconnect, auth, log, stats, rpmem)");
	expect_err("~\n", RPMAF_E_PARSE,
		   "t.yaml:1:1: empty document (a mapping of workers, queues, listen, targets, "
		   "regions, timeouts, reconnect, auth, log, stats, rpmem)");
	expect_err("log: {}\n---\nlog: {}\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: a second document (one document per file)");
	expect_err("--- {}\n--- {}\n", RPMAF_E_PARSE,
		   "t.yaml:2:1: a second document (one document per file)");
	expect_err("{}\n...\n---\n", RPMAF_E_PARSE,
		   "t.yaml:3:1: a second document (one document per file)");
	/* one explicit document, with or without an end marker, is fine */
	struct rpmaf_cfg *c = load_ok("%YAML 1.1\n---\nworkers: {count: 3}\n...\n");

	assert_int_equal(c->workers.count, 3);
	rpmaf_cfg_delete(&c);
}

/* tags -- no explicit tags: each key has its type */
static void
tags(void **state)
{
	(void)state;
	expect_err("workers: !!map {}", RPMAF_E_PARSE,
		   "t.yaml:1:10: workers: tag \"tag:yaml.org,2002:map\" (no tags: each key has a "
		   "fixed type)");
	expect_err(
	    "workers: {count: !!int 2}", RPMAF_E_PARSE,
	    "t.yaml:1:18: workers.count: tag \"tag:yaml.org,2002:int\" (no tags: each key has "
	    "a fixed type)");
	expect_err("log: !x [a]", RPMAF_E_PARSE,
		   "t.yaml:1:6: log: tag \"!x\" (no tags: each key has a fixed type)");
}

/* aliases -- copies of an anchored node, checked where they are used */
static void
aliases(void **state)
{
	struct rpmaf_cfg *c;

	(void)state;
	c = load_ok(
	    "listen: {address: &addr 127.0.0.1}\n"
	    "targets: [{name: a, address: *addr}]\n"
	    "regions: [{name: a, size: 4K, usage: &u [read]}, {name: b, size: 4K, usage: *u}]\n");
	assert_string_equal(c->targets[0].address, "127.0.0.1");
	assert_int_equal(c->regions[1].usage, RPMAF_USAGE_READ);
	rpmaf_cfg_delete(&c);
	/* fine where anchored, wrong where copied: the message is at the alias */
	expect_err("listen: {address: &a host}\ntargets: [{name: a, address: b, port: *a}]",
		   RPMAF_E_CONFIG,
		   "t.yaml:2:39: targets[0].port: found \"host\" (an integer from 1 to 65535)");
	expect_err(
	    "listen: {address: *nope}", RPMAF_E_PARSE,
	    "t.yaml:1:19: listen.address: unknown alias *nope (an anchor &nope earlier, on a "
	    "complete node)");
	expect_err(
	    "log: &x [1, *x]", RPMAF_E_PARSE,
	    "t.yaml:1:13: log[1]: unknown alias *x (an anchor &x earlier, on a complete node)");
	expect_err("log: *x\nstats: &x {}", RPMAF_E_PARSE,
		   "t.yaml:1:6: log: unknown alias *x (an anchor &x earlier, on a complete node)");
	expect_err(
	    "log: *a123456789a123456789a123456789a123456789a123456789a123456789a123456789"
	    "a123456789",
	    RPMAF_E_PARSE,
	    "t.yaml:1:6: log: unknown alias "
	    "*a123456789a123456789a123456789a123456789a123456789a123456789a123456789a12345... "
	    "(an "
	    "anchor "
	    "&a123456789a123456789a123456789a123456789a123456789a123456789a123456789a12345... "
	    "earlier, on a complete node)");
	/* the latest anchor of a name counts */
	c = load_ok("targets: [{name: &f x, address: y}]\nregions: [{name: &f z, size: 4K}]\n"
		    "listen: {address: *f}");
	assert_string_equal(c->listen.address, "z");
	rpmaf_cfg_delete(&c);
}

/* alias_bombs -- aliases that would expand beyond the node budget or the depth bound */
static void
alias_bombs(void **state)
{
	char yaml[1024];
	size_t o = 0;

	(void)state;
	o += (size_t)snprintf(yaml + o, sizeof(yaml) - o, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
	for (char c = 'b'; c <= 'e'; c++)
		o += (size_t)snprintf(
		    yaml + o, sizeof(yaml) - o,
		    "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c - 1,
		    c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:5:8: e[0]: more than 16384 nodes (a smaller document; aliases count "
		   "every copy)");
	expect_err("a: &a [[[[[[[[[[1]]]]]]]]]]\nb: [[[[[[*a]]]]]]\n", RPMAF_E_PARSE,
		   "t.yaml:2:10: b[0][0][0][0][0][0]: alias *a nests deeper than 16 levels (a "
		   "flatter document)");
}

/* depth -- at most 16 nested mappings and lists */
static void
depth(void **state)
{
	char yaml[128];
	struct rpmaf_cfg_err err;
	struct rpmaf_cfg *c = NULL;

	(void)state;
	/* the root mapping and 15 lists: the deepest allowed, refused only as an unknown key */
	snprintf(yaml, sizeof(yaml), "a: %.*s1%.*s", 15, "[[[[[[[[[[[[[[[[", 15,
		 "]]]]]]]]]]]]]]]]");
	assert_int_equal(rpmaf_cfg_load_buffer(T_NAME, yaml, strlen(yaml), NULL, &c, &err),
			 RPMAF_E_CONFIG);
	assert_null(c);
	snprintf(yaml, sizeof(yaml), "a: %.*s1%.*s", 16, "[[[[[[[[[[[[[[[[", 16,
		 "]]]]]]]]]]]]]]]]");
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:1:19: a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nesting deeper "
		   "than 16 levels (a flatter document)");
}

/* bounds -- scalar length, entries of a list or mapping, anchors, file size */
static void
bounds(void **state)
{
	char *yaml = malloc(RPMAF_CFG_MAX_FILE + 2);
	char *as = malloc(4097);
	size_t o;

	(void)state;
	assert_non_null(yaml);
	assert_non_null(as);
	memset(as, 'a', 4096);
	as[4096] = '\0';
	/* a scalar of 4096 bytes is fine for the parser (a path of 4096 is not) */
	sprintf(yaml, "log: {file: /%.4095s}", as);
	expect_err(
	    yaml, RPMAF_E_CONFIG,
	    fmt("t.yaml:1:13: log.file: \"/%.88s...\" is not valid (a path of 1 to 4095 bytes)",
		as));
	sprintf(yaml, "log: {file: /%.4094s}", as);
	struct rpmaf_cfg *c = load_ok(yaml);

	assert_int_equal(strlen(c->log.file), 4095);
	rpmaf_cfg_delete(&c);
	sprintf(yaml, "log: {file: /%.4096s}", as);
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:1:13: log.file: scalar of 4097 bytes (at most 4096 bytes)");
	free(as);
	/* 1025 entries in a list, 1025 keys in a mapping, 257 anchors */
	o = (size_t)sprintf(yaml, "workers: {cpus: [");
	for (int i = 0; i < 1025; i++)
		o += (size_t)sprintf(yaml + o, "%s0", i ? "," : "");
	sprintf(yaml + o, "]}");
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:1:2066: workers.cpus[1024]: more than 1024 entries (a shorter list or "
		   "mapping)");
	o = (size_t)sprintf(yaml, "log: {");
	for (int i = 0; i < 1025; i++)
		o += (size_t)sprintf(yaml + o, "%sk%d: 1", i ? ", " : "", i);
	sprintf(yaml + o, "}");
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:1:9137: log: more than 1024 entries (a shorter list or mapping)");
	o = (size_t)sprintf(yaml, "log: [");
	for (int i = 0; i < 257; i++)
		o += (size_t)sprintf(yaml + o, "%s&a%d 1", i ? ", " : "", i);
	sprintf(yaml + o, "]");
	expect_err(yaml, RPMAF_E_PARSE,
		   "t.yaml:1:2201: log[256]: more than 256 anchors (fewer anchors)");
	/* the file size bound */
	memset(yaml, '#', RPMAF_CFG_MAX_FILE + 1);
	expect_err_len(yaml, RPMAF_CFG_MAX_FILE + 1, RPMAF_E_IO,
		       "t.yaml: 1048577 bytes, more than 1048576 (a smaller file)");
	free(yaml);
}

/* files -- load_file on a good file, a missing one, a directory, a large one */
static void
files(void **state)
{
	const char *path = tmp_path("good.yaml");
	struct rpmaf_cfg_err err;
	struct rpmaf_cfg *c = NULL;
	FILE *f = fopen(path, "w");

	(void)state;
	/* a long file name is shown by its end */
	assert_int_equal(
	    rpmaf_cfg_load_buffer("/a/very/long/directory/name/that/goes/on/and/on/and/"
				  "on/and/on/and/on/and/on/and/on/and/on/and/on/and/on/"
				  "and/on/and/on/and/on/and/on/and/on/and/on/and/on/and/"
				  "on/and/on/to/the/file.yaml",
				  "x", 1, NULL, &c, &err),
	    RPMAF_E_CONFIG);
	assert_memory_equal(err.msg, "...name/that/goes/on/", 20);
	assert_non_null(strstr(err.msg, "/on/to/the/file.yaml:1:1: found \"x\""));
	assert_non_null(f);
	fputs("workers:\n  count: 2\n  cont: 1\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rpmaf_cfg_load_file(path, NULL, &c, &err), RPMAF_E_CONFIG);
	assert_string_equal(err.msg, fmt("%s:3:3: workers.cont: unknown key (did you mean count? "
					 "one of count, cpus, polling, spin_us, batch)",
					 path));
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 3);
	assert_null(c);
	f = fopen(path, "w");
	fputs("workers:\n  count: 2\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rpmaf_cfg_load_file(path, NULL, &c, &err), 0);
	assert_int_equal(c->workers.count, 2);
	rpmaf_cfg_delete(&c);

	assert_int_equal(rpmaf_cfg_load_file("/nonexistent/x.yaml", NULL, &c, &err), RPMAF_E_IO);
	assert_string_equal(err.msg, "/nonexistent/x.yaml: cannot open: No such file or directory "
				     "(a readable configuration file)");
	assert_int_equal(err.line, 0);
	assert_int_equal(rpmaf_cfg_load_file(tmp_path(""), NULL, &c, &err), RPMAF_E_IO);
	assert_string_equal(err.msg, fmt("%s: not a regular file (a YAML file)", tmp_path("")));
	path = tmp_file("big.yaml", RPMAF_CFG_MAX_FILE + 1, 0600);
	assert_int_equal(rpmaf_cfg_load_file(path, NULL, &c, &err), RPMAF_E_IO);
	assert_string_equal(err.msg,
			    fmt("%s: 1048577 bytes, more than 1048576 (a smaller file)", path));
	assert_null(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(encoding),	   cmocka_unit_test(encoding_ok),
	    cmocka_unit_test(tabs),	   cmocka_unit_test(syntax),
	    cmocka_unit_test(duplicates),  cmocka_unit_test(documents),
	    cmocka_unit_test(tags),	   cmocka_unit_test(aliases),
	    cmocka_unit_test(alias_bombs), cmocka_unit_test(depth),
	    cmocka_unit_test(bounds),	   cmocka_unit_test(files),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
